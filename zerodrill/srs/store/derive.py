"""The cache derived from the event log: each card's state and what each grade was, replayed.

For each card, its events are read in the one total order (study day, instant, origin,
sequence: :func:`zerodrill.srs.events.time_order`), the grades an undo withdraws are left out,
and the rest go through the scheduler (:func:`zerodrill.srs.schedulers.base.replay`). The
``card`` table gets each known card's state, with its due day, last day and the day it comes
back again (indexed, for the queue); ``effect`` gets what each grade in effect was (first
sight, recall, repeat: the new-card limit and the retention figure count these). A grade
absent from ``effect`` is not in effect. ``derived`` names the scheduler (its fingerprint)
the cache was built with; a store using another rebuilds the whole cache first.

The cache holds nothing the events do not: :func:`derive` may drop it and build it again at
any moment, and two databases that hold the same events hold the same cache.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable, Iterator
from datetime import date, datetime
from itertools import groupby
from operator import itemgetter
from typing import Any

from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.schedulers.base import (
    CardState,
    Effect,
    Given,
    Phase,
    Scheduler,
    When,
    effect_of,
    replay,
)
from zerodrill.srs.sm2 import Grade
from zerodrill.srs.store.file import Damaged

#: SQLite's limit on parameters is far above this; chunks keep each statement small.
KEYS_PER_QUERY = 500
_ORDER = "ORDER BY key, day, at_us, origin, seq"
_COLUMNS = "id, origin, seq, key, at, day, grade, undoes_origin, undoes_seq"
_GRADES = tuple(Grade)

Row = tuple[Any, ...]


def built_with(conn: sqlite3.Connection) -> str | None:
    """The fingerprint of the scheduler the cache was built with; None if it never was."""
    row = conn.execute("SELECT fingerprint FROM derived").fetchone()
    return str(row[0]) if row is not None else None


def ensure(conn: sqlite3.Connection, scheduler: Scheduler[Any]) -> bool:
    """Rebuild the whole cache unless ``scheduler`` built it; True if it was rebuilt. Call it
    inside a write transaction."""
    if built_with(conn) == scheduler.fingerprint:
        return False
    derive(conn, scheduler, None)
    conn.execute(
        "INSERT INTO derived (only, fingerprint) VALUES (1, ?) "
        "ON CONFLICT (only) DO UPDATE SET fingerprint = excluded.fingerprint",
        (scheduler.fingerprint,),
    )
    return True


def _rows(conn: sqlite3.Connection, keys: Collection[str] | None) -> Iterator[Row]:
    if keys is None:
        yield from conn.execute(f"SELECT {_COLUMNS} FROM event {_ORDER}")
        return
    wanted = list(dict.fromkeys(keys))
    for start in range(0, len(wanted), KEYS_PER_QUERY):
        chunk = wanted[start : start + KEYS_PER_QUERY]
        marks = ",".join("?" * len(chunk))
        yield from conn.execute(
            f"SELECT {_COLUMNS} FROM event WHERE key IN ({marks}) {_ORDER}", chunk
        )


def replay_card(
    scheduler: Scheduler[Any], rows: Iterable[Row]
) -> tuple[CardState, list[tuple[int, str]]]:
    """One card's state from its event rows (in the replay order), and each grade in effect's
    (event id, effect)."""
    rows = list(rows)
    withdrawn = {(r[7], r[8]) for r in rows if r[7] is not None}
    ids: list[int] = []
    grades: list[Given] = []
    for row in rows:
        grade = row[6]
        if grade is None or (row[1], row[2]) in withdrawn:
            continue
        try:
            day = _DAYS.get(row[5])
            if day is None:
                day = _DAYS[row[5]] = date.fromisoformat(row[5])
            at = datetime.fromisoformat(row[4])
            if at.tzinfo is None:
                raise ValueError(f"a time without its UTC offset: {row[4]!r}")
            grades.append((_GRADES[grade], day, at))
        except (TypeError, ValueError, IndexError) as exc:
            raise Damaged(f"review {row[0]}: {exc}") from exc
        ids.append(row[0])
    state, effects = replay(scheduler, grades)
    return state, [(i, e.value) for i, e in zip(ids, effects, strict=True)]


#: Study days read back, by their text: a log has far fewer days than events.
_DAYS: dict[str, date] = {}


def _text(day: date | None) -> str | None:
    return day.isoformat() if day is not None else None


def card_row(key: str, state: CardState) -> tuple[object, ...]:
    return (
        key,
        json.dumps(state.to_dict(), separators=(",", ":")),
        _text(state.due),
        _text(state.last_day),
        _text(state.again_on),
    )


def derive(
    conn: sqlite3.Connection, scheduler: Scheduler[Any], keys: Collection[str] | None
) -> None:
    """Rebuild the cache of ``keys`` (None: of every card) from their events, with
    ``scheduler``. Call it inside a write transaction."""
    if keys is None:
        conn.execute("DELETE FROM card")
        conn.execute("DELETE FROM effect")
    else:
        wanted = list(dict.fromkeys(keys))
        for start in range(0, len(wanted), KEYS_PER_QUERY):
            chunk = wanted[start : start + KEYS_PER_QUERY]
            marks = ",".join("?" * len(chunk))
            conn.execute(f"DELETE FROM card WHERE key IN ({marks})", chunk)
            conn.execute(
                f"DELETE FROM effect WHERE id IN (SELECT id FROM event WHERE key IN ({marks}))",
                chunk,
            )
    cards: list[tuple[object, ...]] = []
    effects: list[tuple[int, str]] = []
    for key, rows in groupby(_rows(conn, keys), key=itemgetter(3)):
        state, card_effects = replay_card(scheduler, rows)
        effects.extend(card_effects)
        if state.phase is not Phase.NEW:
            cards.append(card_row(key, state))
    conn.executemany(
        "INSERT INTO card (key, state, due, last_day, again_on) VALUES (?, ?, ?, ?, ?)", cards
    )
    conn.executemany("INSERT INTO effect (id, effect) VALUES (?, ?)", effects)


def apply(
    conn: sqlite3.Connection,
    scheduler: Scheduler[Any],
    row_id: int,
    before: CardState,
    event: ReviewEvent,
) -> None:
    """Update the cache for the grade ``event`` (logged as ``row_id``), last in its card's
    replay order, given to a card in ``before``: what :func:`derive` of the card would give,
    without replaying the rest. Call it inside the write transaction that logged it."""
    assert event.grade is not None
    when = When(event.at, event.day)
    after = scheduler.review(before, event.grade, when)
    conn.execute("INSERT INTO effect (id, effect) VALUES (?, ?)", (row_id, effect_of(before, when)))
    conn.execute(
        "INSERT INTO card (key, state, due, last_day, again_on) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (key) DO UPDATE SET state = excluded.state, due = excluded.due, "
        "last_day = excluded.last_day, again_on = excluded.again_on",
        card_row(event.key, after),
    )


def derive_states(
    conn: sqlite3.Connection, scheduler: Scheduler[Any], keys: Collection[str] | None
) -> dict[str, CardState]:
    """Each known card's state among ``keys`` (None: all) with ``scheduler``, replayed in
    memory: the cache is neither read nor written."""
    states = {}
    for key, rows in groupby(_rows(conn, keys), key=itemgetter(3)):
        state, _ = replay_card(scheduler, rows)
        if state.phase is not Phase.NEW:
            states[key] = state
    return states


def state_from(scheduler: Scheduler[Any], key: str, text: str) -> CardState:
    """A ``card`` row's state, read back by the scheduler that wrote it."""
    try:
        state: CardState = scheduler.state_from_dict(json.loads(text))
        return state
    except (TypeError, ValueError) as exc:
        raise Damaged(f"the cached state of {key}: {exc}") from exc


__all__ = ["Effect", "built_with", "derive", "derive_states", "ensure", "replay_card", "state_from"]
