"""The review store: the event log, the cache derived from it, and what reads them, as
domain values.

The log holds events only (:class:`~zerodrill.srs.events.ReviewEvent`); every card's state is
derived by replaying its events through the store's scheduler (:mod:`.derive`), into a cache
updated in the transaction that logs the event. :meth:`Store.grade` logs a grade given here,
:meth:`Store.undo` withdraws one by name, :meth:`Store.add_events` adds events made elsewhere
(sync, Anki) as a set union by identity, in short transactions. :meth:`Store.events` and
:meth:`Store.log` read the log back; :meth:`Store.state`, :meth:`Store.due_dates` and the
rest read the cache.

Durability and sharing: WAL, ``synchronous = FULL`` (an event is on disk when :meth:`grade`
returns), one ``BEGIN IMMEDIATE`` transaction per write, and a busy timeout, so two terminals
can drill at once without "database is locked". Before each write the path must still name
the file opened (:mod:`.watch`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypeVar

from msgspec import structs

from zerodrill.srs.events import Identity, LoggedEvent, ReviewEvent, StreamEvent
from zerodrill.srs.grades import DEFAULT_LAYOUT, to_grade
from zerodrill.srs.profile import Profile
from zerodrill.srs.projections import Projection
from zerodrill.srs.schedulers import Scheduler, scheduler_named
from zerodrill.srs.schedulers.base import CardState
from zerodrill.srs.store import derive, eventlog, machine_id
from zerodrill.srs.store.actions import ActionLog
from zerodrill.srs.store.attempts import AttemptLog
from zerodrill.srs.store.eventlog import BATCH_EVENTS, Merged
from zerodrill.srs.store.figures import ReviewCounts, review_counts
from zerodrill.srs.store.file import Damaged, NotInEffect, UndoConflict, connect, translated
from zerodrill.srs.store.rows import (
    EVENT_COLUMNS,
    IN_EFFECT,
    LOGGED_COLUMNS,
    REVIEW,
    date_from,
    logged_from,
    review_from,
)
from zerodrill.srs.store.schema import SETTING_TABLE, has_tables, make_tables, prepare
from zerodrill.srs.store.sync_state import SyncState
from zerodrill.srs.store.watch import Watch

_KEYS_PER_QUERY = derive.KEYS_PER_QUERY
T = TypeVar("T")
_LOGGED = f"SELECT {LOGGED_COLUMNS} FROM event e LEFT JOIN effect f ON f.id = e.id"


class Store:
    """The review database. Open it with :meth:`Store.open`; use it as a context manager.

    A Store is one connection: use it from the thread that opened it.
    """

    def __init__(
        self, conn: sqlite3.Connection, path: Path, scheduler: Scheduler[Any] | None = None
    ) -> None:
        self._conn = conn
        #: The learner's choices; :meth:`open` reads them from the file's settings.
        self.profile = Profile(scheduler or scheduler_named())
        self._path = path
        self._watch = Watch(path)
        # Transactions open through _writing(): inner ones join the outer one.
        self._depth = 0
        self._data_version = self._read_data_version()
        self._attempts = AttemptLog(conn, self._reading, self._writing)
        self._actions = ActionLog(conn, self._reading, self._writing)
        self._sync = SyncState(conn, self._reading, self._writing)

    # -- opening and closing ---------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        create: bool = True,
        scheduler: Scheduler[Any] | None = None,
        read_only: bool = False,
    ) -> Store:
        """Open (or, with ``create``, create) the database at ``path``; migrate it forward.
        It opens with the learner's :attr:`profile`, read from the file's settings
        (:func:`zerodrill.srs.settings.read_profile`): its cards are derived with the learner's
        scheduler, options and interview date, so that every command schedules as the drill
        does; ``scheduler`` stands in for the learner's (a scratch sitting's, a test's). A
        cache built with another is rebuilt at the first read or write.

        Raises :class:`StoreError` for every state it cannot work with, without writing to it.
        ``create`` makes the file, not its folder: a missing folder is most often a typo.

        ``read_only``: a look that changes nothing (listing what is suspended, say): the file
        must exist, is neither migrated nor given tables, and every write is refused. Only
        what any version keeps alike is read so: the card actions.
        """
        path = Path(path).expanduser()
        conn = connect(path, create, read_only)
        try:
            with translated(path, "open"):
                prepare(conn, path, read_only)
        except BaseException:
            conn.close()
            raise
        store = cls(conn, path, scheduler)
        # The settings are read through the store, so they come after it opens (and the
        # module imports the store): deriving is lazy, so nothing was built with another.
        from zerodrill.srs.settings import read_profile

        try:
            store.profile = read_profile(store, scheduler)
        except BaseException:
            store.close()
            raise
        return store

    @property
    def scheduler(self) -> Scheduler[Any]:
        """What derives every card's state from its events: the profile's."""
        return self.profile.scheduler

    @scheduler.setter
    def scheduler(self, scheduler: Scheduler[Any]) -> None:
        self.profile = structs.replace(self.profile, scheduler=scheduler)

    def close(self) -> None:
        self._watch.close(self._conn)

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- transactions ------------------------------------------------------------------------

    @contextmanager
    def _reading(self) -> Iterator[None]:
        with translated(self._path, "read"):
            yield

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """One transaction; nested inside :meth:`transaction`, part of the outer one."""
        if self._depth:
            with translated(self._path, "save to"):
                yield
            return
        self.check_file()
        self._depth += 1
        try:
            with translated(self._path, "save to"):
                # IMMEDIATE takes the write lock up front, where the busy timeout applies;
                # a deferred transaction upgrading later would fail at once instead.
                self._conn.execute("BEGIN IMMEDIATE")
                derive.ensure(self._conn, self.scheduler)
                yield
                self._conn.execute("COMMIT")
        except BaseException:
            self._roll_back()
            raise
        finally:
            self._depth -= 1

    def check_file(self) -> None:
        """Raise :class:`FileGone` if the path no longer names the file opened, or its -wal
        or -shm went (see :mod:`.watch`): nothing more is written, nothing claimed saved."""
        self._watch.check(self._conn)

    def _roll_back(self) -> None:
        # SQLite rolls some failures (a full disk) back by itself. If ROLLBACK fails too, the
        # first error is the one worth reporting; the connection is then closed so that no
        # later write can join a half-done transaction.
        if not self._conn.in_transaction:
            return
        try:
            self._conn.execute("ROLLBACK")
        except sqlite3.Error:
            self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Reads and writes inside are one write transaction: all of the writes or none, and
        no other terminal writes in between (a grade reads the card's state and appends)."""
        with self._writing():
            yield

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside all see the database as of one moment, whatever another terminal
        commits meanwhile (WAL keeps that moment for them). For reads only; inside a
        transaction they are simply part of it."""
        if self._conn.in_transaction:
            yield
            return
        self._ensure_derived()
        with self._reading():
            self._conn.execute("BEGIN")
        try:
            yield
        finally:
            # Nothing was written: ending the transaction either way loses nothing.
            if self._conn.in_transaction:
                with self._reading():
                    self._conn.execute("COMMIT")

    def changed_elsewhere(self) -> bool:
        """True if another connection (another terminal) has committed since the last call
        (or since opening): what was read before may be out of date."""
        version = self._read_data_version()
        changed = version != self._data_version
        self._data_version = version
        return changed

    def _read_data_version(self) -> int:
        with self._reading():
            version: int = self._conn.execute("PRAGMA data_version").fetchone()[0]
            return version

    @property
    def machine(self) -> str:
        """This database's machine id: the origin of the reviews made here. Read each time:
        a sync (in another terminal, too) may give the database a new one."""
        with self._reading():
            return eventlog.machine_origin(self._conn)

    def renew_machine(self, moved: Collection[int]) -> str:
        """A new machine id for this database, its events numbered ``moved`` under the old
        one renumbered under the new, their cards re-derived; returns it. See
        :mod:`.machine_id`."""
        with self._writing():
            new, keys = machine_id.renew(self._conn, moved)
            derive.derive(self._conn, self.scheduler, keys)
            return new

    def forget_events(self, identities: Collection[Identity]) -> int:
        """Drop other machines' events that a copy of their database numbered twice, their
        cards re-derived; how many cards. See :func:`.machine_id.forget`."""
        with self._writing():
            keys = machine_id.forget(self._conn, identities)
            derive.derive(self._conn, self.scheduler, keys)
            return len(keys)

    @property
    def attempts(self) -> AttemptLog:
        """The interview attempts, in this file, through this connection's transactions."""
        return self._attempts

    @property
    def actions(self) -> ActionLog:
        """The card actions (suspend, bury, flag, mark), through this connection's
        transactions."""
        return self._actions

    @property
    def sync(self) -> SyncState:
        """Where syncs stopped reading, and the events looked up by identity, through this
        connection's transactions."""
        return self._sync

    # -- the schedule (the derived cache) ---------------------------------------------------

    @contextmanager
    def _derived(self) -> Iterator[None]:
        """Reads of the cache: built first with this store's scheduler if it was not."""
        self._ensure_derived()
        with self._reading():
            yield

    def _ensure_derived(self) -> None:
        # Inside a transaction it was seen to already: a write transaction ensures it on
        # starting, and so does a snapshot before it begins.
        if self._conn.in_transaction:
            return
        with self._reading():
            current = derive.built_with(self._conn) == self.scheduler.fingerprint
            # No events, nothing to derive: an empty cache is right for every scheduler, and
            # reading a new database must not wait for another terminal's write lock.
            current = current or not self._conn.execute("SELECT 1 FROM event LIMIT 1").fetchone()
        if not current:
            with self._writing():
                pass  # _writing rebuilds it on starting

    def use(self, scheduler: Scheduler[Any]) -> None:
        """Derive cards with ``scheduler`` from now on (chosen after opening, say from a saved
        setting). A cache built with another is rebuilt at the next read or write: nothing
        is lost, and going back to the first gives its schedule exactly."""
        self.scheduler = scheduler

    def rederive(self) -> None:
        """Drop the whole cache and derive it again from the events; one transaction."""
        with self._writing():
            derive.derive(self._conn, self.scheduler, None)

    def state(self, key: str) -> CardState:
        """The state of ``key``; the scheduler's new state when it has no grade in effect."""
        with self._derived():
            return self._state_of(key)

    def _state_of(self, key: str) -> CardState:
        row = self._conn.execute("SELECT state FROM card WHERE key = ?", (key,)).fetchone()
        if row is None:
            new: CardState = self.scheduler.new_state()
            return new
        return derive.state_from(self.scheduler, key, row[0])

    def last_day(self, key: str) -> date | None:
        """The latest study day on which ``key`` has a grade in effect, in any terminal; None
        if it has none. Read it inside the grade's :meth:`transaction`."""
        with self._derived():
            return self._last_day(key)

    def _last_day(self, key: str) -> date | None:
        row = self._conn.execute("SELECT last_day FROM card WHERE key = ?", (key,)).fetchone()
        return date_from(row[0]) if row is not None and row[0] is not None else None

    def states(self, keys: Collection[str] | None = None) -> dict[str, CardState]:
        """Each known key's state (or only those among ``keys``); new keys are absent."""
        with self._derived():
            if keys is None:
                rows = self._conn.execute("SELECT key, state FROM card")
                return {k: derive.state_from(self.scheduler, k, text) for k, text in rows}
            wanted = list(dict.fromkeys(keys))
            found: dict[str, CardState] = {}
            for start in range(0, len(wanted), _KEYS_PER_QUERY):
                chunk = wanted[start : start + _KEYS_PER_QUERY]
                marks = ",".join("?" * len(chunk))
                for k, text in self._conn.execute(
                    f"SELECT key, state FROM card WHERE key IN ({marks})", chunk
                ):
                    found[k] = derive.state_from(self.scheduler, k, text)
            return found

    def states_by(
        self, scheduler: Scheduler[Any], keys: Collection[str] | None = None
    ) -> dict[str, CardState]:
        """Each known key's state (among ``keys``) as ``scheduler`` derives it, replayed in
        memory: the cache is neither read nor changed (a look under another scheduler, say)."""
        with self._reading():
            return derive.derive_states(self._conn, scheduler, keys)

    def due_dates(
        self, *, after: date | None = None, through: date | None = None
    ) -> dict[str, date]:
        """The due day of each known key, earliest first (ties by key); new keys are absent.

        Only days after ``after`` and on or before ``through``, when given: a range of the
        index on due days, so what today's queue reads does not grow with what is due later.
        """
        with self._derived():
            return {key: date_from(due) for key, due in self._due(after, through)}

    def due_keys(self, *, after: date | None = None, through: date | None = None) -> list[str]:
        """:meth:`due_dates`' keys, in its order, without their days: today's queue needs
        only which keys are due and in what order, and reading ten thousand days costs it."""
        with self._derived():
            return [key for (key,) in self._due(after, through, "key")]

    def _due(
        self,
        after: date | None,
        through: date | None,
        columns: Literal["key", "key, due"] = "key, due",
    ) -> sqlite3.Cursor:
        bounds, params = ["due IS NOT NULL"], []
        if after is not None:
            bounds.append("due > ?")
            params.append(after.isoformat())
        if through is not None:
            bounds.append("due <= ?")
            params.append(through.isoformat())
        return self._conn.execute(
            f"SELECT {columns} FROM card WHERE {' AND '.join(bounds)} ORDER BY due, key", params
        )

    def again_on(self, day: date) -> frozenset[str]:
        """The keys that come back on study day ``day`` for another grade (a same-day repeat
        or a learning step, as the scheduler says)."""
        with self._derived():
            rows = self._conn.execute("SELECT key FROM card WHERE again_on = ?", (day.isoformat(),))
            return frozenset(key for (key,) in rows)

    # -- the log --------------------------------------------------------------------------------

    def reviews_on(self, day: date) -> list[LoggedEvent]:
        """The grades of study day ``day`` in effect, in the order logged here."""
        with self._derived():
            rows = self._conn.execute(
                f"{_LOGGED} WHERE e.day = ? AND {IN_EFFECT} ORDER BY e.id",
                (day.isoformat(),),
            )
            return [logged_from(row) for row in rows]

    def log(self) -> list[LoggedEvent]:
        """The whole log in the order logged here, undos and withdrawn grades included, each
        with what the replay made of it."""
        with self._derived():
            rows = self._conn.execute(f"{_LOGGED} WHERE {REVIEW} ORDER BY e.id")
            return [logged_from(row) for row in rows]

    def events(self) -> list[ReviewEvent]:
        """Every review of the log (grades and their undos), in the order logged here."""
        with self._reading():
            cursor = self._conn.execute(
                f"SELECT {EVENT_COLUMNS} FROM event e WHERE {REVIEW} ORDER BY e.id"
            )
            return [review_from(row) for row in cursor]

    def project(self, projection: Projection[T]) -> T:
        """``projection``'s value now: the events it reads, folded (see
        :mod:`zerodrill.srs.projections`)."""
        with self._reading():
            events = eventlog.of_kinds(self._conn, projection.actions, projection.grades)
        return projection.fold(events)

    def review_counts(self, day: date, *, window_days: int = 30) -> dict[str, ReviewCounts]:
        """Per deck id (the part of a key before '/'): review figures as of study day ``day``,
        the recall window being the ``window_days`` days ending with ``day``."""
        with self._derived():
            return review_counts(self._conn, day, window_days)

    # -- settings -----------------------------------------------------------------------------

    def setting(self, name: str) -> str | None:
        """The value saved for setting ``name``; None if none was saved."""
        with self._reading():
            if not has_tables(self._conn, "setting"):
                return None
            row = self._conn.execute(
                "SELECT CAST(value AS BLOB) FROM setting WHERE name = ?", (name,)
            ).fetchone()
            if row is None:
                return None
            try:
                return bytes(row[0]).decode("utf-8")
            except (TypeError, UnicodeDecodeError) as exc:
                raise Damaged(f"the setting {name!r} is not text") from exc

    def save_setting(self, name: str, value: str) -> None:
        """Save ``value`` for setting ``name``, replacing what was saved; on disk on return."""
        with self._writing():
            make_tables(self._conn, SETTING_TABLE)
            self._conn.execute(
                "INSERT INTO setting (name, value) VALUES (?, ?) "
                "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                (name, value),
            )

    # -- writing ------------------------------------------------------------------------------

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
            last = self._last_day(key)
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
                derive.apply(self._conn, self.scheduler, row_id, self._state_of(key), event)
            else:
                derive.derive(self._conn, self.scheduler, [key])
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
            derive.derive(self._conn, self.scheduler, [graded.key])
            return self._logged(row_id)

    def add_events(
        self,
        events: Iterable[StreamEvent],
        *,
        now: datetime | None = None,
        batch: int = BATCH_EVENTS,
        after_batch: Callable[[Merged], None] | None = None,
    ) -> Merged:
        """Add the events of any kind made elsewhere (another machine, Anki) that the log
        lacks, and re-derive their cards: a set union by identity, so adding twice, or in any order,
        gives the same log and the same states.

        Whole cards at a time, about ``batch`` events each, every batch its own transaction:
        a drill in another terminal waits for one batch at most. ``after_batch`` is called
        with what each batch did once it is committed. Events dated more than a day after
        ``now`` (default: the clock) are held back with a warning (see :mod:`.eventlog`);
        undos naming no event of their card here are skipped with one. If a batch fails, the
        ones before it stay added (each complete); adding the events again finishes the job.
        """
        now = now if now is not None else datetime.now(UTC)
        cut, merged = eventlog.batches(events, now, batch)
        for events_of_cards in cut:
            with self._writing():
                appended = eventlog.appended(self._conn, events_of_cards)
                done = eventlog.add_batch(self._conn, events_of_cards)
                self._derive_added(done.keys, appended)
            merged += done
            if after_batch is not None:
                after_batch(done)
        warnings = merged.warnings + eventlog.skipped_warning(merged.skipped)
        return Merged(
            merged.added,
            merged.present,
            merged.keys,
            merged.held,
            merged.skipped,
            warnings,
            merged.actions,
        )

    def _derive_added(self, keys: frozenset[str], appended: dict[str, list[ReviewEvent]]) -> None:
        """Re-derive the cards ``keys`` that events were added to: those whose added grades all
        come after the rest of their card (``appended``: a sync's reviews made since) take
        them on the cached state one by one, as :meth:`grade` does; the others are replayed.
        The 10,000 new events of bench_sync.py's folder row need it to stay within 2 s."""
        derive.derive(self._conn, self.scheduler, keys - appended.keys())
        for key, events in appended.items():
            for event in events:
                row_id = eventlog.row_id(self._conn, event.identity)
                derive.apply(self._conn, self.scheduler, row_id, self._state_of(key), event)

    def _logged(self, row_id: int) -> LoggedEvent:
        row = self._conn.execute(f"{_LOGGED} WHERE e.id = ?", (row_id,)).fetchone()
        return logged_from(row)
