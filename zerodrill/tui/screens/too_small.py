"""Shown over everything while the terminal is too small for the drill to be readable."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Middle
from textual.screen import ModalScreen
from textual.widgets import Static

MIN_WIDTH = 80
MIN_HEIGHT = 24


class TooSmallScreen(ModalScreen[None]):
    CSS_PATH = "screens.tcss"

    BINDINGS = [Binding("q", "app.finish", "Quit")]

    def compose(self) -> ComposeResult:
        with Middle(), Center():
            yield Static(id="too-small-message")

    def on_mount(self) -> None:
        self.set_size(self.app.size.width, self.app.size.height)

    def set_size(self, width: int, height: int) -> None:
        self.query_one("#too-small-message", Static).update(
            f"[b]Make the terminal bigger[/b]\n\n"
            f"zerodrill needs {MIN_WIDTH}×{MIN_HEIGHT}; this one is {width}×{height}.\n"
            f"Your progress is saved. [b]q[/b] quits."
        )


def too_small(width: int, height: int) -> bool:
    return width < MIN_WIDTH or height < MIN_HEIGHT
