"""Stored values to domain values and back: the store's readers return these, never rows.

A value that no zerodrill wrote (a date that is no date, a grade of 7, a state the scheduler
does not read) is :class:`~zerodrill.srs.store.file.Damaged`, which the store reports as one
line.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta, timezone, tzinfo
from functools import cache
from operator import attrgetter
from typing import Any

import msgspec

from zerodrill.srs.card_actions import SCHEDULE_ACTIONS, Action, CardActionEvent
from zerodrill.srs.events import LoggedEvent, ReviewEvent, StreamEvent
from zerodrill.srs.grades import Grade, to_grade
from zerodrill.srs.schedulers.decision import AnkiDecision
from zerodrill.srs.schedulers.protocol import Effect
from zerodrill.srs.store.file import Damaged
from zerodrill.srs.store.migrations import instant_us

#: The ``event e`` columns :func:`event_from` reads, in its order.
EVENT_COLUMNS = (
    "e.id, e.origin, e.seq, e.key, e.at, e.day, e.grade, e.undoes_origin, e.undoes_seq, "
    "e.answer_ms, e.typed, e.buttons, e.action, e.flag, e.decided, e.value"
)
#: An ``event e`` of the review log: a grade, or the undo of one (not a card action).
REVIEW = "e.action IS NULL"
#: An event that is a change made by hand in Anki to a card's schedule (a due date set, a
#: Forget): replayed with the grades (:data:`~zerodrill.srs.card_actions.SCHEDULE_ACTIONS`).
BY_HAND = f"action IN ({', '.join(sorted(repr(a.value) for a in SCHEDULE_ACTIONS))})"
#: An ``event e`` that is a grade in effect: a grade no undo names.
IN_EFFECT = (
    "e.grade IS NOT NULL AND NOT EXISTS (SELECT 1 FROM event u "
    "WHERE u.undoes_origin = e.origin AND u.undoes_seq = e.seq)"
)
#: :data:`EVENT_COLUMNS`, then what the replay made of the event: its ``effect f`` row (``LEFT
#: JOIN effect f ON f.id = e.id``), which the cache keeps for first sights and repeats only; a
#: grade in effect without one is a recall (most are: the cache stays small); NULL for an undo
#: or a grade withdrawn.
LOGGED_COLUMNS = f"{EVENT_COLUMNS}, CASE WHEN {IN_EFFECT} THEN coalesce(f.effect, 'recall') END"
#: Where :data:`LOGGED_COLUMNS` has the effect.
_EFFECT = len(EVENT_COLUMNS.split(","))


def date_from(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except (TypeError, ValueError) as exc:
        raise Damaged(f"bad date {text!r}") from exc


def event_from(row: tuple[Any, ...]) -> StreamEvent:
    """A row of :data:`EVENT_COLUMNS` as its event: a review, or a card action."""
    if row[12] is None:
        return review_from(row)
    undoes = (row[7], row[8]) if row[7] is not None else None
    try:
        origin, seq, key = row[1], row[2], row[3]
        at, day = datetime.fromisoformat(row[4]), date.fromisoformat(row[5])
        # A setting's value: absent from the rows of files read as earlier ones wrote them.
        value = row[15] if len(row) > 15 else None
        decided = decision_from(row[14]) if len(row) > 14 else None
        action = Action(row[12])
        return CardActionEvent(origin, seq, key, at, day, action, row[13], undoes, value, decided)
    except (TypeError, ValueError) as exc:
        raise Damaged(f"event {row[0]}: {exc}") from exc


def decision_from(text: str | None) -> AnkiDecision | None:
    """The ``decided`` column as Anki's decision (None: the answer was zerodrill's)."""
    return AnkiDecision.from_text(text) if text is not None else None


#: msgspec's encoder: a tenth of json's time per decision (bench_anki_sync.py's 10,000 answers
#: from Anki; the goal: 3x Anki's own syncs). Its numbers read back as the same floats
#: (shortest round trip), which is all the column needs: it is parsed, never compared.
_JSON = msgspec.json.Encoder()


def decision_text(decided: AnkiDecision | None) -> str | None:
    """Anki's decision as the ``decided`` column keeps it."""
    if decided is None:
        return None
    return _JSON.encode(decided.to_wire()).decode()


def review_from(row: tuple[Any, ...]) -> ReviewEvent:
    """A row of :data:`EVENT_COLUMNS` of the review log (:data:`REVIEW`) as its event: read
    straight, as a sync reads thousands (bench_anki_sync.py's 10,000)."""
    if row[12] is not None:
        raise Damaged(f"event {row[0]}: a card action read as a review")
    try:
        grade = row[6]
        decided = row[14] if len(row) > 14 else None
        return ReviewEvent(
            row[1],
            row[2],
            row[3],
            datetime.fromisoformat(row[4]),
            date.fromisoformat(row[5]),
            to_grade(grade) if grade is not None else None,
            (row[7], row[8]) if row[7] is not None else None,
            row[9],
            row[10],
            row[11],
            decision_from(decided) if decided is not None else None,
        )
    except (TypeError, ValueError) as exc:
        raise Damaged(f"event {row[0]}: {exc}") from exc


