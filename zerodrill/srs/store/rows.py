"""Stored values to domain values and back: the store's readers return these, never rows.

A value that no zerodrill wrote (a date that is no date, an EF below 1.3, an unknown kind) is
:class:`~zerodrill.srs.store.file.Damaged`, which the store reports as one line.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, NamedTuple

from zerodrill.srs.scheduler import Review, ReviewKind
from zerodrill.srs.sm2 import Grade, Sm2State
from zerodrill.srs.store.file import Damaged


def state_params(state: Sm2State) -> tuple[int, int, int, str | None, int]:
    """A state as the columns that hold it (see the schema)."""
    due = state.due.isoformat() if state.due is not None else None
    return (state.repetitions, state.interval, state.ef_hundredths, due, state.lapses)


def date_from(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except (TypeError, ValueError) as exc:
        raise Damaged(f"bad date {text!r}") from exc


def state_from(reps: int, interval: int, ef: int, due: str | None, lapses: int) -> Sm2State:
    try:
        return Sm2State.from_hundredths(
            reps, interval, ef, date_from(due) if due is not None else None, lapses
        )
    except (TypeError, ValueError) as exc:
        raise Damaged(f"bad SM-2 state: {exc}") from exc


def review_from(row: tuple[Any, ...]) -> Review:
    """A row of the ``review`` table, its columns in the order of the schema, then the
    identity of the review an undo takes back (see the store's ``_REVIEW_COLUMNS``)."""
    try:
        return Review(
            id=row[0],
            key=row[1],
            kind=ReviewKind(row[2]),
            at=datetime.fromisoformat(row[3]),
            day=date_from(row[4]),
            grade=Grade(row[5]) if row[5] is not None else None,
            undoes=row[6],
            answer_ms=row[7],
            typed=row[8],
            before=state_from(*row[9:14]),
            after=state_from(*row[14:19]),
            origin=row[19],
            origin_seq=row[20],
            undoes_ref=(row[21], row[22]) if row[6] is not None else None,
        )
    except (TypeError, ValueError) as exc:
        raise Damaged(f"review {row[0]}: {exc}") from exc


class LogLine(NamedTuple):
    """A review without the SM-2 states around it: what another machine needs to log it and
    replay it (``zerodrill sync``), read without the cost of decoding two states per review."""

    origin: str
    seq: int
    key: str
    kind: str
    #: Wall time, timezone-aware.
    at: datetime
    day: date
    grade: int | None
    #: The identity of the review an undo takes back.
    undoes: tuple[str, int] | None
    answer_ms: int | None


#: The ``review`` columns a :class:`LogLine` is read from, in its order (``u`` is the review
#: an undo takes back, joined by id).
LOG_LINE_COLUMNS = (
    "r.origin, r.origin_seq, r.key, r.kind, r.at, r.day, r.grade, u.origin, u.origin_seq, "
    "r.answer_ms, r.id"
)


def log_line_from(row: tuple[Any, ...]) -> LogLine:
    try:
        kind = ReviewKind(row[3]).value
        grade = int(Grade(row[6])) if row[6] is not None else None
        undoes = (row[7], row[8]) if row[7] is not None else None
        if (kind == ReviewKind.UNDO) != (undoes is not None):
            raise ValueError("an undo names what it undoes, and only an undo does")
        return LogLine(
            row[0],
            row[1],
            row[2],
            kind,
            datetime.fromisoformat(row[4]),
            date.fromisoformat(row[5]),
            grade,
            undoes,
            row[9],
        )
    except (TypeError, ValueError) as exc:
        raise Damaged(f"review {row[10]}: {exc}") from exc
