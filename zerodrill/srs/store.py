"""The review store: one SQLite file, and the only module in zerodrill that speaks SQL.

The append-only ``review`` log is the truth: every grade, every same-day repeat and every undo,
each with the SM-2 state before and after it. ``card_state`` is a cache of the latest state of
each reviewed key, written in the same transaction as the log entry and derivable from the log
at any time (:meth:`Store.derived_states`, :meth:`Store.rebuild_state`). A key that is absent
from ``card_state`` is new.

Durability and sharing: WAL, ``synchronous = FULL`` (a grade is on disk when :meth:`record`
returns), one ``BEGIN IMMEDIATE`` transaction per grade, and a busy timeout, so two terminals
can drill at once without "database is locked".

Every failure a user can cause (missing folder, unreadable, read-only, corrupt, full disk, a
database from a newer zerodrill) is a :class:`StoreError`: one line naming the file. A file
that is refused is never written to.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from types import TracebackType

from zerodrill.errors import RecoverableError, UserError
from zerodrill.srs import sm2
from zerodrill.srs.days import local_now
from zerodrill.srs.sm2 import Grade, Sm2State

#: 'ZDRL': marks the file as ours, so a stray SQLite file (an Anki collection, say) is refused.
APPLICATION_ID = 0x5A44524C
BUSY_TIMEOUT_MS = 5000
_SQLITE_MAGIC = b"SQLite format 3\x00"

# MIGRATIONS[i] takes the schema from user_version i to i + 1. Append only; never edit one
# that has shipped.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE review (
        id              INTEGER PRIMARY KEY,
        key             TEXT    NOT NULL,
        kind            TEXT    NOT NULL CHECK (kind IN ('grade', 'repeat', 'undo')),
        at              TEXT    NOT NULL,  -- wall time, ISO 8601 with UTC offset
        day             TEXT    NOT NULL,  -- study day, ISO date
        grade           INTEGER CHECK (grade BETWEEN 0 AND 5),
        undoes          INTEGER REFERENCES review (id),
        answer_ms       INTEGER,
        typed           TEXT,
        reps_before     INTEGER NOT NULL,
        interval_before INTEGER NOT NULL,
        ef_before       INTEGER NOT NULL,  -- hundredths: 250 is 2.5
        due_before      TEXT,              -- NULL: the card was new
        lapses_before   INTEGER NOT NULL,
        reps_after      INTEGER NOT NULL,
        interval_after  INTEGER NOT NULL,
        ef_after        INTEGER NOT NULL,
        due_after       TEXT,
        lapses_after    INTEGER NOT NULL,
        CHECK ((kind = 'undo') = (undoes IS NOT NULL)),
        CHECK ((kind = 'undo') = (grade IS NULL))
    );
    CREATE INDEX review_day ON review (day);
    CREATE INDEX review_key ON review (key, id);
    -- A grade is undone at most once, even with two terminals pressing undo.
    CREATE UNIQUE INDEX review_undoes ON review (undoes) WHERE undoes IS NOT NULL;
    CREATE TRIGGER review_no_update BEFORE UPDATE ON review
        BEGIN SELECT RAISE(ABORT, 'the review log is append-only'); END;
    CREATE TRIGGER review_no_delete BEFORE DELETE ON review
        BEGIN SELECT RAISE(ABORT, 'the review log is append-only'); END;

    CREATE TABLE card_state (
        key         TEXT    PRIMARY KEY,
        repetitions INTEGER NOT NULL,
        interval    INTEGER NOT NULL,
        ef          INTEGER NOT NULL,
        due         TEXT    NOT NULL,
        lapses      INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX card_state_due ON card_state (due);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)

_IN_EFFECT = "r.kind != 'undo' AND NOT EXISTS (SELECT 1 FROM review u WHERE u.undoes = r.id)"
_REVIEW_COLUMNS = (
    "r.id, r.key, r.kind, r.at, r.day, r.grade, r.undoes, r.answer_ms, r.typed, "
    "r.reps_before, r.interval_before, r.ef_before, r.due_before, r.lapses_before, "
    "r.reps_after, r.interval_after, r.ef_after, r.due_after, r.lapses_after"
)
_STATE_COLUMNS = "repetitions, interval, ef, due, lapses"


class StoreError(UserError):
    """The review database cannot be used; the message is one line naming the file."""

    def __init__(self, message: str, path: Path | None = None) -> None:
        super().__init__(message)
        self.path = path


class UndoConflict(StoreError, RecoverableError):
    """The grade to undo was superseded (graded again elsewhere): it can never be undone."""


class ReviewKind(StrEnum):
    GRADE = "grade"  #: a grade that moved the schedule
    REPEAT = "repeat"  #: a same-day repeat (SM-2 step 5/7): logged, moves nothing
    UNDO = "undo"  #: takes back the review ``undoes``


@dataclass(frozen=True, slots=True)
class Review:
    """One entry of the review log."""

    id: int
    key: str
    kind: ReviewKind
    #: Wall time, timezone-aware.
    at: datetime
    #: The study day the entry belongs to (for an undo: the day of the review it undoes).
    day: date
    #: None for an undo.
    grade: Grade | None
    before: Sm2State
    after: Sm2State
    answer_ms: int | None = None
    typed: str | None = None
    undoes: int | None = None

    @property
    def repeat(self) -> bool:
        return self.kind is ReviewKind.REPEAT

    @property
    def introduced(self) -> bool:
        """This grade was the card's first: it turned a new card into a scheduled one."""
        return self.kind is ReviewKind.GRADE and self.before.is_new


