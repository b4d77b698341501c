"""The framed note of the summary and nothing-due screens. Its look is in DEFAULT_CSS, not
screens.tcss: either can be the app's first screen, whose CSS_PATH Textual does not read."""

from __future__ import annotations

from textual.containers import Vertical


class NotePanel(Vertical):
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
