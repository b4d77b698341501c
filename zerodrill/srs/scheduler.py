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
    #: Its place in the log; 0 until the store has logged it.
    id: int = 0

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
