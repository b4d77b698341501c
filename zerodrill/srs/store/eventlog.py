"""The event log in SQL: this machine's events appended, and events made elsewhere added.

One log holds every kind of event: grades and their undos (the review log: ``action`` NULL),
card actions and the interview's brought-forward cards (:mod:`zerodrill.srs.card_actions`).
Each event has an identity that holds on every machine, ``(origin, seq)``. Adding events is a
set union by identity (one present already adds nothing), so databases that hold the same
events hold the same log, whatever order they came in; their cards are then re-derived
(:mod:`.derive`), so they hold the same states too.

Events made elsewhere come in batches of whole cards (:func:`batches`), each batch its own
short transaction (:meth:`zerodrill.srs.store.Store.log.add_events`): a drill in another terminal
waits for one batch at most, never for the whole sync. A card that only gains grades after
all it had (:func:`appended`: what a sync mostly brings) takes them on its cached state.
An event dated more than :data:`HOLD_AHEAD` after now (a machine with its clock years ahead)
would freeze its card until then: it is held back, with a warning, and taken once its time
has come.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable, Iterator
from datetime import datetime, timedelta
from operator import attrgetter
from typing import Any

from msgspec import Struct

from zerodrill.srs.card_actions import (
    LEGACY_SEQ_TOP,
    SCHEDULE_ACTIONS,
    Action,
    CardActionEvent,
)
from zerodrill.srs.events import Identity, ReviewEvent, StreamEvent
from zerodrill.srs.store.migrations import instant_us
from zerodrill.srs.store.rows import (
    BY_HAND,
    EVENT_COLUMNS,
    EVENT_INTO,
    event_from,
    event_rows,
    insert_many,
    undo_of,
)
from zerodrill.words import plural

#: An event dated later than this after now is held back until its time.
HOLD_AHEAD = timedelta(days=1)
#: Events per transaction when adding many: a batch holds the write lock for a short moment
#: (tests/bench/bench_events.py times it: goal 250 ms). Each batch costs a commit (the last
#: one an fsync: :meth:`~zerodrill.srs.store.stream.EventLog.add_events`) and its cards'
#: re-derivation: 500 made bench_anki_sync.py's 9,747 answers from Anki 20 transactions, a
#: fifth of that phase's time; one (all 9,747) would save 6 ms of its 150.
BATCH_EVENTS = 2000


class Merged(Struct, frozen=True):
    """What adding events did."""

    #: Events newly logged.
    added: int = 0
    #: Events the log held already (same identity), which added nothing.
    present: int = 0
    #: The cards whose events were added, re-derived.
    keys: frozenset[str] = frozenset()
    #: Events dated more than a day ahead: not added; given again later, they are taken then.
    held: int = 0
    #: Undos that name no grade of their card here, or one withdrawn already: not added.
    skipped: int = 0
    #: One line for each kind of event held back or skipped, for the user.
    warnings: tuple[str, ...] = ()
    #: Of those added, the card actions (and their undos).
    actions: int = 0
    #: Of those actions, the settings that travel (FSRS's parameters).
    settings: int = 0

    def __add__(self, other: Merged) -> Merged:
        return Merged(
            self.added + other.added,
            self.present + other.present,
            self.keys | other.keys,
            self.held + other.held,
            self.skipped + other.skipped,
            self.warnings + other.warnings,
            self.actions + other.actions,
            self.settings + other.settings,
        )


def machine_origin(conn: sqlite3.Connection) -> str:
    """This database's machine id: the origin of every event made here."""
    origin: str = conn.execute("SELECT origin FROM machine").fetchone()[0]
    return origin


