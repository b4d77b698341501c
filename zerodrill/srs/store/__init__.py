"""The review store: one SQLite file, and the only place in zerodrill that speaks SQL.

- :mod:`.file`: the file vetted before SQLite opens it, and every failure a user can cause as
  one :class:`StoreError` line naming the file; a refused file is never written to.
- :mod:`.wal`: a -wal that is not the database's own (a backup restored beside a killed
  drill's WAL), refused before SQLite would replay it.
- :mod:`.watch`: the file opened, checked before each write: deleted, moved or replaced
  mid-drill, it is written to no more, and what it held is saved aside.
- :mod:`.migrations`: the append-only migrations, and bringing a file up to date.
- :mod:`.transactions`: the one connection and its transactions (one ``BEGIN IMMEDIATE`` per
  write, an inner one joining the outer, the path checked before each write), for every part;
  :mod:`.part` gives each part of the store them.
- :mod:`.eventlog`: the event log in SQL: events appended, and events made elsewhere added
  as a set union by identity, in short transactions.
- :mod:`.derive`: the cache of the schedule projection, each card's state and what each grade
  was, replayed from the events by the scheduler; dropped and rebuilt at will.
- :mod:`.repository`: :class:`Store`, the file opened with the learner's profile, and its
  parts, one concern each, as domain values (:mod:`.rows` converts), never rows:
  :mod:`.stream` (``store.log``: grades, undos, events made elsewhere, the log read back),
  :mod:`.schedule_cache` (``store.schedule``: each card's state, due days, figures),
  :mod:`.saved_settings` (``store.settings``), :mod:`.machine_id` (``store.machine``),
  :mod:`.attempts`, :mod:`.actions` and :mod:`.sync_state` (``store.sync``: where syncs
  stopped reading each origin, and events looked up by identity, so a sync never reads the
  log whole).
"""

from __future__ import annotations

from zerodrill.srs.store.derive import Replayed
from zerodrill.srs.store.eventlog import Merged
from zerodrill.srs.store.figures import ReviewCounts
from zerodrill.srs.store.file import FileGone, NotInEffect, StoreError, UndoConflict
from zerodrill.srs.store.migrations import APPLICATION_ID, SCHEMA_VERSION
from zerodrill.srs.store.repository import Store

__all__ = [
    "APPLICATION_ID",
    "FileGone",
    "Merged",
    "SCHEMA_VERSION",
    "NotInEffect",
    "Replayed",
    "ReviewCounts",
    "Store",
    "StoreError",
    "UndoConflict",
]
