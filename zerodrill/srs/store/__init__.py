"""The review store: one SQLite file, and the only place in zerodrill that speaks SQL.

- :mod:`.file`: the file vetted before SQLite opens it, and every failure a user can cause as
  one :class:`StoreError` line naming the file; a refused file is never written to.
- :mod:`.wal`: a -wal that is not the database's own (a backup restored beside a killed
  drill's WAL), refused before SQLite would replay it.
- :mod:`.watch`: the file opened, checked before each write: deleted, moved or replaced
  mid-drill, it is written to no more, and what it held is saved aside.
- :mod:`.schema`: the append-only migrations, and bringing a file up to date.
- :mod:`.eventlog`: the event log in SQL: events appended, and events made elsewhere added
  as a set union by identity, in short transactions.
- :mod:`.derive`: the cache derived from the events by the scheduler: each card's state and
  what each grade was; dropped and rebuilt at will.
- :mod:`.sync_state`: what a sync keeps (where it stopped reading each origin) and looks up
  (events by identity, and those a transport does not carry), so it never reads the log whole.
- :mod:`.repository`: :class:`Store`, which logs events and reads the log and the cache
  back, as domain values (:mod:`.rows` converts), never rows.
"""

from __future__ import annotations

from zerodrill.srs.store.eventlog import Merged
from zerodrill.srs.store.figures import ReviewCounts
from zerodrill.srs.store.file import FileGone, NotInEffect, StoreError, UndoConflict
from zerodrill.srs.store.repository import Store
from zerodrill.srs.store.schema import APPLICATION_ID, SCHEMA_VERSION

__all__ = [
    "APPLICATION_ID",
    "FileGone",
    "Merged",
    "SCHEMA_VERSION",
    "NotInEffect",
    "ReviewCounts",
    "Store",
    "StoreError",
    "UndoConflict",
]
