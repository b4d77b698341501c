"""A card's log entries in SQL: appending one, reading a card's back, and merging reviews made
elsewhere (imported from Anki, or from another machine's log), with the card's state rebuilt.

Each review has an identity that holds on every machine, ``(origin, origin_seq)``: a
database's machine id and its local number, or ``"anki"`` and the revlog id. Merging one that
is present adds nothing. A merged card's state is :func:`~zerodrill.srs.scheduler.rebuild_card`
over its whole log, written in the merge's transaction. A merged entry's before and after
record that replay at the time of the merge; entries logged earlier keep what they recorded
(the log is append-only), so after a merge the replay, not an entry's recorded state, is the
truth. An entry's kind is always the one its origin logged.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, replace

from zerodrill.srs.scheduler import Review, ReviewKind, rebuild_card
from zerodrill.srs.sm2 import Sm2State
from zerodrill.srs.store.rows import review_from, state_params

REVIEW_COLUMNS = (
    "r.id, r.key, r.kind, r.at, r.day, r.grade, r.undoes, r.answer_ms, r.typed, "
    "r.reps_before, r.interval_before, r.ef_before, r.due_before, r.lapses_before, "
    "r.reps_after, r.interval_after, r.ef_after, r.due_after, r.lapses_after, "
    "r.origin, r.origin_seq, "
    "(SELECT t.origin FROM review t WHERE t.id = r.undoes), "
    "(SELECT t.origin_seq FROM review t WHERE t.id = r.undoes)"
)
STATE_COLUMNS = "repetitions, interval, ef, due, lapses"
#: A ``review r`` row still in effect: not an undo, and not undone.
IN_EFFECT = "r.kind != 'undo' AND NOT EXISTS (SELECT 1 FROM review u WHERE u.undoes = r.id)"


@dataclass(frozen=True, slots=True)
class Merged:
    """What a merge did."""

    #: Reviews (and undos) newly logged.
    added: int = 0
    #: Reviews given that the log held already (same identity), and so added nothing.
    present: int = 0
    #: The cards whose reviews were added, their schedule rebuilt.
    keys: frozenset[str] = frozenset()


def machine_origin(conn: sqlite3.Connection) -> str:
    """This database's machine id: the origin of every review made here."""
    origin: str = conn.execute("SELECT origin FROM machine").fetchone()[0]
    return origin


_INSERT = (
    "INSERT INTO review (key, kind, at, day, grade, undoes, answer_ms, typed, "
    "reps_before, interval_before, ef_before, due_before, lapses_before, "
    "reps_after, interval_after, ef_after, due_after, lapses_after, origin, origin_seq) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _row(
    review: Review, before: Sm2State, after: Sm2State, undoes: int | None
) -> tuple[object, ...]:
    return (
        review.key,
        review.kind.value,
        review.at.isoformat(),
        review.day.isoformat(),
        int(review.grade) if review.grade is not None else None,
        undoes,
        review.answer_ms,
        review.typed,
        *state_params(before),
        *state_params(after),
        review.origin,
        review.origin_seq,
    )


def insert(conn: sqlite3.Connection, review: Review, origin: str) -> Review:
    """Log ``review`` (its ``id`` is ignored); the same review with its id and identity.

    A review without an origin is this machine's (``origin``), numbered next among them.
    """
    if not review.origin:
        (seq,) = conn.execute(
            "SELECT coalesce(max(origin_seq), 0) + 1 FROM review WHERE origin = ?", (origin,)
        ).fetchone()
        review = replace(review, origin=origin, origin_seq=seq)
    cursor = conn.execute(_INSERT, _row(review, review.before, review.after, review.undoes))
    assert cursor.lastrowid is not None
    return replace(review, id=cursor.lastrowid)


def card_entries(conn: sqlite3.Connection, key: str) -> list[Review]:
    """Every log entry of ``key``, undos and undone ones included, in the order logged."""
    rows = conn.execute(
        f"SELECT {REVIEW_COLUMNS} FROM review r WHERE r.key = ? ORDER BY r.id", (key,)
    )
    return [review_from(row) for row in rows]


