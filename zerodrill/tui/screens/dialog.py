"""Screens pushed over the drill act only while they are on top, and close once.

Keys arrive faster than screens change: two Enters 15 ms apart both reach a dialog before the
first one's dismissal has taken it off the stack. Textual's ``dismiss`` pops whatever screen is
on top, so the second one popped the drill from under it (ScreenStackError) or ran the result
callback twice. Every screen pushed over the drill closes once: the dialogs here, and the
command palette (:mod:`zerodrill.tui.textual_internals`, with the other overrides of Textual's
private API).
"""

from __future__ import annotations

from typing import TypeVar

from textual.await_complete import AwaitComplete
from textual.screen import ModalScreen

from zerodrill.tui.textual_internals import ClickGuard, on_top

R = TypeVar("R")


class Dialog(ClickGuard, ModalScreen[R]):
    """A modal screen that closes once, and only while it is on top."""

    _dismissed = False

    def dismiss(self, result: R | None = None) -> AwaitComplete:
        if self._dismissed or not on_top(self):
            return AwaitComplete()  # nothing to wait for
        self._dismissed = True
        return super().dismiss(result)

    async def action_dismiss(self, result: R | None = None) -> None:
        self.dismiss(result)
