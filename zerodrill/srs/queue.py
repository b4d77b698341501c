"""Today's queue, and a drill session over it.

Order: due reviews first (most overdue first), then new items in deck order up to the daily
limit, then SM-2's step 7: every item graded below 4 today comes back, after the rest, until
it gets 4 or 5. Those repeats are logged (``repeat=True``) and move no schedule.

Siblings (the deletions of one cloze card) are never shown on the same day: once one of them
is queued or was graded today, the others wait for another day.

Everything is derived from the store for the study day, so a session started again the same
day (or in a second terminal) picks up where the log says things stand. Building the queue
reads today's log (by the ``day`` index) and the keys due today and due later (by the ``due``
index): nothing that grows with the number of past reviews.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from itertools import chain, filterfalse

from zerodrill.deck.model import Deck, Item
from zerodrill.srs import sm2
from zerodrill.srs.days import local_now
from zerodrill.srs.sm2 import REPEAT_BELOW, Grade, Sm2State
from zerodrill.srs.store import Review, Store

DEFAULT_NEW_LIMIT = 20


@dataclass(frozen=True, slots=True)
class Counts:
    """What is left, split the way Anki shows it."""

    new: int
    repeats: int
    reviews: int

    @property
    def total(self) -> int:
        return self.new + self.repeats + self.reviews


@dataclass(frozen=True, slots=True)
class TodayQueue:
    day: date
    #: Due items, most overdue first.
    reviews: tuple[Item, ...]
    #: New items, in deck order, as many as today's limit still allows.
    new: tuple[Item, ...]
    #: Items whose latest grade today was below 4, in the order they were graded.
    repeats: tuple[Item, ...]
    #: Keys graded today (grades and repeats still in effect).
    graded_today: frozenset[str]
    #: New items already introduced today (they count against the limit).
    introduced: int


@dataclass(frozen=True, slots=True)
class GradeOutcome:
    """What one grade would do to the item on show (for the grade buttons)."""

    grade: Grade
    #: Days from the review day to the next due day.
    interval: int
    due: date
    #: Step 7: the item comes back later in this session.
    again_today: bool
    #: False for a same-day repeat: the grade is logged but the schedule stays.
    moves_schedule: bool


def items_of(decks: Iterable[Deck]) -> tuple[Item, ...]:
    """The study items of the decks' active cards, in deck order."""
    return tuple(chain.from_iterable(deck.items() for deck in decks))


def _card_key(key: str, by_key: dict[str, Item]) -> str:
    item = by_key.get(key)
    # A key no longer in a deck (a deletion removed from its card) still keeps its siblings
    # waiting today: its card is what comes before '#'.
    return item.card.key if item is not None else key.partition("#")[0]


def build_queue(
    items: Iterable[Item], store: Store, day: date, *, new_limit: int = DEFAULT_NEW_LIMIT
) -> TodayQueue:
    """Today's queue over ``items``. Keys not among ``items`` (retired, unknown) never appear."""
    return _build_queue({item.key: item for item in items}, store, day, new_limit=new_limit)


def _build_queue(by_key: dict[str, Item], store: Store, day: date, *, new_limit: int) -> TodayQueue:
    """:func:`build_queue` over the items ``by_key`` maps to, in its order."""
    if new_limit < 0:
        raise ValueError(f"new card limit must not be negative, not {new_limit}")
    # One snapshot: what is due and what is logged must agree while another terminal grades.
    with store.snapshot():
        latest: dict[str, Review] = {}
        introduced = 0
        for review in store.reviews_on(day):
            latest[review.key] = review
            if review.introduced and review.key in by_key:
                introduced += 1
        due = store.due_keys(day)
        slots = max(0, new_limit - introduced)
        # A new item is one without a schedule. The due keys need no looking up for that:
        # each one among the items ends up queued, graded today or with its card busy, so
        # never new. That leaves the keys due later, far fewer rows when much is due.
        later = store.scheduled_after(day) if slots else set()

    graded = frozenset(latest)
    repeats = tuple(
        by_key[r.key]
        for r in sorted(latest.values(), key=lambda r: r.id)
        if r.grade is not None and r.grade < REPEAT_BELOW and r.key in by_key
    )
    busy_cards = {_card_key(key, by_key) for key in graded}

    # A key graded today never comes up again here: its card is busy already.
    reviews = _one_per_card(due, by_key, busy_cards)
    new = _one_per_card(filterfalse(later.__contains__, by_key), by_key, busy_cards, slots)
    return TodayQueue(day, tuple(reviews), tuple(new), repeats, graded, introduced)


def _one_per_card(
    keys: Iterable[str], by_key: dict[str, Item], busy_cards: set[str], limit: int | None = None
) -> list[Item]:
    """The items of ``keys``, in order, at most ``limit`` (None: all), and at most one per card
    not in ``busy_cards``. The cards taken join ``busy_cards``. Keys not among the items are
    passed over."""
    taken: list[Item] = []
    if limit == 0:
        return taken
    for key in keys:
        item = by_key.get(key)
        if item is None:
            continue
        card = item.card.key
        if card not in busy_cards:
            busy_cards.add(card)
            taken.append(item)
            if len(taken) == limit:
                break
    return taken


