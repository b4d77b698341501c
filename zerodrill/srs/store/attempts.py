"""The interview attempts in the review database: appended, never changed, read back as values.

An attempt is a row (which interview, when, on which study day) and the steps logged after it,
each with its data as JSON (:mod:`zerodrill.srs.interview_steps` gives each kind of step its
value); :mod:`zerodrill.srs.interview_run` decides what the steps mean. The ticks of a checklist
step not yet handed in are logged beside them as they are given (:meth:`AttemptLog.add_ticks`).
The keys an attempt *brings forward* (the cards behind the points missed) are events of the log
(:attr:`~zerodrill.srs.card_actions.Action.BRING_FORWARD`, dated when the attempt ended), and
come up in the drill as due until they are reviewed again: any grade in effect given after the
attempt ended (by the time it was given, not the order it reached this log: an older review
arriving by sync from another machine settles nothing; one given at the very instant it ended
settles it if it was logged after) settles it. Nothing here changes the
review log's meaning. Reach it as :attr:`zerodrill.srs.store.Store.attempts`. The tables are
made by the first attempt; until then every read finds nothing.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from datetime import date, datetime
from typing import TYPE_CHECKING

from msgspec import Struct

from zerodrill.srs.card_actions import Action, CardActionEvent
from zerodrill.srs.projections import BROUGHT_FORWARD, BroughtForward, as_of
from zerodrill.srs.store import eventlog
from zerodrill.srs.store.file import Damaged
from zerodrill.srs.store.migrations import (
    ATTEMPT_TABLES,
    ATTEMPT_TICK_TABLES,
    has_tables,
    make_tables,
)
from zerodrill.srs.store.part import StorePart
from zerodrill.srs.store.rows import date_from

if TYPE_CHECKING:
    # Imported where steps are read or written: a drill opens this log for what interviews
    # brought forward, and never reads a step.
    from zerodrill.srs.interview_steps import AttemptStepData


class AttemptRecord(Struct, frozen=True):
    """One attempt as logged: its row and its steps, oldest first."""

    id: int
    deck: str
    interview: str
    shape: str
    started_at: datetime
    day: date
    steps: tuple[AttemptStepData, ...] = ()


def _stamp(at: datetime) -> str:
    return (at if at.tzinfo is not None else at.astimezone()).isoformat()


def _time_from(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except (TypeError, ValueError) as exc:
        raise Damaged(f"bad time {text!r}") from exc


def _step_from(text: str, kind: str) -> AttemptStepData:
    """A logged step, checked against what zerodrill writes for its kind."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise Damaged(f"bad attempt step data {text[:40]!r}") from exc
    from zerodrill.srs.interview_steps import step_from

    try:
        return step_from(kind, data)
    except ValueError as exc:
        raise Damaged(f"{exc} in {text[:40]!r}") from exc


def _ticked_from(text: str) -> tuple[int, ...]:
    try:
        ticked = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise Damaged(f"bad attempt ticks {text[:40]!r}") from exc
    if not isinstance(ticked, list) or not all(type(i) is int and i >= 0 for i in ticked):
        raise Damaged(f"bad attempt ticks {text[:40]!r}")
    return tuple(ticked)


