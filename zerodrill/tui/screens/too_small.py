"""Shown over everything while the terminal is too small for the drill to be readable."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Center, Middle
from textual.widgets import Static

from zerodrill.tui.screens.dialog import Dialog

MIN_WIDTH = 80
MIN_HEIGHT = 24


class TooSmallScreen(Dialog[None]):
    CSS_PATH = "screens.tcss"

    BINDINGS = [Binding("q", "app.finish", "Quit")]

    def compose(self) -> ComposeResult:
        with Middle(), Center():
            yield Static(id="too-small-message")

    def on_mount(self) -> None:
        self.set_size(self.app.size.width, self.app.size.height)

    def on_screen_resume(self) -> None:
        # Back on top after a screen over it closed (the command palette, say): the terminal
        # may have changed size meanwhile, with the resize seen by that screen, not this one.
        width, height = self.app.size
        if too_small(width, height):
            self.set_size(width, height)
        else:
            self.dismiss()

    def set_size(self, width: int, height: int) -> None:
        # Each match, not query_one: a resize can come before the message is composed (on_mount
        # then shows the size of that moment).
        for message in self.query("#too-small-message").results(Static):
            message.update(
                f"[b]Make the terminal bigger[/b]\n\n"
                f"zerodrill needs {MIN_WIDTH}×{MIN_HEIGHT}; this one is {width}×{height}.\n"
                f"Your progress is saved. [b]q[/b] quits."
            )


def too_small(width: int, height: int) -> bool:
    return width < MIN_WIDTH or height < MIN_HEIGHT


def follow_size(app: App[Any], width: int, height: int) -> None:
    """Put the too-small notice up over ``app``, or take it down, for a terminal of ``width`` by
    ``height`` (a resize event's: the app's own may not be updated yet)."""
    stack = app.screen_stack
    top = stack[-1] if stack else None
    if too_small(width, height):
        for screen in stack:
            if isinstance(screen, TooSmallScreen):
                screen.set_size(width, height)
        if top is not None and not isinstance(top, TooSmallScreen):
            app.push_screen(TooSmallScreen())
    elif isinstance(top, TooSmallScreen):
        app.pop_screen()
