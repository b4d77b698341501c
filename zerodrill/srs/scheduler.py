"""The scheduler: a grade turned into a new state and the log entry that records it.

Pure, as :mod:`zerodrill.srs.sm2` is: no clock, no I/O. :func:`review_card` takes a card's
state, a grade, the study day and the wall time and returns ``(new_state, entry)``, as py-fsrs's
``review_card`` does; the review store only appends the entry. :func:`replay` reads the states
back out of a log, which is why the store's state table can always be rebuilt from its log.
:func:`preview` is what the grade buttons show: what each grade would do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum

from zerodrill.srs import sm2
from zerodrill.srs.sm2 import REPEAT_BELOW, Grade, Sm2State


class ReviewKind(StrEnum):
    GRADE = "grade"  #: a grade that moved the schedule
    REPEAT = "repeat"  #: a same-day repeat (SM-2 step 5/7): logged, moves nothing
    UNDO = "undo"  #: takes back the review ``undoes``


@dataclass(frozen=True, slots=True)
class Review:
    """One entry of the review log, with the card's state before and after it."""

    key: str
    kind: ReviewKind
    #: Wall time, timezone-aware.
    at: datetime
    #: The study day the entry belongs to (for an undo: the day of the review it undoes).
    day: date
    #: None for an undo.
    grade: Grade | None
    before: Sm2State
    after: Sm2State
    answer_ms: int | None = None
    typed: str | None = None
    undoes: int | None = None
    #: Its place in this database's log; 0 until the store has logged it.
    id: int = 0
    #: Where it was made: a database's machine id, or ``"anki"``; "" until logged. With
    #: :attr:`origin_seq`, its identity on every machine (:attr:`identity`).
    origin: str = ""
    #: Its number among its origin's reviews (for Anki, the revlog id); 0 until logged.
    origin_seq: int = 0
    #: For an undo: the :attr:`identity` of the review it takes back.
    undoes_ref: tuple[str, int] | None = None

    @property
    def identity(self) -> tuple[str, int]:
        """(origin, origin_seq): the same review on every machine, whichever log holds it."""
        return (self.origin, self.origin_seq)

    @property
    def repeat(self) -> bool:
        return self.kind is ReviewKind.REPEAT

    @property
    def introduced(self) -> bool:
        """This grade was the card's first: it turned a new card into a scheduled one."""
        return self.kind is ReviewKind.GRADE and self.before.is_new


@dataclass(frozen=True, slots=True)
class GradeOutcome:
    """What one grade would do to the card on show (for the grade buttons)."""

    grade: Grade
    #: Days from the review day to the next due day.
    interval: int
    due: date
    #: Step 7: the card comes back later in this session.
    again_today: bool
    #: False for a same-day repeat: the grade is logged but the schedule stays.
    moves_schedule: bool


def review_card(
    state: Sm2State,
    quality: int,
    *,
    key: str,
    day: date,
    at: datetime,
    answer_ms: int | None = None,
    typed: str | None = None,
    repeat: bool = False,
) -> tuple[Sm2State, Review]:
    """Grade the card ``key``, in ``state``, with ``quality`` (0..5) on study day ``day``.

    Returns the card's new state and the log entry recording the grade. ``repeat`` marks a
    same-day repeat (SM-2 step 7): logged, with the state unchanged. ``at`` is the wall time; a
    naive one is taken as local time.
    """
    grade = sm2.to_grade(quality)
    if not key:
        raise ValueError("a review needs a card key")
    if answer_ms is not None and answer_ms < 0:
        raise ValueError(f"answer time must not be negative, not {answer_ms}")
    stamped = at if at.tzinfo is not None else at.astimezone()
    after = state if repeat else sm2.review(state, grade, day)
    kind = ReviewKind.REPEAT if repeat else ReviewKind.GRADE
    return after, Review(key, kind, stamped, day, grade, state, after, answer_ms, typed)


