"""Textual's command palette, made safe against keys that come faster than it changes.

See :mod:`zerodrill.tui.screens.dialog`: a second Enter on a palette that the first one
already closed popped the drill's own screen (ScreenStackError) and ran the command twice,
and PageUp before the command list had a size raised KeyError.
"""

from __future__ import annotations

from textual.await_complete import AwaitComplete
from textual.command import CommandList
from textual.command import CommandPalette as TextualPalette
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

    def _action_command_list(self, action: str) -> None:
        if action in ("page_up", "page_down") and not can_page(self.query_one(CommandList)):
            return
        super()._action_command_list(action)
