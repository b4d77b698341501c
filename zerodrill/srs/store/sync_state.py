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
not with the log. They come as :class:`Outgoing`, each with its line on the wire, which
SQLite writes from a review's row (:data:`_LINE`): a sync sends 10,000 of this machine's
answers without reading them as events only to write them out again.
"""

from __future__ import annotations

import sqlite3
from bisect import bisect_right
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from heapq import merge
from operator import itemgetter
from typing import Any

import msgspec
from msgspec import Struct, structs

from zerodrill.srs.events import Identity, StreamEvent
from zerodrill.srs.grades import DEFAULT_LAYOUT
from zerodrill.srs.store.eventlog import by_identity, machine_origin
from zerodrill.srs.store.migrations import SYNC_POSITION_TABLE, has_tables, make_tables
from zerodrill.srs.store.part import StorePart
from zerodrill.srs.store.rows import EVENT_COLUMNS, event_from

#: Runs of sequence numbers, each ``(first, last)``, ascending and apart.
Runs = Sequence[tuple[int, int]]
Row = tuple[Any, ...]

_FIELDS = (
    "'origin', e.origin, 'seq', e.seq, 'key', e.key, "
    "'kind', CASE WHEN e.grade IS NULL THEN 'undo' ELSE 'grade' END, 'at', e.at, 'day', e.day, "
    "'grade', e.grade, 'undoes', CASE WHEN e.undoes_origin IS NOT NULL "
    "THEN json_array(e.undoes_origin, e.undoes_seq) END, 'answer_ms', e.answer_ms"
)
#: An ``event e``'s line on the wire as :meth:`~zerodrill.srs.events.ReviewEvent.to_json`
#: writes it, for a review without a decision of Anki's and numbers a line may carry (this
#: machine's answers); NULL for any other, which is read as its event and written by it. The
#: same bytes: the store keeps a time and a day as Python writes them
#: (:func:`~.rows.event_params`), and SQLite escapes text as msgspec does
#: (``tests/test_sync_lines.py``).
_LINE = (
    "CASE WHEN e.action IS NULL AND e.decided IS NULL AND e.seq >= 0 "
    "AND coalesce(e.answer_ms, 0) >= 0 "
    f"THEN CASE WHEN e.buttons = {DEFAULT_LAYOUT} THEN json_object({_FIELDS}) "
    f"ELSE json_object({_FIELDS}, 'buttons', e.buttons) END END"
)
#: What a sync asks of an event it sends, in :class:`Outgoing`'s order, after ``e.id``.
_OUTGOING = f"e.id, e.origin, e.seq, {_LINE}, e.key, substr(e.at, 1, 10), e.day"


class Outgoing(Struct, frozen=True, gc=False):
    """A local event a transport lacks, as a sync sends it: its identity and its line on the
    wire (without the newline). Read as its event only where it is not a review SQLite writes
    (:data:`_LINE`), or is of an origin a transport may carry by itself: the 10,000 answers
    of a sync are only written."""

    origin: str
    seq: int
    line: str
    #: What the rules of the wire ask of a review beside its numbers: its key, the date of its
    #: time where it was given and its study day (ISO text).
    key: str
    at_day: str
    day: str
    #: The event, for a card action, an answer with Anki's decision, or an event of an origin
    #: read without lines (:meth:`SyncState.outside`); None for the rest.
    event: StreamEvent | None = None
    #: Its row in this database's log, whose ids only grow (:mod:`~zerodrill.srs.store.eventlog`).
    row: int = 0

    @property
    def identity(self) -> Identity:
        return (self.origin, self.seq)


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

    def moment(self) -> tuple[int, int]:
        """What changes whenever the log may have: another connection's commits (SQLite's
        data version) and this one's changes. Equal at two moments, nothing was written
        between them."""
        with self._reading():
            (version,) = self._conn.execute("PRAGMA data_version").fetchone()
        return int(version), self._conn.total_changes

    def events(self, identities: Iterable[Identity]) -> dict[Identity, StreamEvent]:
        """The events (of any kind) among ``identities`` that the log holds, by identity."""
        with self._reading():
            rows = _among(self._conn, identities)
            return {(row[1], row[2]): event_from(row) for row in rows}

    def outside(
        self,
        runs: Mapping[str, Runs],
        unlined: Collection[str] = (),
        after: Mapping[str, int] | None = None,
    ) -> list[Outgoing]:
        """The events whose numbers are in none of their origin's ``runs``, oldest first;
        of an origin in ``after``, only those logged after its row there (the rows through it
        were looked at: :attr:`Outgoing.row`). Every event of the origins ``unlined`` comes
        as its event, without a line (:func:`lined` makes it): a transport carries most of them
        by itself, and is asked of each (:meth:`~zerodrill.srs.sync.transport.Transport.native`)."""
        with self._reading():
            # A row SQLite wrote no line for ("" until then), or of an origin ``unlined``, is
            # read as its event, all of them at once after.
            outgoing = [
                Outgoing(row[1], row[2], row[3] or "", row[4], row[5], row[6], None, row[0])
                for row in _outside(self._conn, runs, after or {})
            ]
            others = [o.row for o in outgoing if not o.line or o.origin in unlined]
            if not others:
                return outgoing
            read = {row[0]: event_from(row) for row in _by_row(self._conn, others)}
        return [
            o if (event := read.get(o.row)) is None else _read(o, event, o.origin not in unlined)
            for o in outgoing
        ]


def _read(outgoing: Outgoing, event: StreamEvent, line: bool) -> Outgoing:
    made = event.to_json() if line else ""
    return structs.replace(outgoing, line=made, event=event)


def lined(outgoing: Outgoing) -> Outgoing:
    """``outgoing`` with its line (one :meth:`Sync.outside` left out)."""
    if outgoing.line or outgoing.event is None:
        return outgoing
    return structs.replace(outgoing, line=outgoing.event.to_json())


def _among(
    conn: sqlite3.Connection, identities: Iterable[Identity], columns: str = EVENT_COLUMNS
) -> list[Row]:
    """The rows (:data:`EVENT_COLUMNS`) of the events with those identities."""
    return list(by_identity(conn, identities, columns).values())


def _by_row(conn: sqlite3.Connection, ids: Sequence[int]) -> sqlite3.Cursor:
    """The rows (:data:`EVENT_COLUMNS`) of the events logged as ``ids``, each looked up by
    its id in SQLite from one JSON array, not by identity: no (origin, seq) tuple made in
    Python for each of them (the sync after one that took many answers from Anki reads every
    one of them, once, to look at it)."""
    return conn.execute(
        f"SELECT {EVENT_COLUMNS} FROM event e WHERE e.id IN (SELECT value FROM json_each(?))",
        (_IDS.encode(ids),),
    )


_IDS = msgspec.json.Encoder()


def _outside(
    conn: sqlite3.Connection, runs: Mapping[str, Runs], rows_after: Mapping[str, int]
) -> Iterator[Row]:
    """The rows, in the order logged, each read from SQLite as it is taken: a sync relaying
    10,000 events holds them, not 10,000 rows too (which cost it a pass of the garbage
    collector over everything the process holds)."""
    parts: list[Iterable[Row]] = []
    for origin in _origins(conn):
        held = runs.get(origin, ())
        # Only the rows logged after those looked at before, found by row id, not among the
        # origin's numbers (Anki's answers: a long-time user's every one read at each sync).
        row = int(rows_after.get(origin, 0))
        where = f"e.id > {row} AND +e.origin = ?" if row else "e.origin = ?"
        select = f"SELECT {_OUTGOING} FROM event e WHERE {where}"
        if len(held) > _RANGE_QUERIES:
            firsts = [first for first, _ in held]
            numbers = conn.execute(f"SELECT seq FROM event e WHERE {where}", (origin,))
            missing = [(origin, seq) for (seq,) in numbers if not _within(held, firsts, seq)]
            parts.append(sorted(_among(conn, missing, _OUTGOING), key=_ID))
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
    # Most syncs read one range of one origin: merge's key call an event was 2 ms in 10,000.
    return iter(parts[0]) if len(parts) == 1 else merge(*parts, key=_ID)


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
