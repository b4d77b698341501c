"""What every interview screen shares: the header with the clock, the key bar, q to quit."""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message

from zerodrill.srs.interview_run import InterviewRun
from zerodrill.tui.interview.widgets import InterviewHeader
from zerodrill.tui.textual_internals import ClickGuard, on_top
from zerodrill.tui.widgets.cued_scroll import CuedScroll

QUIT = Binding("q", "app.finish", "Quit")
# Arrows are the checklists' own.
SCROLL_KEYS = [
    Binding("pageup", "scroll_body(-10)", "Page up", show=False),
    Binding("pagedown", "scroll_body(10)", "Page down", show=False),
]


class Body(CuedScroll, can_focus=False):
    """The step's text; never takes focus, so no key is taken from the screen by surprise."""

    CUE = "↓ more: PgDn"


class StepDone(Message):
    """The screen's step is saved: the app shows the next one."""


class InterviewScreen(ClickGuard):
    step_name = ""
    timed = False

    def __init__(self, run: InterviewRun) -> None:
        super().__init__()
        self.run = run
        self.header = InterviewHeader(run.interview.title, self.step_name)
        #: Set once the step is handed in: a key on its way after that does nothing.
        self.handed_in = False

    def on_mount(self) -> None:
        self.tick()

    def tick(self) -> None:
        if self.timed and not self.handed_in:
            self.header.set_clock(self.run.elapsed(), self.run.budget())

    def hand_in(self) -> bool:
        """Claim the step: False if it was handed in already, or the screen is not on top."""
        if self.handed_in or not on_top(self):
            return False
        self.handed_in = True
        return True

    def action_scroll_body(self, lines: int) -> None:
        for body in self.query(Body).results(Body):
            body.scroll_relative(y=lines, animate=False)

    def step_done(self) -> None:
        self.post_message(StepDone())