@dataclass(frozen=True, slots=True)
class ReviewCounts:
    """Review figures for one deck (reviews in effect: undone ones are left out)."""

    reviews: int = 0
    reviews_today: int = 0
    #: Scheduled reviews of known cards in the window (no first sights, no repeats) ...
    recall_graded: int = 0
    #: ... and how many of them got 3 or more.
    recall_passed: int = 0


def _state_params(state: Sm2State) -> tuple[int, int, int, str | None, int]:
    due = state.due.isoformat() if state.due is not None else None
    return (state.repetitions, state.interval, state.ef_hundredths, due, state.lapses)


class _Damaged(Exception):
    """A stored value no zerodrill wrote (a date that is no date, an EF below 1.3, ...)."""


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except (TypeError, ValueError) as exc:
        raise _Damaged(f"bad date {text!r}") from exc


def _state_from(reps: int, interval: int, ef: int, due: str | None, lapses: int) -> Sm2State:
    try:
        return Sm2State.from_hundredths(
            reps, interval, ef, _date(due) if due is not None else None, lapses
        )
    except (TypeError, ValueError) as exc:
        raise _Damaged(f"bad SM-2 state: {exc}") from exc


def _review_from(row: tuple) -> Review:  # type: ignore[type-arg]
    try:
        return Review(
            id=row[0],
            key=row[1],
            kind=ReviewKind(row[2]),
            at=datetime.fromisoformat(row[3]),
            day=_date(row[4]),
            grade=Grade(row[5]) if row[5] is not None else None,
            undoes=row[6],
            answer_ms=row[7],
            typed=row[8],
            before=_state_from(*row[9:14]),
            after=_state_from(*row[14:19]),
        )
    except (TypeError, ValueError) as exc:
        raise _Damaged(f"review {row[0]}: {exc}") from exc


def _reason(exc: sqlite3.Error) -> str:
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    reasons = {
        sqlite3.SQLITE_FULL: "the disk is full",
        sqlite3.SQLITE_READONLY: "it is read-only",
        sqlite3.SQLITE_CORRUPT: "it is damaged (SQLite says the database disk image is malformed)",
        sqlite3.SQLITE_NOTADB: "it is not a database",
        sqlite3.SQLITE_BUSY: f"another program kept it locked for {BUSY_TIMEOUT_MS // 1000} s",
        sqlite3.SQLITE_LOCKED: "it is locked",
        sqlite3.SQLITE_CANTOPEN: "SQLite cannot open it or create its journal beside it",
        sqlite3.SQLITE_PERM: "permission denied",
        sqlite3.SQLITE_IOERR: "a disk I/O error",
    }
    reason = reasons.get(primary) if primary is not None else None
    return reason or str(exc).splitlines()[0]


