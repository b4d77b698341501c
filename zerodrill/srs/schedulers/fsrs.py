"""FSRS-6 behind the scheduler protocol, through the ``fsrs`` package (py-fsrs): FSRS-6's
parameters (the defaults unless the learner saved their own), no fuzz, and a desired retention
(0.9 unless the learner chose another).

py-fsrs is already pure in the way the protocol asks (``review_card(card, rating, when)`` gives
a new card), but two things of it must not reach a replay: fuzzing draws from :mod:`random`,
and a ``Card`` made without an id or a due time reads the wall clock and sleeps a millisecond.
So fuzzing is off (the same events must give the same schedule on every machine and after any
switch of scheduler), and cards are always built with both. A grade becomes one of FSRS's four
ratings by :func:`~zerodrill.srs.schedulers.protocol.rating_of`, the one table of them; the layout
it was pressed on changes nothing here (FSRS's ratings are Anki's four buttons already).

FSRS counts elapsed time between instants (``When.at``); the queue counts study days. A review
interval of N days is due on the review's study day + N; a learning or relearning step (1 or 10
minutes) is due on the review's own study day, at :attr:`FsrsCard.step_due`. A second grade on a
study day is FSRS's own short-term review, not a repeat that moves nothing as in SM-2.

Fitting the parameters to the learner's own log with py-fsrs's ``Optimizer`` needs torch, which
zerodrill does not install: ``zerodrill anki optimize`` fits them with Anki's own optimizer
instead (:mod:`zerodrill.anki_sync.fsrs_fit`). The parameters are FSRS-6's defaults, or those
saved in the setting :data:`PARAMETERS` names (that fit, or the preset's in Anki), which
travels with the log.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

import fsrs
from fsrs.scheduler import DEFAULT_PARAMETERS
from msgspec import Struct, structs

from zerodrill.srs.days import whole_days
from zerodrill.srs.grades import DEFAULT_LAYOUT, Grade
from zerodrill.srs.schedulers.decision import AnkiDecision
from zerodrill.srs.schedulers.protocol import (
    DEFAULT_EASE_PERMILLE,
    AnkiCard,
    Option,
    Phase,
    Rating,
    StateDict,
    When,
    rating_of,
    ratings_text,
)
from zerodrill.srs.schedulers.retention import (
    DEFAULT_RETENTION,
    DESIRED_RETENTION,
    check_retention,
)

#: Anki's ceiling, as SM-2's (:data:`zerodrill.srs.sm2_formula.MAX_INTERVAL`).
MAX_INTERVAL = 36_500

_TO_FSRS = {
    Phase.LEARNING: fsrs.State.Learning,
    Phase.REVIEW: fsrs.State.Review,
    Phase.RELEARNING: fsrs.State.Relearning,
}
_FROM_FSRS = {v: k for k, v in _TO_FSRS.items()}
_STEPPING = (Phase.LEARNING, Phase.RELEARNING)


def read_parameters(text: str) -> tuple[float, ...]:
    """FSRS-6's 21 weights as the setting keeps them, comma-separated (Anki's "FSRS
    parameters" box gives them so); ``ValueError`` for any other text or a weight out of
    py-fsrs's bounds."""
    weights = tuple(float(w) for w in text.split(","))
    if not all(math.isfinite(w) for w in weights):
        raise ValueError(f"FSRS parameters must be numbers, not {text!r}")
    fsrs.Scheduler(parameters=weights)  # py-fsrs's own check of their count and bounds
    return weights


#: The weights FSRS schedules with (FSRS-6's defaults unless the learner saved their own,
#: fitted in Anki, say).
PARAMETERS = Option(
    "parameters",
    "fsrs_parameters",
    "set of FSRS parameters",
    read_parameters,
    lambda weights: ",".join(repr(float(w)) for w in weights),
)


class FsrsCard(Struct, frozen=True, gc=False):
    """What FSRS knows about one study item; :class:`FsrsCard()` is a card never graded.
    Untracked by the garbage collector, as :class:`~zerodrill.srs.schedulers.sm2.Sm2Card`
    is (a value no reference cycle can pass through; a replay makes one for every grade)."""

    phase: Phase = Phase.NEW
    #: The learning or relearning step the card is on; None in the other phases.
    step: int | None = None
    #: Days until the chance of recall falls to 90%; None until the first grade.
    stability: float | None = None
    #: 1 (easy) to 10 (hard); None until the first grade.
    difficulty: float | None = None
    #: When it was last graded (UTC); None for a new card.
    last_review: datetime | None = None
    #: When FSRS wants it again (UTC); None for a new card.
    due_at: datetime | None = None
    #: The study day it is due on; None for a new card.
    due: date | None = None
    #: Days from the last grade's study day to :attr:`due` (0 for a step later that day).
    interval: int = 0
    #: The study day of its latest grade; None for a new card.
    last_day: date | None = None
    #: Times a card in review was answered Again.
    lapses: int = 0

    @property
    def again_on(self) -> date | None:
        return self.due if self.phase in _STEPPING else None

    @property
    def step_due(self) -> datetime | None:
        return self.due_at if self.phase in _STEPPING else None

    def to_dict(self) -> StateDict:
        # Floats go through JSON by their repr, which reads back to the same float.
        return {
            "phase": self.phase.value,
            "step": self.step,
            "stability": self.stability,
            "difficulty": self.difficulty,
            "last_review": _text(self.last_review),
            "due_at": _text(self.due_at),
            "due": _text(self.due),
            "interval": self.interval,
            "last_day": _text(self.last_day),
            "lapses": self.lapses,
        }


