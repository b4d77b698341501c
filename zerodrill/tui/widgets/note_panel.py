"""The framed note in the middle of the summary and nothing-due screens.

Its look is its own (DEFAULT_CSS) rather than in screens.tcss: either screen can be the
app's first, and Textual reads a screen's CSS_PATH only for the screens it pushes.
"""

from __future__ import annotations

from textual.containers import Vertical


class NotePanel(Vertical):
    """A note: a ``panel-title`` line, then the note's text."""

    DEFAULT_CSS = """
    NotePanel {
        width: 64;
        height: auto;
        padding: 1 2;
        border: round $primary;
        background: $surface;
        & > .panel-title { margin-bottom: 1; color: $text-primary; }
    }
    """
