"""Today's queue: what is due, what is new and what comes back, over some decks' items.

Order: due reviews first (the cards an interview brought forward, then most overdue first),
then new items in study order (see :func:`items_of`) up to the daily limit, then the items the
scheduler brings back today (:attr:`~zerodrill.srs.schedulers.protocol.CardState.again_on`; SM-2:
every item graded below 4 today, until it gets 4 or 5), after the rest. One the scheduler
brings back at a set moment (a learning step: SM-2's fails) comes sooner: the sitting brings
it forward once a few other cards were graded or that moment has come
(:attr:`TodayQueue.failed`).

The daily limit on new items is one per study day, over every deck: items introduced today in
any deck count against it, so no choice of decks gives more new cards in a day.

Siblings are never shown on the same day: the deletions of one cloze card, and cards the deck
says teach the same thing (a card's ``siblings``). Once one of them is queued or was graded
today, the others wait for another day (:meth:`~zerodrill.deck.item_index.ItemIndex.
busy_cards`). While an interview date is planned for (:mod:`zerodrill.srs.interview_plan`)
there are not the days for that: a cloze card's deletions may share a day, and cards that teach
the same thing are only introduced on different days (:attr:`Apart.NEW_SIBLINGS`), until the
last day new cards are planned for, when nothing waits (:attr:`Apart.NONE`).

Everything is derived from the store for the study day, so a session started again the same
day (or in a second terminal) picks up where the log says things stand. Building the queue
reads today's log (by the ``day`` index) and the keys due today and due later (by the ``due``
index): nothing that grows with the number of past reviews. :mod:`zerodrill.srs.sitting`
works through it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from enum import Enum
from itertools import chain, islice

from msgspec import Struct, field

from zerodrill.deck.item_index import ItemIndex
from zerodrill.deck.model import Deck, Item
from zerodrill.srs.events import LoggedEvent
from zerodrill.srs.store import Store

DEFAULT_NEW_LIMIT = 20


class Counts(Struct, frozen=True):
    """What is left, split the way Anki shows it."""

    new: int
    repeats: int
    reviews: int

    @property
    def total(self) -> int:
        return self.new + self.repeats + self.reviews


class Failed(Struct, frozen=True):
    """An item in a learning step: it comes back today at a set moment at the latest."""

    #: When it comes back at the latest.
    due: datetime
    #: Grades and repeats logged today after it, in any terminal.
    since: int


class TodayQueue(Struct, frozen=True):
    day: date
    #: Due items' keys, most overdue first. Their items are made when asked for (see
    #: :attr:`reviews`): when ten thousand are due, a sitting reaches a few dozen of them.
    review_keys: tuple[str, ...]
    #: New items, in study order, as many as today's limit still allows.
    new: tuple[Item, ...]
    #: Items the scheduler brings back today, in the order of their latest grade.
    repeats: tuple[Item, ...]
    #: Keys graded today (grades and repeats still in effect).
    graded_today: frozenset[str]
    #: New items already introduced today, in any deck (they count against the limit).
    introduced: int
    #: The repeats in a learning step, by key.
    failed: Mapping[str, Failed] = field(default_factory=dict)
    #: Every item the queue was built over, by key: where the items of the keys above are made.
    items: ItemIndex = field(default_factory=ItemIndex)

    @property
    def reviews(self) -> tuple[Item, ...]:
        """Due items, most overdue first."""
        return tuple(map(self.items.__getitem__, self.review_keys))


def items_of(decks: Iterable[Deck]) -> tuple[Item, ...]:
    """The study items of the decks' active cards, in study order: the order new ones come in.

    Deck by deck; within a deck, level by level, kinds and topics mixed
    (:mod:`zerodrill.deck.study_order`). A cloze card's items stay together, and siblings may
    stand side by side: the queue lets one of them a day through.
    """
    return tuple(
        chain.from_iterable(deck.cards[n].items() for deck in decks for n in deck.study_order)
    )


class Apart(Enum):
    """Which siblings wait for another day (see the module's docstring)."""

    #: A cloze card's deletions, and cards that teach the same thing, never share a day.
    ALL = "all"
    #: Deletions may share a day; cards that teach the same thing are introduced apart.
    NEW_SIBLINGS = "new siblings"
    #: Nothing waits: the last day new cards can still be met twice before an interview.
    NONE = "none"


def build_queue(
    items: Iterable[Item] | Mapping[str, Item],
    store: Store,
    day: date,
    *,
    new_limit: int = DEFAULT_NEW_LIMIT,
    apart: Apart = Apart.ALL,
) -> TodayQueue:
    """Today's queue over ``items`` (or a mapping of each item's key to it, in study order);
    ``apart`` says which siblings wait for another day (:class:`Apart`).

    Keys not among the items (retired, unknown) never appear.
    """
    if isinstance(items, ItemIndex):
        by_key = items
    else:
        by_key = ItemIndex.of(items.values() if isinstance(items, Mapping) else items)
    if new_limit < 0:
        raise ValueError(f"new card limit must not be negative, not {new_limit}")
    # One snapshot: what is due and what is logged must agree while another terminal grades.
    with store.snapshot():
        latest: dict[str, LoggedEvent] = {}
        introduced = 0
        logged = store.log.reviews_on(day)
        forward = store.attempts.brought_forward(day)
        again = store.schedule.states(store.schedule.again_on(day))
        for review in logged:
            latest[review.key] = review
            # A new card an interview brought forward takes no slot of the daily limit.
            if review.introduced and review.key not in forward.on_day:
                introduced += 1
        due = store.schedule.due_keys(through=day)
        slots = max(0, new_limit - introduced)
        # A new item is one without a schedule: neither due today (queued below, or its card
        # is busy) nor due later. Those later are read only while new cards may come.
        later = set(store.schedule.due_keys(after=day)) if slots else set()

    graded = frozenset(latest)
    brought = _brought_forward(forward.pending, by_key, graded)
    repeats = tuple(
        by_key[r.key]
        for r in sorted(latest.values(), key=lambda r: r.id)
        if r.key in again and r.key in by_key and r.key not in brought
    )
    failed = {
        r.key: Failed(step, len(logged) - 1 - n)
        for n, r in enumerate(logged)
        if latest[r.key] is r and r.key in again and r.key in by_key
        if (step := again[r.key].step_due) is not None
    }
    # Sets first: when every item has a schedule, nothing is walked in study order for none.
    fresh = by_key.keys() - later - set(due) if slots else set()
    waiting = (key for key in by_key if key in fresh) if fresh else ()
    introduced_today = (r.key for r in logged if r.introduced)
    reviews, new_keys = _shown(
        by_key, due, waiting, slots, graded, brought, introduced_today, apart
    )
    new = [by_key[key] for key in new_keys]
    return TodayQueue(day, tuple(reviews), tuple(new), repeats, graded, introduced, failed, by_key)


def _shown(
    by_key: ItemIndex,
    due: Iterable[str],
    waiting: Iterable[str],
    slots: int,
    graded: frozenset[str],
    brought: Mapping[str, Item],
    introduced_today: Iterable[str],
    apart: Apart,
) -> tuple[list[str], list[str]]:
    """The keys today's queue shows: the reviews (those brought forward first, then of
    ``due``, in its order) and at most ``slots`` new ones of ``waiting`` (in study order), the
    siblings ``apart`` keeps apart waiting for another day (the one rule of it)."""
    if apart is Apart.ALL:
        # A key no longer in a deck (a deletion removed from its card) still keeps its
        # siblings waiting today.
        busy_cards = by_key.busy_cards(graded)
        busy_cards.update(by_key.busy_cards(brought))
        # A key graded today never comes up again here: its card is busy already.
        reviews = [*brought, *by_key.one_key_per_card(due, busy_cards)]
        return reviews, by_key.one_key_per_card(waiting, busy_cards, slots)
    # A key graded today never comes up again here (as a repeat, if at all).
    skip = graded | brought.keys()
    reviews = [*brought, *(key for key in due if key in by_key and key not in skip)]
    if apart is Apart.NEW_SIBLINGS:
        held = by_key.busy_cards(introduced_today, deletions_apart=False)
        return reviews, by_key.one_key_per_card(waiting, held, slots, deletions_apart=False)
    return reviews, list(islice(waiting, slots))


def held_today(
    by_key: ItemIndex,
    due: Sequence[str],
    new: Sequence[str],
    graded: Iterable[str],
    *,
    introduced: Iterable[str] = (),
    brought: Iterable[str] = (),
    apart: Apart = Apart.ALL,
) -> set[str]:
    """The keys of ``due`` (most overdue first) and ``new`` (in study order) that today's
    queue keeps for another day as siblings, by the rule :func:`build_queue` follows, given
    the keys ``graded`` today (``introduced``: those first graded today) and those an
    interview ``brought`` forward. Whatever the daily limit on new cards: what Anki shows
    due must be what the drill does (:mod:`zerodrill.anki_sync.siblings`)."""
    done = frozenset(graded)
    forward = _brought_forward(brought, by_key, done)
    reviews, shown = _shown(by_key, due, new, len(new), done, forward, introduced, apart)
    return {key for key in (*due, *new) if key in by_key} - done - {*reviews, *shown}


def held_in(by_key: ItemIndex, store: Store, day: date) -> set[str]:
    """:func:`held_today` for the keys of ``by_key`` as ``store`` has them on study day
    ``day`` (for the export with progress: what Anki shows due is what the drill does)."""
    with store.snapshot():
        logged = store.log.reviews_on(day)
        brought = store.attempts.brought_forward(day).pending
        due = store.schedule.due_keys(through=day)
        scheduled = set(store.schedule.due_keys())
    return held_today(
        by_key,
        due,
        [key for key in by_key if key not in scheduled],
        (r.key for r in logged),
        introduced=(r.key for r in logged if r.introduced),
        brought=brought,
    )


def _brought_forward(
    pending: Iterable[str], by_key: ItemIndex, graded: frozenset[str]
) -> dict[str, Item]:
    """The items an interview brought forward, due now whatever their schedule (new ones
    too, beyond the new-card limit): one per card, a card whose other deletion was graded
    today waiting as it would. A key graded earlier today comes up again, as a repeat."""
    busy = by_key.busy_cards(key for key in graded if key not in pending)
    return {item.key: item for item in by_key.one_per_card(pending, busy)}
