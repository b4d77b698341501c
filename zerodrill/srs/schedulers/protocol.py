"""The scheduler protocol: what every scheduler (SM-2, FSRS) gives the rest of zerodrill.

A scheduler is pure, in the shape py-fsrs uses: no clock, no I/O, no randomness inside.

- :meth:`Scheduler.review` takes a card's state, the grade given and :class:`When` it was
  given, and returns the card's new state. Nothing else: the review log keeps only what the
  learner did (:class:`zerodrill.srs.events.ReviewEvent`), and every state is derived by
  replaying a card's events, oldest first, through ``review`` (:func:`replay`).
- :meth:`Scheduler.next_states` is what the grade buttons show: the state each grade would give.
- :meth:`Scheduler.new_state` is a card never graded; :meth:`Scheduler.state_from_dict` reads
  back what :meth:`CardState.to_dict` wrote (the derived cache keeps states that way).

**The study day.** Every review happens at a wall time (``When.at``, aware) *and* on a study day
(``When.day``): the local calendar date with the drill's rollover hour applied
(:func:`zerodrill.srs.days.study_day`). Both are in the log. A day-based scheduler (SM-2) reads
``day`` only; a time-based one (FSRS) reads ``at`` for elapsed time and must still give
:attr:`CardState.due` as a study day, the one the drill's queue works in: the study day of the
review plus the whole days of its interval (``when.day + timedelta(days=interval)``). Within a
study day, a card in a learning or relearning step gives the moment it comes back
(:attr:`CardState.step_due`).

**Grades and ratings, in one place.** The log keeps the learner's grade, 0-5, as SM-2 defines it
(:class:`~zerodrill.srs.grades.Grade`): the six-button layout gives all six, Anki's four buttons
give 1, 3, 4, 5 (:data:`~zerodrill.srs.grades.FOUR_BUTTONS`), and an answer imported from Anki is
logged as the grade of its button. A scheduler with Anki's four ratings (FSRS) reads a grade
through :func:`rating_of`, and nowhere else: 0, 1 and 2 (fails) are Again, 3 Hard, 4 Good,
5 Easy. So Good in the drill, Good in Anki and Good in FSRS are one answer.

**The layout a grade was pressed on** is in the log too
(:attr:`~zerodrill.srs.events.ReviewEvent.buttons`: 6, or 4 for Anki's four buttons and answers
imported from Anki), and ``review`` and ``next_states`` take it as ``buttons``. A scheduler
reads it where the four buttons mean more than their grades: SM-2 gives every pass the same
interval, so on the four buttons Easy would show what Good shows, and the SM-2 scheduler's
one rule for it is in :mod:`.sm2`. FSRS's ratings are the four buttons already: it ignores it.

**Same-day repeats and steps are the scheduler's.** ``review`` is called for *every* grade in
effect, same-day ones included; the scheduler decides what a second grade on one study day
does (SM-2: nothing to the schedule; FSRS: a short-term step) and says so through the state:
:attr:`CardState.phase` (Anki's New/Learning/Review/Relearning), :attr:`CardState.again_on`
(the card comes back on that study day) and :attr:`CardState.step_due`. Nobody else writes
that rule. What a review *was* (a first sight, a recall of a scheduled card, a same-day
repeat) follows from the card's state before it and when it was given, by :func:`effect_of`,
for every scheduler alike; the daily new-card limit and the retention figure count those.

**Implementing one** (FSRS, say), in a module of its own: a frozen msgspec Struct for the
state with the properties of :class:`CardState` and ``to_dict``; a class with what
:class:`Scheduler` lists: its ``name``, ``title``, ``options`` (:class:`Option`: what the
learner may set, kept in the settings), ``grades_help`` (the help's lines on what its grades
do), ``fingerprint``, ``new_state``, ``review``, ``next_states``, ``state_from_dict`` and
``anki`` (how a state reads in Anki's card columns: :class:`AnkiCard`), and ``from_anki``, its
inverse (the state after an answer given in Anki, from what Anki decided:
:class:`~zerodrill.srs.schedulers.decision.AnkiDecision`; a scheduler without it schedules
Anki's answers as its own, :func:`answer`); and one entry in
:data:`zerodrill.srs.schedulers.SCHEDULERS` (or :func:`zerodrill.srs.schedulers.register`).
The palette, the help, the settings, stats, the export and the Anki sync read those, so
nothing else changes. A store derives with the scheduler given to
``Store.open(path, scheduler=...)`` or ``Store.use(...)`` (the learner's saved one if none),
and re-derives every card when its fingerprint differs from the one the cache was built with,
so a switch loses nothing and switching back gives the old schedule exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import IntEnum, StrEnum
from typing import Any, Protocol, TypeVar

from msgspec import Struct

from zerodrill.srs.grades import DEFAULT_LAYOUT, Grade, to_grade
from zerodrill.srs.schedulers.decision import AnkiDecision

#: What :meth:`CardState.to_dict` gives: JSON-safe values only (str, int, float, bool, None,
#: lists and dicts of them), so the cache can keep it as text.
StateDict = dict[str, Any]


class Phase(StrEnum):
    """Where a card stands, as Anki names it."""

    NEW = "new"  #: never graded
    LEARNING = "learning"  #: graded for the first time, and coming back the same day
    REVIEW = "review"  #: scheduled for a later day
    RELEARNING = "relearning"  #: a known card failed, coming back the same day


class Rating(IntEnum):
    """Anki's four answers, which are also FSRS's ratings (and the revlog's ``ease``)."""

    AGAIN = 1
    HARD = 2
    GOOD = 3
    EASY = 4


_RATINGS = {
    Grade.BLACKOUT: Rating.AGAIN,
    Grade.WRONG: Rating.AGAIN,
    Grade.ALMOST: Rating.AGAIN,
    Grade.HARD: Rating.HARD,
    Grade.GOOD: Rating.GOOD,
    Grade.PERFECT: Rating.EASY,
}


def rating_of(grade: int) -> Rating:
    """The four-button rating of a 0-5 grade: the one mapping between the two (see above)."""
    return _RATINGS[to_grade(grade)]


def ratings_text() -> str:
    """ "0-2 Again, 3 Hard, 4 Good, 5 Easy", from the one table of them (:func:`rating_of`)."""
    grades: dict[Rating, list[int]] = {}
    for grade in Grade:
        grades.setdefault(rating_of(grade), []).append(int(grade))
    spans = (f"{g[0]}-{g[-1]}" if len(g) > 1 else f"{g[0]}" for g in grades.values())
    return ", ".join(f"{span} {r.name.title()}" for span, r in zip(spans, grades, strict=True))


@dataclass(frozen=True)
class Option:
    """Something the learner sets for a scheduler (FSRS's desired retention): the keyword its
    class takes, the setting it is kept under, and how that setting's text reads back."""

    #: The keyword the scheduler's class takes it as.
    name: str
    #: Its name in the learner's saved settings.
    setting: str
    #: As the learner reads it ("desired retention").
    title: str
    #: The setting's text as a value; ``ValueError`` for text no zerodrill wrote.
    read: Callable[[str], Any]
    #: The value as the setting's text.
    write: Callable[[Any], str] = repr


class AnkiCard(Struct, frozen=True, gc=False):
    """How a card's state reads in Anki's card columns (an export with progress, the Anki sync).

    Untracked by the garbage collector, as the states are: a value of scalars, which no
    reference cycle can pass through; a replay reads one for each of zerodrill's grades
    (bench_anki_sync.py's 10,000)."""

    #: The study day it is next due on; None for a card never graded (Anki's new queue).
    due: date | None
    #: Days from its last review to :attr:`due`.
    interval: int
    #: Anki's ease (permille): SM-2's EF, else Anki's default 2500.
    ease_permille: int
    #: Passes in a row (SM-2's n), else every grade in effect.
    repetitions: int
    #: Times a known card was failed.
    lapses: int
    #: FSRS's memory state where the scheduler keeps one: stability (days) and difficulty,
    #: with what Anki keeps beside it: the latest grade's time (aware), and the desired
    #: retention and decay (FSRS-6's last parameter) it was scheduled for.
    stability: float | None = None
    difficulty: float | None = None
    last_review: datetime | None = None
    desired_retention: float | None = None
    decay: float | None = None


#: Anki's ease for a card whose scheduler keeps none (FSRS): Anki's default starting ease.
DEFAULT_EASE_PERMILLE = 2500


class When(Struct, frozen=True, gc=False):
    """When a review was given: the wall time (aware) and the study day it counts for.

    Untracked by the garbage collector: two scalars, made for every grade a replay takes."""

    at: datetime
    day: date

    def __post_init__(self) -> None:
        if self.at.tzinfo is None:
            raise ValueError(f"a review's time must carry its UTC offset, not {self.at!r}")


class CardState(Protocol):
    """What every scheduler's state tells the rest of zerodrill. Frozen, comparable with
    ``==``, and serialisable by :meth:`to_dict`."""

    @property
    def phase(self) -> Phase:
        """New, learning, review or relearning (see :class:`Phase`)."""
        ...

    @property
    def due(self) -> date | None:
        """The study day the card is next due on; None for a card never graded."""
        ...

    @property
    def interval(self) -> int:
        """Days from the review that set :attr:`due` to :attr:`due` (0 for a new card): what a
        grade button shows as the interval."""
        ...

    @property
    def last_day(self) -> date | None:
        """The study day of the card's latest grade in effect; None if it has none."""
        ...

    @property
    def again_on(self) -> date | None:
        """The study day on which the card comes back for another grade (a same-day repeat or a
        learning step); None if it does not come back before :attr:`due`."""
        ...

    @property
    def step_due(self) -> datetime | None:
        """On :attr:`again_on`, the moment it comes back (a learning step); None for "after
        the day's other cards"."""
        ...

    def to_dict(self) -> StateDict:
        """The state as JSON-safe values; :meth:`Scheduler.state_from_dict` reads it back."""
        ...


S = TypeVar("S", bound=CardState)


class Scheduler(Protocol[S]):
    """A scheduler: pure functions of a state, a grade and :class:`When`."""

    #: Its name on the command line and in the settings: "sm2", "fsrs".
    name: str
    #: Its name as the learner reads it: "SM-2", "FSRS".
    title: str
    #: What the learner may set for it, kept in the settings (:class:`Option`): each one a
    #: keyword its class takes.
    options: tuple[Option, ...]
    #: The help's lines on what its grades do (between the six grades and Anki's four).
    grades_help: str

    @property
    def fingerprint(self) -> str:
        """The name and every parameter that changes a schedule (desired retention, weights):
        the derived cache is rebuilt when this differs from the one it was built with."""
        ...

    def new_state(self) -> S:
        """A card never graded (:attr:`CardState.phase` is NEW, :attr:`CardState.due` None)."""
        ...

    def review(self, state: S, grade: Grade, when: When, buttons: int = DEFAULT_LAYOUT) -> S:
        """The state after ``grade`` given to a card in ``state`` at ``when``, pressed on the
        layout of ``buttons`` (6, or 4 for Anki's). Called for every grade in effect in time
        order, same-day ones included; never with a ``when`` earlier (by study day) than the
        card's :attr:`~CardState.last_day`."""
        ...

    def next_states(self, state: S, when: When, buttons: int = DEFAULT_LAYOUT) -> Mapping[Grade, S]:
        """What each grade 0-5 would give now, pressed on the layout of ``buttons``:
        ``review`` for each, for the buttons."""
        ...

    def state_from_dict(self, data: Mapping[str, Any]) -> S:
        """The state :meth:`CardState.to_dict` gave; ``ValueError`` for anything else."""
        ...

    def anki(self, state: S) -> AnkiCard:
        """How ``state`` reads in Anki's card columns."""
        ...


class Effect(StrEnum):
    """What one grade was, judged from the card's state before it and after it."""

    FIRST = "first"  #: the card's first grade: it was new (counts against the new-card limit)
    RECALL = "recall"  #: a scheduled review of a known card (counts for retention)
    REPEAT = "repeat"  #: another grade on a study day the card was graded already


def effect_of(before: CardState, when: When) -> Effect:
    """What a grade given at ``when`` to a card in ``before`` is (see :class:`Effect`)."""
    if before.phase is _NEW:
        return _FIRST
    last = before.last_day
    if last is not None and when.day <= last:
        return _REPEAT
    return _RECALL


#: The members effect_of reads, as module names: an enum's member read through its class
#: costs a lookup of the class's, for every grade a replay takes (bench_anki_sync.py's 20,000).
_NEW, _FIRST, _REPEAT, _RECALL = Phase.NEW, Effect.FIRST, Effect.REPEAT, Effect.RECALL


#: A grade in effect as a replay takes it: the grade, the study day, the wall time (aware),
#: and the layout it was pressed on (6, or 4 for Anki's four buttons); without it, six grades,
#: as an event without one (:func:`layout_of`); then, for an answer given in Anki, what Anki
#: decided (:func:`decision_of`). A grade of None is a change made by hand in Anki, no grade
#: (:func:`by_hand`): a due date set (what Anki set), or a Forget (None).
Given = (
    tuple[Grade, date, datetime]
    | tuple[Grade, date, datetime, int]
    | tuple[Grade | None, date, datetime, int, AnkiDecision | None]
)


def layout_of(given: Given) -> int:
    """The layout ``given`` was pressed on: its fourth value, else SM-2's six grades."""
    return given[3] if len(given) >= 4 else DEFAULT_LAYOUT


def decision_of(given: Given) -> AnkiDecision | None:
    """What Anki decided for ``given``, an answer given there; None for zerodrill's."""
    return given[4] if len(given) == 5 else None


def answer(
    scheduler: Scheduler[S],
    state: S,
    grade: Grade,
    when: When,
    buttons: int = DEFAULT_LAYOUT,
    decided: AnkiDecision | None = None,
) -> S:
    """The state after ``grade``: what Anki ``decided`` for an answer given there, read by the
    scheduler's ``from_anki`` (the inverse of its :meth:`Scheduler.anki`), else the
    scheduler's own :meth:`Scheduler.review`. A scheduler that declares no ``from_anki``
    schedules Anki's answers as its own."""
    return answerer(scheduler)(state, grade, when, buttons, decided)


#: :func:`answer` for one scheduler: (state, grade, when, buttons, decided) to the state after.
Answerer = Callable[[S, Grade, When, int, AnkiDecision | None], S]


def answerer(scheduler: Scheduler[S]) -> Answerer[S]:
    """:func:`answer` with ``scheduler`` looked into once: a replay calls it for every grade
    (bench_anki_sync.py's 20,000), and each call goes straight to the scheduler's step."""
    review = scheduler.review
    found = getattr(scheduler, "from_anki", None)
    if found is None:
        return lambda state, grade, when, buttons, decided: review(state, grade, when, buttons)
    adopt: Callable[[S, Grade, When, int, AnkiDecision], S] = found

    def step(state: S, grade: Grade, when: When, buttons: int, decided: AnkiDecision | None) -> S:
        if decided is None:
            return review(state, grade, when, buttons)
        return adopt(state, grade, when, buttons, decided)

    return step


def by_hand(scheduler: Scheduler[S], state: S, when: When, decided: AnkiDecision | None) -> S:
    """The state after a change made by hand in Anki at ``when``: a Forget (``decided``
    None) makes the card new; a due date set gives it the due day, interval and ease Anki
    set, by the scheduler's ``set_due`` (a scheduler without one leaves the state as it
    was). No grade: the card's latest grade stays its latest."""
    if decided is None:
        return scheduler.new_state()
    set_due = getattr(scheduler, "set_due", None)
    if set_due is None:
        return state
    changed: S = set_due(state, when, decided)
    return changed


def replay(scheduler: Scheduler[S], grades: Iterable[Given]) -> tuple[S, list[Effect]]:
    """One card's state after ``grades`` (its grades in effect and the changes made to it by
    hand in Anki, in time order), from new, one :meth:`Scheduler.review` (or
    :func:`by_hand`) at a time, and what each grade was (the changes by hand have none)."""
    state = scheduler.new_state()
    effects = []
    step = answerer(scheduler)
    for given in grades:
        grade, day, at = given[:3]
        when = When(at, day)
        if grade is None:
            state = by_hand(scheduler, state, when, decision_of(given))
            continue
        effects.append(effect_of(state, when))
        state = step(state, grade, when, layout_of(given), decision_of(given))
    return state, effects


class GradeOutcome(Struct, frozen=True):
    """What one grade would do to the card on show (for the grade buttons)."""

    grade: Grade
    #: Days from the review to the next due day (see :attr:`CardState.interval`).
    interval: int
    due: date
    #: The card comes back later the same study day (a repeat or a learning step).
    again_today: bool
    #: False for a same-day repeat that leaves the schedule as it was (SM-2's): the grade is
    #: logged, the card's due day and interval stay.
    moves_schedule: bool
    #: For a learning step (no whole day yet: FSRS's 1 and 10 minutes), how long until the
    #: card comes back; None otherwise.
    step: timedelta | None = None


def outcomes(
    scheduler: Scheduler[S], state: S, when: When, buttons: int = DEFAULT_LAYOUT
) -> tuple[GradeOutcome, ...]:
    """What each grade 0-5 would do to a card in ``state`` at ``when``, pressed on the layout
    of ``buttons``."""
    repeat = effect_of(state, when) is Effect.REPEAT
    shown = []
    for grade, after in scheduler.next_states(state, when, buttons).items():
        due = after.due
        if due is None:
            raise ValueError(f"{scheduler.name} left a graded card without a due day")
        again_today = after.again_on == when.day
        # A same-day grade moves nothing under SM-2; under FSRS it is a short-term review
        # that may graduate the card, and the button says so.
        moves = not repeat or (due, after.interval) != (state.due, state.interval)
        step_due = after.step_due
        step = step_due - when.at if again_today and after.interval == 0 and step_due else None
        shown.append(GradeOutcome(grade, after.interval, due, again_today, moves, step))
    return tuple(shown)