def put_state(conn: sqlite3.Connection, key: str, state: Sm2State) -> None:
    if state.is_new:
        # New again (its only grade undone): no row, as absent means new.
        conn.execute("DELETE FROM card_state WHERE key = ?", (key,))
        return
    conn.execute(
        f"INSERT INTO card_state (key, {STATE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (key) DO UPDATE SET repetitions = excluded.repetitions, "
        "interval = excluded.interval, ef = excluded.ef, due = excluded.due, "
        "lapses = excluded.lapses",
        (key, *state_params(state)),
    )


def rebuild_state(conn: sqlite3.Connection, key: str) -> Sm2State:
    """Rebuild ``key``'s state from its whole log and store it; returns it."""
    state, _ = rebuild_card(card_entries(conn, key))
    put_state(conn, key, state)
    return state


def _local_id(conn: sqlite3.Connection, identity: tuple[str, int]) -> int | None:
    row = conn.execute(
        "SELECT id FROM review WHERE origin = ? AND origin_seq = ?", identity
    ).fetchone()
    return int(row[0]) if row is not None else None


def _check(review: Review) -> None:
    if not review.origin or isinstance(review.origin_seq, bool) or review.origin_seq < 1:
        raise ValueError(f"a merged review needs its origin and number: {review!r}")
    if review.at.tzinfo is None:
        raise ValueError(f"a merged review needs an aware time: {review!r}")
    if (review.kind is ReviewKind.UNDO) != (review.undoes_ref is not None):
        raise ValueError(f"an undo, and only an undo, names what it undoes: {review!r}")
    if (review.kind is ReviewKind.UNDO) != (review.grade is None):
        raise ValueError(f"a grade or repeat, and only one, has a grade: {review!r}")


def merge(conn: sqlite3.Connection, reviews: Iterable[Review]) -> Merged:
    """Log the ``reviews`` not logged yet and rebuild their cards; run it in a transaction.

    Each review needs its identity (``origin``, ``origin_seq``), an aware ``at``, and for an
    undo the identity of what it undoes (``undoes_ref``), which must be logged or among
    ``reviews``. ``id``, ``undoes``, ``before`` and ``after`` are ignored; the replay sets them.
    """
    wanted: dict[tuple[str, int], Review] = {}
    logged: dict[str, set[int]] = {}
    present = 0
    for review in reviews:
        _check(review)
        if review.origin not in logged:
            logged[review.origin] = {
                seq
                for (seq,) in conn.execute(
                    "SELECT origin_seq FROM review WHERE origin = ?", (review.origin,)
                )
            }
        if review.identity in wanted or review.origin_seq in logged[review.origin]:
            present += 1
        else:
            wanted[review.identity] = review
    by_key: dict[str, list[Review]] = {}
    for review in wanted.values():
        by_key.setdefault(review.key, []).append(review)
    states: dict[str, Sm2State] = {}
    replayed: dict[tuple[str, int], Review] = {}
    for key, new in by_key.items():
        states[key], entries = rebuild_card([*card_entries(conn, key), *new])
        replayed.update((entry.identity, entry) for entry in entries)

    def row(review: Review, undoes: int | None) -> tuple[object, ...]:
        # The kind stays the one its origin logged: a grade that the replay now takes for a
        # same-day repeat may be a grade again once an undo of the earlier one arrives.
        placed = replayed.get(review.identity)
        if placed is not None:
            return _row(review, placed.before, placed.after, undoes)
        final = states[review.key]
        return _row(review, final, final, undoes)

    # Undos last, so that what each undoes is logged and has its id.
    conn.executemany(_INSERT, [row(r, None) for r in wanted.values() if r.undoes_ref is None])
    for identity in sorted(i for i, r in wanted.items() if r.undoes_ref is not None):
        review = wanted[identity]
        assert review.undoes_ref is not None
        undoes = _local_id(conn, review.undoes_ref)
        if undoes is None:
            raise ValueError(f"an undo of {review.undoes_ref}, which is not logged")
        conn.execute(_INSERT, row(review, undoes))
    for key, state in states.items():
        put_state(conn, key, state)
    return Merged(len(wanted), present, frozenset(by_key))
