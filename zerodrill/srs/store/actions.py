"""The card actions of the review log (suspend, bury, flag, mark: see
:mod:`zerodrill.srs.card_actions`), appended and never changed; marks derived by replay. Reach it
as :attr:`zerodrill.srs.store.Store.actions`.

Actions are events of the one log (:mod:`.eventlog`): numbered with the machine's reviews,
withdrawn by an undo under the log's one rule, and those made elsewhere (another machine,
Anki) added by :meth:`zerodrill.srs.store.Store.log.add_events` with the reviews.
"""

from __future__ import annotations

import sqlite3
from datetime import date, datetime

from zerodrill.srs.card_actions import Action, CardActionEvent, CardMarks, Identity
from zerodrill.srs.projections import MARKS
from zerodrill.srs.store import eventlog
from zerodrill.srs.store.migrations import SCHEMA_VERSION, has_tables
from zerodrill.srs.store.one_stream import LEGACY
from zerodrill.srs.store.part import StorePart
from zerodrill.srs.store.rows import event_from

#: The card actions of a file an earlier zerodrill wrote, read without migrating it (see
#: :meth:`zerodrill.srs.store.Store.open`'s ``read_only``): its own table, numbered as
#: :mod:`.one_stream` numbers them.
_EARLIER_MARKS = (
    f"SELECT id, origin, {LEGACY.format('seq')}, key, at, day, NULL, undoes_origin, "
    f"{LEGACY.format('undoes_seq')}, NULL, NULL, 6, action, flag FROM card_action ORDER BY id"
)
#: The same of a file whose actions are events already (:mod:`.one_stream`) but that an
#: earlier zerodrill wrote: the columns every such file has.
_EARLIER_STREAM = (
    "SELECT id, origin, seq, key, at, day, grade, undoes_origin, undoes_seq, answer_ms, typed, "
    "buttons, action, flag FROM event WHERE action IN "
    f"({', '.join(repr(a.value) for a in MARKS.actions | {Action.UNDO})}) ORDER BY id"
)


def _has_actions(conn: sqlite3.Connection) -> bool:
    """The file's event table holds card actions (it is one stream: :mod:`.one_stream`)."""
    return any(row[1] == "action" for row in conn.execute("PRAGMA table_info(event)"))


class NothingToUndo(LookupError):
    """The action named is not in effect (undone already, here or elsewhere)."""


class ActionLog(StorePart):
    """The store's card actions, through the store's own connection and transactions."""

    def events(self) -> list[CardActionEvent]:
        """Every card action of a mark logged here (what :data:`MARKS` folds), in the order
        logged."""
        with self._reading():
            if self._conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                if has_tables(self._conn, "card_action"):
                    earlier = _EARLIER_MARKS
                elif _has_actions(self._conn):
                    earlier = _EARLIER_STREAM
                else:
                    return []
                found = list(map(event_from, self._conn.execute(earlier)))
            else:
                found = eventlog.of_kinds(self._conn, MARKS.actions, MARKS.grades)
            return [e for e in found if isinstance(e, CardActionEvent)]

    def marks(self) -> dict[str, CardMarks]:
        """Each card's marks (cards with none absent): :data:`MARKS`, folded."""
        return MARKS.fold(self.events())

    def record(
        self, key: str, action: Action, *, at: datetime, day: date, flag: int = 0
    ) -> CardActionEvent:
        """Log ``action`` on card ``key`` as this machine's; the event logged."""
        if action not in MARKS.actions or action is Action.UNDO:
            raise ValueError(f"{action.value} is not logged by record()")
        return self._log(key, action, at, day, flag, None)

    def undo(self, target: Identity, *, at: datetime) -> CardActionEvent:
        """Withdraw exactly the action ``target`` names; :class:`NothingToUndo` if it is not
        in effect (withdrawn already, here or by a sync), or is no card action."""
        with self._writing():
            found = eventlog.withdrawable(self._conn, [target]).get(target)
            if found is None or found[1] is None:
                raise NothingToUndo(target)
            (day,) = self._conn.execute(
                "SELECT day FROM event WHERE origin = ? AND seq = ?", target
            ).fetchone()
            return self._log(found[0], Action.UNDO, at, date.fromisoformat(day), 0, target)

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
            origin = eventlog.machine_origin(self._conn)
            seq = eventlog.next_seq(self._conn, origin)
            event = CardActionEvent(origin, seq, key, stamped, day, action, flag, undoes)
            eventlog.insert(self._conn, event)
        return event
