"""The export's one error: a deck that cannot be exported as it is."""

from __future__ import annotations


class ExportError(Exception):
    """A deck cannot be exported as it is; the message says why, in one line."""
