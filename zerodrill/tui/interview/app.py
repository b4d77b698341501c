"""The interview rehearsal app: one screen per step of an :class:`InterviewRun`.

:func:`create_interview_app` is the one way to build it, used by ``zerodrill interview`` and
by the tests. Each screen saves its step through the run, then posts ``StepDone``; the app
shows the screen of the run's next step. Quitting at any point leaves the attempt where it
is: the next run of the command resumes it (the run's own rule).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from textual import on
from textual.app import App
from textual.binding import Binding
from textual.events import Resize
from textual.screen import Screen

from zerodrill.deck.model import Deck
from zerodrill.errors import UserError
from zerodrill.srs.days import local_now, study_day
from zerodrill.srs.interview import AttemptResult, InterviewRun, Step, choose
from zerodrill.srs.store import Store
from zerodrill.tui.interview.answering import FollowUpScreen, QuestionScreen
from zerodrill.tui.interview.base import InterviewScreen, StepDone
from zerodrill.tui.interview.checklists import PointsScreen, RedFlagsScreen
from zerodrill.tui.interview.end import EndScreen
from zerodrill.tui.screens.too_small import follow_size
from zerodrill.tui.terminal import end_on_hang_up
from zerodrill.tui.user_errors import UserErrorRaised, user_errors_exit

Clock = Callable[[], datetime]
#: How often the clock on screen is redrawn, in seconds.
TICK = 0.25


class InterviewApp(App[AttemptResult | None]):
    """Returns the attempt's result once it is finished; None when quit before."""

    CSS_PATH = "interview.tcss"
    TITLE = "zerodrill interview"
    ENABLE_COMMAND_PALETTE = False

    # Ctrl+C and Ctrl+Q end the interview as q does, from every screen, a typing box too
    # (priority: a TextArea would otherwise take Ctrl+C as copy).
    BINDINGS = [
        Binding("ctrl+q", "finish", "Quit", show=False, priority=True),
        Binding("ctrl+c", "finish", "Quit", show=False, priority=True),
    ]

    def __init__(self, run: InterviewRun, *, clock: Clock = local_now) -> None:
        super().__init__()
        self.run_ = run
        self.clock = clock
        self.result: AttemptResult | None = None
        #: The user error that ended the app, for the CLI to print as its one line.
        self.error: UserError | None = None

    @on(UserErrorRaised)
    def _fail(self, message: UserErrorRaised) -> None:
        self.error = message.error
        self.exit(return_code=1)

    def get_default_screen(self) -> Screen[None]:
        return self._step_screen()

    def on_mount(self) -> None:
        follow_size(self, *self.size)
        self.set_interval(TICK, self.tick)
        # Every step is already saved when the terminal goes.
        end_on_hang_up(self, lambda: self.result)

    def tick(self) -> None:
        """Redraw the clock of the step on show (and end a question whose time is up)."""
        for screen in self.screen_stack:
            if isinstance(screen, InterviewScreen) and screen.is_attached:
                screen.tick()

    # -- the steps -----------------------------------------------------------------------

    def _step_screen(self) -> Screen[None]:
        run = self.run_
        step = run.step
        if step is Step.QUESTION:
            return QuestionScreen(run)
        if step is Step.POINTS:
            return PointsScreen(run, run.question_typed)
        if step is Step.FOLLOW_UPS:
            card = run.follow_up_card()
            assert card is not None
            total = len(run.interview.follow_ups)
            return FollowUpScreen(
                run, card, number=run.follow_up_index + 1, total=total, store=run.store, day=run.day
            )
        if step is Step.RED_FLAGS:
            return RedFlagsScreen(run, run.red_flag_cards())
        self.result = run.finish()
        return EndScreen(run, self.result)

    @on(StepDone)
    @user_errors_exit
    def _step_done(self) -> None:
        screen = self._step_screen()
        stack = self.screen_stack
        while len(stack) > 1 and not isinstance(stack[-1], InterviewScreen):
            self.pop_screen()  # the too-small notice, put back over the new step below
        if len(self.screen_stack) == 1:
            # Textual cannot switch away from the first screen: the next goes over it.
            self.push_screen(screen)
        else:
            self.switch_screen(screen)
        follow_size(self, *self.size)

    def action_finish(self) -> None:
        self.exit(self.result)

    async def action_quit(self) -> None:
        self.action_finish()

    # -- the terminal's size (the drill's notice and rule) ---------------------------------

    def on_resize(self, event: Resize) -> None:
        follow_size(self, event.size.width, event.size.height)


def create_interview_app(
    decks: Sequence[Deck],
    store: Store,
    *,
    clock: Clock = local_now,
    deck_id: str | None = None,
    interview_id: str | None = None,
) -> InterviewApp:
    """The interview chosen from ``decks`` (see :func:`zerodrill.srs.interview.choose`), its
    attempt started or resumed in ``store``. A UserError for an unknown id or no interviews."""
    today = study_day(clock())
    deck, interview = choose(store, decks, deck_id=deck_id, interview_id=interview_id, today=today)
    run = InterviewRun.start_or_resume(store, deck, interview, clock=clock, day=today)
    return InterviewApp(run, clock=clock)
