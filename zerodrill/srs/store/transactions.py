"""The store's one connection and its transactions: the rules every part of the store writes
and reads under, kept here only.

- One ``BEGIN IMMEDIATE`` transaction per write: it takes the write lock up front, where the
  busy timeout applies, so two terminals can drill at once without "database is locked".
- A write inside another joins it (:meth:`Transactions.writing` nests).
- Before each write the path must still name the file opened (:mod:`.watch`).
- Every failure a user can cause is one :class:`~.file.StoreError` naming the file
  (:func:`~.file.translated`).

The schedule's cache (:mod:`.schedule_cache`) is kept current through two hooks: ``on_write`` runs
first in each write transaction, ``before_snapshot`` before a snapshot begins.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from zerodrill.srs.store.file import translated
from zerodrill.srs.store.watch import Watch


def _nothing() -> None:
    pass


class Transactions:
    """A store's connection to its file, and the transactions it reads and writes in. Use it
    from the thread that opened it."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self._watch = Watch(path)
        # Transactions open through writing(): inner ones join the outer one.
        self._depth = 0
        #: Run first in each write transaction, inside it.
        self.on_write: Callable[[], None] = _nothing
        #: Run before a snapshot begins, outside any transaction.
        self.before_snapshot: Callable[[], None] = _nothing
        self._data_version = self._read_data_version()

    def close(self) -> None:
        self._watch.close(self.conn)

    @contextmanager
    def reading(self) -> Iterator[None]:
        with translated(self.path, "read"):
            yield

    @contextmanager
    def writing(self) -> Iterator[None]:
        """One transaction; nested inside another, part of the outer one."""
        if self._depth:
            with translated(self.path, "save to"):
                yield
            return
        self.check_file()
        self._depth += 1
        try:
            with translated(self.path, "save to"):
                # IMMEDIATE takes the write lock up front, where the busy timeout applies;
                # a deferred transaction upgrading later would fail at once instead.
                self.conn.execute("BEGIN IMMEDIATE")
                self.on_write()
                yield
                self.conn.execute("COMMIT")
        except BaseException:
            self._roll_back()
            raise
        finally:
            self._depth -= 1

    def check_file(self) -> None:
        """Raise :class:`~.file.FileGone` if the path no longer names the file opened, or its
        -wal or -shm went (see :mod:`.watch`): nothing more is written, nothing claimed saved."""
        self._watch.check(self.conn)

    def _roll_back(self) -> None:
        # SQLite rolls some failures (a full disk) back by itself. If ROLLBACK fails too, the
        # first error is the one worth reporting; the connection is then closed so that no
        # later write can join a half-done transaction.
        if not self.conn.in_transaction:
            return
        try:
            self.conn.execute("ROLLBACK")
        except sqlite3.Error:
            self.conn.close()

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside all see the database as of one moment, whatever another terminal
        commits meanwhile (WAL keeps that moment for them). For reads only; inside a
        transaction they are simply part of it."""
        if self.conn.in_transaction:
            yield
            return
        self.before_snapshot()
        with self.reading():
            self.conn.execute("BEGIN")
        try:
            yield
        finally:
            # Nothing was written: ending the transaction either way loses nothing.
            if self.conn.in_transaction:
                with self.reading():
                    self.conn.execute("COMMIT")

    def changed_elsewhere(self) -> bool:
        """True if another connection (another terminal) has committed since the last call
        (or since opening): what was read before may be out of date."""
        version = self._read_data_version()
        changed = version != self._data_version
        self._data_version = version
        return changed

    def _read_data_version(self) -> int:
        with self.reading():
            version: int = self.conn.execute("PRAGMA data_version").fetchone()[0]
            return version