def next_seq(conn: sqlite3.Connection, origin: str) -> int:
    """The number of ``origin``'s next event, from this database's own log (below the numbers
    of the actions logged before they joined it: :func:`~zerodrill.srs.card_actions.legacy_seq`)."""
    (seq,) = conn.execute(
        "SELECT coalesce(max(seq), 0) + 1 FROM event WHERE origin = ? AND seq < ?",
        (origin, LEGACY_SEQ_TOP // 2),
    ).fetchone()
    return int(seq)


def insert(conn: sqlite3.Connection, event: StreamEvent) -> int:
    """Log ``event``; its row id."""
    ((row, values),) = event_rows([event])
    cursor = conn.execute(f"INSERT INTO {EVENT_INTO} VALUES {row}", values)
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def is_last(conn: sqlite3.Connection, row_id: int) -> bool:
    """Whether event ``row_id`` comes after every other event of its card in the replay's
    order (study day, instant, origin, sequence)."""
    later = conn.execute(
        "SELECT 1 FROM event e, event n WHERE n.id = ? AND e.key = n.key AND e.id != n.id "
        f"AND (e.action IS NULL OR e.{BY_HAND}) "
        "AND (e.day, e.at_us, e.origin, e.seq) > (n.day, n.at_us, n.origin, n.seq) LIMIT 1",
        (row_id,),
    ).fetchone()
    return later is None


def _checked(event: StreamEvent) -> StreamEvent:
    if not event.origin or isinstance(event.seq, bool) or event.seq < 1:
        raise ValueError(f"an event from elsewhere needs its origin and number: {event!r}")
    return event


def _all_checked(events: Iterable[StreamEvent]) -> list[StreamEvent]:
    """``events``, each :func:`_checked`: in C when all are well formed (a sync's thousands)."""
    events = list(events)
    seqs = list(map(_SEQ, events))
    if not all(map(_ORIGIN, events)) or set(map(type, seqs)) - {int} or min(seqs, default=1) < 1:
        events = list(map(_checked, events))
    return events


_IDENTITY, _KEY, _ORIGIN, _SEQ, _AT, _UNDOES = (
    attrgetter("origin", "seq"),
    attrgetter("key"),
    attrgetter("origin"),
    attrgetter("seq"),
    attrgetter("at"),
    attrgetter("undoes"),
)


def batches(
    events: Iterable[StreamEvent], now: datetime, size: int = BATCH_EVENTS
) -> tuple[Iterator[list[StreamEvent]], Merged]:
    """``events`` in batches of whole cards of about ``size`` events, each once; and what was
    left out: duplicates (present) and events dated after ``now`` + :data:`HOLD_AHEAD`."""
    by_key: dict[str, list[StreamEvent]] = {}
    seen: set[Identity] = set()
    present = 0
    ahead: dict[tuple[str, str], list[StreamEvent]] = {}
    until = now + HOLD_AHEAD
    events = _all_checked(events)
    if (
        len(set(map(_IDENTITY, events))) == len(events)
        and max(map(_AT, events), default=until) <= until
    ):
        # What a sync brings: each event once, none ahead (looked at in C, not one by one).
        for event in events:
            by_key.setdefault(event.key, []).append(event)
        events = []
    for event in events:
        identity = event.identity
        if identity in seen:
            present += 1
            continue
        seen.add(identity)
        if event.at > until:
            ahead.setdefault((_noun(event), event.origin), []).append(event)
            continue
        by_key.setdefault(event.key, []).append(event)
    warnings = tuple(
        f"{plural(len(held), noun)} from {origin} dated more than a day ahead (up to "
        f"{max(e.at for e in held).date().isoformat()}) held back until then: is that "
        "machine's clock wrong?"
        for (noun, origin), held in sorted(ahead.items())
    )
    left_out = Merged(present=present, held=sum(map(len, ahead.values())), warnings=warnings)

    def cut() -> Iterator[list[StreamEvent]]:
        batch: list[StreamEvent] = []
        for card in by_key.values():
            batch.extend(card)
            if len(batch) >= size:
                yield batch
                batch = []
        if batch:
            yield batch

    return cut(), left_out


def _noun(event: StreamEvent) -> str:
    return "card action" if isinstance(event, CardActionEvent) else "review"


def add_batch(conn: sqlite3.Connection, batch: list[StreamEvent]) -> Merged:
    """Log the events of ``batch`` (whole cards) not logged yet; returns what it did. The
    caller re-derives :attr:`Merged.keys` (the cards whose reviews changed), in the same
    transaction.

    One undo rule for every kind: an undo is taken if it names an event of its card here that
    is no undo and that nothing withdrew yet (:func:`withdrawable`)."""
    # Each asked in C first: a sync brings grades alone (bench_anki_sync.py's 9,747).
    undos = [e for e in batch if e.undoes is not None] if any(map(_UNDOES, batch)) else []
    fresh = [e for e in batch if e.undoes is None] if undos else batch
    # Events first, so that an undo finds the event it withdraws among them.
    added = _insert_new(conn, fresh)
    done = fresh if added is None else [e for e in fresh if e.identity in added]
    logged = _logged(conn, undos)
    undos = [e for e in undos if e.identity not in logged]
    present = len(batch) - len(done) - len(undos)
    targets = withdrawable(conn, [e.undoes for e in undos if e.undoes is not None])
    undone: list[StreamEvent] = []
    for event in undos:
        named = event.undoes
        assert named is not None
        target = targets.get(named)
        if target is not None and target[0] == event.key:
            del targets[named]  # withdrawn once: a second undo of it is skipped
            undone.append(undo_of(event, action=target[1] is not None))
    _insert_new(conn, undone)
    done = [*done, *undone]
    kinds = set(map(type, done))
    acted = [e for e in done if isinstance(e, CardActionEvent)] if kinds - {ReviewEvent} else []
    # A change by hand in Anki moves its card's schedule; an undo of an action may withdraw one.
    keys = (
        frozenset(e.key for e in done if isinstance(e, ReviewEvent) or _moves_schedule(e))
        if acted
        else frozenset(map(_KEY, done))
    )
    actions = len(acted)
    settings = sum(1 for e in acted if e.value is not None)
    skipped = len(undos) - len(undone)
    return Merged(len(done), present, keys, skipped=skipped, actions=actions, settings=settings)


def _insert_new(conn: sqlite3.Connection, events: list[StreamEvent]) -> set[Identity] | None:
    """Log those of ``events`` whose identity the log lacks, in their order; their identities,
    or None when all were new.

    Set-based: the identity index says which are logged as each row goes in (no look-up
    before), and a statement inserts many rows, which binds their values without a round
    trip through executemany for each (bench_anki_sync.py's 9,747 answers from Anki)."""
    if not events:
        return None
    (last,) = conn.execute("SELECT coalesce(max(id), 0) FROM event").fetchone()
    changes = conn.total_changes
    for row, values in event_rows(events):
        insert_many(conn, EVENT_INTO, row, values, "ON CONFLICT (origin, seq) DO NOTHING")
    if conn.total_changes - changes == len(events):
        return None
    # The rows added have the ids after the log's last (INTEGER PRIMARY KEY: max + 1).
    return set(conn.execute("SELECT origin, seq FROM event WHERE id > ?", (last,)))


def _moves_schedule(event: StreamEvent) -> bool:
    return isinstance(event, CardActionEvent) and (
        event.action in SCHEDULE_ACTIONS or event.action is Action.UNDO
    )


def withdrawable(
    conn: sqlite3.Connection, identities: Collection[Identity]
) -> dict[Identity, tuple[str, str | None]]:
    """The card and action (None: a grade) of each event ``identities`` names that an undo
    may withdraw: it is logged, is no undo, and no undo names it yet."""
    rows = by_identity(conn, identities, "e.key, e.action", _WITHDRAWABLE)
    return {identity: (row[0], row[1]) for identity, row in rows.items()}


_WITHDRAWABLE = (
    "e.undoes_origin IS NULL AND NOT EXISTS (SELECT 1 FROM event u "
    "WHERE u.undoes_origin = e.origin AND u.undoes_seq = e.seq)"
)


def appended(conn: sqlite3.Connection, batch: list[StreamEvent]) -> dict[str, list[ReviewEvent]]:
    """The cards of ``batch`` that have events already, and whose events in it are all grades
    the log lacks that come after those, in the replay's order (study day, instant, origin,
    sequence): by key, those grades in that order. Call it before adding them: such a card's
    state is its cached one with each reviewed on it in turn, as a grade given here is, which
    costs a review each where replaying the card costs one for every grade it has."""
    by_key: dict[str, list[ReviewEvent]] = {}
    for event in batch:
        if isinstance(event, ReviewEvent):
            by_key.setdefault(event.key, []).append(event)
    logged = _logged(conn, batch)
    by_hand = {e.key for e in batch if _moves_schedule(e)}
    found = {}
    for key, events in by_key.items():
        if key in by_hand or any(e.undoes is not None or e.identity in logged for e in events):
            continue
        last = conn.execute(
            "SELECT day, at_us, origin, seq FROM event WHERE key = ? "
            f"AND (action IS NULL OR {BY_HAND}) "
            "ORDER BY day DESC, at_us DESC, origin DESC, seq DESC LIMIT 1",
            (key,),
        ).fetchone()
        events.sort(key=_order)
        # A new card is replayed with the rest: in one pass, cheaper than a review at a time.
        if last is not None and tuple(last) < _order(events[0]):
            found[key] = events
    return found


def _order(event: ReviewEvent) -> tuple[str, int, str, int]:
    return (event.day.isoformat(), instant_us(event.at), event.origin, event.seq)


def of_kinds(
    conn: sqlite3.Connection, actions: Collection[Action], grades: bool, reviews: bool = False
) -> list[StreamEvent]:
    """The events of the card actions ``actions`` and the undos of actions, with ``grades``
    the reviews of the cards those name, with ``reviews`` every review, in the order logged
    (a projection's: :mod:`zerodrill.srs.projections`)."""
    kinds = sorted({a.value for a in actions} | {Action.UNDO.value})
    marks = ",".join("?" * len(kinds))
    rows = conn.execute(
        f"SELECT {EVENT_COLUMNS} FROM event e WHERE e.action IN ({marks})", kinds
    ).fetchall()
    if reviews:
        rows += conn.execute(f"SELECT {EVENT_COLUMNS} FROM event e WHERE e.action IS NULL")
    elif grades:
        named = [k for k in kinds if k != Action.UNDO.value]
        rows += conn.execute(
            f"SELECT {EVENT_COLUMNS} FROM event e WHERE e.action IS NULL AND e.key IN "
            f"(SELECT key FROM event WHERE action IN ({','.join('?' * len(named))}))",
            named,
        )
    rows.sort(key=lambda row: int(row[0]))
    return [event_from(row) for row in rows]


def row_id(conn: sqlite3.Connection, identity: Identity) -> int:
    """The row id of the event with this identity, which the log holds."""
    (found,) = conn.execute(
        "SELECT id FROM event WHERE origin = ? AND seq = ?", identity
    ).fetchone()
    return int(found)


def _logged(conn: sqlite3.Connection, events: list[StreamEvent]) -> set[Identity]:
    """The identities among ``events`` that the log holds."""
    return set(by_identity(conn, [e.identity for e in events], "1"))


def by_identity(
    conn: sqlite3.Connection, identities: Iterable[Identity], columns: str, where: str = "1"
) -> dict[Identity, tuple[Any, ...]]:
    """``columns`` of each event ``e`` among ``identities`` that the log holds (and that
    ``where`` says of), by identity: looked up in the identity index, a chunk at a time."""
    seqs: dict[str, list[int]] = {}
    for origin, seq in identities:
        seqs.setdefault(origin, []).append(seq)
    found: dict[Identity, tuple[Any, ...]] = {}
    for origin, numbers in seqs.items():
        for start in range(0, len(numbers), _SEQS_PER_QUERY):
            chunk = numbers[start : start + _SEQS_PER_QUERY]
            marks = ",".join("?" * len(chunk))
            rows = conn.execute(
                f"SELECT e.seq, {columns} FROM event e WHERE {where} AND e.origin = ? "
                f"AND e.seq IN ({marks})",
                (origin, *chunk),
            )
            found.update(((origin, row[0]), tuple(row[1:])) for row in rows)
    return found


_SEQS_PER_QUERY = 500


def skipped_warning(skipped: int) -> tuple[str, ...]:
    if not skipped:
        return ()
    return (
        f"{plural(skipped, 'undo')} naming no review or card action of its card here, or "
        "one undone already, skipped",
    )