@contextmanager
def _translated(path: Path, action: str) -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as exc:
        raise StoreError(f"cannot {action} {path}: {_reason(exc)}", path) from exc
    except _Damaged as exc:
        raise StoreError(f"cannot {action} {path}: it is damaged ({exc})", path) from exc
    except OSError as exc:
        raise StoreError(f"cannot {action} {path}: {exc.strerror or exc}", path) from exc


def _precheck(path: Path, create: bool) -> None:
    """Refuse, with a clear line, what SQLite would report vaguely or only half-way through."""
    folder = path.parent
    if path.is_dir():
        raise StoreError(f"{path} is a folder, not a review database", path)
    if not path.exists():
        if not create:
            raise StoreError(f"no review database at {path}", path)
        if not folder.is_dir():
            raise StoreError(f"cannot create {path}: the folder {folder} does not exist", path)
        if not os.access(folder, os.W_OK | os.X_OK):
            raise StoreError(f"cannot create {path}: the folder {folder} is read-only", path)
        return
    if not path.is_file():
        # A pipe would block the read below forever; a device is no database either.
        raise StoreError(f"{path} is not a regular file, so not a review database", path)
    try:
        with path.open("rb") as f:
            header = f.read(len(_SQLITE_MAGIC))
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}", path) from exc
    if header and header != _SQLITE_MAGIC:
        raise StoreError(f"{path} is not a zerodrill review database (not an SQLite file)", path)
    if not os.access(path, os.W_OK):
        raise StoreError(f"cannot write {path}: it is read-only", path)
    if not os.access(folder, os.W_OK | os.X_OK):
        # WAL needs to create PATH-wal and PATH-shm beside the database.
        raise StoreError(f"cannot write {path}: its folder {folder} is read-only", path)


