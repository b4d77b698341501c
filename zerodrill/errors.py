"""Errors a user can cause. The CLI prints their message as one line and exits 1."""

from __future__ import annotations


class UserError(Exception):
    """An expected failure with a message written for the user (no traceback)."""


class RecoverableError(UserError):
    """A user error that leaves the work usable: the drill shows it and carries on."""


class ExportError(Exception):
    """A deck cannot be exported as it is; the message says why, in one line."""
