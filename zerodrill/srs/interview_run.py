"""One interview attempt, step by step: the question against a clock, the points ticked, each
follow-up graded as that card's review, the red flags said, and what was missed brought due.

No Textual here: the interview's screens drive an :class:`InterviewRun`, and tests drive it
with an injected clock. Every step is logged the moment it is taken (append-only,
:mod:`zerodrill.srs.store.attempts`), so a run made again on the same store (after quitting,
in another terminal) continues at the next step: the latest attempt of the interview,
unfinished, started the same study day on the interview as it is now. A checklist's ticks are
saved as they are given, so a resumed run starts that step with them ticked. A follow-up's
grade and a red flag said are reviews given with :func:`zerodrill.srs.sitting.record_grade`
in the same transaction as the step, so the drill's same-day rules apply to them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from datetime import date, datetime, timedelta

from msgspec import Struct

from zerodrill.deck.model import Card, Deck, Interview
from zerodrill.errors import UserError
from zerodrill.srs.days import study_day
from zerodrill.srs.grades import to_grade
from zerodrill.srs.interview_log import (
    AttemptSummary,
    choose,
    history,
    shape_of,
)
from zerodrill.srs.interview_steps import (
    AttemptStepData,
    FinishStep,
    FollowUpStep,
    PointsStep,
    QuestionStep,
    RedFlagsStep,
    Step,
)
from zerodrill.srs.schedulers.protocol import GradeOutcome
from zerodrill.srs.sitting import answer_ms, choices, record_grade
from zerodrill.srs.store import Store
from zerodrill.srs.store.attempts import AttemptRecord

__all__ = [
    "AttemptMovedOn",
    "AttemptResult",
    "AttemptSummary",
    "InterviewRun",
    "Step",
    "choose",
    "follow_up_budget",
    "history",
]

#: A red flag said counts as that card's lapse: the grade it is given.
RED_FLAG_GRADE = 1
#: The steps the learner ticks a list in.
_CHECKLISTS = (Step.POINTS, Step.RED_FLAGS)


class AttemptMovedOn(UserError):
    """Another run (another terminal) logged a step of this attempt since this run read it:
    nothing was logged here; a new run continues from where the log says it stands."""


class AttemptResult(Struct, frozen=True):
    points_covered: tuple[int, ...]
    points_total: int
    seconds_used: float
    budget_seconds: int
    follow_up_grades: Mapping[str, int]
    red_flags_said: tuple[str, ...]
    missed_cards: tuple[str, ...]
    trend: tuple[AttemptSummary, ...]


def follow_up_budget(interview: Interview) -> timedelta:
    """A follow-up is a quarter of the opening question's time, and at least a minute."""
    return max(timedelta(minutes=1), timedelta(minutes=interview.minutes) / 4)