def preview(state: Sm2State, day: date, *, repeat: bool = False) -> tuple[GradeOutcome, ...]:
    """What each grade 0-5 would do to a card in ``state`` on ``day``."""
    outcomes = []
    for grade in Grade:
        after = state if repeat and not state.is_new else sm2.review(state, grade, day)
        interval, due = after.interval, after.due
        assert due is not None
        outcomes.append(GradeOutcome(grade, interval, due, grade < REPEAT_BELOW, not repeat))
    return tuple(outcomes)


def replay(log: Iterable[Review]) -> dict[str, Sm2State]:
    """Each scheduled card's state as ``log`` (oldest first) says it must be; new cards absent.

    The states are the ones the log recorded, not SM-2 run again: a schedule stays what it was
    when it was given, whatever a later zerodrill computes.
    """
    states: dict[str, Sm2State] = {}
    kinds: dict[int, ReviewKind] = {}
    for review in log:
        kinds[review.id] = review.kind
        undone = kinds.get(review.undoes) if review.undoes is not None else None
        # Repeats, and undos of repeats, leave the schedule where it was.
        if review.kind is ReviewKind.GRADE or undone is ReviewKind.GRADE:
            if review.after.is_new:
                states.pop(review.key, None)
            else:
                states[review.key] = review.after
    return states


def time_order(review: Review) -> tuple[date, datetime, str, int]:
    """The order a card's reviews are replayed in: by study day, as SM-2 counts days (a clock
    set wrong, or a machine in another time zone, cannot put a review before one of an
    earlier day), then when they were given (as an instant), then by global identity, so
    every machine agrees on ties."""
    return (review.day, review.at, review.origin, review.origin_seq)


def rebuild_card(entries: Iterable[Review]) -> tuple[Sm2State, list[Review]]:
    """One card's state from all its log entries (any order), by SM-2 run again.

    Returns the state and the grades and repeats in effect, in :func:`time_order`, each with
    the kind, before and after state the replay gave it: an undo cancels the review its
    :attr:`~Review.undoes_ref` names; a repeat stays one, and a grade moves the schedule only
    on a study day after the last one that did (else it is a same-day repeat: a grade from
    another machine that now comes earlier the same day turns this one into a repeat).
    """
    entries = list(entries)
    undone = {e.undoes_ref for e in entries if e.kind is ReviewKind.UNDO}
    in_effect = sorted(
        (e for e in entries if e.kind is not ReviewKind.UNDO and e.identity not in undone),
        key=time_order,
    )
    state = Sm2State.new()
    last_day: date | None = None
    replayed = []
    for entry in in_effect:
        assert entry.grade is not None
        if entry.repeat or (last_day is not None and entry.day <= last_day):
            replayed.append(_placed(entry, ReviewKind.REPEAT, state, state))
            continue
        after = sm2.review(state, entry.grade, entry.day)
        replayed.append(_placed(entry, ReviewKind.GRADE, state, after))
        state, last_day = after, entry.day
    return state, replayed


def _placed(entry: Review, kind: ReviewKind, before: Sm2State, after: Sm2State) -> Review:
    # dataclasses.replace, spelled out: three times faster, and a replay makes one per review.
    e = entry
    return Review(
        e.key, kind, e.at, e.day, e.grade, before, after, e.answer_ms, e.typed, e.undoes,
        e.id, e.origin, e.origin_seq, e.undoes_ref,
    )  # fmt: skip


def rebuild(log: Iterable[Review]) -> dict[str, Sm2State]:
    """Each scheduled card's state by :func:`rebuild_card` over ``log`` (any order); new cards
    absent. Unlike :func:`replay`, it trusts no recorded state, so it holds for logs merged
    from several places; for a log made in one place the two agree."""
    by_key: dict[str, list[Review]] = {}
    for review in log:
        by_key.setdefault(review.key, []).append(review)
    states = {}
    for key, entries in by_key.items():
        state, _ = rebuild_card(entries)
        if not state.is_new:
            states[key] = state
    return states
