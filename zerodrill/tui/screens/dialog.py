"""Screens pushed over the drill act only while they are on top, and close once.

Keys arrive faster than screens change: two Enters 15 ms apart both reach a dialog before the
first one's dismissal has taken it off the stack. Textual's ``dismiss`` pops whatever screen is
on top, so the second one popped the drill from under it (ScreenStackError) or ran the result
callback twice. Every screen pushed over the drill (the dialogs here and the command palette
in :mod:`zerodrill.tui.palette`) closes through :func:`close_once`.
"""

from __future__ import annotations

from typing import Any, TypeVar

from textual import events
from textual.await_complete import AwaitComplete
from textual.errors import NoWidget
from textual.screen import ModalScreen, Screen
from textual.widgets import OptionList

R = TypeVar("R")


def on_top(screen: Screen[Any]) -> bool:
    """True while ``screen`` is the one the learner sees and types into."""
    return screen.is_attached and screen.is_active


def can_page(options: OptionList) -> bool:
    """Whether PageUp/PageDown can move through ``options`` yet.

    Textual's OptionList pages by its laid-out lines, which a list not yet given a size has
    none of (KeyError: 0 from a PageUp right after the list opens).
    """
    return bool(options.option_count and options.scrollable_content_region.height)


class ClickGuard(Screen[Any]):
    """A screen that drops a mouse press landing on a widget already taken off the screen.

    Right after a dialog closes, the screen's map of what is where can still name one of the
    dialog's widgets; Textual's text selection then starts on a widget with no parent
    (AttributeError in Screen._forward_event). Such a press has nothing to act on.
    """

    def _forward_event(self, event: events.Event) -> None:
        if isinstance(event, events.MouseDown):
            try:
                widget, _ = self.get_widget_at(event.screen_x, event.screen_y)
            except NoWidget:
                widget = None
            if widget is not None and widget is not self and not widget.is_attached:
                return
        super()._forward_event(event)


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
