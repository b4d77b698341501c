"""SM-2 behind the scheduler protocol: :mod:`zerodrill.srs.sm2_formula`'s formula, plus what a drill
adds to it, each rule written here once.

- **Same-day repeats** (SM-2's step 7): a grade on a study day the card was graded already
  moves no schedule; a card whose latest grade that day is below 4 comes back that day
  (:attr:`Sm2Card.again_on`) until it gets 4 or 5.
- **A learning step**: a fail (below 3) comes back :data:`LEARNING_STEP` after it at the latest
  (:attr:`Sm2Card.step_due`; the drill also brings it forward after a few other cards).
- **Phases**: new until graded; learning or relearning while it comes back the same day
  (learning on the day it was introduced); review otherwise.
- **Easy on Anki's four buttons** (grade 5 pressed on the four-button layout, or Anki's ease 4
  imported from Anki): SM-2 gives every pass the same interval (I(1) = 1 and I(2) = 6 whatever
  the grade, then ⌈I × EF⌉ with the EF from *before* the grade), so Easy would give what Good
  gives, 1 day on a new card. As in Anki, Easy gives that interval times Anki's easy bonus
  (:data:`EASY_BONUS`, 1.3), rounded up, and at least Anki's easy interval
  (:data:`EASY_INTERVAL`, 4 days): a new card 4 days, where Good gives 1. Repetitions, EF and
  lapses are SM-2's for a 5, and SM-2 goes on from the card's new interval (but for its I(2),
  6 days after a first pass whatever that was). A same-day repeat moves no schedule, Easy's
  neither (the first rule). A 5 given on the six grades is SM-2's exactly.

Everything else is SM-2 exactly, day-based: only :attr:`When.day` moves a schedule.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, timedelta
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field, structs

from zerodrill.srs import sm2_formula as sm2
from zerodrill.srs.days import whole_days
from zerodrill.srs.grades import ANKI_LAYOUT, DEFAULT_LAYOUT, Grade, check_layout, to_grade
from zerodrill.srs.schedulers.decision import AnkiDecision
from zerodrill.srs.schedulers.protocol import AnkiCard, Option, Phase, Scheduler, StateDict, When
from zerodrill.srs.sm2_formula import MAX_INTERVAL, MIN_EF_HUNDREDTHS, REPEAT_BELOW, Sm2State

#: How long after a fail the card comes back at the latest, the same study day.
LEARNING_STEP = timedelta(minutes=10)
#: Anki's "easy interval" (its default): the fewest days Easy on the four buttons gives.
EASY_INTERVAL = 4
#: Anki's "easy bonus" (its default, 130%): Easy's interval over the one SM-2 gives a pass.
EASY_BONUS = Fraction(13, 10)


def easy_interval(passed: int) -> int:
    """The interval Easy on the four buttons gives a card to which SM-2 gives ``passed`` days
    for any pass (see the module docstring): ⌈``passed`` × 1.3⌉, at least 4, at most
    :data:`~zerodrill.srs.sm2_formula.MAX_INTERVAL`. In integers, as SM-2's own ceiling."""
    bonus = -(-passed * EASY_BONUS.numerator // EASY_BONUS.denominator)
    return min(MAX_INTERVAL, max(EASY_INTERVAL, bonus))


class Sm2Card(Struct, frozen=True, gc=False):
    """A card's SM-2 state and what its latest grade on its latest study day says.

    Untracked by the garbage collector (``gc=False``): a value of scalars and other values,
    which no reference cycle can pass through. A replay makes one or two for every grade,
    and the collector's passes over them took a quarter of the replay of
    bench_anki_sync.py's 20,000 grades (issue 35 point 7)."""

    sm2: Sm2State = field(default_factory=Sm2State)
    #: The study day of its first grade in effect.
    first_day: date | None = None
    #: The study day, grade and time of its latest grade in effect.
    last_day: date | None = None
    last_grade: Grade | None = None
    last_at: datetime | None = None
    #: The latest grade was given in Anki, and its schedule is Anki's (:meth:`Sm2Scheduler.
    #: from_anki`): the card comes back the same day only on Anki's learning step, at
    #: :attr:`anki_step`, not by SM-2's same-day rule.
    anki: bool = False
    anki_step: datetime | None = None

    @property
    def phase(self) -> Phase:
        # The state's due read straight (Sm2State.is_new), and the members as module names
        # (_NEW...): every grade of a replay asks (effect_of; bench_anki_sync.py's 20,000).
        if self.sm2.due is None:
            return _NEW
        if self.again_on is None:
            return _REVIEW
        return _LEARNING if self.first_day == self.last_day else _RELEARNING

    @property
    def due(self) -> date | None:
        return self.sm2.due

    @property
    def interval(self) -> int:
        return self.sm2.interval

    @property
    def again_on(self) -> date | None:
        if self.anki:
            return self.last_day if self.anki_step is not None else None
        if self.last_grade is not None and self.last_grade < REPEAT_BELOW:
            return self.last_day
        return None

    @property
    def step_due(self) -> datetime | None:
        if self.anki:
            return self.anki_step
        if self.last_at is not None and self.last_grade is not None and not self.last_grade.passed:
            return self.last_at + LEARNING_STEP
        return None

    def to_dict(self) -> StateDict:
        s = self.sm2
        anki = {"anki_step": _day_text(self.anki_step)} if self.anki else {}
        return anki | {
            "reps": s.repetitions,
            "interval": s.interval,
            "ef": s.ef_hundredths,
            "due": _day_text(s.due),
            "lapses": s.lapses,
            "first_day": _day_text(self.first_day),
            "last_day": _day_text(self.last_day),
            "last_grade": int(self.last_grade) if self.last_grade is not None else None,
            "last_at": self.last_at.isoformat() if self.last_at is not None else None,
        }


#: Enum members read as module names, not through their classes: for every grade replayed.
_NEW, _REVIEW, _LEARNING, _RELEARNING = Phase.NEW, Phase.REVIEW, Phase.LEARNING, Phase.RELEARNING
_PERFECT = Grade.PERFECT


#: Anki's lowest ease (permille) SM-2 takes: its EF floor.
_MIN_EASE = 10 * MIN_EF_HUNDREDTHS


def _checked(grade: Grade, buttons: int) -> Grade:
    """``grade`` as a :class:`Grade`, pressed on a layout there is (4 or 6); ``ValueError``
    otherwise. One test for a grade as a replay hands it on (bench_anki_sync.py's 20,000):
    :func:`to_grade` and :func:`check_layout` are called for anything else."""
    if type(grade) is Grade and type(buttons) is int:
        if buttons == ANKI_LAYOUT or buttons == DEFAULT_LAYOUT:
            return grade
    grade = to_grade(grade)
    check_layout(buttons)
    return grade


def _same_day(state: Sm2Card, day: date) -> bool:
    """A grade on study day ``day`` is a same-day repeat, which moves no schedule: the card
    was graded that day (or later) already, and not onto a learning step of Anki's."""
    last = state.last_day
    # On a learning step Anki gave, the next grade, that day too, moves the schedule.
    return last is not None and day <= last and not (state.anki and state.anki_step is not None)


def _day_text(day: date | datetime | None) -> str | None:
    return day.isoformat() if day is not None else None


def _at(text: Any) -> datetime | None:
    return datetime.fromisoformat(text) if text is not None else None


def _day(text: Any) -> date | None:
    return date.fromisoformat(text) if text is not None else None


class Sm2Scheduler:
    """SuperMemo 2, exactly (:mod:`zerodrill.srs.sm2_formula`), with the drill's same-day rules and
    Anki's Easy on the four buttons."""

    name = "sm2"
    title = "SM-2"
    options: tuple[Option, ...] = ()
    grades_help = "\n".join(
        [
            "Each button shows the interval the grade gives. Below 4, the",
            "card also comes back later in this session ([b]↻[/b]) until you grade",
            "it 4 or 5: after a fail (0-2), once 3 other cards or 10 minutes",
            "have passed; after a 3, once the rest of today's cards are done.",
        ]
    )

    @property
    def fingerprint(self) -> str:
        return "sm2"

    def new_state(self) -> Sm2Card:
        return Sm2Card()

    def review(
        self, state: Sm2Card, grade: Grade, when: When, buttons: int = DEFAULT_LAYOUT
    ) -> Sm2Card:
        grade = _checked(grade, buttons)
        day = when.day
        if _same_day(state, day):
            # A same-day repeat: logged, the schedule unchanged.
            return Sm2Card(state.sm2, state.first_day, state.last_day, grade, when.at)
        first = state.first_day if state.first_day is not None else day
        # SM-2's counts, and Easy's interval in place of its own on the four buttons: one
        # state made (sm2.review's, less the interval it would replace).
        reps, interval, ef, lapses = sm2.counts(state.sm2, grade)
        if grade is _PERFECT and buttons == ANKI_LAYOUT:
            interval = easy_interval(interval)
        after = Sm2State(reps, interval, ef, day + whole_days(interval), lapses)
        return Sm2Card(after, first, day, grade, when.at)

    def from_anki(
        self, state: Sm2Card, grade: Grade, when: When, buttons: int, decided: AnkiDecision
    ) -> Sm2Card:
        """The card as Anki left it after ``grade``, given there (the inverse of :meth:`anki`):
        Anki's interval, due day and ease (its factor / 10, EF's hundredths), SM-2's
        repetitions and lapses for the grade (:meth:`review`'s: none moved by a same-day
        repeat; Easy's interval is Anki's here); on a learning step, due that day at Anki's
        step, and the next grade (in a terminal too) is SM-2's from there."""
        grade = _checked(grade, buttons)
        day = when.day
        s = state.sm2
        reps, ef, lapses = s.repetitions, s.ef_hundredths, s.lapses
        if not _same_day(state, day):
            # The counts alone: one state made, not review's two (bench_anki_sync.py's
            # 10,000 answers from Anki).
            reps, _, ef, lapses = sm2.counts(s, grade)
        if decided.ease_permille >= _MIN_EASE:
            ef = decided.ease_permille // 10
        # On a step, due that day with no interval and no pass in a row yet, as in Anki: the
        # next pass is SM-2's first, one day.
        if decided.step_seconds is not None:
            reps = 0
        s = Sm2State(reps, decided.interval, ef, day + whole_days(decided.interval), lapses)
        first = state.first_day if state.first_day is not None else day
        return Sm2Card(s, first, day, grade, when.at, True, decided.step_due(when.at))

    def set_due(self, state: Sm2Card, when: When, decided: AnkiDecision) -> Sm2Card:
        """The card after a due date set by hand in Anki at ``when`` (no grade): Anki's due
        day, interval and ease (where it keeps one). Its repetitions are at least SM-2's
        second pass, so that the next pass goes on from the interval set (⌈I × EF⌉), as
        Anki's does; its latest grade stays its latest."""
        s = state.sm2
        ef = decided.ease_permille // 10 if decided.ease_permille >= _MIN_EASE else s.ef_hundredths
        s = structs.replace(
            s,
            repetitions=max(s.repetitions, 2),
            interval=decided.interval,
            ef_hundredths=ef,
            due=decided.due_on(when.day),
        )
        return structs.replace(state, sm2=s, anki=True, anki_step=None)

    def next_states(
        self, state: Sm2Card, when: When, buttons: int = DEFAULT_LAYOUT
    ) -> Mapping[Grade, Sm2Card]:
        return {grade: self.review(state, grade, when, buttons) for grade in Grade}

    def state_from_dict(self, data: Mapping[str, Any]) -> Sm2Card:
        try:
            grade = data["last_grade"]
            at = data["last_at"]
            return Sm2Card(
                Sm2State(
                    data["reps"], data["interval"], data["ef"], _day(data["due"]), data["lapses"]
                ),
                _day(data["first_day"]),
                _day(data["last_day"]),
                to_grade(grade) if grade is not None else None,
                datetime.fromisoformat(at) if at is not None else None,
                "anki_step" in data,
                _at(data.get("anki_step")),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not an SM-2 card state: {exc}") from exc

    def anki(self, state: Sm2Card) -> AnkiCard:
        # Anki's own scheduler is SM-2's kin: its columns are SM-2's numbers.
        s = state.sm2
        return AnkiCard(s.due, s.interval, s.ease_permille, s.repetitions, s.lapses)


if TYPE_CHECKING:
    # mypy holds the class to the protocol here.
    _check: Scheduler[Sm2Card] = Sm2Scheduler()
