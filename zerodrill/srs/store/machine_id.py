"""This database's machine id, and a new one when a sync finds the id is not this file's alone.

A database restored from a backup, or copied to another machine, carries the machine id of
the file it came from, and so does the file's other life (the machine before the restore,
the copy's original): both would number their reviews with one id, and a number would name
two reviews. :func:`renew` gives this database a fresh id and moves to it the reviews made
under the old id that the old id's other life does not hold; the ones both hold stay where
they are, as the history the two share. Undos name what they undo by row id, so they follow.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Collection

#: The triggers that keep the log and the machine id as written (schema migration 2): lifted
#: for the renumbering alone, inside its transaction.
_GUARDS = (
    (
        "review_no_update",
        "CREATE TRIGGER review_no_update BEFORE UPDATE ON review "
        "BEGIN SELECT RAISE(ABORT, 'the review log is append-only'); END",
    ),
    (
        "machine_no_update",
        "CREATE TRIGGER machine_no_update BEFORE UPDATE ON machine "
        "BEGIN SELECT RAISE(ABORT, 'the machine id never changes'); END",
    ),
)


def origin(conn: sqlite3.Connection) -> str:
    """This database's machine id: the origin of every review made here."""
    value: str = conn.execute("SELECT origin FROM machine").fetchone()[0]
    return value


def renew(conn: sqlite3.Connection, moved: Collection[int]) -> str:
    """Give the database a new machine id, and renumber under it, in their order, the reviews
    of the old id whose numbers are ``moved``; returns the new id. Run it in a transaction."""
    old = origin(conn)
    new = secrets.token_hex(8)
    for name, _ in _GUARDS:
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("UPDATE machine SET origin = ?", (new,))
    conn.executemany(
        "UPDATE review SET origin = ?, origin_seq = ? WHERE origin = ? AND origin_seq = ?",
        [(new, n, old, seq) for n, seq in enumerate(sorted(moved), start=1)],
    )
    for _, statement in _GUARDS:
        conn.execute(statement)
    return new
