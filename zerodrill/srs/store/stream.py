"""The event log as the store's part: grades and undos given here logged, events made
elsewhere (sync, Anki) added, and the log read back, as domain values.

The log holds events only (:class:`~zerodrill.srs.events.ReviewEvent`,
:class:`~zerodrill.srs.card_actions.CardActionEvent`); each write also brings the schedule's
cache (:mod:`.schedule_cache`) up to date, in the same transaction. :meth:`EventLog.grade` logs a
grade given here, :meth:`EventLog.undo` withdraws one by name, :meth:`EventLog.add_events`
adds events made elsewhere as a set union by identity, in short transactions. Reach it as
:attr:`zerodrill.srs.store.Store.log`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Iterable, Mapping
from contextlib import suppress
from datetime import UTC, date, datetime
from itertools import chain
from operator import attrgetter
from typing import TypeVar

from zerodrill.srs.events import Identity, LoggedEvent, ReviewEvent, StreamEvent
from zerodrill.srs.grades import DEFAULT_LAYOUT, Grade, to_grade
from zerodrill.srs.projections import Projection
from zerodrill.srs.store import derive, eventlog
from zerodrill.srs.store.derive import Replayed
from zerodrill.srs.store.eventlog import BATCH_EVENTS, Merged
from zerodrill.srs.store.file import Damaged, NotInEffect, UndoConflict
from zerodrill.srs.store.part import StorePart
from zerodrill.srs.store.rows import (
    EVENT_COLUMNS,
    IN_EFFECT,
    LOGGED_COLUMNS,
    REVIEW,
    REVIEW_COLUMNS,
    logged_from,
    review_from,
    reviews_from,
)
from zerodrill.srs.store.schedule_cache import Schedule
from zerodrill.srs.store.transactions import Transactions

T = TypeVar("T")
_KEY = attrgetter("key")
_LOGGED = f"SELECT {LOGGED_COLUMNS} FROM event e LEFT JOIN effect f ON f.id = e.id"
#: Each grade by its number: a look-up, not an enum call per row (bench_anki_stream.py's
#: 100,000 grades read by :meth:`EventLog.graded`).
_GRADES = {int(grade): grade for grade in Grade}


class EventLog(StorePart):
    """The store's event log, through its connection and transactions; ``schedule`` is kept
    up to date with it."""

    def __init__(self, tx: Transactions, schedule: Schedule) -> None:
        super().__init__(tx)
        self._schedule = schedule

    # -- reading ---------------------------------------------------------------------------

    def reviews_on(self, day: date) -> list[LoggedEvent]:
        """The grades of study day ``day`` in effect, in the order logged here."""
        with self._schedule.reading():
            rows = self._conn.execute(
                f"{_LOGGED} WHERE e.day = ? AND {IN_EFFECT} ORDER BY e.id",
                (day.isoformat(),),
            )
            return [logged_from(row) for row in rows]

    def entries(self) -> list[LoggedEvent]:
        """The whole log of reviews in the order logged here, undos and withdrawn grades
        included, each with what the replay made of it."""
        with self._schedule.reading():
            rows = self._conn.execute(f"{_LOGGED} WHERE {REVIEW} ORDER BY e.id")
            return [logged_from(row) for row in rows]

    def events(self) -> list[ReviewEvent]:
        """Every review of the log (grades and their undos), in the order logged here."""
        with self._reading():
            cursor = self._conn.execute(
                f"SELECT {EVENT_COLUMNS} FROM event e WHERE {REVIEW} ORDER BY e.id"
            )
            return [review_from(row) for row in cursor]

    def events_of(self, keys: Collection[str], *, after: int = 0) -> list[ReviewEvent]:
        """:meth:`events` of the cards ``keys`` only, card by card, each card's in the
        replay's order (by study day, time and identity): a reader of a few cards (``anki
        sync`` of the cards something moved for) need not parse the whole log, and SQLite
        reads them in the order of its index, sorting none (bench_anki_sync.py's 10,000
        events: 4 ms of 23 went to sorting them by their place in the log). ``after``: only
        those logged after :meth:`last_id` gave it (the log only grows: those before, read
        then, and these are all the cards' events)."""
        with self._reading():
            # Each row read from SQLite as it is taken: the events are held, not their rows
            # too (which cost a pass of the garbage collector over all the process holds).
            rows = chain.from_iterable(
                self._conn.execute(
                    f"SELECT {REVIEW_COLUMNS} FROM event e WHERE {REVIEW} AND e.id > ? "
                    f"AND e.key IN ({','.join('?' * len(chunk))}) "
                    "ORDER BY e.key, e.day, e.at_us, e.origin, e.seq",
                    (after, *chunk),
                )
                for chunk in derive.chunks(keys)
            )
            return reviews_from(rows)

    def last_id(self) -> int:
        """Where the log ends now: every event logged from now on has a higher row id (the
        log is append-only), which :meth:`events_of` reads alone."""
        with self._reading():
            (last,) = self._conn.execute("SELECT coalesce(max(id), 0) FROM event").fetchone()
            return int(last)

    def numbers(self, origin: str) -> set[int]:
        """The sequence numbers of ``origin``'s events (of every kind): which of its events
        the log holds, without reading them."""
        with self._reading():
            rows = self._conn.execute("SELECT seq FROM event WHERE origin = ?", (origin,))
            return {seq for (seq,) in rows}

    def graded(
        self, *, not_of: str, keys: Collection[str] | None = None
    ) -> dict[str, list[tuple[datetime, Grade]]]:
        """Each card's grades in effect but ``not_of``'s, (time, grade) in the replay's order:
        what a reader compares with its own record of them, without parsing the log whole
        (``anki sync``'s check of the answers Anki holds; bench_anki_sync.py's nothing-new sync
        spent 250 ms reading every event for it). Of the cards ``keys`` only, if given (none:
        nothing read)."""
        if keys is not None and not keys:
            return {}
        sql = (
            f"SELECT e.key, e.at, e.grade FROM event e WHERE {REVIEW} AND {IN_EFFECT} "
            "AND e.origin != ?{keys} ORDER BY e.key, e.day, e.at_us, e.origin, e.seq"
        )
        with self._reading():
            queries: list[tuple[str, tuple[str, ...]]]
            if keys is None:
                queries = [(sql.format(keys=""), (not_of,))]
            else:
                queries = [
                    (
                        sql.format(keys=f" AND e.key IN ({','.join('?' * len(chunk))})"),
                        (not_of, *chunk),
                    )
                    for chunk in derive.chunks(keys)
                ]
            out: dict[str, list[tuple[datetime, Grade]]] = {}
            try:
                for query, params in queries:
                    for key, at, grade in self._conn.execute(query, params):
                        out.setdefault(key, []).append((datetime.fromisoformat(at), _GRADES[grade]))
            except (KeyError, TypeError, ValueError) as exc:
                raise Damaged(f"a grade of {key}: {exc!r}") from exc
            return out

    def project(self, projection: Projection[T]) -> T:
        """``projection``'s value now: the events it reads, folded (see
        :mod:`zerodrill.srs.projections`)."""
        with self._reading():
            events = eventlog.of_kinds(
                self._conn, projection.actions, projection.grades, projection.reviews
            )
        return projection.fold(events)

    # -- writing ---------------------------------------------------------------------------

    def grade(
        self,
        key: str,
        quality: int,
        *,
        day: date,
        at: datetime,
        answer_ms: int | None = None,
        typed: str | None = None,
        buttons: int = DEFAULT_LAYOUT,
    ) -> LoggedEvent:
        """Log a grade given here to ``key`` on study day ``day`` at ``at`` (a naive time is
        local), pressed on the layout of ``buttons`` (6 or 4); the card is re-derived in the
        same transaction, on disk when this returns.

        A card graded on a later study day already (another terminal whose sitting began
        before the rollover) takes this grade on that day: the log's order never puts a new
        grade before one given earlier.
        """
        grade = to_grade(quality)
        stamped = at if at.tzinfo is not None else at.astimezone()
        with self._writing():
            last = self._schedule.last_day(key)
            if last is not None and last > day:
                day = last
            here = eventlog.machine_origin(self._conn)
            seq = eventlog.next_seq(self._conn, here)
            event = ReviewEvent(
                here, seq, key, stamped, day, grade, None, answer_ms, typed, buttons
            )
            row_id = eventlog.insert(self._conn, event)
            if eventlog.is_last(self._conn, row_id):
                # The usual case, last in the replay's order: one review on the cached state.
                self._schedule.apply(row_id, event)
            else:
                self._schedule.rederive_cards([key])
            return self._logged(row_id)

    def undo(self, target: int | Identity, *, at: datetime) -> LoggedEvent:
        """Withdraw the grade ``target`` (its row id here, or its identity); returns the undo
        logged for it. The undo names exactly that grade: the card is re-derived without it,
        every other grade (from any machine) staying.

        :class:`NotInEffect` if the grade is not logged or is withdrawn already;
        :class:`UndoConflict` if the card was graded here again since (in another terminal),
        as then that terminal's grade stands on it.
        """
        stamped = at if at.tzinfo is not None else at.astimezone()
        with self._writing():
            where = "e.id = ?" if isinstance(target, int) else "e.origin = ? AND e.seq = ?"
            params = (target,) if isinstance(target, int) else target
            row = self._conn.execute(
                f"{_LOGGED} WHERE {where} AND {IN_EFFECT}",
                params,
            ).fetchone()
            if row is None:
                raise NotInEffect(
                    f"review {target} is not in {self._path}, or already undone", self._path
                )
            graded = logged_from(row)
            here = eventlog.machine_origin(self._conn)
            later = self._conn.execute(
                f"SELECT 1 FROM event e WHERE e.key = ? AND e.id > ? AND e.origin = ? "
                f"AND {IN_EFFECT}",
                (graded.key, graded.id, here),
            ).fetchone()
            if later is not None:
                raise UndoConflict(
                    f"cannot undo the grade of {graded.key}: it was graded again since "
                    f"(in another session) in {self._path}",
                    self._path,
                )
            seq = eventlog.next_seq(self._conn, here)
            undo = ReviewEvent(here, seq, graded.key, stamped, graded.day, None, graded.identity)
            row_id = eventlog.insert(self._conn, undo)
            self._schedule.rederive_cards([graded.key])
            return self._logged(row_id)

    def add_events(
        self,
        events: Iterable[StreamEvent],
        *,
        now: datetime | None = None,
        batch: int = BATCH_EVENTS,
        after_batch: Callable[[Merged], None] | None = None,
        replayed: Mapping[str, Replayed] | None = None,
    ) -> Merged:
        """Add the events of any kind made elsewhere (another machine, Anki) that the log
        lacks, and re-derive their cards: a set union by identity, so adding twice, or in any
        order, gives the same log and the same states.

        Whole cards at a time, about ``batch`` events each, every batch its own transaction:
        a drill in another terminal waits for one batch at most. ``after_batch`` is called
        with what each batch did once it is committed. Events dated more than a day after
        ``now`` (default: the clock) are held back with a warning (see :mod:`.eventlog`);
        undos naming no event of their card here are skipped with one. If a batch fails, the
        ones before it stay added (each complete); adding the events again finishes the job.
        All are on disk when it returns (:meth:`_synced`).
        ``replayed``: cards the caller replayed with these events (:class:`.derive.Replayed`),
        not replayed again if they are what it says.
        """
        now = now if now is not None else datetime.now(UTC)
        cut, merged = eventlog.batches(events, now, batch)
        pending = list(cut)
        self._journal_in_memory(True)
        try:
            for number, events_of_cards in enumerate(pending, start=1):
                self._synced(number == len(pending))
                with self._writing():
                    # A card handed over replayed is not reviewed event by event on its cached
                    # state: no need to look (bench_anki_sync.py's 230 lookups, 30 ms). Which
                    # cards those are is asked once a card, not once an event.
                    looked = events_of_cards
                    if replayed:
                        rest = {k for k in set(map(_KEY, looked)) if k not in replayed}
                        looked = [e for e in looked if e.key in rest] if rest else []
                    appended = eventlog.appended(self._conn, looked)
                    done = eventlog.add_batch(self._conn, events_of_cards)
                    self._schedule.take(done.keys, appended, replayed)
                merged += done
                if after_batch is not None:
                    after_batch(done)
        finally:
            # A connection closed by a failed rollback has nothing left to set.
            with suppress(sqlite3.ProgrammingError):
                self._synced(True)
                self._journal_in_memory(False)
        warnings = merged.warnings + eventlog.skipped_warning(merged.skipped)
        return Merged(
            merged.added,
            merged.present,
            merged.keys,
            merged.held,
            merged.skipped,
            warnings,
            merged.actions,
            merged.settings,
        )

    def _synced(self, synced: bool) -> None:
        """Whether the next commit waits for the disk (``synchronous = FULL``, as the store
        is opened) or only hands the WAL its pages (``NORMAL``).

        Every batch but the last of :meth:`add_events` commits at ``NORMAL``: each is seen
        by a drill in another terminal once committed, and the last's commit puts them all
        on disk, as the WAL keeps commits in their order (a crash before it, or a batch that
        fails, leaves a tail of batches to the next commit at ``FULL``; adding the events
        again adds what a crash lost). A commit at ``FULL`` waits 1 to 10 ms for the disk,
        one at ``NORMAL`` 0.3 (bench_anki_sync.py's 5 batches). Inside an outer transaction
        its commit decides."""
        if not self._conn.in_transaction:
            self._conn.execute(f"PRAGMA synchronous = {'FULL' if synced else 'NORMAL'}")

    def _journal_in_memory(self, in_memory: bool) -> None:
        """Whether the transactions begun from now on keep their statement journals in memory
        (``temp_store = MEMORY``) or in a temporary file (SQLite's default, as the store is
        opened).

        A statement inserting many rows (:func:`.rows.insert_many`) copies each page it
        changes into a statement journal first, to take the statement back alone if a row
        fails; a hundred rows fall all over the event indexes, so each statement copies
        pages by the hundred, and writing them to a file was a large share of adding the
        rows (bench_anki_sync.py's 9,747 answers from Anki). The journal is only ever read back
        within its statement (a crash leaves the WAL to say what was committed), so memory
        loses nothing; only :meth:`add_events` asks for it, whose statements bound it. Set
        between transactions (a transaction keeps what was set when it began)."""
        if not self._conn.in_transaction:
            self._conn.execute(f"PRAGMA temp_store = {'MEMORY' if in_memory else 'DEFAULT'}")

    def _logged(self, row_id: int) -> LoggedEvent:
        row = self._conn.execute(f"{_LOGGED} WHERE e.id = ?", (row_id,)).fetchone()
        return logged_from(row)
