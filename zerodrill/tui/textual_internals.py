"""Every override of Textual's private API, each with the crash it prevents.

Keys arrive faster than screens change, and a mouse press can land on a widget a closing
screen has just removed; Textual handles neither everywhere. ``textual`` is pinned in
pyproject.toml and tests/test_pinned_internals.py checks every name overridden here: when
one goes, look for the upstream fix and drop the override.
"""

from __future__ import annotations

from typing import Any

from textual import events, work
from textual.await_complete import AwaitComplete
from textual.command import CommandList
from textual.command import CommandPalette as TextualPalette
from textual.css.query import NoMatches
from textual.errors import NoWidget
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Input, OptionList


def on_top(screen: Screen[Any]) -> bool:
    """True while ``screen`` is the one the learner sees and types into."""
    return screen.is_attached and screen.is_active


class ResizeGuard(Screen[Any]):
    """A screen that lays itself out only at the terminal's size of now.

    Resized twice while busy, a screen can hold two Resize events of different sizes, and the
    key-mashing test saw screens laid out at one size and the other without end (100% CPU).
    The app's size is the terminal's of now, set before the screens hear of it: an event of
    any other size is stale. Upstream: no Textual issue found.
    """

    async def _on_resize(self, event: events.Resize) -> None:
        drop_stale_resize(self, event)


def drop_stale_resize(screen: Screen[Any], event: events.Resize) -> None:
    # Textual calls each class's handler in turn, Screen's last: prevent_default ends the walk.
    if event.size != screen.app.size:
        event.prevent_default()
        event.stop()


class ClickGuard(ResizeGuard):
    """A screen that drops a mouse press landing on a widget already taken off the screen.

    Right after a dialog closes, the screen's map can still name one of its widgets, and text
    selection starts on a widget with no parent (AttributeError in ``_forward_event``).
    Reported downstream: https://github.com/agentscope-ai/QwenPaw/issues/6008.
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


def can_page(options: OptionList) -> bool:
    """Whether PageUp/PageDown can move through ``options`` yet: OptionList pages by its
    laid-out lines, and one not yet given a size has none (KeyError: 0). Reported downstream:
    https://github.com/kagan-sh/kagan-legacy/issues/31."""
    return bool(options.option_count and options.scrollable_content_region.height)


class PagedOptionList(OptionList):
    def action_page_up(self) -> None:
        if can_page(self):
            super().action_page_up()  # type: ignore[no-untyped-call]

    def action_page_down(self) -> None:
        if can_page(self):
            super().action_page_down()  # type: ignore[no-untyped-call]


#: What a palette's widgets send it when the learner types or chooses: ignored once closing.
_CHOICES = (Input.Submitted, Input.Changed, Button.Pressed, OptionList.OptionSelected)


class CommandPalette(TextualPalette):
    """Textual's command palette, safe against keys that come faster than it changes.

    A second Enter on a palette already closed popped the drill (ScreenStackError) and ran the
    command twice; a search running when it left the stack looked for its gone list
    (NoMatches). Upstream: https://github.com/Textualize/textual/issues/4884.
    """

    _dismissed = False

    def dismiss(self, result: None = None) -> AwaitComplete:
        if self._dismissed or not on_top(self):
            return AwaitComplete()  # nothing to wait for
        self._dismissed = True
        # A search still queued would look for the command list after it is gone (NoMatches).
        self._cancel_gather_commands()
        return super().dismiss(result)

    async def _on_message(self, message: Message) -> None:
        if isinstance(message, _CHOICES) and (self._dismissed or not on_top(self)):
            # Its command is already chosen and on its way; a second choice would run it twice.
            message.stop()
            return
        await super()._on_message(message)

    async def _on_resize(self, event: events.Resize) -> None:
        drop_stale_resize(self, event)  # as every other screen of the drill's (ResizeGuard)

    @work(exclusive=True, group=TextualPalette._GATHER_COMMANDS_GROUP)
    async def _gather_commands(self, search_value: str) -> None:
        # A palette taken off the stack without closing (the sitting ended under it) loses its
        # command list before its search worker is cancelled: that search has no list to fill.
        search = TextualPalette._gather_commands.__wrapped__  # type: ignore[attr-defined]
        try:
            await search(self, search_value)
        except NoMatches:
            if self.is_attached and not self._dismissed:
                raise

    def _action_command_list(self, action: str) -> None:
        if action in ("page_up", "page_down") and not can_page(self.query_one(CommandList)):
            return
        super()._action_command_list(action)
