"""Characters that act on a terminal or break Anki's storage, and how to show text without them.

A deck is text from contributors, and so are file names and anything else a user hands
zerodrill. The characters matched here must never reach a terminal raw (ESC starts escape
sequences that retitle the window or wipe the screen, CR and BS overwrite what was printed)
nor Anki (its fields are joined with U+001F). Line and paragraph separators count too: YAML
reads them as line breaks, and terminals do not; bidirectional overrides reorder what a
reviewer reads on screen and in a pull request.

Tab and newline are the only controls a deck value may hold.
"""

from __future__ import annotations

import re

#: C0 controls but tab and newline, DEL, C1 controls, line/paragraph separators, bidi controls.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# The same set with newline and tab, for text shown on one line.
_ON_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def first_control(text: str) -> int | None:
    match = CONTROL.search(text)
    return match.start() if match else None


def describe(char: str) -> str:
    """A character of :data:`CONTROL` as a message names it, e.g. ``U+001B``."""
    return f"U+{ord(char):04X}"


def shown(text: str) -> str:
    """``text`` for one line of a terminal: every control character written as an escape."""
    if _ON_ONE_LINE.search(text) is None:
        return text
    return _ON_ONE_LINE.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
