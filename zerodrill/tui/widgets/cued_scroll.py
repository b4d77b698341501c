"""A scrolling area that says when more of it is below the fold, and how to get there: a
scrollbar two characters wide is easy to miss at 80×24."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static


class CuedScroll(VerticalScroll):
    DEFAULT_CSS = """
    CuedScroll > .more-cue {
        dock: bottom;
        display: none;
        width: 100%;
        height: 1;
        padding: 0 2;
        text-align: right;
        color: $text-accent;
        background: $background;
    }
    """

    CUE = "↓ more: ↓ PgDn End"
    #: The cue made invisible rather than taken out of the layout: its coming and going lays
    #: nothing out again, but an area as tall as its content is a row taller for it.
    CUE_KEEPS_ITS_ROW = False

    def compose(self) -> ComposeResult:
        cue = Static(self.CUE, classes="more-cue", id="more")
        if self.CUE_KEEPS_ITS_ROW:
            cue.styles.display = "block"
            cue.visible = False
        yield cue

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.update_cue()

    def watch_virtual_size(self) -> None:
        self.update_cue()

    def on_resize(self) -> None:
        self.update_cue()

    def update_cue(self) -> None:
        # Docked, the cue is drawn over the area and takes no room: showing it moves nothing.
        more = self.scroll_y < self.max_scroll_y
        for cue in self.query_children(".more-cue"):
            if self.CUE_KEEPS_ITS_ROW:
                if cue.visible != more:
                    cue.visible = more
            elif cue.display != more:
                cue.display = more
