"""Every override of Textual's private API, each with the crash it prevents.

Keys arrive faster than screens change (two Enters 15 ms apart both reach a screen before the
first one's result has taken it off the stack), and a mouse press can land on a widget that a
closing screen has just removed. Textual handles neither everywhere; the overrides below do,
in the few places the drill met them. Each reaches into a part of Textual that is not its
public API, so it is held to what is tested: ``textual`` is pinned in pyproject.toml, and
tests/test_pinned_internals.py checks that every name overridden here is still there with
the arguments used (CI runs it, with the tests that drive these paths, on the lowest Textual
the pin allows too). When one goes, look for the upstream fix and drop the override.

The dialogs' own guard (:class:`zerodrill.tui.screens.dialog.Dialog`) overrides public API
only (``dismiss``) and lives with them.
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


# -- Screen._on_resize --------------------------------------------------------------------


class ResizeGuard(Screen[Any]):
    """A screen that lays itself out only at the terminal's size of now.

    Textual hands each screen a Resize event for the terminal's size, and the screen lays
    out itself and every screen showing through under it at that size. Resized twice while
    busy (a dialog open, keys queued), a screen can hold two such events of different sizes;
    the drill's key-mashing test then saw two screens laid out at one size and the other,
    over and over, without end (100% CPU, the keys never answered). The terminal's size of now
    is the app's (Textual sets it as the terminal reports it, before the screens hear of it),
    and a newer event for it is on its way: an event of any other size is stale and is
    dropped. Upstream: no Textual issue found.
    """

    async def _on_resize(self, event: events.Resize) -> None:
        drop_stale_resize(self, event)


def drop_stale_resize(screen: Screen[Any], event: events.Resize) -> None:
    """Stop ``event`` before Screen's own handler if it is not for the terminal's size of now
    (see :class:`ResizeGuard`). Textual calls each class's handler in turn, Screen's after
    those of its subclasses: ``prevent_default`` ends the walk."""
    if event.size != screen.app.size:
        event.prevent_default()
        event.stop()


# -- Screen._forward_event ----------------------------------------------------------------


class ClickGuard(ResizeGuard):
    """A screen that drops a mouse press landing on a widget already taken off the screen.

    Right after a dialog closes, the screen's map of what is where can still name one of the
    dialog's widgets; Textual's text selection then starts on a widget with no parent
    (AttributeError in ``Screen._forward_event``). Such a press has nothing to act on.
    Upstream: no Textual issue found; the same crash is reported downstream, e.g.
    https://github.com/agentscope-ai/QwenPaw/issues/6008 and worked around the same way in
    https://github.com/arrase/ollama-agent/pull/171.
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


# -- OptionList paging --------------------------------------------------------------------


def can_page(options: OptionList) -> bool:
    """Whether PageUp/PageDown can move through ``options`` yet.

    Textual's OptionList pages by its laid-out lines, which a list not yet given a size has
    none of (KeyError: 0 from a PageUp right after the list opens). Upstream: no Textual issue
    found; reported downstream in https://github.com/kagan-sh/kagan-legacy/issues/31.
    """
    return bool(options.option_count and options.scrollable_content_region.height)


class PagedOptionList(OptionList):
    """An OptionList whose PageUp and PageDown wait until it has a size (see can_page)."""

    def action_page_up(self) -> None:
        if can_page(self):
            super().action_page_up()  # type: ignore[no-untyped-call]

    def action_page_down(self) -> None:
        if can_page(self):
            super().action_page_down()  # type: ignore[no-untyped-call]


# -- the command palette: _on_message, _gather_commands, _action_command_list ----------------

#: What a palette's widgets send it when the learner types or chooses: ignored once closing.
_CHOICES = (Input.Submitted, Input.Changed, Button.Pressed, OptionList.OptionSelected)


class CommandPalette(TextualPalette):
    """Textual's command palette, made safe against keys that come faster than it changes.

    A second Enter on a palette that the first one already closed popped the drill's own
    screen (ScreenStackError) and ran the command twice; PageUp before the command list had a
    size raised KeyError (see can_page); a search still running when the palette was taken
    off the stack looked for its gone command list (NoMatches). Upstream, on dismissing a
    screen that is not on top: https://github.com/Textualize/textual/issues/2575 (closed)
    and https://github.com/Textualize/textual/issues/4884 (open).
    """

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
