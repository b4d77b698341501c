"""Schema 5: card actions and interviews' brought-forward cards become events of the one log.

Until schema 4, card actions (suspend, bury, flag, mark, their undos) had a table of their own,
``card_action``, numbered apart from the reviews, and the cards an interview brought forward a
third, local one, ``brought_forward``. Now each is an event of ``event``: one identity, one
undo rule, one merge. The ``action`` column says which (NULL for a grade and for an undo of
one, so that the review log reads as it did); ``flag`` is a flag event's colour.

Nothing is lost, and every identity is kept, moved once into a space of its own: an action was
numbered apart from its machine's reviews, so action ``(origin, n)`` is now
``(origin, 2**63 - n)`` (:func:`~zerodrill.srs.card_actions.legacy_seq`), above every number
a machine gives its events (which stay below ``2**62``) and the same on every machine, and
the same for an action line of a sync file written before. Undos name their actions anew the
same way, so they still find them. A brought-forward card is an event of this machine's,
dated when its interview ended. What syncs remembered of the files they read is dropped
(it counted actions apart): the next sync reads each file whole once.
"""

from __future__ import annotations

import sqlite3

from zerodrill.srs.card_actions import LEGACY_SEQ_TOP
from zerodrill.srs.store.migrations import _statements, has_tables

#: Every kind of event that is not a grade: what the ``action`` column may say.
ACTIONS = (
    "suspend",
    "unsuspend",
    "bury",
    "flag",
    "mark",
    "unmark",
    "undo",
    "bring_forward",
)

EVENT_TABLE = f"""
CREATE TABLE event_new (
    id            INTEGER PRIMARY KEY,
    origin        TEXT    NOT NULL CHECK (origin != ''),
    seq           INTEGER NOT NULL CHECK (seq >= 1),
    key           TEXT    NOT NULL CHECK (key != ''),
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
    action        TEXT    CHECK (action IN ({", ".join(f"'{a}'" for a in ACTIONS)})),
    flag          INTEGER NOT NULL DEFAULT 0 CHECK (flag BETWEEN 0 AND 7),
    CHECK ((undoes_origin IS NULL) = (undoes_seq IS NULL)),
    CHECK ((grade IS NOT NULL) = (action IS NULL AND undoes_origin IS NULL)),
    CHECK (action IS NULL OR (action = 'undo') = (undoes_origin IS NOT NULL)),
    CHECK (flag = 0 OR action = 'flag')
)
"""

_AFTER = """
CREATE UNIQUE INDEX event_identity ON event (origin, seq);
CREATE INDEX event_order ON event (key, day, at_us, origin, seq);
CREATE INDEX event_day ON event (day);
CREATE INDEX event_action ON event (action, day) WHERE action IS NOT NULL;
CREATE UNIQUE INDEX event_undoes ON event (undoes_origin, undoes_seq)
    WHERE undoes_origin IS NOT NULL;
CREATE TRIGGER event_no_update BEFORE UPDATE ON event
    BEGIN SELECT RAISE(ABORT, 'the review log is append-only'); END;
CREATE TRIGGER event_no_delete BEFORE DELETE ON event
    BEGIN SELECT RAISE(ABORT, 'the review log is append-only'); END;
"""

_COLUMNS = (
    "id, origin, seq, key, at, at_us, day, grade, undoes_origin, undoes_seq, answer_ms, typed, "
    "buttons"
)
#: :func:`~zerodrill.srs.card_actions.legacy_seq` in SQL, of a column: ``(2**63 - 1) - n + 1``,
#: as 2**63 itself is past SQLite's integers.
LEGACY = f"({LEGACY_SEQ_TOP - 1} - {{0}} + 1)"


def rebuild_event_table(conn: sqlite3.Connection, table: str, columns: str) -> None:
    """``event`` made anew as ``table`` (an ``event_new`` DDL) says, its ``columns`` copied
    row for row (ids included), its indexes and triggers as before: SQLite changes no CHECK
    in place. Inside the migration's transaction."""
    conn.execute(table)
    conn.execute(f"INSERT INTO event_new ({columns}) SELECT {columns} FROM event ORDER BY id")
    conn.execute("DROP TABLE event")  # its indexes and triggers with it
    conn.execute("ALTER TABLE event_new RENAME TO event")
    for statement in _statements(_AFTER):
        conn.execute(statement)


def migrate(conn: sqlite3.Connection) -> None:
    """Run inside the migration's transaction."""
    rebuild_event_table(conn, EVENT_TABLE, _COLUMNS)
    if has_tables(conn, "card_action"):
        conn.execute(
            "INSERT INTO event (origin, seq, key, at, at_us, day, undoes_origin, undoes_seq, "
            "action, flag) SELECT origin, "
            f"{LEGACY.format('seq')}, key, at, zd_instant(at), day, undoes_origin, "
            f"CASE WHEN undoes_seq IS NOT NULL THEN {LEGACY.format('undoes_seq')} END, "
            "action, flag FROM card_action ORDER BY id"
        )
        conn.execute("DROP TABLE card_action")
    if has_tables(conn, "brought_forward"):
        # Dated when the interview ended (its start if it never did), numbered after every
        # event of this machine.
        conn.execute(
            "INSERT INTO event (origin, seq, key, at, at_us, day, action) "
            "SELECT m.origin, (SELECT coalesce(max(seq), 0) FROM event "
            f"WHERE origin = m.origin AND seq < {LEGACY_SEQ_TOP // 2}) "
            "+ row_number() OVER (ORDER BY b.id), b.key, t.at, zd_instant(t.at), b.day, "
            "'bring_forward' FROM brought_forward b, machine m, (SELECT a.id, coalesce(("
            "SELECT s.at FROM attempt_step s WHERE s.attempt = a.id AND s.step = 'finish' "
            "ORDER BY s.id LIMIT 1), a.started_at) AS at FROM attempt a) t "
            "WHERE t.id = b.attempt ORDER BY b.id"
        )
        conn.execute("DROP TABLE brought_forward")
    if has_tables(conn, "sync_position"):
        conn.execute("DELETE FROM sync_position")
