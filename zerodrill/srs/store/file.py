"""The database file: vetted before SQLite opens it, and every failure as one line.

Every failure a user can cause (missing folder, unreadable, read-only, corrupt, full disk, a
database from a newer zerodrill) is a :class:`StoreError`: one line naming the file. What
SQLite would report vaguely, or only half-way through, is refused here first; what it reports
anyway goes through :func:`translated`.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from zerodrill.errors import RecoverableError, UserError
from zerodrill.srs.store.wal import foreign_wal

BUSY_TIMEOUT_MS = 5000
_SQLITE_MAGIC = b"SQLite format 3\x00"


class StoreError(UserError):
    """The review database cannot be used; the message is one line naming the file."""

    def __init__(self, message: str, path: Path | None = None) -> None:
        super().__init__(message)
        self.path = path


class UndoConflict(StoreError, RecoverableError):
    """The grade to undo was superseded (graded again elsewhere): it can never be undone."""


class NotInEffect(StoreError):
    """The review to undo is not in the log, or was undone already."""


class FileGone(StoreError):
    """The path no longer names the file that was opened: nothing more is written."""


class Damaged(Exception):
    """A stored value no zerodrill wrote (a date that is no date, an EF below 1.3, ...)."""


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
def translated(path: Path, action: str) -> Iterator[None]:
    """SQLite's errors, damaged values and OS errors inside, as ``cannot ACTION PATH: why``."""
    try:
        yield
    except sqlite3.Error as exc:
        raise StoreError(f"cannot {action} {path}: {_reason(exc)}", path) from exc
    except Damaged as exc:
        raise StoreError(f"cannot {action} {path}: it is damaged ({exc})", path) from exc
    except OSError as exc:
        raise StoreError(f"cannot {action} {path}: {exc.strerror or exc}", path) from exc


def vet(path: Path, create: bool, read_only: bool = False) -> None:
    """Refuse, with a clear line, what SQLite would report vaguely or only half-way through.
    ``read_only``: the file is only read, so it need not be writable."""
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
    wal, shm = sidecars(path)
    if foreign_wal(path, wal, shm):
        raise StoreError(
            f"cannot open {path}: the {wal.name} beside it is older than it and not its own "
            f"(was {path.name} restored from a backup?), and SQLite would write it over "
            f"{path.name}: move {wal.name} and {shm.name} away to open {path.name} as it is",
            path,
        )
    if read_only:
        return
    if not os.access(path, os.W_OK):
        raise StoreError(f"cannot write {path}: it is read-only", path)
    if not os.access(folder, os.W_OK | os.X_OK):
        # WAL needs to create PATH-wal and PATH-shm beside the database.
        raise StoreError(f"cannot write {path}: its folder {folder} is read-only", path)


def connect(path: Path, create: bool, read_only: bool = False) -> sqlite3.Connection:
    """A connection to the vetted file at ``path``, in autocommit mode, with the busy timeout;
    ``read_only``: one that changes nothing in the file."""
    create = create and not read_only
    vet(path, create, read_only)
    # absolute(), not resolve(): a symlink loop must reach SQLite and fail as one line.
    uri = f"{path.absolute().as_uri()}?mode={'rwc' if create else 'rw'}"
    with translated(path, "open"):
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    try:
        with translated(path, "open"):
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if read_only:
                # Not mode=ro: a read-only connection to a WAL database that nothing else
                # has open leaves an empty -wal and -shm beside it; this one, like any
                # other, removes them on closing. (A file the user may not write is opened
                # read-only by SQLite itself.)
                conn.execute("PRAGMA query_only = ON")
    except BaseException:
        conn.close()
        raise
    return conn


def sidecars(path: Path) -> tuple[Path, Path]:
    """The WAL and shared-memory files SQLite keeps beside the database ``path`` (beside the
    file a symlink leads to: SQLite follows it)."""
    real = Path(os.path.realpath(path))
    return (real.with_name(real.name + "-wal"), real.with_name(real.name + "-shm"))
