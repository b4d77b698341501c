"""A drill session over ``zerodrill.srs``: the implementation of :class:`DrillSession`.

The queue, SM-2 and the store are ``zerodrill.srs``'s; this adds what only the screens need:
the time a card was on screen, the sitting's grade counts, and "when can I come back".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING

from zerodrill.deck.model import Deck, Item
from zerodrill.srs.days import DEFAULT_ROLLOVER_HOUR, study_day
from zerodrill.srs.queue import Counts, GradeOutcome, Session, build_queue, items_of
from zerodrill.srs.store import Store
from zerodrill.tui.session import DeckCount, Summary

if TYPE_CHECKING:
    from zerodrill.srs.stats import Stats

#: Longer than this on one card is a coffee break, not answering time (Anki caps at 60 s).
MAX_ANSWER_MS = 60_000


@dataclass
class Sitting:
    """One run of the drill, which outlives switching decks: its start and its grades."""

    started: datetime
    #: (key, grade) of each grade still in effect, oldest first.
    grades: list[tuple[str, int]] = field(default_factory=list)
    #: Their review ids, for undo (shared with the queue's session).
    review_ids: list[int] = field(default_factory=list)


class SrsDrillSession:
    def __init__(
        self,
        decks: Sequence[Deck],
        store: Store,
        *,
        clock: Callable[[], datetime],
        new_limit: int = 20,
        deck_id: str | None = None,
        rollover_hour: int = DEFAULT_ROLLOVER_HOUR,
        sitting: Sitting | None = None,
    ) -> None:
        self.all_decks = tuple(decks)
        self.store = store
        self.clock = clock
        self.new_limit = new_limit
        self.deck_id = deck_id
        self.rollover_hour = rollover_hour
        self.decks = tuple(d for d in decks if deck_id is None or d.id == deck_id)
        self.title = self.decks[0].title if len(self.decks) == 1 else "All decks"
        self._sitting = sitting if sitting is not None else Sitting(clock())
        self.day = study_day(self._sitting.started, rollover_hour)
        self._session = Session.for_decks(
            self.decks,
            store,
            day=self.day,
            new_limit=new_limit,
            clock=clock,
            history=self._sitting.review_ids,
        )
        self._current = self._session.next()
        self._shown_at = clock()

    # -- the card on show -------------------------------------------------------------------

    @property
    def current(self) -> Item | None:
        return self._current

    def _advance(self) -> None:
        self._current = self._session.next()
        self._shown_at = self.clock()

    @property
    def is_repeat(self) -> bool:
        return self._current is not None and self._session.is_repeat(self._current)

    @property
    def can_undo(self) -> bool:
        return bool(self._sitting.review_ids)

    @property
    def done(self) -> int:
        return len(self._sitting.grades)

    def remaining(self) -> Counts:
        return self._session.remaining()

    def choices(self) -> Sequence[GradeOutcome]:
        return self._session.preview(self._current) if self._current is not None else ()

    def grade(self, quality: int, *, typed: str | None = None) -> None:
        item = self._current
        if item is None:
            raise RuntimeError("no card to grade")
        spent = (self.clock() - self._shown_at).total_seconds() * 1000
        self._session.grade(
            item, quality, answer_ms=min(MAX_ANSWER_MS, max(0, int(spent))), typed=typed
        )
        self._sitting.grades.append((item.key, quality))
        self._advance()

    def undo(self) -> Item | None:
        """Take back the sitting's last grade; the card, if in these decks, comes back."""
        ids = self._sitting.review_ids
        before = len(ids)
        try:
            item = self._session.undo()
        finally:
            # Each id leaving the stack is a grade no longer in effect (undone now, or
            # superseded elsewhere): keep the sitting's tally in step with it.
            del self._sitting.grades[len(self._sitting.grades) - (before - len(ids)) :]
            self._advance()
        return item

    # -- the sitting as a whole -------------------------------------------------------------

    def summary(self) -> Summary:
        stats = self.stats()
        grades = self._sitting.grades
        return Summary(
            reviews=len(grades),
            cards=len({key for key, _ in grades}),
            grades=dict(Counter(g for _, g in grades)),
            seconds=(self.clock() - self._sitting.started).total_seconds(),
            due_tomorrow=stats.due_today + stats.due_tomorrow,
        )

    def next_due(self) -> datetime | None:
        items = self._session.items
        if not items:
            return None
        days: list[date] = []
        if self.new_limit > 0:
            known = self.store.known_keys()
            if any(item.key not in known for item in items):
                days.append(self.day + timedelta(days=1))
        review_day = self._session.next_due_after()
        if review_day is not None:
            days.append(review_day)
        if not days:
            return None
        # A study day starts at the rollover hour, on the local clock.
        return datetime.combine(min(days), time(self.rollover_hour)).astimezone()

    def stats(self) -> Stats:
        # Imported when asked for: the first card does not wait for it.
        from zerodrill.srs.stats import compute_stats

        return compute_stats(self.decks, self.store, self.day)

    def deck_counts(self) -> list[DeckCount]:
        rows = []
        for deck in self.all_decks:
            rows.append(self._count(deck.id, deck.title, (deck,)))
        if len(rows) > 1:
            rows.insert(0, self._count(None, "All decks", self.all_decks))
        return rows

    def _count(self, deck_id: str | None, title: str, decks: Sequence[Deck]) -> DeckCount:
        q = build_queue(items_of(decks), self.store, self.day, new_limit=self.new_limit)
        return DeckCount(deck_id, title, len(q.reviews) + len(q.repeats), len(q.new))

    def narrowed(self, deck_id: str | None) -> SrsDrillSession:
        return SrsDrillSession(
            self.all_decks,
            self.store,
            clock=self.clock,
            new_limit=self.new_limit,
            deck_id=deck_id,
            rollover_hour=self.rollover_hour,
            sitting=self._sitting,
        )
