"""Schema 7: the learner's settings that travel (FSRS's parameters) become events of the one log.

A setting event (``action`` 'setting') says that the setting its ``key`` names is ``value``;
the profile takes the newest of each (:data:`zerodrill.srs.projections.SETTINGS`), so a fit
made on one machine schedules on every machine that syncs with it. The ``action`` column's
CHECK lists its kinds, so the table is made anew with the new kind and the ``value`` column,
every row copied as it was (ids included): no event changes, none is added.
"""

from __future__ import annotations

import sqlite3

from zerodrill.srs.store.one_stream import ACTIONS as ONE_STREAM_ACTIONS
from zerodrill.srs.store.one_stream import rebuild_event_table

#: Every kind of event that is not a grade, as of this schema.
ACTIONS = (*ONE_STREAM_ACTIONS, "setting")


def event_table(actions: tuple[str, ...], *, null_first: bool = False) -> str:
    """The ``event_new`` table whose ``action`` may say ``actions``; ``null_first``: its
    CHECK asks whether ``action`` is NULL before looking in the list (schema 9,
    :mod:`.action_check`)."""
    null = "action IS NULL OR " if null_first else ""
    return f"""
CREATE TABLE event_new (
    id            INTEGER PRIMARY KEY,
    origin        TEXT    NOT NULL CHECK (origin != ''),
    seq           INTEGER NOT NULL CHECK (seq >= 1),
    key           TEXT    NOT NULL CHECK (key != ''),  -- a setting event: the setting's name
    at            TEXT    NOT NULL,  -- wall time, ISO 8601 with UTC offset
    at_us         INTEGER NOT NULL,  -- the same instant: microseconds since 1970 (UTC)
    day           TEXT    NOT NULL,  -- study day, ISO date
    grade         INTEGER CHECK (grade BETWEEN 0 AND 5),
    undoes_origin TEXT,              -- an undo: the identity of the event it withdraws
    undoes_seq    INTEGER,
    answer_ms     INTEGER CHECK (answer_ms >= 0),
    typed         TEXT,
    buttons       INTEGER NOT NULL DEFAULT 6 CHECK (buttons IN (4, 6)),
    -- NULL: a grade, or the undo of one; else what was done ('undo': the undo of an action)
    action        TEXT    CHECK ({null}action IN ({", ".join(f"'{a}'" for a in actions)})),
    flag          INTEGER NOT NULL DEFAULT 0 CHECK (flag BETWEEN 0 AND 7),
    decided       TEXT,              -- an answer given in Anki: what Anki decided (JSON)
    value         TEXT,              -- a setting event: the setting's value
    CHECK ((undoes_origin IS NULL) = (undoes_seq IS NULL)),
    CHECK ((grade IS NOT NULL) = (action IS NULL AND undoes_origin IS NULL)),
    CHECK (action IS NULL OR (action = 'undo') = (undoes_origin IS NOT NULL)),
    CHECK (flag = 0 OR action = 'flag'),
    CHECK ((value IS NOT NULL) = (action IS 'setting'))
)
"""


EVENT_TABLE = event_table(ACTIONS)


#: The columns schema 6 had, copied as they are.
COLUMNS = (
    "id, origin, seq, key, at, at_us, day, grade, undoes_origin, undoes_seq, answer_ms, typed, "
    "buttons, action, flag, decided"
)


def migrate(conn: sqlite3.Connection) -> None:
    """Run inside the migration's transaction."""
    rebuild_event_table(conn, EVENT_TABLE, COLUMNS)
