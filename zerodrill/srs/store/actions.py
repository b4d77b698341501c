"""The card actions in the review database (suspend, bury, flag, mark: see
:mod:`zerodrill.srs.card_actions`), appended and never changed; marks derived by replay. Reach it
as :attr:`zerodrill.srs.store.Store.actions`. The table is made by the first action; until then
every read finds nothing.

Actions made elsewhere (another machine through the sync folder, Anki) are added by
:meth:`ActionLog.add_events` as the review log adds reviews: a set union by identity, in short
transactions, those dated more than a day ahead held back, and an undo added only if it
withdraws an action of its card that nothing withdrew yet.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from datetime import UTC, date, datetime
from typing import Any

from zerodrill.srs.card_actions import (
    Action,
    CardActionEvent,
    CardMarks,
    Identity,
    replay,
)
from zerodrill.srs.store.eventlog import BATCH_EVENTS, HOLD_AHEAD, Merged
from zerodrill.srs.store.file import Damaged
from zerodrill.srs.store.schema import CARD_ACTION_TABLE, has_tables, make_tables
from zerodrill.words import plural

#: The ``card_action`` columns :func:`action_from` reads, in its order.
ACTION_COLUMNS = "id, origin, seq, key, at, day, action, flag, undoes_origin, undoes_seq"


def action_from(row: tuple[Any, ...]) -> CardActionEvent:
    """A row of :data:`ACTION_COLUMNS` as its event."""
    try:
        undoes = (row[8], row[9]) if row[8] is not None else None
        return CardActionEvent(
            row[1],
            row[2],
            row[3],
            datetime.fromisoformat(row[4]),
            date.fromisoformat(row[5]),
            Action(row[6]),
            row[7],
            undoes,
        )
    except (TypeError, ValueError) as exc:
        raise Damaged(f"card action {row[0]}: {exc}") from exc


class NothingToUndo(LookupError):
    """The action named is not in effect (undone already, here or elsewhere)."""


class ActionLog:
    """The store's card action table, through the store's own connection and transactions."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        reading: Callable[[], AbstractContextManager[None]],
        writing: Callable[[], AbstractContextManager[None]],
        origin: Callable[[], str],
    ) -> None:
        self._conn = conn
        self._reading = reading
        self._writing = writing
        self._origin = origin
        self._made = False

    def _exist(self) -> bool:
        if not self._made:
            self._made = has_tables(self._conn, "card_action")
        return self._made

    def events(self) -> list[CardActionEvent]:
        """Every card action logged here, in the order logged."""
        with self._reading():
            if not self._exist():
                return []
            rows = self._conn.execute(f"SELECT {ACTION_COLUMNS} FROM card_action ORDER BY id")
            return [action_from(row) for row in rows]

    def marks(self) -> dict[str, CardMarks]:
        """Each card's marks (cards with none absent)."""
        return replay(self.events())

    def record(
        self, key: str, action: Action, *, at: datetime, day: date, flag: int = 0
    ) -> CardActionEvent:
        """Log ``action`` on card ``key`` as this machine's; the event logged."""
        if action is Action.UNDO:
            raise ValueError("an undo is logged by undo()")
        return self._log(key, action, at, day, flag, None)

    def undo(self, target: Identity, *, at: datetime) -> CardActionEvent:
        """Withdraw exactly the action ``target`` names; :class:`NothingToUndo` if it is not
        in effect (withdrawn already, here or by a sync)."""
        with self._writing():
            found = [e for e in self.events() if e.identity == target]
            undone = {e.undoes for e in self.events() if e.action is Action.UNDO}
            if not found or target in undone or found[0].action is Action.UNDO:
                raise NothingToUndo(target)
            event = found[0]
            return self._log(event.key, Action.UNDO, at, event.day, 0, target)

    def add_events(
        self,
        events: Iterable[CardActionEvent],
        *,
        now: datetime | None = None,
        batch: int = BATCH_EVENTS,
    ) -> Merged:
        """Add the actions made elsewhere that the log lacks: a set union by identity, so
        adding twice, or in any order, gives the same log and the same marks.

        ``batch`` events per transaction. Actions of this machine's own id are not taken (its
        actions come from this database only: a number from elsewhere would decide the next
        one's); those dated more than a day after ``now`` (default: the clock) are held back
        with a warning, and taken when given again once their time has come. An undo that
        names no action of its card here, an undo, or one withdrawn already, is skipped with
        a warning; one whose action is among ``events`` is added after it.
        """
        now = now if now is not None else datetime.now(UTC)
        here = self._origin()
        fresh: dict[Identity, CardActionEvent] = {}
        present = held = 0
        ahead: dict[str, list[CardActionEvent]] = {}
        for event in events:
            if event.origin == here or event.identity in fresh:
                present += 1
            elif event.at > now + HOLD_AHEAD:
                ahead.setdefault(event.origin, []).append(event)
            else:
                fresh[event.identity] = event
        held = sum(map(len, ahead.values()))
        logged = {e.identity: e for e in self.events()}
        present += sum(1 for identity in fresh if identity in logged)
        todo = [e for identity, e in fresh.items() if identity not in logged]
        # Actions before undos, so that an undo finds the action it withdraws.
        todo.sort(key=lambda e: e.action is Action.UNDO)
        known = {**logged, **{e.identity: e for e in todo if e.action is not Action.UNDO}}
        withdrawn = {e.undoes for e in logged.values() if e.undoes is not None}
        taken: list[CardActionEvent] = []
        skipped = 0
        for event in todo:
            if event.undoes is not None:
                target = known.get(event.undoes)
                if (
                    target is None
                    or target.action is Action.UNDO
                    or target.key != event.key
                    or event.undoes in withdrawn
                ):
                    skipped += 1
                    continue
                withdrawn.add(event.undoes)
            taken.append(event)
        added = 0
        for start in range(0, len(taken), batch):
            with self._writing():
                make_tables(self._conn, CARD_ACTION_TABLE)
                # OR IGNORE: one logged meanwhile by another terminal (the same action, or a
                # second undo of one action, which the unique indexes refuse) adds nothing.
                cursor = self._conn.executemany(
                    "INSERT OR IGNORE" + _INSERT.removeprefix("INSERT"),
                    [_params(e) for e in taken[start : start + batch]],
                )
                added += max(cursor.rowcount, 0)
            self._made = True
        warnings = tuple(
            f"{plural(len(events_ahead), 'card action')} from {origin} dated more than a day "
            f"ahead (up to {max(e.at for e in events_ahead).date().isoformat()}) held back "
            "until then: is that machine's clock wrong?"
            for origin, events_ahead in sorted(ahead.items())
        )
        if skipped:
            warnings += (
                f"{plural(skipped, 'card action undo')} naming no action "
                "of its card here, or one undone already, skipped",
            )
        keys = frozenset(e.key for e in taken)
        return Merged(added, present + len(taken) - added, keys, held, skipped, warnings)

    def _log(
        self,
        key: str,
        action: Action,
        at: datetime,
        day: date,
        flag: int,
        undoes: Identity | None,
    ) -> CardActionEvent:
        stamped = at if at.tzinfo is not None else at.astimezone()
        with self._writing():
            make_tables(self._conn, CARD_ACTION_TABLE)
            origin = self._origin()
            (seq,) = self._conn.execute(
                "SELECT coalesce(max(seq), 0) + 1 FROM card_action WHERE origin = ?", (origin,)
            ).fetchone()
            event = CardActionEvent(origin, int(seq), key, stamped, day, action, flag, undoes)
            self._conn.execute(_INSERT, _params(event))
        self._made = True
        return event


_INSERT = (
    "INSERT INTO card_action (origin, seq, key, at, day, action, flag, undoes_origin, "
    "undoes_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _params(event: CardActionEvent) -> tuple[object, ...]:
    return (
        event.origin,
        event.seq,
        event.key,
        event.at.isoformat(),
        event.day.isoformat(),
        event.action.value,
        event.flag,
        *(event.undoes if event.undoes is not None else (None, None)),
    )
