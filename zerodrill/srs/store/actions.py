"""The card actions in the review database (suspend, bury, flag, mark: see
:mod:`zerodrill.srs.card_actions`), appended and never changed; marks derived by replay. Reach it
as :attr:`zerodrill.srs.store.Store.actions`. The table is made by the first action; until then
every read finds nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import date, datetime
from typing import Any

from zerodrill.srs.card_actions import (
    Action,
    CardActionEvent,
    CardMarks,
    Identity,
    replay,
)
from zerodrill.srs.store.file import Damaged
from zerodrill.srs.store.schema import CARD_ACTION_TABLE, has_tables, make_tables

_COLUMNS = "id, origin, seq, key, at, day, action, flag, undoes_origin, undoes_seq"


def _event_from(row: tuple[Any, ...]) -> CardActionEvent:
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
            rows = self._conn.execute(f"SELECT {_COLUMNS} FROM card_action ORDER BY id")
            return [_event_from(row) for row in rows]

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
            self._conn.execute(
                "INSERT INTO card_action (origin, seq, key, at, day, action, flag, "
                "undoes_origin, undoes_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    event.origin,
                    event.seq,
                    event.key,
                    stamped.isoformat(),
                    day.isoformat(),
                    action.value,
                    flag,
                    *(undoes if undoes is not None else (None, None)),
                ),
            )
        self._made = True
        return event
