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
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from zerodrill.srs.card_actions import CardActionEvent
from zerodrill.srs.events import Identity, ReviewEvent
from zerodrill.srs.store.actions import ACTION_COLUMNS, action_from
from zerodrill.srs.store.eventlog import machine_origin
from zerodrill.srs.store.rows import EVENT_COLUMNS, event_from
from zerodrill.srs.store.schema import SYNC_POSITION_TABLE, has_tables, make_tables

#: Runs of sequence numbers, each ``(first, last)``, ascending and apart.
Runs = Sequence[tuple[int, int]]
Row = tuple[Any, ...]
_E = TypeVar("_E", ReviewEvent, CardActionEvent)

_SEQS_PER_QUERY = 500
#: Up to this many runs, the numbers between them are looked up range by range; past it (the
#: sparse numbers of reviews imported from Anki, say), the origin's numbers are read and
#: checked against them.
_RANGE_QUERIES = 64


class SyncState:
    """The store's sync positions and event lookups, through its connection and transactions."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        reading: Callable[[], AbstractContextManager[None]],
        writing: Callable[[], AbstractContextManager[None]],
    ) -> None:
        self._conn = conn
        self._reading = reading
        self._writing = writing

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

    def reviews(self, identities: Iterable[Identity]) -> dict[Identity, ReviewEvent]:
        """The reviews (and undos) among ``identities`` that the log holds, by identity."""
        with self._reading():
            rows = _among(self._conn, "event", EVENT_COLUMNS, identities)
            return {(row[1], row[2]): event_from(row) for row in rows}

    def actions(self, identities: Iterable[Identity]) -> dict[Identity, CardActionEvent]:
        """The card actions among ``identities`` that the log holds, by identity."""
        with self._reading():
            if not has_tables(self._conn, "card_action"):
                return {}
            rows = _among(self._conn, "card_action", ACTION_COLUMNS, identities)
            return {(row[1], row[2]): action_from(row) for row in rows}

    def reviews_outside(self, runs: Mapping[str, Runs]) -> list[ReviewEvent]:
        """The reviews whose numbers are in none of their origin's ``runs``, oldest first."""
        with self._reading():
            return _outside(self._conn, "event", EVENT_COLUMNS, event_from, runs)

    def actions_outside(self, runs: Mapping[str, Runs]) -> list[CardActionEvent]:
        """The card actions whose numbers are in none of their origin's ``runs``, oldest
        first."""
        with self._reading():
            if not has_tables(self._conn, "card_action"):
                return []
            return _outside(self._conn, "card_action", ACTION_COLUMNS, action_from, runs)


def _among(
    conn: sqlite3.Connection, table: str, columns: str, identities: Iterable[Identity]
) -> list[Row]:
    """The rows (``columns``: id, origin, seq first) of ``table`` with those identities."""
    seqs: dict[str, list[int]] = {}
    for origin, seq in identities:
        seqs.setdefault(origin, []).append(seq)
    rows: list[Row] = []
    for origin, numbers in seqs.items():
        for start in range(0, len(numbers), _SEQS_PER_QUERY):
            chunk = numbers[start : start + _SEQS_PER_QUERY]
            marks = ",".join("?" * len(chunk))
            rows += conn.execute(
                f"SELECT {columns} FROM {table} e WHERE e.origin = ? AND e.seq IN ({marks})",
                (origin, *chunk),
            )
    return rows


def _outside(
    conn: sqlite3.Connection,
    table: str,
    columns: str,
    convert: Callable[[Row], _E],
    runs: Mapping[str, Runs],
) -> list[_E]:
    select = f"SELECT {columns} FROM {table} e WHERE e.origin = ?"
    rows: list[Row] = []
    for origin in _origins(conn, table):
        held = runs.get(origin, ())
        if len(held) > _RANGE_QUERIES:
            firsts = [first for first, _ in held]
            numbers = conn.execute(f"SELECT seq FROM {table} WHERE origin = ?", (origin,))
            missing = [(origin, seq) for (seq,) in numbers if not _within(held, firsts, seq)]
            rows += _among(conn, table, columns, missing)
            continue
        after = 0  # numbers start at 1
        for first, last in held:
            if first > after + 1:
                between = (origin, after, first)
                rows += conn.execute(f"{select} AND e.seq > ? AND e.seq < ?", between)
            after = max(after, last)
        rows += conn.execute(f"{select} AND e.seq > ?", (origin, after))
    rows.sort(key=lambda row: int(row[0]))
    return [convert(row) for row in rows]


def _within(held: Runs, firsts: list[int], seq: int) -> bool:
    at = bisect_right(firsts, seq) - 1
    return at >= 0 and seq <= held[at][1]


def _origins(conn: sqlite3.Connection, table: str) -> list[str]:
    """The origins of ``table``'s events, one index seek each (its identity index leads with
    the origin): a few machines, however long the log."""
    rows = conn.execute(
        f"WITH RECURSIVE o(origin) AS (SELECT min(origin) FROM {table} UNION ALL "
        f"SELECT (SELECT min(origin) FROM {table} WHERE origin > o.origin) FROM o "
        "WHERE o.origin IS NOT NULL) SELECT origin FROM o WHERE origin IS NOT NULL"
    )
    return [origin for (origin,) in rows]
