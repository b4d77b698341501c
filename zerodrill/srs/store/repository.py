"""The review store: appends log entries and reads states and the log back, as domain values.

It applies no SM-2: :func:`zerodrill.srs.scheduler.review_card` computes each entry, and
:meth:`Store.append` logs it and keeps the card's state in the same transaction. Undo is the
store's own, since it is about the log: :meth:`Store.undo` takes back one review by id, and
refuses when another terminal has reviewed the card since.

Durability and sharing: WAL, ``synchronous = FULL`` (an entry is on disk when :meth:`append`
returns), one ``BEGIN IMMEDIATE`` transaction per write, and a busy timeout, so two terminals
can drill at once without "database is locked". Before each write the path must still name
the file opened (:mod:`.watch`). A card reviewed on a day takes only repeats that day, in any
terminal: the day is read inside the grade's transaction (:meth:`Store.last_day`).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import date, datetime
from pathlib import Path
from types import TracebackType

from zerodrill.srs.scheduler import Review, ReviewKind, rebuild_card
from zerodrill.srs.sm2 import Sm2State
from zerodrill.srs.store import cardlog, machine_id
from zerodrill.srs.store.attempts import AttemptLog
from zerodrill.srs.store.cardlog import Merged
from zerodrill.srs.store.figures import ReviewCounts, review_counts
from zerodrill.srs.store.file import NotInEffect, UndoConflict, connect, translated
from zerodrill.srs.store.rows import (
    LOG_LINE_COLUMNS,
    LogLine,
    date_from,
    log_line_from,
    review_from,
    state_from,
)
from zerodrill.srs.store.schema import SETTING_TABLE, has_tables, make_tables, prepare
from zerodrill.srs.store.watch import Watch

_IN_EFFECT = cardlog.IN_EFFECT
_REVIEW_COLUMNS = cardlog.REVIEW_COLUMNS
_STATE_COLUMNS = cardlog.STATE_COLUMNS
#: SQLite's limit on parameters is far above this; chunks keep each statement small.
_KEYS_PER_QUERY = 500


class Store:
    """The review database. Open it with :meth:`Store.open`; use it as a context manager.

    A Store is one connection: use it from the thread that opened it.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self._path = path
        self._watch = Watch(path)
        # Transactions open through _writing(): inner ones join the outer one.
        self._depth = 0
        self._data_version = self._read_data_version()
        self._attempts = AttemptLog(conn, self._reading, self._writing)

    # -- opening and closing ---------------------------------------------------------------

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, create: bool = True) -> Store:
        """Open (or, with ``create``, create) the database at ``path``; migrate it forward.

        Raises :class:`StoreError` for every state it cannot work with, without writing to it.
        ``create`` makes the file, not its folder: a missing folder is most often a typo.
        """
        path = Path(path).expanduser()
        conn = connect(path, create)
        try:
            with translated(path, "open"):
                prepare(conn, path)
        except BaseException:
            conn.close()
            raise
        return cls(conn, path)

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
            return machine_id.origin(self._conn)

    def renew_machine(self, moved: Collection[int]) -> str:
        """A new machine id for this database, its reviews numbered ``moved`` under the old
        one renumbered under the new; returns it. See :mod:`.machine_id`."""
        with self._writing():
            return machine_id.renew(self._conn, moved)

    @property
    def attempts(self) -> AttemptLog:
        """The interview attempts, in this file, through this connection's transactions."""
        return self._attempts

    # -- the schedule ---------------------------------------------------------------------------

    def state(self, key: str) -> Sm2State:
        """The state of ``key``; :meth:`Sm2State.new` when it was never graded."""
        with self._reading():
            return self._state_of(key)

    def _state_of(self, key: str) -> Sm2State:
        row = self._conn.execute(
            f"SELECT {_STATE_COLUMNS} FROM card_state WHERE key = ?", (key,)
        ).fetchone()
        return state_from(*row) if row is not None else Sm2State.new()

    def last_day(self, key: str) -> date | None:
        """The latest study day on which ``key`` has a grade or repeat in effect, in any
        terminal; None if it has none. Read it inside the grade's :meth:`transaction`."""
        with self._reading():
            return self._last_day(key)

    def _last_day(self, key: str) -> date | None:
        row = self._conn.execute(
            f"SELECT max(r.day) FROM review r WHERE r.key = ? AND {_IN_EFFECT}", (key,)
        ).fetchone()
        return date_from(row[0]) if row[0] is not None else None

    def states(self, keys: Collection[str] | None = None) -> dict[str, Sm2State]:
        """Each scheduled key's state (or only those among ``keys``); new keys are absent."""
        with self._reading():
            if keys is None:
                rows = self._conn.execute(f"SELECT key, {_STATE_COLUMNS} FROM card_state")
                return {row[0]: state_from(*row[1:]) for row in rows}
            wanted = list(dict.fromkeys(keys))
            found: dict[str, Sm2State] = {}
            for start in range(0, len(wanted), _KEYS_PER_QUERY):
                chunk = wanted[start : start + _KEYS_PER_QUERY]
                marks = ",".join("?" * len(chunk))
                for row in self._conn.execute(
                    f"SELECT key, {_STATE_COLUMNS} FROM card_state WHERE key IN ({marks})", chunk
                ):
                    found[row[0]] = state_from(*row[1:])
            return found

    def due_dates(
        self, *, after: date | None = None, through: date | None = None
    ) -> dict[str, date]:
        """The due day of each scheduled key, earliest first (ties by key); new keys are absent.

        Only days after ``after`` and on or before ``through``, when given: a range of the
        index on due days, so what today's queue reads does not grow with what is due later.
        """
        bounds, params = [], []
        if after is not None:
            bounds.append("due > ?")
            params.append(after.isoformat())
        if through is not None:
            bounds.append("due <= ?")
            params.append(through.isoformat())
        where = f" WHERE {' AND '.join(bounds)}" if bounds else ""
        with self._reading():
            rows = self._conn.execute(
                f"SELECT key, due FROM card_state{where} ORDER BY due, key", params
            )
            return {key: date_from(due) for key, due in rows}

    # -- the log --------------------------------------------------------------------------------

    def reviews_on(self, day: date) -> list[Review]:
        """The grades and repeats of study day ``day`` still in effect, in the order given."""
        with self._reading():
            rows = self._conn.execute(
                f"SELECT {_REVIEW_COLUMNS} FROM review r WHERE r.day = ? AND {_IN_EFFECT} "
                "ORDER BY r.id",
                (day.isoformat(),),
            )
            return [review_from(row) for row in rows]

    def log(self) -> Iterator[Review]:
        """The whole log, oldest first, undo entries and undone grades included."""
        with self._reading():
            cursor = self._conn.execute(f"SELECT {_REVIEW_COLUMNS} FROM review r ORDER BY r.id")
            # Decoded here, where a damaged row is still reported as a StoreError.
            return iter([review_from(row) for row in cursor])

    def log_lines(self) -> list[LogLine]:
        """The whole log as :class:`LogLine` values (no SM-2 states), oldest first."""
        with self._reading():
            cursor = self._conn.execute(
                f"SELECT {LOG_LINE_COLUMNS} FROM review r "
                "LEFT JOIN review u ON u.id = r.undoes ORDER BY r.id"
            )
            return [log_line_from(row) for row in cursor]

    def review_counts(self, day: date, *, window_days: int = 30) -> dict[str, ReviewCounts]:
        """Per deck id (the part of a key before '/'): review figures as of study day ``day``,
        the recall window being the ``window_days`` days ending with ``day``."""
        with self._reading():
            return review_counts(self._conn, day, window_days)

    # -- settings -----------------------------------------------------------------------------

    def setting(self, name: str) -> str | None:
        """The value saved for setting ``name``; None if none was saved."""
        with self._reading():
            if not has_tables(self._conn, "setting"):
                return None
            row = self._conn.execute("SELECT value FROM setting WHERE name = ?", (name,)).fetchone()
            return str(row[0]) if row is not None else None

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

    def append(self, review: Review) -> Review:
        """Log a grade or repeat made by :func:`~zerodrill.srs.scheduler.review_card`; returns
        it with its id. A grade's ``after`` becomes the card's state; a repeat moves nothing.
        One transaction: the entry is on disk when this returns.

        ``review.before`` must be the card's state as it is, and a card reviewed on the
        review's day (or later) takes only a repeat: read both and append inside one
        :meth:`transaction`, so that no other terminal's grade comes in between.
        """
        if review.kind is ReviewKind.UNDO:
            raise ValueError("an undo is logged by Store.undo, which checks what it undoes")
        with self._writing():
            if self._state_of(review.key) != review.before:
                raise ValueError(
                    f"the review of {review.key} starts from a state the card no longer has"
                )
            last = self._last_day(review.key)
            if not review.repeat and last is not None and last >= review.day:
                raise ValueError(
                    f"{review.key} was reviewed on {last.isoformat()} already: "
                    f"on {review.day.isoformat()} it takes only a repeat"
                )
            # A grade comes on a later study day than every review in effect (else it would
            # be a repeat), so it is last in time order too: the replay would give its after.
            logged = self._append(review)
            if not review.repeat:
                cardlog.put_state(self._conn, review.key, review.after)
        return logged

    def undo(self, review_id: int, *, at: datetime) -> Review:
        """Take back the grade or repeat ``review_id``; returns the undo entry logged for it.

        The card gets the state a replay of its log without that grade gives: the state it
        had before the grade, unless reviews made elsewhere and older than it were merged
        since (a repeat moved nothing, so nothing moves back). :class:`NotInEffect` if the
        review is not logged or is undone already; :class:`UndoConflict` if the card was
        reviewed here again since (in another terminal), as then it can never be undone.
        """
        stamped = at if at.tzinfo is not None else at.astimezone()
        with self._writing():
            target = self._in_effect(review_id)
            if target is None:
                raise NotInEffect(
                    f"review {review_id} is not in {self._path}, or already undone", self._path
                )
            entries = cardlog.card_entries(self._conn, target.key)
            undone = {e.undoes for e in entries}
            # Reviews merged from elsewhere never block an undo: the replay places them.
            here = machine_id.origin(self._conn)
            later = [
                e
                for e in entries
                if e.kind is not ReviewKind.UNDO
                and e.id not in undone
                and e.id > target.id
                and e.origin == here
            ]
            if later:
                raise UndoConflict(
                    f"cannot undo the grade of {target.key}: it was graded again since "
                    f"(in another session) in {self._path}",
                    self._path,
                )
            current = self._state_of(target.key)
            undo = Review(
                target.key,
                ReviewKind.UNDO,
                stamped,
                target.day,
                None,
                current,
                current,
                undoes=target.id,
                undoes_ref=target.identity,
            )
            restored, _ = rebuild_card([*entries, undo])
            undo = self._append(replace(undo, after=restored))
            cardlog.put_state(self._conn, target.key, restored)
        return undo

    def merge(self, reviews: Iterable[Review]) -> Merged:
        """Log the reviews made elsewhere that the log lacks, and rebuild their cards' states
        by replaying each card's whole log in time order; one transaction. Idempotent and
        order-independent: see :func:`zerodrill.srs.store.cardlog.merge`."""
        with self._writing():
            return cardlog.merge(self._conn, reviews)

    def rebuild(self, keys: Iterable[str] | None = None) -> None:
        """Rebuild the state of ``keys`` (default: every card in the log) by replaying their
        logs in time order; one transaction."""
        with self._writing():
            if keys is None:
                keys = [k for (k,) in self._conn.execute("SELECT DISTINCT key FROM review")]
            for key in keys:
                cardlog.rebuild_state(self._conn, key)

    def _in_effect(self, review_id: int) -> Review | None:
        """The grade or repeat ``review_id`` if it is logged and not undone."""
        row = self._conn.execute(
            f"SELECT {_REVIEW_COLUMNS} FROM review r WHERE r.id = ? AND {_IN_EFFECT}",
            (review_id,),
        ).fetchone()
        return review_from(row) if row is not None else None

    def _append(self, review: Review) -> Review:
        """Log ``review`` (its ``id`` is ignored) as this machine's; it with its id."""
        return cardlog.insert(self._conn, review, machine_id.origin(self._conn))
