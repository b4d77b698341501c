"""The schedule: the cache of the :func:`~zerodrill.srs.projections.schedule` projection (each
card's state under the learner's scheduler, and what each grade was), and what reads it.

The cache (:mod:`.derive`) is built with the projection's fingerprint, the scheduler's with its
options; built with another, or dropped, it is rebuilt whole before the next read or at the
start of the next write. A grade logged last in its card's order is applied to the cached state
(:meth:`Schedule.apply`) rather than replaying the card. Reach it as
:attr:`zerodrill.srs.store.Store.schedule`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from datetime import date
from typing import Any, Literal

from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.projections import schedule
from zerodrill.srs.schedulers import Scheduler
from zerodrill.srs.schedulers.protocol import CardState
from zerodrill.srs.store import derive, eventlog
from zerodrill.srs.store.figures import ReviewCounts, review_counts
from zerodrill.srs.store.part import StorePart
from zerodrill.srs.store.rows import date_from
from zerodrill.srs.store.transactions import Transactions


class Schedule(StorePart):
    """The store's schedule, derived with the scheduler ``scheduler()`` names at each use (the
    store's profile's)."""

    def __init__(self, tx: Transactions, scheduler: Callable[[], Scheduler[Any]]) -> None:
        super().__init__(tx)
        self._scheduler = scheduler
        tx.on_write = self._ensure_in_write
        tx.before_snapshot = self._ensure

    # -- keeping the cache current -------------------------------------------------------

    def _ensure_in_write(self) -> None:
        derive.ensure(self._conn, self._scheduler())

    def _ensure(self) -> None:
        # Inside a transaction it was seen to already: a write transaction ensures it on
        # starting, and so does a snapshot before it begins.
        if self._conn.in_transaction:
            return
        with self._reading():
            current = derive.built_with(self._conn) == schedule(self._scheduler()).fingerprint
            # No events, nothing to derive: an empty cache is right for every scheduler, and
            # reading a new database must not wait for another terminal's write lock.
            current = current or not self._conn.execute("SELECT 1 FROM event LIMIT 1").fetchone()
        if not current:
            with self._writing():
                pass  # writing rebuilds it on starting

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Reads of the cache: built first with the store's scheduler if it was not."""
        self._ensure()
        with self._reading():
            yield

    def rederive(self) -> None:
        """Drop the whole cache and derive it again from the events; one transaction."""
        with self._writing():
            derive.derive(self._conn, self._scheduler(), None)

    # -- inside the write transactions of the log -----------------------------------------

    def rederive_cards(
        self, keys: Collection[str], replayed: Mapping[str, derive.Replayed] | None = None
    ) -> None:
        """Derive the cards ``keys`` again from their events (those ``replayed`` holds as
        replayed elsewhere, if they are what it says: :class:`.derive.Replayed`). Inside a
        write transaction."""
        derive.derive(self._conn, self._scheduler(), keys, replayed)

    def apply(self, row_id: int, event: ReviewEvent) -> None:
        """Take the grade ``event`` (logged as ``row_id``, last in its card's order) on the
        cached state: what :meth:`rederive_cards` would give, without replaying the card.
        Inside the write transaction that logged it."""
        before = self._state_of(event.key)
        derive.apply(self._conn, self._scheduler(), row_id, before, event)

    def take(
        self,
        keys: frozenset[str],
        appended: dict[str, list[ReviewEvent]],
        replayed: Mapping[str, derive.Replayed] | None = None,
    ) -> None:
        """Re-derive the cards ``keys`` that events were added to: those whose added grades all
        come after the rest of their card (``appended``: a sync's reviews made since) take
        them on the cached state one by one, as a grade given here does; the others are
        replayed (or taken from ``replayed``). The 10,000 new events of bench_sync.py's folder
        row need it to stay within 2 s. Inside the write transaction that added them."""
        self.rederive_cards(keys - appended.keys(), replayed)
        for events in appended.values():
            for event in events:
                self.apply(eventlog.row_id(self._conn, event.identity), event)

    # -- reading ---------------------------------------------------------------------------

    def state(self, key: str) -> CardState:
        """The state of ``key``; the scheduler's new state when it has no grade in effect."""
        with self.reading():
            return self._state_of(key)

    def _state_of(self, key: str) -> CardState:
        row = self._conn.execute("SELECT state FROM card WHERE key = ?", (key,)).fetchone()
        if row is None:
            new: CardState = self._scheduler().new_state()
            return new
        return derive.state_from(self._scheduler(), key, row[0])

    def last_day(self, key: str) -> date | None:
        """The latest study day on which ``key`` has a grade in effect, in any terminal; None
        if it has none. Read it inside the grade's transaction."""
        with self.reading():
            row = self._conn.execute("SELECT last_day FROM card WHERE key = ?", (key,)).fetchone()
            return date_from(row[0]) if row is not None and row[0] is not None else None

    def states(self, keys: Collection[str] | None = None) -> dict[str, CardState]:
        """Each known key's state (or only those among ``keys``); new keys are absent."""
        scheduler = self._scheduler()
        with self.reading():
            if keys is None:
                rows = self._conn.execute("SELECT key, state FROM card")
                return {k: derive.state_from(scheduler, k, text) for k, text in rows}
            found: dict[str, CardState] = {}
            for chunk in derive.chunks(keys):
                marks = ",".join("?" * len(chunk))
                for k, text in self._conn.execute(
                    f"SELECT key, state FROM card WHERE key IN ({marks})", chunk
                ):
                    found[k] = derive.state_from(scheduler, k, text)
            return found

    def states_by(
        self, scheduler: Scheduler[Any], keys: Collection[str] | None = None
    ) -> dict[str, CardState]:
        """Each known key's state (among ``keys``) as ``scheduler`` derives it: the schedule
        projection under it, folded in memory; the cache is neither read nor changed (a look
        under another scheduler, say)."""
        projection = schedule(scheduler)
        with self._reading():
            events = eventlog.of_kinds(
                self._conn, projection.actions, projection.grades, projection.reviews
            )
        states = projection.fold(events)
        if keys is None:
            return states
        return {k: states[k] for k in dict.fromkeys(keys) if k in states}

    def due_dates(
        self, *, after: date | None = None, through: date | None = None
    ) -> dict[str, date]:
        """The due day of each known key, earliest first (ties by key); new keys are absent.

        Only days after ``after`` and on or before ``through``, when given: a range of the
        index on due days, so what today's queue reads does not grow with what is due later.
        """
        with self.reading():
            return {key: date_from(due) for key, due in self._due(after, through)}

    def due_keys(self, *, after: date | None = None, through: date | None = None) -> list[str]:
        """:meth:`due_dates`' keys, in its order, without their days: today's queue needs
        only which keys are due and in what order, and reading ten thousand days costs it."""
        with self.reading():
            return [key for (key,) in self._due(after, through, "key")]

    def _due(
        self,
        after: date | None,
        through: date | None,
        columns: Literal["key", "key, due"] = "key, due",
    ) -> sqlite3.Cursor:
        bounds, params = ["due IS NOT NULL"], []
        if after is not None:
            bounds.append("due > ?")
            params.append(after.isoformat())
        if through is not None:
            bounds.append("due <= ?")
            params.append(through.isoformat())
        return self._conn.execute(
            f"SELECT {columns} FROM card WHERE {' AND '.join(bounds)} ORDER BY due, key", params
        )

    def again_on(self, day: date) -> frozenset[str]:
        """The keys that come back on study day ``day`` for another grade (a same-day repeat
        or a learning step, as the scheduler says)."""
        with self.reading():
            rows = self._conn.execute("SELECT key FROM card WHERE again_on = ?", (day.isoformat(),))
            return frozenset(key for (key,) in rows)

    def review_counts(self, day: date, *, window_days: int = 30) -> dict[str, ReviewCounts]:
        """Per deck id (the part of a key before '/'): review figures as of study day ``day``,
        the recall window being the ``window_days`` days ending with ``day``."""
        with self.reading():
            return review_counts(self._conn, day, window_days)