def _text(value: date | None) -> str | None:
    return value.isoformat() if value is not None else None


class FsrsScheduler:
    """FSRS-6 with ``parameters`` (its defaults without), fuzz off, aiming at
    ``desired_retention``."""

    name = "fsrs"
    title = "FSRS"
    options = (DESIRED_RETENTION, PARAMETERS)
    grades_help = "\n".join(
        [
            f"FSRS reads them as ratings: {ratings_text()}.",
            "Each button shows when the card comes back: a new or failed",
            "card first takes FSRS's steps (1 and 10 minutes), then whole",
            "days, timed for the desired retention (90% unless --retention).",
        ]
    )

    def __init__(
        self,
        desired_retention: float = DEFAULT_RETENTION,
        parameters: Sequence[float] | None = None,
    ) -> None:
        self.desired_retention = check_retention(desired_retention)
        self._fsrs = fsrs.Scheduler(
            parameters=DEFAULT_PARAMETERS if parameters is None else tuple(parameters),
            desired_retention=self.desired_retention,
            maximum_interval=MAX_INTERVAL,
            enable_fuzzing=False,
        )

    @property
    def fingerprint(self) -> str:
        s = self._fsrs
        steps = ",".join(str(int(t.total_seconds())) for t in s.learning_steps)
        relearn = ",".join(str(int(t.total_seconds())) for t in s.relearning_steps)
        weights = ",".join(repr(w) for w in s.parameters)
        return (
            f"fsrs r={self.desired_retention!r} steps={steps} relearn={relearn} "
            f"max={s.maximum_interval} w={weights}"
        )

    def new_state(self) -> FsrsCard:
        return FsrsCard()

    def review(
        self, state: FsrsCard, grade: Grade, when: When, buttons: int = DEFAULT_LAYOUT
    ) -> FsrsCard:
        rating = _RATING[rating_of(grade)]
        at = when.at.astimezone(UTC)  # py-fsrs takes UTC and nothing else
        card, _ = self._fsrs.review_card(_card(state, at), rating, at)
        lapse = state.phase is Phase.REVIEW and rating is fsrs.Rating.Again
        return self._state(card, at, when.day, state.lapses + lapse)

    @staticmethod
    def _state(card: fsrs.Card, at: datetime, day: date, lapses: int) -> FsrsCard:
        """The state of py-fsrs's ``card`` just reviewed at ``at``, on study day ``day``."""
        phase = _FROM_FSRS[card.state]
        interval = (card.due - at).days if phase is Phase.REVIEW else 0
        return FsrsCard(
            phase=phase,
            step=card.step,
            stability=card.stability,
            difficulty=card.difficulty,
            last_review=at,
            due_at=card.due,
            due=day + whole_days(interval),
            interval=interval,
            last_day=day,
            lapses=lapses,
        )

    def from_anki(
        self, state: FsrsCard, grade: Grade, when: When, buttons: int, decided: AnkiDecision
    ) -> FsrsCard:
        """The card as Anki left it after ``grade``, given there (the inverse of :meth:`anki`):
        the memory state Anki kept where it kept one, else FSRS's own review's; Anki's interval
        and due day, or its learning step within the day."""
        after = self.review(state, grade, when, buttons)
        at = when.at.astimezone(UTC)
        memory = {}
        if decided.stability is not None and decided.difficulty is not None:
            memory = {"stability": decided.stability, "difficulty": decided.difficulty}
        step_due = decided.step_due(at)
        if step_due is not None:
            phase = Phase.RELEARNING if decided.relearning else Phase.LEARNING
            step = after.step if after.phase is phase else 0
            return structs.replace(
                after, phase=phase, step=step, due_at=step_due, due=when.day, interval=0, **memory
            )
        days = decided.interval
        return structs.replace(
            after,
            phase=Phase.REVIEW,
            step=None,
            due_at=at + whole_days(days),
            due=when.day + whole_days(days),
            interval=days,
            **memory,
        )

    def set_due(self, state: FsrsCard, when: When, decided: AnkiDecision) -> FsrsCard:
        """The card after a due date set by hand in Anki, or FSRS's reschedule there, at
        ``when`` (no grade): Anki's due day and interval, the memory state Anki kept where it
        kept one, else the card's (a card new until then takes a first Good's, from then)."""
        at = when.at.astimezone(UTC)
        base = state
        if state.phase is Phase.NEW:
            base = structs.replace(self.review(state, Grade.GOOD, when), last_day=None)
        memory = {}
        if decided.stability is not None and decided.difficulty is not None:
            memory = {"stability": decided.stability, "difficulty": decided.difficulty}
        due = decided.due_on(when.day)
        return structs.replace(
            base,
            phase=Phase.REVIEW,
            step=None,
            due_at=at + timedelta(days=(due - when.day).days),
            due=due,
            interval=decided.interval,
            **memory,
        )

    def next_states(
        self, state: FsrsCard, when: When, buttons: int = DEFAULT_LAYOUT
    ) -> Mapping[Grade, FsrsCard]:
        return {grade: self.review(state, grade, when) for grade in Grade}

    def retrievability(self, state: FsrsCard, at: datetime) -> float | None:
        """The chance the card is recalled at ``at`` (FSRS's R); None for a card never graded."""
        if state.phase is Phase.NEW:
            return None
        now = at.astimezone(UTC)
        return float(self._fsrs.get_card_retrievability(_card(state, now), now))

    def anki(self, state: FsrsCard) -> AnkiCard:
        # FSRS keeps no ease: Anki's default stands in, and the memory state goes with it.
        graded = state.phase is not Phase.NEW
        return AnkiCard(
            state.due,
            state.interval,
            DEFAULT_EASE_PERMILLE,
            int(graded),
            state.lapses,
            state.stability,
            state.difficulty,
            state.last_review,
            self.desired_retention,
            float(self._fsrs.parameters[-1]),
        )

    def state_from_dict(self, data: Mapping[str, Any]) -> FsrsCard:
        try:
            phase = Phase(data["phase"])
            card = FsrsCard(
                phase=phase,
                step=_optional(data["step"], int),
                stability=_optional(data["stability"], float),
                difficulty=_optional(data["difficulty"], float),
                last_review=_optional(data["last_review"], datetime.fromisoformat),
                due_at=_optional(data["due_at"], datetime.fromisoformat),
                due=_optional(data["due"], date.fromisoformat),
                interval=int(data["interval"]),
                last_day=_optional(data["last_day"], date.fromisoformat),
                lapses=int(data["lapses"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"not an FSRS card state: {exc}") from exc
        graded = (card.stability, card.difficulty, card.last_review, card.due_at, card.due)
        if (phase is Phase.NEW) != all(value is None for value in graded):
            raise ValueError(f"not an FSRS card state: {phase.value} with {graded}")
        if card.last_review is not None and card.last_review.tzinfo is None:
            raise ValueError("not an FSRS card state: a review time without its offset")
        return card


def _optional(value: Any, read: Any) -> Any:
    return None if value is None else read(value)


#: py-fsrs's rating of each of the four (:func:`rating_of` says which a grade is).
_RATING = {rating: fsrs.Rating(int(rating)) for rating in Rating}


class _Card(fsrs.Card):
    """py-fsrs's card with its seven fields set as given (its own ``__init__`` fills in
    defaults: a card id from the clock, a sleep, a due time from the clock), and copied
    field by field: ``review_card`` copies the card it is given, which ``copy.copy`` does
    generically at five times the cost (a replay makes and copies one for every grade:
    bench_anki_sync.py's 20,000, issue 35 point 7)."""

    def __init__(
        self,
        state: fsrs.State,
        step: int | None,
        stability: float | None,
        difficulty: float | None,
        due: datetime,
        last_review: datetime | None,
    ) -> None:
        self.card_id = 0
        self.state = state
        # As py-fsrs's own __init__: a learning card without a step is on the first.
        self.step = 0 if step is None and state is fsrs.State.Learning else step
        self.stability = stability
        self.difficulty = difficulty
        self.due = due
        self.last_review = last_review

    def __copy__(self) -> _Card:
        copied = _Card.__new__(_Card)
        copied.__dict__.update(self.__dict__)
        return copied


def _card(state: FsrsCard, at: datetime) -> fsrs.Card:
    # card_id and due given: without them py-fsrs reads the clock and sleeps (see above).
    if state.phase is Phase.NEW:
        return _Card(fsrs.State.Learning, 0, None, None, at, None)
    return _Card(
        _TO_FSRS[state.phase],
        state.step,
        state.stability,
        state.difficulty,
        state.due_at or at,
        state.last_review,
    )