class InterviewRun:
    """One attempt, saved step by step (append-only) so quitting and coming back resumes it.

    Make one with :meth:`start_or_resume`. The steps come in order; each method raises
    :class:`RuntimeError` when called at another step, and :class:`ValueError` for a point
    index, card id or grade the interview does not have; and :class:`AttemptMovedOn`, logging
    nothing, if another terminal logged a step of this attempt since.
    """

    def __init__(
        self,
        store: Store,
        deck: Deck,
        interview: Interview,
        record: AttemptRecord,
        clock: Callable[[], datetime],
        *,
        resumed: bool = False,
    ) -> None:
        self.store = store
        self.deck = deck
        self.interview = interview
        self.attempt_id = record.id
        self.day = record.day
        self._clock = clock
        self._cards = {card.id: card for card in deck.cards}
        self.question_typed: str | None = None
        self.seconds_used: float | None = None
        self.covered: tuple[int, ...] | None = None
        self.follow_up_grades: dict[str, int] = {}
        self.red_flags_said: tuple[str, ...] | None = None
        self._result: AttemptResult | None = None
        self._missed: tuple[str, ...] | None = None
        for step in record.steps:
            self._replay(step)
        #: The latest ticks saved for each checklist step not handed in yet.
        self._ticks: dict[Step, tuple[int, ...]] = {}
        if resumed and self.step in _CHECKLISTS:
            saved = store.attempts.ticks(record.id).get(self.step.value, ())
            size = self._checklist_size()
            self._ticks[self.step] = tuple(i for i in saved if i < size)
        #: Steps of this attempt in the log as this run knows it.
        self._logged = len(record.steps)
        # A new attempt's question started when it did; a resumed step starts again now.
        self.step_started_at = clock() if resumed else record.started_at

    @classmethod
    def start_or_resume(
        cls,
        store: Store,
        deck: Deck,
        interview: Interview,
        *,
        clock: Callable[[], datetime],
        day: date | None = None,
    ) -> InterviewRun:
        """The latest attempt of ``interview`` if it is unfinished, from study day ``day``
        (default: the clock's), on the interview as it is now; else a new attempt, logged."""
        now = clock()
        day = day if day is not None else study_day(now)
        shape = shape_of(interview)
        attempts = store.attempts.attempts(deck.id, interview.id)
        last = attempts[-1] if attempts else None
        if (
            last is not None
            and last.day == day
            and last.shape == shape
            and not any(isinstance(step, FinishStep) for step in last.steps)
        ):
            return cls(store, deck, interview, last, clock, resumed=True)
        record = store.attempts.start(deck.id, interview.id, shape=shape, at=now, day=day)
        return cls(store, deck, interview, record, clock)

    # -- where the attempt stands -----------------------------------------------------------

    def _replay(self, step: AttemptStepData) -> None:
        match step:
            case QuestionStep():
                self.question_typed = step.typed
                self.seconds_used = step.seconds
            case PointsStep():
                self.covered = step.covered
            case FollowUpStep():
                self.follow_up_grades[step.card] = step.grade
            case RedFlagsStep():
                self.red_flags_said = step.said
            case FinishStep():
                self._missed = step.missed

    @property
    def step(self) -> Step:
        """The step to take next (:data:`Step.FINISH` once finished, too)."""
        if self.seconds_used is None:
            return Step.QUESTION
        if self.covered is None:
            return Step.POINTS
        if self.follow_up_index < len(self.interview.follow_ups):
            return Step.FOLLOW_UP
        if self.red_flags_said is None and self.interview.red_flags:
            return Step.RED_FLAGS
        return Step.FINISH

    @property
    def ticked(self) -> tuple[int, ...]:
        """The entries of the checklist on show ticked so far (restored on resuming)."""
        return self._ticks.get(self.step, ())

    def _checklist_size(self) -> int:
        if self.step is Step.POINTS:
            return len(self.interview.points)
        return len(self.interview.red_flags)

    @property
    def follow_up_index(self) -> int:
        """The follow-up on show (or next): how many have been graded."""
        return len(self.follow_up_grades)

    def elapsed(self) -> timedelta:
        return self._clock() - self.step_started_at

    def budget(self) -> timedelta:
        """The current step's time; ``timedelta(0)`` for untimed steps."""
        if self.step is Step.QUESTION:
            return timedelta(minutes=self.interview.minutes)
        if self.step is Step.FOLLOW_UP:
            return follow_up_budget(self.interview)
        return timedelta(0)

    def _expect(self, step: Step) -> None:
        if self.step is not step:
            raise RuntimeError(f"the interview is at {self.step.value}, not {step.value}")

    @contextmanager
    def _logging(self, now: datetime) -> Iterator[None]:
        """One transaction logging the next step (and its reviews), refused if another run
        has logged a step of this attempt meanwhile."""
        with self.store.transaction():
            self._check_not_moved_on()
            yield
        self._logged += 1
        self.step_started_at = now

    def _log(self, make: Callable[[datetime], AttemptStepData]) -> None:
        """Log the step ``make`` gives (making it, and its reviews, in the transaction)."""
        now = self._clock()
        with self._logging(now):
            step = make(now)
            self.store.attempts.add_step(self.attempt_id, step, at=now)
        self._replay(step)

    def _check_not_moved_on(self) -> None:
        if self.store.attempts.step_count(self.attempt_id) != self._logged:
            raise AttemptMovedOn(
                f"this attempt at the interview '{self.interview.id}' was carried on in "
                "another terminal: start the interview again to go on from where it is"
            )

    def _seconds(self, now: datetime) -> float:
        return max(0.0, (now - self.step_started_at).total_seconds())

    # -- the steps ------------------------------------------------------------------------

    def finish_question(self, typed: str | None) -> None:
        """The opening question answered (``typed``: what the learner typed, if anything)."""
        self._expect(Step.QUESTION)
        budget = self.interview.minutes * 60
        self._log(lambda now: QuestionStep(self._seconds(now), budget, typed))

    def tick(self, ticked: Collection[int]) -> None:
        """Save the checklist's ticks as they are now, before its step is handed in. Not a
        step: the step's clock and what comes next are unchanged."""
        if self.step not in _CHECKLISTS:
            raise RuntimeError(f"the interview is at {self.step.value}, not at a checklist")
        chosen = _indexes(ticked, self._checklist_size(), "ticks")
        with self.store.transaction():
            self._check_not_moved_on()
            self.store.attempts.add_ticks(
                self.attempt_id, self.step.value, chosen, at=self._clock()
            )
        self._ticks[self.step] = chosen

    def set_points(self, covered: Collection[int]) -> None:
        """The points the learner covered: indexes into ``interview.points``."""
        self._expect(Step.POINTS)
        total = len(self.interview.points)
        chosen = _indexes(covered, total, "point indexes")
        self._log(lambda now: PointsStep(covered=chosen, total=total))

    def follow_up_card(self) -> Card | None:
        """The current follow-up's card; None past the follow-ups."""
        if self.step is not Step.FOLLOW_UP:
            return None
        return self._card(self.interview.follow_ups[self.follow_up_index])

    def grade_follow_up(self, grade: int, typed: str | None) -> None:
        """Grade the current follow-up 0-5: that card's review, logged with the step."""
        self._expect(Step.FOLLOW_UP)
        card = self.follow_up_card()
        assert card is not None
        quality = int(to_grade(grade))

        def step(now: datetime) -> FollowUpStep:
            review = record_grade(
                self.store,
                card.key,
                quality,
                day=self.day,
                at=now,
                answer_ms=answer_ms(self.step_started_at, now),
                typed=typed,
            )
            return FollowUpStep(card.id, quality, typed, self._seconds(now), review.id)

        self._log(step)

    def follow_up_choices(self) -> tuple[GradeOutcome, ...]:
        """What each grade would do to the current follow-up's card now (for its buttons)."""
        card = self.follow_up_card()
        if card is None:
            return ()
        return choices(self.store, card.key, day=self.day, at=self._clock())

    def red_flag_cards(self) -> tuple[Card, ...]:
        return tuple(self._card(card_id) for card_id in self.interview.red_flags)

    def set_red_flags(self, said: Collection[str]) -> None:
        """The red flags the learner said (card ids): each is that card's lapse, graded
        :data:`RED_FLAG_GRADE`; the others are not reviewed."""
        self._expect(Step.RED_FLAGS)
        unknown = set(said) - set(self.interview.red_flags)
        if unknown:
            raise ValueError(f"not red flags of this interview: {sorted(unknown)}")
        ordered = tuple(c for c in self.interview.red_flags if c in set(said))

        def step(now: datetime) -> RedFlagsStep:
            keys = [self._card(c).key for c in ordered]
            grade = RED_FLAG_GRADE
            reviews = [record_grade(self.store, k, grade, day=self.day, at=now).id for k in keys]
            return RedFlagsStep(said=ordered, reviews=tuple(reviews))

        self._log(step)

    def finish(self) -> AttemptResult:
        """End the attempt: the cards of the points missed come due in the drill today.
        Asking again returns the same result and logs nothing more."""
        self._expect(Step.FINISH)
        if self._result is not None:
            return self._result
        covered = self.covered or ()
        if self._missed is None:
            missed = tuple(
                dict.fromkeys(
                    card_id
                    for i, point in enumerate(self.interview.points)
                    if i not in covered
                    for card_id in point.cards
                    if card_id in self._cards and not self._cards[card_id].retired
                )
            )
            keys = [item.key for c in missed for item in self._cards[c].items()]
            now = self._clock()
            with self._logging(now):
                self.store.attempts.add_step(self.attempt_id, FinishStep(missed), at=now)
                self.store.attempts.bring_forward(self.attempt_id, keys, day=self.day)
            self._missed = missed
        attempts = history(self.store, self.deck.id, self.interview.id)
        earlier = tuple(s for s in attempts if s.finished and s.attempt < self.attempt_id)
        self._result = AttemptResult(
            points_covered=tuple(covered),
            points_total=len(self.interview.points),
            seconds_used=self.seconds_used or 0.0,
            budget_seconds=self.interview.minutes * 60,
            follow_up_grades=dict(self.follow_up_grades),
            red_flags_said=self.red_flags_said or (),
            missed_cards=self._missed,
            trend=earlier,
        )
        return self._result

    def _card(self, card_id: str) -> Card:
        card = self._cards.get(card_id)
        if card is None:
            raise ValueError(f"no card '{card_id}' in deck '{self.deck.id}'")
        return card


def _indexes(given: Collection[int], size: int, what: str) -> tuple[int, ...]:
    chosen = tuple(sorted(set(given)))
    if any(not 0 <= i < size for i in chosen):
        raise ValueError(f"{what} must be 0-{size - 1}, not {list(chosen)}")
    return chosen