def preview(state: Sm2State, day: date, *, repeat: bool = False) -> tuple[GradeOutcome, ...]:
    """What each grade 0-5 would do to an item in ``state`` on ``day``."""
    outcomes = []
    for grade in Grade:
        after = state if repeat and not state.is_new else sm2.review(state, grade, day)
        interval, due = after.interval, after.due
        assert due is not None
        outcomes.append(GradeOutcome(grade, interval, due, grade < REPEAT_BELOW, not repeat))
    return tuple(outcomes)


class Session:
    """One sitting of drill over some items, driven by the TUI.

    ``next()`` gives the item to show (it stays the next one until graded, so asking twice is
    safe), ``grade()`` stores a grade in its own transaction before returning, ``undo()`` takes
    the last grade of this session back and makes that item the next one again.

    The study day is fixed when the session starts: a sitting that runs past the rollover
    hour still counts for the day it began on. The clock only stamps the wall time of grades.
    """

    def __init__(
        self,
        items: Iterable[Item],
        store: Store,
        *,
        day: date,
        new_limit: int = DEFAULT_NEW_LIMIT,
        clock: Callable[[], datetime] = local_now,
        history: list[int] | None = None,
    ) -> None:
        """``history``: review ids of grades given earlier in the same sitting (over other
        decks, say), oldest first, so that undo reaches back to them; shared, not copied."""
        self._by_key = {item.key: item for item in items}
        self._items = tuple(self._by_key.values())
        self._store = store
        self._day = day
        self._new_limit = new_limit
        self._clock = clock
        #: Grades given in this session, repeats included, undos taken off.
        self.done = 0
        self._front: Item | None = None
        # This sitting's grades, oldest first: undo takes back only these.
        self._given: list[int] = [] if history is None else history
        self._reload()

    @classmethod
    def for_decks(
        cls, decks: Iterable[Deck], store: Store, *, day: date, **options: object
    ) -> Session:
        return cls(items_of(decks), store, day=day, **options)  # type: ignore[arg-type]

    @property
    def day(self) -> date:
        return self._day

    @property
    def items(self) -> tuple[Item, ...]:
        return self._items

    @property
    def store(self) -> Store:
        return self._store

    def _reload(self) -> None:
        queue = _build_queue(self._by_key, self._store, self._day, new_limit=self._new_limit)
        self._reviews = deque(queue.reviews)
        self._new = deque(queue.new)
        self._repeats = deque(queue.repeats)
        self._graded = set(queue.graded_today)

    def _take(self, item: Item) -> bool:
        """Remove ``item`` from wherever it waits; False if it was not queued."""
        found = False
        if self._front is not None and self._front.key == item.key:
            self._front = None
            found = True
        for line in (self._reviews, self._new, self._repeats):
            for queued in line:
                if queued.key == item.key:
                    line.remove(queued)
                    found = True
                    break
        return found

    def next(self) -> Item | None:
        """The item to show now; None when today's work is done."""
        if self._front is not None:
            return self._front
        for line in (self._reviews, self._new, self._repeats):
            if line:
                return line[0]
        return None

    def is_repeat(self, item: Item) -> bool:
        """Already graded today: a grade now is logged as a repeat and moves no schedule."""
        return item.key in self._graded

    def remaining(self) -> Counts:
        new, repeats, reviews = len(self._new), len(self._repeats), len(self._reviews)
        if self._front is not None:
            if self.is_repeat(self._front):
                repeats += 1
            elif self._store.state(self._front.key).is_new:
                new += 1
            else:
                reviews += 1
        return Counts(new=new, repeats=repeats, reviews=reviews)

    def preview(self, item: Item) -> tuple[GradeOutcome, ...]:
        """What each grade would do to ``item`` now."""
        state = self._store.state(item.key)
        return preview(state, self._day, repeat=self.is_repeat(item))

    def grade(
        self,
        item: Item,
        quality: int,
        *,
        answer_ms: int | None = None,
        typed: str | None = None,
    ) -> Review:
        """Store a grade of a queued ``item`` (committed when this returns) and move on."""
        grade = sm2.to_grade(quality)
        if item.key not in self._by_key or not self._queued(item):
            raise ValueError(f"{item.key} is not in today's queue")
        review = self._store.record(
            item.key,
            grade,
            now=self._clock(),
            day=self._day,
            answer_ms=answer_ms,
            typed=typed,
            repeat=self.is_repeat(item),
        )
        self._given.append(review.id)
        self._take(item)
        self._graded.add(item.key)
        if grade < REPEAT_BELOW:
            self._repeats.append(item)
        self.done += 1
        return review

    def _queued(self, item: Item) -> bool:
        if self._front is not None and self._front.key == item.key:
            return True
        return any(
            q.key == item.key for line in (self._reviews, self._new, self._repeats) for q in line
        )

    def undo(self) -> Item | None:
        """Take back this session's last grade still in effect; its item is shown next.

        Returns that item, or None when there is nothing to undo (or the card has left the
        decks meanwhile).
        """
        review = self._store.undo_last(now=self._clock(), ids=self._given)
        if review is None:
            return None
        self.done = max(0, self.done - 1)
        self._front = None
        self._reload()
        item = self._by_key.get(review.key)
        if item is not None:
            self._take(item)
            self._front = item
        return item

    def next_due_after(self) -> date | None:
        """The first day after this one with a review due among these items."""
        return self._store.next_due_after(self._day, self._by_key)
