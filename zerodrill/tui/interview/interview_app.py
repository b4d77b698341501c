"""The interview rehearsal app: one screen per step of an :class:`InterviewRun`. Each screen
saves its step through the run, then posts ``StepDone``; the app shows the next step's."""

from __future__ import annotations

from collections.abc import Sequence

from textual import on
from textual.screen import Screen

from zerodrill.deck.model import Deck
from zerodrill.srs.days import local_now, study_day
from zerodrill.srs.interview_run import AttemptResult, InterviewRun, Step, choose
from zerodrill.srs.store import Store
from zerodrill.tui.app_base import AppBase, Clock
from zerodrill.tui.interview.answering import FollowUpScreen, QuestionScreen
from zerodrill.tui.interview.checklists import PointsScreen, RedFlagsScreen
from zerodrill.tui.interview.end import EndScreen
from zerodrill.tui.interview.step_screen import InterviewScreen, StepDone
from zerodrill.tui.user_errors import user_errors_exit

TICK = 0.25


class InterviewApp(AppBase[AttemptResult]):
    CSS_PATH = ["interview.tcss", "../app_base.tcss"]
    TITLE = "zerodrill interview"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, run: InterviewRun, *, clock: Clock = local_now) -> None:
        super().__init__(clock=clock)
        self.run_ = run
        self.result: AttemptResult | None = None

    def first_screen(self) -> Screen[None]:
        return self._step_screen()

    def result_so_far(self) -> AttemptResult | None:
        return self.result

    def on_mount(self) -> None:
        self.set_interval(TICK, self.tick)

    def tick(self) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, InterviewScreen) and screen.is_attached:
                screen.tick()

    def _step_screen(self) -> Screen[None]:
        run = self.run_
        match run.step:
            case Step.QUESTION:
                return QuestionScreen(run)
            case Step.POINTS:
                return PointsScreen(run, run.question_typed)
            case Step.FOLLOW_UP:
                return FollowUpScreen(run)
            case Step.RED_FLAGS:
                return RedFlagsScreen(run, run.red_flag_cards())
            case Step.FINISH:
                self.result = run.finish()
                return EndScreen(run, self.result)

    @on(StepDone)
    @user_errors_exit
    def _step_done(self) -> None:
        self.show(self._step_screen())


def create_interview_app(
    decks: Sequence[Deck],
    store: Store,
    *,
    clock: Clock = local_now,
    deck_id: str | None = None,
    interview_id: str | None = None,
) -> InterviewApp:
    """The interview chosen from ``decks`` (see :func:`zerodrill.srs.interview_run.choose`), its
    attempt started or resumed in ``store``. A UserError for an unknown id or no interviews."""
    today = study_day(clock())
    deck, interview = choose(store, decks, deck_id=deck_id, interview_id=interview_id, today=today)
    run = InterviewRun.start_or_resume(store, deck, interview, clock=clock, day=today)
    return InterviewApp(run, clock=clock)
