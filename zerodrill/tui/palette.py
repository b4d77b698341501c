"""Textual's command palette, made safe against keys that come faster than it changes.

See :mod:`zerodrill.tui.screens.dialog`: a second Enter on a palette that the first one
already closed popped the drill's own screen (ScreenStackError) and ran the command twice,
and PageUp before the command list had a size raised KeyError.
"""

from __future__ import annotations

from textual import work
from textual.await_complete import AwaitComplete
from textual.command import CommandList
from textual.command import CommandPalette as TextualPalette
from textual.css.query import NoMatches
from textual.message import Message
from textual.widgets import Button, Input, OptionList

from zerodrill.tui.screens.dialog import can_page, on_top

#: What a palette's widgets send it when the learner types or chooses: ignored once closing.
_CHOICES = (Input.Submitted, Input.Changed, Button.Pressed, OptionList.OptionSelected)


class CommandPalette(TextualPalette):
    # Textual's name: the palette is the same one, told apart only by what it refuses.

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
