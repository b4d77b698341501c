"""A new machine id for this database, when a sync finds its id is not this file's alone.

A database restored from a backup, or copied to another machine, carries the machine id of
the file it came from, and so does the file's other life (the machine before the restore,
the copy's original): both would number their events under one id, and a number would name
two events. :func:`renew` gives this database a fresh id and moves to it the events made
under the old id that the old id's other life does not hold; the ones both hold stay where
they are, as the history the two share. Undos naming a moved event are made to name it anew.
Every kind of event (grades, card actions, undos) is numbered in one sequence, and moved alike.

Another machine reading the two lives' log file (one file name for both: a sync tool keeps one)
may have taken events of the life whose file lost, under numbers the other life's file gives
to other events. :func:`forget` drops those: their own database renews, and sends them again
under its new id.
:class:`Machine` is the store's part for both: :attr:`zerodrill.srs.store.Store.machine`.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Collection

from zerodrill.srs.events import Identity
from zerodrill.srs.store.eventlog import by_identity, machine_origin
from zerodrill.srs.store.part import StorePart
from zerodrill.srs.store.schedule_cache import Schedule
from zerodrill.srs.store.transactions import Transactions

#: The triggers that keep the log and the machine id as written (see the schema): lifted for
#: the renumbering alone, inside its transaction.
_GUARDS = (
    (
        "event_no_update",
        "CREATE TRIGGER event_no_update BEFORE UPDATE ON event "
        "BEGIN SELECT RAISE(ABORT, 'the review log is append-only'); END",
    ),
    (
        "machine_no_update",
        "CREATE TRIGGER machine_no_update BEFORE UPDATE ON machine "
        "BEGIN SELECT RAISE(ABORT, 'the machine id never changes'); END",
    ),
)

#: Lifted for :func:`forget` alone, inside its transaction.
_NO_DELETE = (
    "CREATE TRIGGER event_no_delete BEFORE DELETE ON event "
    "BEGIN SELECT RAISE(ABORT, 'the review log is append-only'); END"
)


def renew(conn: sqlite3.Connection, moved: Collection[int]) -> tuple[str, set[str]]:
    """Give the database a new machine id, and renumber under it, in their order, the events
    of the old id whose numbers are ``moved``;
    returns the new id and the cards whose events moved (their order among ties may change:
    re-derive them). Run it in a transaction."""
    (old,) = conn.execute("SELECT origin FROM machine").fetchone()
    new = secrets.token_hex(8)
    renumbered = [(new, n, old, seq) for n, seq in enumerate(sorted(moved), start=1)]
    keys = {
        key
        for _, _, _, seq in renumbered
        for (key,) in conn.execute("SELECT key FROM event WHERE origin = ? AND seq = ?", (old, seq))
    }
    for name, _ in _GUARDS:
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("UPDATE machine SET origin = ?", (new,))
    conn.executemany(
        "UPDATE event SET origin = ?, seq = ? WHERE origin = ? AND seq = ?", renumbered
    )
    conn.executemany(
        "UPDATE event SET undoes_origin = ?, undoes_seq = ? "
        "WHERE undoes_origin = ? AND undoes_seq = ?",
        renumbered,
    )
    for _, statement in _GUARDS:
        conn.execute(statement)
    return new, keys


def forget(conn: sqlite3.Connection, identities: Collection[Identity]) -> set[str]:
    """Drop the events of other machines among ``identities`` (this database's own are never
    dropped: its id is renewed instead); returns the cards they were of (re-derive them). Run
    it in a transaction."""
    (own,) = conn.execute("SELECT origin FROM machine").fetchone()
    rows = by_identity(conn, [i for i in identities if i[0] != own], "e.id, e.key")
    if not rows:
        return set()
    ids = [(row[0],) for row in rows.values()]
    conn.executemany("DELETE FROM effect WHERE id = ?", ids)
    conn.execute("DROP TRIGGER event_no_delete")
    conn.executemany("DELETE FROM event WHERE id = ?", ids)
    conn.execute(_NO_DELETE)
    return {row[1] for row in rows.values()}


class Machine(StorePart):
    """The store's machine id, through its connection and transactions; a renewal re-derives
    the cards it moved in ``schedule``."""

    def __init__(self, tx: Transactions, schedule: Schedule) -> None:
        super().__init__(tx)
        self._schedule = schedule

    @property
    def id(self) -> str:
        """This database's machine id: the origin of the events made here. Read each time: a
        sync (in another terminal, too) may give the database a new one."""
        with self._reading():
            return machine_origin(self._conn)

    def renew(self, moved: Collection[int]) -> str:
        """A new machine id for this database, its events numbered ``moved`` under the old
        one renumbered under the new, their cards re-derived; returns it (see :func:`renew`)."""
        with self._writing():
            new, keys = renew(self._conn, moved)
            self._schedule.rederive_cards(keys)
            return new

    def forget(self, identities: Collection[Identity]) -> int:
        """Drop other machines' events that a copy of their database numbered twice, their
        cards re-derived; how many cards (see :func:`forget`)."""
        with self._writing():
            keys = forget(self._conn, identities)
            self._schedule.rederive_cards(keys)
            return len(keys)