class Store:
    """The review database. Open it with :meth:`Store.open`; use it as a context manager.

    A Store is one connection: use it from the thread that opened it.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self._path = path
        # Grades recorded through this Store, oldest first: undo_last() takes back only these,
        # so undo in one terminal never takes back a grade given in another.
        self._mine: list[int] = []
        # Transactions open through _writing(): inner ones (in a batch) join the outer one.
        self._depth = 0

    # -- opening and closing ---------------------------------------------------------------

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, create: bool = True) -> Store:
        """Open (or, with ``create``, create) the database at ``path``; migrate it forward.

        Raises :class:`StoreError` for every state it cannot work with, without writing to it.
        ``create`` makes the file, not its folder: a missing folder is most often a typo.
        """
        path = Path(path).expanduser()
        _precheck(path, create)
        # absolute(), not resolve(): a symlink loop must reach SQLite and fail as one line.
        uri = f"{path.absolute().as_uri()}?mode={'rwc' if create else 'rw'}"
        with _translated(path, "open"):
            conn = sqlite3.connect(
                uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None
            )
        try:
            with _translated(path, "open"):
                cls._prepare(conn, path)
        except BaseException:
            conn.close()
            raise
        return cls(conn, path)

    @staticmethod
    def _prepare(conn: sqlite3.Connection, path: Path) -> None:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # Everything is read and checked before the first write, so a refused file is untouched.
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{path} was written by a newer zerodrill (database version {version}; this "
                f"zerodrill reads up to {SCHEMA_VERSION}): upgrade zerodrill to use it",
                path,
            )
        foreign = app_id not in (0, APPLICATION_ID) or (
            version == 0 and conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
        )
        if foreign:
            raise StoreError(f"{path} is an SQLite file but not a zerodrill review database", path)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        if version < SCHEMA_VERSION:
            conn.execute("BEGIN IMMEDIATE")
            try:
                # Read again under the write lock: another process may have migrated meanwhile.
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                for step in range(version, SCHEMA_VERSION):
                    for statement in _statements(MIGRATIONS[step]):
                        conn.execute(statement)
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    @property
    def path(self) -> Path:
        return self._path

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        with self._reading():
            return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    # -- transactions ------------------------------------------------------------------------

    @contextmanager
    def _reading(self) -> Iterator[None]:
        with _translated(self._path, "read"):
            yield

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """One transaction; nested inside :meth:`batch`, part of the batch's."""
        if self._depth:
            with _translated(self._path, "save to"):
                yield
            return
        self._depth += 1
        try:
            with _translated(self._path, "save to"):
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
    def snapshot(self) -> Iterator[None]:
        """Reads inside all see the database as of one moment, whatever another terminal
        commits meanwhile (WAL keeps that moment for them). For reads only; inside a batch
        they are simply part of its transaction."""
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

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Many writes in one transaction (imports, benchmarks): all of them or none."""
        with self._writing():
            yield

    # -- reading state ------------------------------------------------------------------------

    def state(self, key: str) -> Sm2State:
        """The state of ``key``; :meth:`Sm2State.new` when it was never graded."""
        with self._reading():
            return self._state_of(key)

    def _state_of(self, key: str) -> Sm2State:
        row = self._conn.execute(
            f"SELECT {_STATE_COLUMNS} FROM card_state WHERE key = ?", (key,)
        ).fetchone()
        return _state_from(*row) if row is not None else Sm2State.new()

    def states(self, keys: Collection[str] | None = None) -> dict[str, Sm2State]:
        """Each reviewed key's state (or only those among ``keys``); new keys are absent."""
        with self._reading():
            if keys is None:
                rows = self._conn.execute(f"SELECT key, {_STATE_COLUMNS} FROM card_state")
                return {row[0]: _state_from(*row[1:]) for row in rows}
            wanted = list(dict.fromkeys(keys))
            found: dict[str, Sm2State] = {}
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for row in self._conn.execute(
                    f"SELECT key, {_STATE_COLUMNS} FROM card_state WHERE key IN ({marks})", chunk
                ):
                    found[row[0]] = _state_from(*row[1:])
            return found

    def known_keys(self) -> set[str]:
        """Every key with a schedule (graded at least once, not undone back to new)."""
        with self._reading():
            return {row[0] for row in self._conn.execute("SELECT key FROM card_state")}

    def due_states(self, day: date) -> dict[str, Sm2State]:
        """States due on or before ``day``, most overdue first (ties by key)."""
        with self._reading():
            rows = self._conn.execute(
                f"SELECT key, {_STATE_COLUMNS} FROM card_state WHERE due <= ? ORDER BY due, key",
                (day.isoformat(),),
            )
            return {row[0]: _state_from(*row[1:]) for row in rows}

    def due_keys(self, day: date) -> list[str]:
        """Keys due on or before ``day``, most overdue first (ties by key)."""
        with self._reading():
            rows = self._conn.execute(
                "SELECT key FROM card_state WHERE due <= ? ORDER BY due, key", (day.isoformat(),)
            )
            return [row[0] for row in rows]

    def scheduled_after(self, day: date) -> set[str]:
        """Keys whose next review falls after ``day``: :meth:`known_keys` less the due ones."""
        with self._reading():
            rows = self._conn.execute(
                "SELECT key FROM card_state WHERE due > ?", (day.isoformat(),)
            )
            return {row[0] for row in rows}

    def due_dates(self, until: date) -> dict[str, date]:
        """The due day of every key due on or before ``until`` (for forecasts)."""
        with self._reading():
            rows = self._conn.execute(
                "SELECT key, due FROM card_state WHERE due <= ?", (until.isoformat(),)
            )
            return {key: _date(due) for key, due in rows}

    def next_due_after(self, day: date, keys: Collection[str] | None = None) -> date | None:
        """The first day after ``day`` on which a key (among ``keys``, if given) falls due."""
        with self._reading():
            rows = self._conn.execute(
                "SELECT key, due FROM card_state WHERE due > ? ORDER BY due", (day.isoformat(),)
            )
            for key, due in rows:
                if keys is None or key in keys:
                    return _date(due)
            return None

    # -- reading the log ----------------------------------------------------------------------

    def reviews_on(self, day: date) -> list[Review]:
        """The grades and repeats of study day ``day`` still in effect, in the order given."""
        with self._reading():
            rows = self._conn.execute(
                f"SELECT {_REVIEW_COLUMNS} FROM review r WHERE r.day = ? AND {_IN_EFFECT} "
                "ORDER BY r.id",
                (day.isoformat(),),
            )
            return [_review_from(row) for row in rows]

    def log(self, key: str | None = None) -> Iterator[Review]:
        """The whole log (or one key's), oldest first, undo entries and undone grades included."""
        with self._reading():
            if key is None:
                cursor = self._conn.execute(f"SELECT {_REVIEW_COLUMNS} FROM review r ORDER BY r.id")
            else:
                cursor = self._conn.execute(
                    f"SELECT {_REVIEW_COLUMNS} FROM review r WHERE r.key = ? ORDER BY r.id", (key,)
                )
            # Decoded here, where a damaged row is still reported as a StoreError.
            return iter([_review_from(row) for row in cursor])

    def review_counts(self, day: date, *, window_days: int = 30) -> dict[str, ReviewCounts]:
        """Per deck id (the part of a key before '/'): review figures as of study day ``day``.

        The recall window is the ``window_days`` days ending with ``day``.
        """
        since = (day - timedelta(days=window_days)).isoformat()
        today = day.isoformat()
        recall = (
            "r.kind = 'grade' AND r.due_before IS NOT NULL AND r.day > :since AND r.day <= :day"
        )
        with self._reading():
            rows = self._conn.execute(
                f"""
                SELECT substr(r.key, 1, instr(r.key, '/') - 1),
                       count(*),
                       coalesce(sum(r.day = :day), 0),
                       coalesce(sum({recall}), 0),
                       coalesce(sum({recall} AND r.grade >= 3), 0)
                FROM review r WHERE {_IN_EFFECT}
                GROUP BY 1
                """,
                {"day": today, "since": since},
            )
            return {deck: ReviewCounts(*figures) for deck, *figures in rows}

    # -- writing ------------------------------------------------------------------------------

    def record(
        self,
        key: str,
        quality: int,
        *,
        now: datetime,
        day: date,
        answer_ms: int | None = None,
        typed: str | None = None,
        repeat: bool = False,
    ) -> Review:
        """Log a grade of ``key`` and (unless ``repeat``) move its schedule; one transaction.

        When this returns, the grade is on disk. ``repeat`` marks a same-day repeat (SM-2
        step 7): it is logged with the state unchanged.
        """
        grade = sm2.to_grade(quality)
        if not key:
            raise ValueError("a review needs a card key")
        if answer_ms is not None and answer_ms < 0:
            raise ValueError(f"answer time must not be negative, not {answer_ms}")
        at = now if now.tzinfo is not None else now.astimezone()
        kind = ReviewKind.REPEAT if repeat else ReviewKind.GRADE
        with self._writing():
            before = self._state_of(key)
            after = before if repeat else sm2.review(before, grade, day)
            review = self._append(
                Review(0, key, kind, at, day, grade, before, after, answer_ms, typed)
            )
            if not repeat:
                self._put_state(key, after)
        self._mine.append(review.id)
        return review

    def undo_last(
        self, *, now: datetime | None = None, ids: list[int] | None = None
    ) -> Review | None:
        """Take back the last grade recorded through this Store that is still in effect.

        The card gets back exactly the state it had before that grade, and the log gains an
        undo entry, which is returned (``undoes`` is the grade's id). None if nothing is left
        to undo. Grades already undone are skipped; grades given through another Store
        (another terminal) are never taken back.

        ``ids`` narrows this to a caller's own grades (a drill session's): review ids, oldest
        first; ids undone or found undone are popped off the end of that list.
        """
        at = now or local_now()
        stack = self._mine if ids is None else ids
        with self._writing():
            while stack:
                target = self._in_effect(stack[-1])
                if target is None:
                    stack.pop()
                    continue
                try:
                    review = self._undo(target, at)
                except UndoConflict:
                    # Superseded by another terminal, it can never be undone: the next undo
                    # goes on to the grade before it.
                    stack.pop()
                    raise
                stack.pop()
                return review
        return None

    def undo(self, review_id: int, *, now: datetime | None = None) -> Review:
        """Take back one grade by id (it must be the latest in effect for its card)."""
        at = now or local_now()
        with self._writing():
            target = self._in_effect(review_id)
            if target is None:
                raise StoreError(
                    f"review {review_id} is not in {self._path}, or already undone", self._path
                )
            return self._undo(target, at)

    def _in_effect(self, review_id: int) -> Review | None:
        """The grade or repeat ``review_id`` if it is logged and not undone."""
        row = self._conn.execute(
            f"SELECT {_REVIEW_COLUMNS} FROM review r WHERE r.id = ? AND {_IN_EFFECT}",
            (review_id,),
        ).fetchone()
        return _review_from(row) if row is not None else None

    def _undo(self, target: Review, at: datetime) -> Review:
        later = self._conn.execute(
            f"SELECT 1 FROM review r WHERE r.key = ? AND r.id > ? AND {_IN_EFFECT} LIMIT 1",
            (target.key, target.id),
        ).fetchone()
        if later is not None:
            raise UndoConflict(
                f"cannot undo the grade of {target.key}: it was graded again since "
                f"(in another session) in {self._path}",
                self._path,
            )
        current = self._state_of(target.key)
        restored = current if target.repeat else target.before
        undo = self._append(
            Review(
                0,
                target.key,
                ReviewKind.UNDO,
                at,
                target.day,
                None,
                current,
                restored,
                undoes=target.id,
            )
        )
        if not target.repeat:
            self._put_state(target.key, restored)
        return undo

    def _append(self, review: Review) -> Review:
        """Log ``review`` (its ``id`` is ignored); the same review with the id it got."""
        cursor = self._conn.execute(
            "INSERT INTO review (key, kind, at, day, grade, undoes, answer_ms, typed, "
            "reps_before, interval_before, ef_before, due_before, lapses_before, "
            "reps_after, interval_after, ef_after, due_after, lapses_after) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                review.key,
                review.kind.value,
                review.at.isoformat(),
                review.day.isoformat(),
                int(review.grade) if review.grade is not None else None,
                review.undoes,
                review.answer_ms,
                review.typed,
                *_state_params(review.before),
                *_state_params(review.after),
            ),
        )
        assert cursor.lastrowid is not None
        return replace(review, id=cursor.lastrowid)

    def _put_state(self, key: str, state: Sm2State) -> None:
        if state.is_new:
            # Undo of a card's first grade: new again, so no row (absent means new).
            self._conn.execute("DELETE FROM card_state WHERE key = ?", (key,))
            return
        self._conn.execute(
            f"INSERT INTO card_state (key, {_STATE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET repetitions = excluded.repetitions, "
            "interval = excluded.interval, ef = excluded.ef, due = excluded.due, "
            "lapses = excluded.lapses",
            (key, *_state_params(state)),
        )

    # -- the state table from the log ---------------------------------------------------------

    def derived_states(self) -> dict[str, Sm2State]:
        """The state table as the log says it must be, replayed from the first entry."""
        with self._reading():
            rows = self._conn.execute(
                "SELECT r.key, r.kind, u.kind, r.reps_after, r.interval_after, r.ef_after, "
                "r.due_after, r.lapses_after FROM review r "
                "LEFT JOIN review u ON u.id = r.undoes ORDER BY r.id"
            )
            states: dict[str, Sm2State] = {}
            for key, kind, undone_kind, *after in rows:
                # Repeats, and undos of repeats, leave the schedule where it was.
                if kind == "grade" or (kind == "undo" and undone_kind == "grade"):
                    state = _state_from(*after)
                    if state.is_new:
                        states.pop(key, None)
                    else:
                        states[key] = state
            return states

    def rebuild_state(self) -> int:
        """Rewrite the state table from the log (one transaction); returns its row count."""
        with self._writing():
            # Read inside the write lock: a grade another terminal commits meanwhile must not
            # be missing from the log we rebuild from.
            states = self.derived_states()
            self._conn.execute("DELETE FROM card_state")
            self._conn.executemany(
                f"INSERT INTO card_state (key, {_STATE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                ((key, *_state_params(state)) for key, state in states.items()),
            )
        return len(states)


def _statements(script: str) -> Iterator[str]:
    """Split a migration into statements (executescript would commit our transaction)."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            if pending.strip():
                yield pending.strip()
            pending = ""
    if pending.strip():
        raise ValueError(f"incomplete SQL statement in a migration: {pending.strip()[:60]}")
