"""Which link targets a card may carry: the one rule for the drill and the Anki export.

A deck is text from contributors, so a link is kept only when it goes to the web or to an
e-mail address; ``javascript:``, ``data:``, ``file:`` and relative targets are shown as text.
"""

from __future__ import annotations

SAFE_SCHEMES = ("http://", "https://", "mailto:")


def safe_link(href: str) -> bool:
    """Whether ``href`` may be a link: http, https or mailto, in any case."""
    return href[:8].lower().startswith(SAFE_SCHEMES)
