"""Schema 8: Anki's Set Due Date and Forget, made there, become events of the one log.

A due date set (``action`` 'set_due', with what Anki set in ``decided``) or a Forget
('forget') is a card action that changes the card's schedule: replayed with its grades
(:data:`zerodrill.srs.card_actions.SCHEDULE_ACTIONS`). The ``action`` column's CHECK lists its
kinds and SQLite changes no CHECK in place, so the table is made anew with the two kinds added,
every row copied as it was (ids included): no event changes, none is added.
"""

from __future__ import annotations

import sqlite3

from zerodrill.srs.store.one_stream import rebuild_event_table
from zerodrill.srs.store.setting_events import ACTIONS as SETTING_ACTIONS
from zerodrill.srs.store.setting_events import COLUMNS, event_table

#: Every kind of event that is not a grade, as of this schema.
ACTIONS = (*SETTING_ACTIONS, "set_due", "forget")


def migrate(conn: sqlite3.Connection) -> None:
    """Run inside the migration's transaction."""
    rebuild_event_table(conn, event_table(ACTIONS), f"{COLUMNS}, value")
