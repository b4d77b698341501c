"""What the drill and the interview apps share: the first screen, switching screens,
quitting, the terminal's size and hang-up, and a user error ending the app."""

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
    # Priority: a TextArea would take Ctrl+C as copy, and Textual's own only says to press
    # Ctrl+Q, in a notice that piles up.
    BINDINGS = [Binding("ctrl+q,ctrl+c", "finish", "Quit", show=False, priority=True, system=True)]

    def __init__(self, *, clock: Clock = local_now) -> None:
        super().__init__()
        self.clock = clock
        self.error: UserError | None = None

    def first_screen(self) -> Screen[None]:
        raise NotImplementedError

    def result_so_far(self) -> R | None:
        """What the app returns if it ends now (everything is saved as it is given)."""
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
        is up (which switch_screen would replace)."""
        if isinstance(self.screen_stack[-1], TooSmallScreen):
            self.pop_screen()
        if len(self.screen_stack) == 1:
            # Textual cannot switch away from the first screen: it stays hidden below.
            self.push_screen(screen)
        else:
            self.switch_screen(screen)
        follow_size(self, *self.size)

    @user_errors_exit
    def action_finish(self) -> None:
        self.exit(self.result_so_far())

    async def action_quit(self) -> None:
        await self.action_finish()