class AttemptLog(StorePart):
    """The store's attempt tables, through the store's own connection and transactions."""

    # Once made, the tables stay (append-only); until then another terminal may make them.
    _made = False

    def _exist(self) -> bool:
        if not self._made:
            self._made = has_tables(self._conn, "attempt", "attempt_step")
        return self._made

    def start(
        self, deck: str, interview: str, *, shape: str, at: datetime, day: date
    ) -> AttemptRecord:
        """Log a new attempt of ``deck``'s ``interview``; returns it, without steps."""
        with self._writing():
            make_tables(self._conn, ATTEMPT_TABLES)
            cursor = self._conn.execute(
                "INSERT INTO attempt (deck, interview, shape, started_at, day) "
                "VALUES (?, ?, ?, ?, ?)",
                (deck, interview, shape, _stamp(at), day.isoformat()),
            )
        self._made = True  # only once committed: a rolled-back transaction made nothing
        assert cursor.lastrowid is not None
        stamped = at if at.tzinfo is not None else at.astimezone()
        return AttemptRecord(cursor.lastrowid, deck, interview, shape, stamped, day)

    def add_step(self, attempt: int, step: AttemptStepData, *, at: datetime) -> None:
        """Log one step of ``attempt``. Inside a store transaction, part of it."""
        from zerodrill.srs.interview_steps import step_data, step_from

        text = json.dumps(step_data(step), ensure_ascii=False, sort_keys=True)
        step_from(step.kind, json.loads(text))  # ValueError now, not damage when read back
        with self._writing():
            self._conn.execute(
                "INSERT INTO attempt_step (attempt, at, step, data) VALUES (?, ?, ?, ?)",
                (attempt, _stamp(at), step.kind.value, text),
            )

    def add_ticks(self, attempt: int, step: str, ticked: Collection[int], *, at: datetime) -> None:
        """Log the entries of ``attempt``'s checklist ``step`` ('points' or 'red_flags')
        ticked now: indexes into its list, the whole state, not a change."""
        text = json.dumps(sorted(set(ticked)))
        with self._writing():
            make_tables(self._conn, ATTEMPT_TICK_TABLES)
            self._conn.execute(
                "INSERT INTO attempt_tick (attempt, at, step, ticked) VALUES (?, ?, ?, ?)",
                (attempt, _stamp(at), step, text),
            )

    def ticks(self, attempt: int) -> dict[str, tuple[int, ...]]:
        """The latest ticks logged for each checklist step of ``attempt``, by step."""
        found: dict[str, tuple[int, ...]] = {}
        with self._reading():
            if not has_tables(self._conn, "attempt_tick"):
                return found
            rows = self._conn.execute(
                "SELECT step, ticked FROM attempt_tick WHERE attempt = ? ORDER BY id", (attempt,)
            )
            for step, text in rows:
                found[step] = _ticked_from(text)
        return found

    def step_count(self, attempt: int) -> int:
        """How many steps ``attempt`` has logged, in any terminal (read it inside the
        transaction that logs the next one)."""
        with self._reading():
            row = self._conn.execute(
                "SELECT count(*) FROM attempt_step WHERE attempt = ?", (attempt,)
            ).fetchone()
        return int(row[0])

    def bring_forward(self, attempt: int, keys: Collection[str], *, day: date) -> None:
        """Make ``keys`` due in the drill from ``day`` on, until each is reviewed again after
        ``attempt`` ended (its finish step, logged first)."""
        with self._writing():
            (ended,) = self._conn.execute(
                "SELECT coalesce((SELECT at FROM attempt_step WHERE attempt = ?1 AND step = "
                "'finish' ORDER BY id LIMIT 1), (SELECT started_at FROM attempt WHERE id = ?1))",
                (attempt,),
            ).fetchone()
            origin = eventlog.machine_origin(self._conn)
            for key in dict.fromkeys(keys):
                seq = eventlog.next_seq(self._conn, origin)
                event = CardActionEvent(
                    origin, seq, key, _time_from(ended), day, Action.BRING_FORWARD
                )
                eventlog.insert(self._conn, event)

    def brought_forward(self, day: date) -> BroughtForward:
        """The keys brought forward as of study day ``day``: :data:`BROUGHT_FORWARD`, folded
        (see :class:`~zerodrill.srs.projections.BroughtForward`)."""
        with self._reading():
            events = eventlog.of_kinds(self._conn, BROUGHT_FORWARD.actions, BROUGHT_FORWARD.grades)
        return as_of(BROUGHT_FORWARD.fold(events), day)

    def attempts(
        self, deck: str | None = None, interview: str | None = None
    ) -> list[AttemptRecord]:
        """The attempts (of ``deck``, of its ``interview``, when given), oldest first, each
        with its steps."""
        bounds, params = [], []
        if deck is not None:
            bounds.append("a.deck = ?")
            params.append(deck)
        if interview is not None:
            bounds.append("a.interview = ?")
            params.append(interview)
        where = f" WHERE {' AND '.join(bounds)}" if bounds else ""
        records: dict[int, AttemptRecord] = {}
        steps: dict[int, list[AttemptStepData]] = {}
        with self._reading():
            if not self._exist():
                return []
            rows = self._conn.execute(
                "SELECT a.id, a.deck, a.interview, a.shape, a.started_at, a.day, "
                "s.id, s.at, s.step, s.data FROM attempt a "
                f"LEFT JOIN attempt_step s ON s.attempt = a.id{where} ORDER BY a.id, s.id",
                params,
            )
            for a_id, a_deck, name, shape, started, day, s_id, at, kind, data in rows:
                if a_id not in records:
                    records[a_id] = AttemptRecord(
                        a_id, a_deck, name, shape, _time_from(started), date_from(day)
                    )
                    steps[a_id] = []
                if s_id is not None:
                    _time_from(at)  # a damaged time is damage, though no step reads it
                    steps[a_id].append(_step_from(data, kind))
        return [
            AttemptRecord(r.id, r.deck, r.interview, r.shape, r.started_at, r.day, tuple(steps[i]))
            for i, r in records.items()
        ]
