"""Screens pushed over the drill act only while they are on top, and close once.

Two Enters 15 ms apart both reach a dialog before the first one's dismissal has taken it off
the stack, and Textual's ``dismiss`` pops whatever is on top: the drill, from under it
(ScreenStackError). While a dialog is up, the scrolling areas below hide their scrollbars: a
thumb beside the dialog's own read as two thumbs of one list.
"""

from __future__ import annotations

from typing import TypeVar

from textual.await_complete import AwaitComplete
from textual.containers import ScrollableContainer
from textual.screen import ModalScreen

from zerodrill.tui.textual_internals import ClickGuard, on_top

R = TypeVar("R")


class Dialog(ClickGuard, ModalScreen[R]):
    _dismissed = False
    _hidden: tuple[ScrollableContainer, ...] = ()

    def on_mount(self) -> None:
        stack = self.app.screen_stack
        if self in stack[1:]:
            below = stack[stack.index(self) - 1]
            scrolls = below.query(ScrollableContainer).results(ScrollableContainer)
            # Hidden, not removed: the gutter stays, so the text below does not move.
            self._hidden = tuple(s for s in scrolls if s.styles.scrollbar_visibility == "visible")
            for scroll in self._hidden:
                scroll.styles.scrollbar_visibility = "hidden"

    def on_unmount(self) -> None:
        for scroll in self._hidden:
            # Back to what the stylesheet says (clearing the rule alone redraws nothing).
            scroll.styles.clear_rule("scrollbar_visibility")
            scroll.refresh(layout=True)

    def dismiss(self, result: R | None = None) -> AwaitComplete:
        if self._dismissed or not on_top(self):
            return AwaitComplete()  # nothing to wait for
        self._dismissed = True
        return super().dismiss(result)

    async def action_dismiss(self, result: R | None = None) -> None:
        self.dismiss(result)
