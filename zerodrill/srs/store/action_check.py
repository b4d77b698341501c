"""Schema 9: the ``action`` column's CHECK asks whether the action is NULL first.

``CHECK (action IN (...))`` over eleven kinds: SQLite evaluates an IN list of more than two
values inside a CHECK by building a table of them for every row it inserts, grades (whose
action is NULL) included, which cost inserting a sync's answers about what one of the
table's indexes costs (bench_anki_sync.py's 9,747 answers from Anki).
``action IS NULL OR action IN (...)`` takes and refuses exactly the rows it did (NULL passed
the list as it passes the test before it) and skips the list for a grade. SQLite changes no
CHECK in place, so the table is made anew, every row copied as it was (ids included): no
event changes, none is added.
"""

from __future__ import annotations

import sqlite3

from zerodrill.srs.store.by_hand_events import ACTIONS
from zerodrill.srs.store.one_stream import rebuild_event_table
from zerodrill.srs.store.setting_events import COLUMNS, event_table


def migrate(conn: sqlite3.Connection) -> None:
    """Run inside the migration's transaction."""
    rebuild_event_table(conn, event_table(ACTIONS, null_first=True), f"{COLUMNS}, value")
