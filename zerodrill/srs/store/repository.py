"""The review store: one file, opened with the learner's profile, and its parts, one concern
each, all through one connection and its transactions (:mod:`.transactions`):

- :attr:`Store.log` (:mod:`.stream`): the event log, logged to and read back;
- :attr:`Store.schedule` (:mod:`.schedule_cache`): each card's state, the cache of the schedule
  projection under the profile's scheduler;
- :attr:`Store.settings` (:mod:`.saved_settings`), :attr:`Store.machine` (:mod:`.machine_id`),
  :attr:`Store.attempts` (:mod:`.attempts`), :attr:`Store.actions` (:mod:`.actions`) and
  :attr:`Store.sync` (:mod:`.sync_state`).

Durability and sharing: WAL, ``synchronous = FULL`` (an event is on disk when a write
returns), one ``BEGIN IMMEDIATE`` transaction per write, and a busy timeout, so two terminals
can drill at once without "database is locked". Before each write the path must still name
the file opened (:mod:`.watch`).
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from types import TracebackType
from typing import Any

from msgspec import structs

from zerodrill.srs.profile import Profile
from zerodrill.srs.schedulers import Scheduler, scheduler_named
from zerodrill.srs.store.actions import ActionLog
from zerodrill.srs.store.attempts import AttemptLog
from zerodrill.srs.store.file import connect, translated
from zerodrill.srs.store.machine_id import Machine
from zerodrill.srs.store.migrations import prepare
from zerodrill.srs.store.saved_settings import SavedSettings
from zerodrill.srs.store.schedule_cache import Schedule
from zerodrill.srs.store.stream import EventLog
from zerodrill.srs.store.sync_state import SyncState
from zerodrill.srs.store.transactions import Transactions


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
        self._tx = Transactions(conn, path)
        #: Each card's state under the profile's scheduler.
        self.schedule = Schedule(self._tx, lambda: self.scheduler)
        #: The event log: grades, undos, events made elsewhere.
        self.log = EventLog(self._tx, self.schedule)
        #: The settings saved in this file.
        self.settings = SavedSettings(self._tx)
        #: This file's machine id.
        self.machine = Machine(self._tx, self.schedule)
        #: The interview attempts.
        self.attempts = AttemptLog(self._tx)
        #: The card actions (suspend, bury, flag, mark).
        self.actions = ActionLog(self._tx)
        #: Where syncs stopped reading, and the events looked up by identity.
        self.sync = SyncState(self._tx)

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
    def path(self) -> Path:
        """The database file this store opened."""
        return self._tx.path

    @property
    def scheduler(self) -> Scheduler[Any]:
        """What derives every card's state from its events: the profile's."""
        return self.profile.scheduler

    @scheduler.setter
    def scheduler(self, scheduler: Scheduler[Any]) -> None:
        self.profile = structs.replace(self.profile, scheduler=scheduler)

    def use(self, scheduler: Scheduler[Any]) -> None:
        """Derive cards with ``scheduler`` from now on (chosen after opening, say from a saved
        setting). A cache built with another is rebuilt at the next read or write: nothing
        is lost, and going back to the first gives its schedule exactly."""
        self.scheduler = scheduler

    def close(self) -> None:
        self._tx.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def transaction(self) -> AbstractContextManager[None]:
        """Reads and writes inside are one write transaction: all of the writes or none, and
        no other terminal writes in between (a grade reads the card's state and appends)."""
        return self._tx.writing()

    def snapshot(self) -> AbstractContextManager[None]:
        """Reads inside all see the database as of one moment, whatever another terminal
        commits meanwhile. For reads only; inside a transaction they are part of it."""
        return self._tx.snapshot()

    def check_file(self) -> None:
        """Raise :class:`FileGone` if the path no longer names the file opened (see
        :mod:`.watch`): nothing more is written, nothing claimed saved."""
        self._tx.check_file()

    def changed_elsewhere(self) -> bool:
        """True if another terminal has committed since the last call (or since opening)."""
        return self._tx.changed_elsewhere()


__all__ = ["Store"]
