"""What a sync (:mod:`zerodrill.srs.sync`) asks of the store: where it last stopped reading each
origin of a transport, and the local events by identity, so that it never reads the whole log.

Reach it as :attr:`zerodrill.srs.store.Store.sync`. A position is kept with what its origin
carried up to there (runs of sequence numbers, by origin), under the machine id it was read
with: a database given a new machine id reads every origin again, since lines it skipped as
its own are now another machine's. The table is made by the first sync
(:data:`~.schema.SYNC_POSITION_TABLE`); until then there is nothing kept, and every origin is
read from its start.

The events a transport lacks are those outside the runs it carries: found by ranges of the
identity index, so their cost grows with the runs (one or two for a machine's own numbers),
not with the log.
"""

from __future__ import annotations

import sqlite3
from bisect import bisect_right
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from heapq import merge
from operator import itemgetter
from typing import Any

from zerodrill.srs.events import Identity, StreamEvent
from zerodrill.srs.store.eventlog import by_identity, machine_origin
from zerodrill.srs.store.migrations import SYNC_POSITION_TABLE, has_tables, make_tables
from zerodrill.srs.store.part import StorePart
from zerodrill.srs.store.rows import EVENT_COLUMNS, event_from

#: Runs of sequence numbers, each ``(first, last)``, ascending and apart.
Runs = Sequence[tuple[int, int]]
Row = tuple[Any, ...]

#: Up to this many runs, the numbers between them are looked up range by range; past it (the
#: sparse numbers of reviews imported from Anki, say), the origin's numbers are read and
#: checked against them.
_RANGE_QUERIES = 64


class SyncState(StorePart):
    """The store's sync positions and event lookups, through its connection and transactions."""

    def saved(self, transport: str, machine: str) -> dict[str, tuple[str, str]]:
        """Each origin of ``transport``, as the last sync under ``machine`` left it: its
        (position, carried)."""
        with self._reading():
            if not has_tables(self._conn, "sync_position"):
                return {}
            rows = self._conn.execute(
                "SELECT origin, position, carried FROM sync_position "
                "WHERE transport = ? AND machine = ?",
                (transport, machine),
            )
            return {origin: (position, carried) for origin, position, carried in rows}

    def save(
        self,
        transport: str,
        machine: str,
        reached: Mapping[str, tuple[str, str]],
        gone: Collection[str],
    ) -> None:
        """Keep each origin's (position, carried) in ``reached``, and forget the ``gone`` ones
        and all kept under another machine id; one transaction. Nothing is kept if this
        database is no longer ``machine`` (a sync in another terminal renewed it meanwhile)."""
        with self._writing():
            make_tables(self._conn, SYNC_POSITION_TABLE)
            if machine_origin(self._conn) != machine:
                return
            self._conn.execute("DELETE FROM sync_position WHERE machine != ?", (machine,))
            self._conn.executemany(
                "DELETE FROM sync_position WHERE transport = ? AND origin = ?",
                [(transport, origin) for origin in gone],
            )
            self._conn.executemany(
                "INSERT INTO sync_position (transport, origin, machine, position, carried) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (transport, origin) DO UPDATE SET "
                "machine = excluded.machine, position = excluded.position, "
                "carried = excluded.carried",
                [(transport, origin, machine, *kept) for origin, kept in reached.items()],
            )

    def events(self, identities: Iterable[Identity]) -> dict[Identity, StreamEvent]:
        """The events (of any kind) among ``identities`` that the log holds, by identity."""
        with self._reading():
            rows = _among(self._conn, identities)
            return {(row[1], row[2]): event_from(row) for row in rows}

    def outside(self, runs: Mapping[str, Runs]) -> list[StreamEvent]:
        """The events whose numbers are in none of their origin's ``runs``, oldest first."""
        with self._reading():
            return [event_from(row) for row in _outside(self._conn, runs)]


def _among(conn: sqlite3.Connection, identities: Iterable[Identity]) -> list[Row]:
    """The rows (:data:`EVENT_COLUMNS`) of the events with those identities."""
    return list(by_identity(conn, identities, EVENT_COLUMNS).values())


def _outside(conn: sqlite3.Connection, runs: Mapping[str, Runs]) -> Iterator[Row]:
    """The rows, in the order logged, each read from SQLite as it is taken: a sync relaying
    10,000 events holds them, not 10,000 rows too (which cost it a pass of the garbage
    collector over everything the process holds)."""
    select = f"SELECT {EVENT_COLUMNS} FROM event e WHERE e.origin = ?"
    parts: list[Iterable[Row]] = []
    for origin in _origins(conn):
        held = runs.get(origin, ())
        if len(held) > _RANGE_QUERIES:
            firsts = [first for first, _ in held]
            numbers = conn.execute("SELECT seq FROM event WHERE origin = ?", (origin,))
            missing = [(origin, seq) for (seq,) in numbers if not _within(held, firsts, seq)]
            parts.append(sorted(_among(conn, missing), key=_ID))
            continue
        after = 0  # numbers start at 1
        for first, last in held:
            if first > after + 1:
                between = (origin, after, first)
                parts.append(
                    conn.execute(f"{select} AND e.seq > ? AND e.seq < ? {_BY_ID}", between)
                )
            after = max(after, last)
        parts.append(conn.execute(f"{select} AND e.seq > ? {_BY_ID}", (origin, after)))
    return merge(*parts, key=_ID)


_ID = itemgetter(0)
_BY_ID = "ORDER BY e.id"


def _within(held: Runs, firsts: list[int], seq: int) -> bool:
    at = bisect_right(firsts, seq) - 1
    return at >= 0 and seq <= held[at][1]


def _origins(conn: sqlite3.Connection) -> list[str]:
    """The origins of the events, one index seek each (the identity index leads with the
    origin): a few machines, however long the log."""
    rows = conn.execute(
        "WITH RECURSIVE o(origin) AS (SELECT min(origin) FROM event UNION ALL "
        "SELECT (SELECT min(origin) FROM event WHERE origin > o.origin) FROM o "
        "WHERE o.origin IS NOT NULL) SELECT origin FROM o WHERE origin IS NOT NULL"
    )
    return [origin for (origin,) in rows]
