"""The cache derived from the event log: each card's state and what each grade was, replayed.

For each card, its events are read in the one total order (study day, instant, origin,
sequence: :func:`zerodrill.srs.events.time_order`), the grades an undo withdraws are left out,
and the rest go through the scheduler (:func:`zerodrill.srs.schedulers.protocol.replay`). The
``card`` table gets each known card's state, with its due day, last day and the day it comes
back again (indexed, for the queue); ``effect`` gets what each grade in effect was when it was
not a recall (a first sight or a same-day repeat: the new-card limit and the retention figure
count these), so that it holds one row a card or so, not one an event. A grade is in effect
when no undo names it (:data:`~zerodrill.srs.store.rows.IN_EFFECT`). ``derived`` names the
fingerprint of the schedule projection (:func:`zerodrill.srs.projections.schedule`) the cache
was built with; a store using another rebuilds the whole cache first.

The cache holds nothing the events do not: :func:`derive` may drop it and build it again at
any moment, and two databases that hold the same events hold the same cache.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Mapping
from datetime import date, datetime
from itertools import chain, compress, groupby
from operator import itemgetter
from typing import Any

from msgspec import Struct

from zerodrill.srs.card_actions import SCHEDULE_ACTIONS
from zerodrill.srs.events import Identity, ReviewEvent
from zerodrill.srs.grades import to_grade
from zerodrill.srs.projections import schedule
from zerodrill.srs.schedulers.protocol import (
    CardState,
    Effect,
    Given,
    Phase,
    Scheduler,
    When,
    answer,
    effect_of,
    replay,
)
from zerodrill.srs.store.file import Damaged
from zerodrill.srs.store.rows import BY_HAND, decision_from, insert_many

#: SQLite's limit on parameters is far above this; chunks keep each statement small.
KEYS_PER_QUERY = 500
_ORDER = "ORDER BY key, day, at_us, origin, seq"
#: Grades and the changes made by hand in Anki (a due date set, a Forget: no grade), in the
#: replay's order; undos are read apart (:func:`_withdrawn`).
_REPLAYED = f"(grade IS NOT NULL OR {BY_HAND})"
_GRADE_ROWS = f"SELECT id, key, day, at, grade, buttons, decided FROM event WHERE {_REPLAYED}"
#: One card's events of every kind, by identity, in the replay's order, for a card handed
#: over replayed (:class:`Replayed`): all in the index on that order.
_IDENTITY_ROWS = "SELECT origin, seq, id FROM event WHERE key = ? ORDER BY day, at_us, origin, seq"

Row = tuple[Any, ...]


class Replayed(Struct, frozen=True):
    """One card replayed by a caller that had its events in hand (``zerodrill anki sync``,
    which replays every card it writes to Anki): what :func:`derive` would make of the card,
    given so that it need not replay it again. Taken only if the card's events replayed (its
    grades and changes made by hand in effect) are exactly ``identities``, in this order (and
    ``effects`` those of its grades), and the cache's projection is ``fingerprint``'s;
    otherwise the card is replayed as ever. Speed only: bench_anki_sync.py's two-way sync
    replayed its 20,000 grades twice (the goal: within 3x Anki's own syncs)."""

    fingerprint: str
    identities: tuple[Identity, ...]
    state: CardState
    effects: tuple[Effect, ...]


def built_with(conn: sqlite3.Connection) -> str | None:
    """The fingerprint of the scheduler the cache was built with; None if it never was."""
    row = conn.execute("SELECT fingerprint FROM derived").fetchone()
    return str(row[0]) if row is not None else None


def ensure(conn: sqlite3.Connection, scheduler: Scheduler[Any]) -> bool:
    """Rebuild the whole cache unless it is ``scheduler``'s schedule (by the projection's
    fingerprint); True if it was rebuilt. Call it inside a write transaction."""
    fingerprint = schedule(scheduler).fingerprint
    if built_with(conn) == fingerprint:
        return False
    derive(conn, scheduler, None)
    conn.execute(
        "INSERT INTO derived (only, fingerprint) VALUES (1, ?) "
        "ON CONFLICT (only) DO UPDATE SET fingerprint = excluded.fingerprint",
        (fingerprint,),
    )
    return True


def chunks(keys: Collection[str]) -> Iterator[list[str]]:
    wanted = list(dict.fromkeys(keys))
    for start in range(0, len(wanted), KEYS_PER_QUERY):
        yield wanted[start : start + KEYS_PER_QUERY]


def _rows(conn: sqlite3.Connection, keys: Collection[str] | None) -> Iterator[Row]:
    """(id, key, day, at, grade, buttons, decided) of the grades of ``keys`` (None: all), in replay
    order."""
    if keys is None:
        # The cursor itself: a generator around it costs a call per row.
        cursor: Iterator[Row] = conn.execute(f"{_GRADE_ROWS} {_ORDER}")
        return cursor
    return _rows_of(conn, keys)


def _rows_of(conn: sqlite3.Connection, keys: Collection[str]) -> Iterator[Row]:
    # The cursors chained, not yielded from: a generator costs a resumption for every row.
    return chain.from_iterable(
        conn.execute(f"{_GRADE_ROWS} AND key IN ({','.join('?' * len(chunk))}) {_ORDER}", chunk)
        for chunk in chunks(keys)
    )


def _withdrawn(conn: sqlite3.Connection, keys: Collection[str] | None) -> set[int]:
    """The ids of the grades (of ``keys``; None: all) that an undo names."""
    join = (
        "SELECT g.id FROM event u JOIN event g "
        "ON g.origin = u.undoes_origin AND g.seq = u.undoes_seq"
    )
    if keys is None:
        return {i for (i,) in conn.execute(join)}
    found: set[int] = set()
    if not conn.execute("SELECT 1 FROM event WHERE undoes_origin IS NOT NULL LIMIT 1").fetchone():
        return found  # no undo at all: the cards' events need no looking through
    for chunk in chunks(keys):
        marks = ",".join("?" * len(chunk))
        found.update(i for (i,) in conn.execute(f"{join} WHERE g.key IN ({marks})", chunk))
    return found


def replay_card(
    scheduler: Scheduler[Any], rows: Iterable[Row], withdrawn: Collection[int]
) -> tuple[CardState, list[tuple[int, Effect]]]:
    """One card's state from its grade rows (of :func:`_rows`, in the replay order) less the
    ``withdrawn`` ones, and each grade in effect's (event id, effect)."""
    ids: list[int] = []
    grades: list[Given] = []
    for event_id, _, day, at, grade, buttons, decided in rows:
        if event_id in withdrawn:
            continue
        try:
            # Aware: at_us, NOT NULL, was computed from it (see schema.instant_us).
            grades.append(
                (
                    to_grade(grade) if grade is not None else None,
                    date.fromisoformat(day),
                    datetime.fromisoformat(at),
                    buttons,
                    decision_from(decided),
                )
            )
        except (TypeError, ValueError) as exc:
            raise Damaged(f"review {event_id}: {exc}") from exc
        if grade is not None:
            ids.append(event_id)
    state, effects = replay(scheduler, grades)
    return state, list(zip(ids, effects, strict=True))


def _text(day: date | None) -> str | None:
    return day.isoformat() if day is not None else None


#: One encoder for every state: json.dumps with options makes a new one each call.
_JSON = json.JSONEncoder(separators=(",", ":"))


def card_row(key: str, state: CardState) -> tuple[object, ...]:
    return (
        key,
        _JSON.encode(state.to_dict()),
        _text(state.due),
        _text(state.last_day),
        _text(state.again_on),
    )


def derive(
    conn: sqlite3.Connection,
    scheduler: Scheduler[Any],
    keys: Collection[str] | None,
    replayed: Mapping[str, Replayed] | None = None,
) -> None:
    """Rebuild the cache of ``keys`` (None: of every card) from their events, with
    ``scheduler``; a card of ``replayed`` that is what it says is taken as replayed there
    (:class:`Replayed`). Call it inside a write transaction."""
    if keys is None:
        conn.execute("DELETE FROM card")
        conn.execute("DELETE FROM effect")
    else:
        for chunk in chunks(keys):
            marks = ",".join("?" * len(chunk))
            conn.execute(f"DELETE FROM card WHERE key IN ({marks})", chunk)
            # Only the ids an effect row may have: those of the events just added, after
            # every row's, have none yet (half the bench's 20,000 looked up).
            conn.execute(
                f"DELETE FROM effect WHERE id IN (SELECT id FROM event WHERE key IN ({marks}) "
                "AND id <= (SELECT max(id) FROM effect))",
                chunk,
            )
    cards: list[tuple[object, ...]] = []
    effects: list[tuple[int, str]] = []
    withdrawn = _withdrawn(conn, keys)
    done: list[tuple[str, CardState, list[tuple[int, Effect]]]] = []
    if keys is not None and replayed:
        done = _handed_over(conn, scheduler, keys, replayed, withdrawn)
        taken = {key for key, _, _ in done}
        keys = [key for key in keys if key not in taken]
    for key, rows in groupby(_rows(conn, keys), key=itemgetter(1)):
        done.append((key, *replay_card(scheduler, rows, withdrawn)))
    for key, state, card_effects in done:
        # Recalls, most grades, are what a grade in effect is unless the cache says otherwise.
        effects.extend([(i, _KEPT[e]) for i, e in card_effects if e in _KEPT])
        if state.phase is not Phase.NEW:
            cards.append(card_row(key, state))
    conn.executemany(
        "INSERT INTO card (key, state, due, last_day, again_on) VALUES (?, ?, ?, ?, ?)", cards
    )
    # In id order: appended to the table's B-tree, not scattered through it.
    effects.sort()
    insert_many(conn, "effect (id, effect)", "(?, ?)", list(chain.from_iterable(effects)))


#: The effects the cache keeps, as the text it keeps them as: sqlite3 adapts an enum member
#: at twice the cost of a str, and reading .value costs more than this lookup (10,000 of them
#: in bench_anki_sync.py's sync).
_KEPT = {effect: effect.value for effect in Effect if effect is not Effect.RECALL}


def _handed_over(
    conn: sqlite3.Connection,
    scheduler: Scheduler[Any],
    keys: Collection[str],
    replayed: Mapping[str, Replayed],
    withdrawn: Collection[int],
) -> list[tuple[str, CardState, list[tuple[int, Effect]]]]:
    """The cards of ``keys`` that ``replayed`` holds as they are: their events replayed, read
    by identity only, are those it names, in its order, under ``scheduler``'s projection;
    each with the (event id, effect) of its grades the cache keeps (no recall)."""
    fingerprint = schedule(scheduler).fingerprint
    wanted = [k for k in dict.fromkeys(keys) if k in replayed]
    if not wanted:
        return []
    # What kind each row is, from the two indexes that hold the rows that are no grades.
    not_grades = _not_grades(conn)
    by_hand = {i for i, action in not_grades.items() if action in _BY_HAND}
    left_out = (not_grades.keys() - by_hand) | set(withdrawn)
    out = []
    # A card at a time, its rows read from the index on the replay's order alone (no look
    # into the table for each) and compared in C (a map of itemgetter), not row by row in
    # Python: the bench's 20,000 events handed over cost 25 ms read with their keys and
    # kinds, 14 so (issue 35 point 7).
    for key in wanted:
        handed = replayed[key]
        if handed.fingerprint != fingerprint:
            continue
        rows = conn.execute(_IDENTITY_ROWS, (key,)).fetchall()
        if left_out:
            rows = [row for row in rows if row[2] not in left_out]
        if not rows or handed.identities != tuple(map(_ORIGIN_SEQ, rows)):
            continue
        # A change made by hand has no effect of its own.
        ids = [row[2] for row in rows if row[2] not in by_hand] if by_hand else [*map(_ID, rows)]
        effects = handed.effects
        if len(ids) == len(effects):
            # Only the effects the cache keeps, picked in C: :func:`derive` drops the rest.
            kept = compress(zip(ids, effects, strict=True), map(_KEPT.__contains__, effects))
            out.append((key, handed.state, list(kept)))
    return out


def _not_grades(conn: sqlite3.Connection) -> dict[int, str | None]:
    """The log's events that are no grades, by id: the action each is (None: the undo of a
    grade). Read from the two indexes that hold these rows alone (on actions, on undos)."""
    found: dict[int, str | None] = dict.fromkeys(
        i for (i,) in conn.execute("SELECT id FROM event WHERE undoes_origin IS NOT NULL")
    )
    found.update(conn.execute("SELECT id, action FROM event WHERE action IS NOT NULL"))
    return found


#: The actions replayed with the grades (:data:`~.rows.BY_HAND`).
_BY_HAND = frozenset(action.value for action in SCHEDULE_ACTIONS)
#: An identity row's (origin, seq), and its id.
_ORIGIN_SEQ, _ID = itemgetter(0, 1), itemgetter(2)


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
    after = answer(scheduler, before, event.grade, when, event.buttons, event.decided)
    effect = effect_of(before, when)
    if effect is not Effect.RECALL:
        conn.execute("INSERT INTO effect (id, effect) VALUES (?, ?)", (row_id, effect))
    conn.execute(
        "INSERT INTO card (key, state, due, last_day, again_on) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (key) DO UPDATE SET state = excluded.state, due = excluded.due, "
        "last_day = excluded.last_day, again_on = excluded.again_on",
        card_row(event.key, after),
    )


def state_from(scheduler: Scheduler[Any], key: str, text: str) -> CardState:
    """A ``card`` row's state, read back by the scheduler that wrote it."""
    try:
        state: CardState = scheduler.state_from_dict(json.loads(text))
        return state
    except (TypeError, ValueError) as exc:
        raise Damaged(f"the cached state of {key}: {exc}") from exc


__all__ = [
    "Effect",
    "Replayed",
    "built_with",
    "chunks",
    "derive",
    "ensure",
    "replay_card",
    "state_from",
]