#: The ``event e`` columns of a review that :func:`reviews_from` reads, in its order: those
#: of :data:`EVENT_COLUMNS` a review has (no row id, no action's).
REVIEW_COLUMNS = (
    "e.origin, e.seq, e.key, e.at, e.day, e.grade, e.undoes_origin, e.undoes_seq, "
    "e.answer_ms, e.typed, e.buttons, e.decided"
)


def reviews_from(rows: Iterable[tuple[Any, ...]]) -> list[ReviewEvent]:
    """Rows of :data:`REVIEW_COLUMNS` of the review log (:data:`REVIEW`) as their events, in
    one pass: each study day read once (a sync's thousands of events share a few dozen), and
    no call for each row but the event's own (bench_anki_sync.py's 10,000 events of the
    cards it replays, read as :func:`review_from` read them)."""
    days: dict[str, date] = {}
    out: list[ReviewEvent] = []
    append = out.append
    row: tuple[Any, ...] = ()
    try:
        for row in rows:
            (
                origin,
                seq,
                key,
                at,
                day,
                grade,
                undoes_origin,
                undoes_seq,
                answer_ms,
                typed,
                buttons,
                decided,
            ) = row
            on = days.get(day)
            if on is None:
                on = days[day] = date.fromisoformat(day)
            append(
                ReviewEvent(
                    origin,
                    seq,
                    key,
                    datetime.fromisoformat(at),
                    on,
                    _GRADES[grade] if grade is not None else None,
                    (undoes_origin, undoes_seq) if undoes_origin is not None else None,
                    answer_ms,
                    typed,
                    buttons,
                    decision_from(decided) if decided is not None else None,
                )
            )
    except (KeyError, TypeError, ValueError) as exc:
        raise Damaged(f"event {row[:2]}: {exc!r}") from exc
    return out


#: Each grade by its number: a look-up, not a call of to_grade for each row.
_GRADES = {int(grade): grade for grade in Grade}


def logged_from(row: tuple[Any, ...]) -> LoggedEvent:
    """A row of :data:`LOGGED_COLUMNS` as the event logged."""
    try:
        effect = Effect(row[_EFFECT]) if row[_EFFECT] is not None else None
    except ValueError as exc:
        raise Damaged(f"review {row[0]}: {exc}") from exc
    return LoggedEvent(row[0], review_from(row), effect)


def event_rows(events: Sequence[StreamEvent]) -> list[tuple[str, list[object]]]:
    """``events`` as rows of the ``event`` table (:data:`EVENT_INTO`), in their order: runs
    of events of one shape, each a row's ``VALUES`` (:data:`GRADE_ROW` or :data:`EVENT_ROW`)
    and the values of its rows, one event's after the other's (as a statement inserting many
    rows takes them).

    In one pass, which reads each study day and each decision of Anki's once (the answers of
    a sync share a few dozen of each) and writes the times in one go: this runs for every
    event a sync adds (bench_anki_sync.py's 9,747 answers from Anki)."""
    days: dict[date, str] = {}
    decisions: dict[AnkiDecision | None, object] = {None: EMPTY}
    runs: list[tuple[str, list[object]]] = []
    row, values = "", list[object]()
    for event, at in zip(events, _iso_texts(list(map(_AT, events))), strict=True):
        day = days.get(event.day)
        if day is None:
            day = days[event.day] = event.day.isoformat()
        decided = decisions.get(event.decided, _UNSEEN)
        if decided is _UNSEEN:
            decided = decisions[event.decided] = decision_text(event.decided)
        common = (event.origin, event.seq, event.key, at, instant_us(event.at), day)
        shape = EVENT_ROW
        if isinstance(event, CardActionEvent):
            action, value = event.action.value, _or_empty(event.value)
            undoes = event.undoes or _NO_UNDO
            rest: tuple[object, ...] = (EMPTY, *undoes, EMPTY, EMPTY, 6, action, event.flag)
            rest = (*rest, decided, value)
        else:
            answer_ms = EMPTY if event.answer_ms is None else event.answer_ms
            if event.grade is not None and event.typed is None:
                shape = GRADE_ROW
                rest = (int(event.grade), answer_ms, event.buttons, decided)
            else:
                grade = EMPTY if event.grade is None else int(event.grade)
                undoes = event.undoes or _NO_UNDO
                typed = _or_empty(event.typed)
                rest = (grade, *undoes, answer_ms, typed, event.buttons, EMPTY, 0, decided, EMPTY)
        if shape is not row:
            row, values = shape, []
            runs.append((row, values))
        values += common
        values += rest
    return runs


