"""Screens pushed over the drill act only while they are on top, and close once.

Keys arrive faster than screens change: two Enters 15 ms apart both reach a dialog before the
first one's dismissal has taken it off the stack. Textual's ``dismiss`` pops whatever screen is
on top, so the second one popped the drill from under it (ScreenStackError) or ran the result
callback twice. Every screen pushed over the drill closes once: the dialogs here, and the
command palette (:mod:`zerodrill.tui.textual_internals`, with the other overrides of Textual's
private API).

A dialog's backdrop lets the screen below show through, dimmed, scrollbar and all: that thumb
beside the dialog's own read as two thumbs of one list (the talk track over a long list of
points). While a dialog is up, the scrolling areas below it hide their scrollbars.
"""

from __future__ import annotations

from typing import TypeVar

from textual.await_complete import AwaitComplete
from textual.containers import ScrollableContainer
from textual.screen import ModalScreen

from zerodrill.tui.textual_internals import ClickGuard, on_top

R = TypeVar("R")


class Dialog(ClickGuard, ModalScreen[R]):
    """A modal screen that closes once, and only while it is on top; the scrollbars of the
    screen below are hidden while it is up."""

    _dismissed = False
    #: The scrolling areas of the screen below whose scrollbars this dialog hides.
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
