"""What the drill and the interview apps share: their first screen, how one screen takes the
place of another, quitting, the terminal's size and hang-up, and a user error ending the app.

An app gives :meth:`AppBase.first_screen` and :meth:`AppBase.result_so_far` (what quitting
now returns: everything is saved as it is given, so quitting loses nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from textual import on
from textual.app import App
from textual.binding import Binding
from textual.events import Resize
from textual.screen import Screen

from zerodrill.errors import UserError
from zerodrill.srs.days import local_now
from zerodrill.tui.screens.too_small import TooSmallScreen, follow_size
from zerodrill.tui.terminal import end_on_hang_up
from zerodrill.tui.user_errors import UserErrorRaised, user_errors_exit

Clock = Callable[[], datetime]
R = TypeVar("R")


class AppBase(App[R]):
    """A zerodrill app: screens tell it what happened by messages; it decides what shows next."""

    # Ctrl+C and Ctrl+Q end the app as q does, over any screen or dialog and while typing
    # (priority: a TextArea would otherwise take Ctrl+C as copy; and Textual's own Ctrl+C only
    # says to press Ctrl+Q, in a notice that piles up).
    BINDINGS = [Binding("ctrl+q,ctrl+c", "finish", "Quit", show=False, priority=True, system=True)]

    def __init__(self, *, clock: Clock = local_now) -> None:
        super().__init__()
        self.clock = clock
        #: The user error that ended the app, for the CLI to print as its one line.
        self.error: UserError | None = None

    def first_screen(self) -> Screen[None]:
        raise NotImplementedError

    def result_so_far(self) -> R | None:
        """What the app returns if it ends now."""
        raise NotImplementedError

    def get_default_screen(self) -> Screen[None]:
        # The first screen is the default one, not pushed over an empty default: a pushed
        # screen is styled twice (on mount and on resume), and that delayed the first card.
        return self.first_screen()

    @on(UserErrorRaised)
    def _fail(self, message: UserErrorRaised) -> None:
        self.error = message.error
        self.exit(return_code=1)

    def on_mount(self) -> None:
        follow_size(self, *self.size)
        end_on_hang_up(self, self.result_so_far)

    def on_resize(self, event: Resize) -> None:
        follow_size(self, event.size.width, event.size.height)

    def show(self, screen: Screen[None]) -> None:
        """Put ``screen`` in the place of the one on show, under the too-small notice if it
        is up.

        A plain switch_screen would replace whatever is on top: after a resize, that can be
        the notice, leaving the new screen on show in a terminal too small for it.
        """
        if isinstance(self.screen_stack[-1], TooSmallScreen):
            self.pop_screen()
        if len(self.screen_stack) == 1:
            # Textual cannot switch away from the first screen, so the next one goes over it
            # and the first stays hidden below for the rest of the app.
            self.push_screen(screen)
        else:
            self.switch_screen(screen)
        follow_size(self, *self.size)

    @user_errors_exit
    def action_finish(self) -> None:
        self.exit(self.result_so_far())

    async def action_quit(self) -> None:
        # Ctrl+Q and the palette's Quit end the app as q does.
        await self.action_finish()