#: What :data:`EVENT_ROW` takes for a value left empty (NULL): an empty blob, which no
#: column holds, made NULL by the statement (``nullif(?, x'')``). Python 3.11's sqlite3 binds
#: None only after looking for an adapter, which raises and formats an AttributeError inside
#: it: 2,000 instructions each, a fifth of what inserting an answer from Anki cost (five empty
#: columns; bench_anki_sync.py's 9,747 of them).
EMPTY = bytearray()
_NO_UNDO = (EMPTY, EMPTY)
_UNSEEN = "unseen"


def _or_empty(value: object) -> object:
    return EMPTY if value is None else value


#: The texts msgspec's encoder writes times as, read back.
_TEXTS = msgspec.json.Decoder(list[str])


def _iso_texts(times: list[datetime]) -> list[str]:
    """Each of ``times`` as ``datetime.isoformat`` writes it (what the ``at`` column holds).

    Written by msgspec, all at once, in a tenth of isoformat's time, which writes them alike
    but for two things: an offset of zero, which msgspec writes "Z" (each put right in the
    text of them all, in C), and an offset in seconds, which it rounds to minutes (a zone's
    local mean time, before about 1900); a time in such a zone, or in a zone whose offset
    changes (zoneinfo), is written by isoformat."""
    texts = _TEXTS.decode(_JSON.encode(times).replace(b'Z"', b'+00:00"'))
    others = {zone for zone in set(map(_ZONE, times)) if _unlike_isoformat(zone)}
    if others:
        for i, at in enumerate(times):
            if at.tzinfo in others:
                texts[i] = at.isoformat()
    return texts


_ZONE, _AT = attrgetter("tzinfo"), attrgetter("at")


def _unlike_isoformat(zone: tzinfo | None) -> bool:
    """Whether msgspec may write a time in ``zone`` otherwise than isoformat does."""
    return type(zone) is not timezone or bool(zone.utcoffset(None) % timedelta(minutes=1))


def undo_of(undo: StreamEvent, action: bool) -> StreamEvent:
    """``undo`` as the undo of a card action (``action``) or of a grade: the line of a sync
    file is the same for both, the log says which (a grade's undo is of the review log)."""
    assert undo.undoes is not None
    if action:
        return CardActionEvent(
            undo.origin, undo.seq, undo.key, undo.at, undo.day, Action.UNDO, 0, undo.undoes
        )
    return ReviewEvent(undo.origin, undo.seq, undo.key, undo.at, undo.day, None, undo.undoes)


#: The ``event`` table and its columns, as :func:`event_rows` gives their values.
EVENT_INTO = (
    "event (origin, seq, key, at, at_us, day, grade, undoes_origin, undoes_seq, answer_ms, "
    "typed, buttons, action, flag, decided, value)"
)
#: A row of them: :data:`EMPTY` where a value is left empty.
EVENT_ROW = (
    "(?, ?, ?, ?, ?, ?, nullif(?, x''), nullif(?, x''), nullif(?, x''), nullif(?, x''), "
    "nullif(?, x''), ?, nullif(?, x''), ?, nullif(?, x''), nullif(?, x''))"
)
#: A row of a grade with nothing typed (every one from elsewhere: what was typed stays on its
#: machine): what it leaves empty, written in, not bound (an undo, what was typed, an action,
#: a setting's value): a value bound costs 600 instructions.
GRADE_ROW = (
    "(?, ?, ?, ?, ?, ?, ?, NULL, NULL, nullif(?, x''), NULL, ?, NULL, 0, nullif(?, x''), NULL)"
)


def insert_many(
    conn: sqlite3.Connection, into: str, row: str, values: Sequence[object], then: str = ""
) -> None:
    """``INSERT INTO {into} VALUES {row}, {row}, ... {then}`` for rows of ``values`` (one
    row's after the other's), a hundred rows a statement: one statement for many rows binds
    their values without a round trip through executemany for each (bench_anki_sync.py's
    9,747 answers from Anki and their 9,707 effects)."""
    width = row.count("?")
    step = _ROWS_PER_INSERT * width
    for start in range(0, len(values), step):
        chunk = values[start : start + step]
        conn.execute(_statement(into, row, len(chunk) // width, then), chunk)


#: Rows each statement of :func:`insert_many` inserts; SQLite's limit on parameters is far
#: above their values.
_ROWS_PER_INSERT = 100


@cache
def _statement(into: str, row: str, rows: int, then: str) -> str:
    return f"INSERT INTO {into} VALUES {', '.join([row] * rows)} {then}"
