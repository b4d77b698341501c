"""Study days and today's queue (the sitting that works through it: test_session.py)."""

from __future__ import annotations

import dataclasses
import random
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from srs_support import DAY, NOW, card, deck, drain, keys, record, schedule

from zerodrill.deck.item_index import ItemIndex
from zerodrill.deck.kinds import BASIC, RED_FLAG, CardKind
from zerodrill.deck.model import Card, Deck, Item
from zerodrill.srs.days import study_day
from zerodrill.srs.queue import Counts, build_queue, items_of
from zerodrill.srs.sitting import Session, record_grade
from zerodrill.srs.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


# -- items ----------------------------------------------------------------------------------------


def test_a_cards_items_are_the_items_the_constructor_makes() -> None:
    basic, cloze = card("d", "a"), card("d", "c", cloze=(1, 3))
    assert basic.items() == (Item("d/a", basic),)
    assert cloze.items() == (Item("d/c#c1", cloze, 1), Item("d/c#c3", cloze, 3))
    for made, built in zip(
        basic.items() + cloze.items(),
        (Item("d/a", basic), Item("d/c#c1", cloze, 1), Item("d/c#c3", cloze, 3)),
        strict=True,
    ):
        assert type(made) is Item and repr(made) == repr(built)
        with pytest.raises(AttributeError, match="immutable"):
            made.key = "d/b"  # type: ignore[misc]
    retired = card("d", "r", retired=True)
    assert deck("d", basic, retired, cloze).items() == basic.items() + cloze.items()


def test_the_item_index_holds_what_items_of_gives_in_its_order() -> None:
    # Two decks, each in its own study order, with a cloze card, a retired card and a card
    # whose id reads like a deletion's key.
    first = deck("d", card("d", "a"), card("d", "c", cloze=(1, 3)), card("d", "r", retired=True))
    second = deck("e", card("e", "c1"), card("e", "z", cloze=(2,)), card("e", "b"))
    built = {item.key: item for item in items_of([first, second])}
    index = ItemIndex([first, second])
    assert list(index) == list(built) and len(index) == len(built)
    assert dict(index.items()) == built
    assert all(type(index[key]) is Item for key in built)
    assert index.get("d/c#c3") == Item("d/c#c3", first.cards[1], 3)
    assert [index.card_key(key) for key in index] == [item.card.key for item in built.values()]
    assert index.card_key("d/r") is None and index.card_key("d/zz") is None
    # The keys the index is built from: each one's card and deletion number.
    keys, positions, ordinals, siblings = first.study_items
    assert keys == tuple(i.key for i in items_of([first]))
    assert [first.cards[n].key for n in positions] == [i.card.key for i in items_of([first])]
    assert ordinals == {"d/c#c1": 1, "d/c#c3": 3}
    assert siblings == {}
    assert index.get("d/r") is None and "d/r" not in index
    assert index.get("d/none", built["e/b"]) == built["e/b"]
    with pytest.raises(KeyError):
        index["d/c#c2"]

    fewer = index.without(["d/c#c1", "e/b", "not/there"])
    assert list(fewer) == [k for k in built if k not in ("d/c#c1", "e/b")]
    assert "e/b" in index, "the index it was made from is unchanged"
    assert index.without(["not/there"]) is index

    assert index.card_key("d/c#c3") == "d/c" and index.card_key("d/r") is None
    busy = {"e/c1"}
    taken = index.one_per_card(["e/c1", "d/c#c1", "d/c#c3", "none", "e/b", "d/a"], busy, 2)
    assert taken == [built["d/c#c1"], built["e/b"]]
    assert busy == {"e/c1", "d/c", "e/b"}
    assert ItemIndex.of(built.values()) == index and list(ItemIndex.of(built.values())) == list(
        built
    )


def test_the_due_items_of_todays_queue_are_made_only_when_asked_for(store: Store) -> None:
    # Ten thousand may be due, and a sitting reaches a few dozen: the queue holds their keys.
    d = deck("d", *(card("d", f"k{i}") for i in range(30)))
    for i in range(30):
        schedule(store, f"d/k{i}", DAY - timedelta(days=i))
    index = ItemIndex([d])
    q = build_queue(index, store, DAY)
    assert q.review_keys == tuple(f"d/k{i}" for i in reversed(range(30)))
    assert index._made == {}, "an item was made before it was asked for"
    assert keys(q.reviews) == list(q.review_keys)
    assert q.reviews[0] is index["d/k29"] is q.items["d/k29"]
    busy: set[str] = set()
    assert ItemIndex([d]).one_key_per_card(["d/k1", "d/zz", "d/k1", "d/k2"], busy, 2) == [
        "d/k1",
        "d/k2",
    ]
    assert busy == {"d/k1", "d/k2"}


# -- study days ---------------------------------------------------------------------------------


def test_study_day_turns_at_the_rollover_hour() -> None:
    assert study_day(datetime(2025, 3, 10, 3, 59)) == date(2025, 3, 9)
    assert study_day(datetime(2025, 3, 10, 4, 0)) == date(2025, 3, 10)
    assert study_day(datetime(2025, 3, 10, 23, 59)) == date(2025, 3, 10)
    assert study_day(datetime(2025, 3, 10, 0, 30), rollover_hour=0) == date(2025, 3, 10)
    assert study_day(datetime(2025, 3, 10, 5, 0), rollover_hour=6) == date(2025, 3, 9)
    with pytest.raises(ValueError):
        study_day(datetime(2025, 3, 10), rollover_hour=24)


def test_study_day_follows_the_local_calendar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "EST+5")  # POSIX: five hours behind UTC, no tzdata needed
    time.tzset()
    try:
        # 08:30 UTC is 03:30 in the learner's zone: still the day before, there.
        assert study_day(datetime(2025, 3, 10, 8, 30, tzinfo=UTC)) == date(2025, 3, 9)
        assert study_day(datetime(2025, 3, 10, 9, 0, tzinfo=UTC)) == date(2025, 3, 10)
    finally:
        monkeypatch.undo()
        time.tzset()


def test_the_tests_clock_is_far_from_a_days_turn() -> None:
    """tests/conftest.py sets the tests' zone so that their clock reads about noon: the
    tests that give answers "now" (Anki's learning steps of minutes) never straddle the 04:00
    rollover or midnight, whatever hour the suite runs at."""
    now = datetime.now().astimezone()
    assert 12 <= now.hour < 23
    assert study_day(now) == now.date()


# -- building today's queue --------------------------------------------------------------------


def test_due_most_overdue_first_then_new_in_deck_order(store: Store) -> None:
    d = deck("d", *(card("d", f"k{i}") for i in range(6)))
    schedule(store, "d/k3", DAY)
    schedule(store, "d/k1", DAY - timedelta(days=5))
    schedule(store, "d/k4", DAY + timedelta(days=2))  # not due yet
    q = build_queue(items_of([d]), store, DAY, new_limit=2)
    assert keys(q.reviews) == ["d/k1", "d/k3"]
    assert keys(q.new) == ["d/k0", "d/k2"]
    assert q.repeats == () and q.introduced == 0


def test_new_cards_introduced_today_count_against_the_limit(store: Store) -> None:
    d = deck("d", *(card("d", f"k{i}") for i in range(10)))
    first = Session([d], store, new_limit=5, clock=lambda: NOW)
    for _ in range(3):
        first.grade(5)
    again = Session([d], store, new_limit=5, clock=lambda: NOW)
    assert again.remaining() == Counts(new=2, repeats=0, reviews=0)
    assert build_queue(items_of([d]), store, DAY, new_limit=2).new == ()
    assert keys(build_queue(items_of([d]), store, DAY + timedelta(days=3), new_limit=2).new) == [
        "d/k3",
        "d/k4",
    ]


def test_zero_and_negative_new_limits(store: Store) -> None:
    d = deck("d", card("d", "a"))
    assert build_queue(items_of([d]), store, DAY, new_limit=0).new == ()
    with pytest.raises(ValueError):
        build_queue(items_of([d]), store, DAY, new_limit=-1)


def test_new_cloze_deletions_come_one_a_day(store: Store) -> None:
    d = deck("d", card("d", "c", cloze=(1, 2, 3)), card("d", "b"))
    assert keys(build_queue(items_of([d]), store, DAY).new) == ["d/c#c1", "d/b"]


def test_due_siblings_wait_for_the_most_overdue(store: Store) -> None:
    d = deck("d", card("d", "c", cloze=(1, 2)))
    schedule(store, "d/c#c2", DAY - timedelta(days=3))
    schedule(store, "d/c#c1", DAY - timedelta(days=1))
    q = build_queue(items_of([d]), store, DAY)
    assert keys(q.reviews) == ["d/c#c2"] and q.new == ()


def test_a_due_sibling_keeps_new_ones_back(store: Store) -> None:
    d = deck("d", card("d", "c", cloze=(1, 2)))
    schedule(store, "d/c#c1", DAY)
    q = build_queue(items_of([d]), store, DAY)
    assert keys(q.reviews) == ["d/c#c1"] and q.new == ()


def test_siblings_of_a_card_graded_today_wait(store: Store) -> None:
    d = deck("d", card("d", "c", cloze=(1, 2, 3)))
    schedule(store, "d/c#c2", DAY)
    record(store, "d/c#c1", 5, DAY)
    q = build_queue(items_of([d]), store, DAY)
    assert (q.reviews, q.new, q.repeats) == ((), (), ())
    # A deletion since removed from the card still counts as a sibling today.
    record(store, "d/c#c9", 5, DAY + timedelta(days=1))
    schedule(store, "d/c#c3", DAY + timedelta(days=1))
    assert build_queue(items_of([d]), store, DAY + timedelta(days=1)).reviews == ()


def test_retired_and_unknown_keys_never_appear_and_keep_their_reviews(store: Store) -> None:
    d = deck(
        "d", card("d", "live"), card("d", "old", retired=True), card("d", "new-old", retired=True)
    )
    schedule(store, "d/old", DAY - timedelta(days=2))
    schedule(store, "gone/deck-card", DAY - timedelta(days=2))
    schedule(store, "d/removed", DAY - timedelta(days=2))
    q = build_queue(items_of([d]), store, DAY)
    assert keys(q.reviews) == [] and keys(q.new) == ["d/live"]
    s = Session([d], store, clock=lambda: NOW)
    assert drain(s) == ["d/live"]
    assert {r.key for r in store.log.entries()} >= {"d/old", "gone/deck-card", "d/removed"}
    # The next review among the decks' cards, not the retired or unknown ones due earlier.
    assert s.outlook().next_review == datetime(2025, 3, 11, 4, 0).astimezone()


def vm_steps(store: Store, day: date) -> int:
    """How many SQLite virtual machine instructions building the queue for ``day`` takes."""
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0  # go on

    d = deck("d", *(card("d", f"k{i}") for i in range(20)))
    store._conn.set_progress_handler(count, 1)
    try:
        build_queue(items_of([d]), store, day)
    finally:
        store._conn.set_progress_handler(None, 1)
    return steps


def test_building_the_queue_does_no_more_work_for_a_longer_log(store: Store) -> None:
    # The queue reads today's log, the cards due by today and the cards due later (for the new
    # ones): ranges of indexes, so the log's length before today adds nothing to that work.
    for i in range(10):
        schedule(store, f"d/k{i}", DAY - timedelta(days=i % 3))
    schedule(store, "d/k10", DAY + timedelta(days=4))
    record(store, "d/k19", 1, DAY)
    states = store.schedule.states()
    before = vm_steps(store, DAY)
    with store.transaction():
        # 3,000 entries on past days, each grade undone: the log grows, the schedule stays.
        # (Cards graded since take a grade on an earlier day on their latest day instead.)
        for n in range(1500):
            key = f"old/k{n % 20}" if n % 2 else f"gone/x{n}"
            past = DAY - timedelta(days=1 + n % 365)
            store.log.undo(record_grade(store, key, n % 6, day=past, at=NOW).id, at=NOW)
    assert store.schedule.states() == states and len(list(store.log.entries())) > 3000
    assert vm_steps(store, DAY) == before > 0


def _reference_queue(
    items: Sequence[Item], store: Store, day: date, new_limit: int
) -> tuple[list[str], list[str]]:
    """The queue's rules spelled out the plain way: new means no schedule at all, and a card
    taken or graded keeps itself and its siblings (listed on either card) busy for the day."""
    by_key = {item.key: item for item in items}
    siblings: dict[str, set[str]] = {}
    for item in items:
        for other in item.card.siblings:
            siblings.setdefault(item.card.key, set()).add(f"d/{other}")
            siblings.setdefault(f"d/{other}", set()).add(item.card.key)

    def with_siblings(card_key: str) -> set[str]:
        return {card_key} | siblings.get(card_key, set())

    latest = {r.key: r for r in store.log.reviews_on(day)}
    introduced = sum(1 for r in store.log.reviews_on(day) if r.introduced and r.key in by_key)
    busy = set().union(*(with_siblings(k.partition("#")[0]) for k in latest))
    reviews = []
    for key in store.schedule.due_dates(through=day):
        if key in by_key and key not in latest and by_key[key].card.key not in busy:
            busy |= with_siblings(by_key[key].card.key)
            reviews.append(key)
    new: list[str] = []
    known = set(store.schedule.states())
    for key, item in by_key.items():
        if len(new) < new_limit - introduced and key not in known | set(latest):
            if item.card.key not in busy:
                busy |= with_siblings(item.card.key)
                new.append(key)
    return reviews, new


@pytest.mark.parametrize("seed", range(12))
def test_queue_matches_the_rules_spelled_out(store: Store, seed: int) -> None:
    rng = random.Random(seed)
    cards = [
        card("d", f"k{i}", cloze=rng.choice([(), (), (1,), (1, 2), (1, 2, 3)])) for i in range(40)
    ]
    # Some cards teach what others do (siblings, listed on one of the two).
    for i in rng.sample(range(40), 12):
        others = {f"k{j}" for j in rng.sample(range(40), rng.choice([1, 2])) if j != i}
        cards[i] = dataclasses.replace(cards[i], siblings=tuple(sorted(others)))
    items = items_of([deck("d", *cards)])
    with store.transaction():
        for item in rng.sample(items, 30):
            # Due long ago, today or later, new again after an undo, graded today.
            shift = rng.choice([-20, -3, 0, 1, 5])
            day = DAY - timedelta(days=1) + timedelta(shift)
            review = record_grade(store, item.key, 4, day=day, at=NOW)
            if rng.random() < 0.1:
                store.log.undo(review.id, at=NOW)
        for item in rng.sample(items, 6):
            record(store, item.key, rng.choice([1, 4, 5]), DAY)
    for limit in (0, 3, 20, 100):
        q = build_queue(items, store, DAY, new_limit=limit)
        assert (keys(q.reviews), keys(q.new)) == _reference_queue(items, store, DAY, limit)


# -- the order new cards come in ---------------------------------------------------------------


def zero_deck() -> tuple[Deck, ...]:
    from zerodrill.deck.load import load_paths
    from zerodrill.paths import bundled_decks_dir

    result = load_paths([bundled_decks_dir()])
    assert result.ok, result.problems
    return tuple(d for d in result.decks if d.id == "deepspeed-zero")


def test_the_shipped_decks_first_new_cards_mix_every_kind(store: Store) -> None:
    decks = zero_deck()
    kinds = {c.kind for d in decks for c in d.cards if not c.retired}
    first_20 = Session(decks, store, clock=lambda: NOW).remaining().new
    assert first_20 == 20
    q = build_queue(items_of(decks), store, DAY)
    assert {item.card.kind for item in q.new} == kinds
    # Topics mix too: no first tag takes more than a quarter of a day's new cards.
    topics = Counter(item.card.tags[0] if item.card.tags else "" for item in q.new)
    assert max(topics.values()) <= 5, topics


def test_the_new_card_order_is_the_same_whatever_the_day_and_the_history(store: Store) -> None:
    decks = zero_deck()
    fresh = keys(build_queue(items_of(decks), store, DAY, new_limit=1000).new)
    # Study the first ten on one day: the next day's new cards are the ones after them, in the
    # same order (a cloze card's other blanks, held back on the first day, join in).
    s = Session(decks, store, clock=lambda: NOW, new_limit=10)
    studied = drain(s)
    later = keys(build_queue(items_of(decks), store, DAY + timedelta(days=30), new_limit=1000).new)
    rest = [key for key in fresh if key not in studied]
    assert [key for key in later if key in rest] == [key for key in rest if key in later]
    assert keys(build_queue(items_of(decks), store, DAY + timedelta(days=30)).new)[0] in later


def test_kinds_and_topics_are_spread_over_the_whole_deck() -> None:
    def kind_card(id: str, kind: CardKind, tag: str) -> Card:
        return dataclasses.replace(card("d", id), kind=kind, tags=(tag,))

    d = deck(
        "d",
        *(kind_card(f"b{i}", BASIC, "x" if i < 4 else "y") for i in range(8)),
        kind_card("r0", RED_FLAG, "z"),
        kind_card("r1", RED_FLAG, "z"),
    )
    assert keys(items_of([d])) == [
        "d/b0",  # the first of each kind first
        "d/r0",
        "d/b4",  # topic y's first, spread among x's
        "d/b1",
        "d/b5",
        "d/b2",
        "d/r1",  # half way through, after the basic card half way through
        "d/b6",
        "d/b3",
        "d/b7",
    ]


def test_the_daily_new_card_limit_is_one_over_every_deck(store: Store) -> None:
    a = deck("a", *(card("a", f"k{i}") for i in range(5)))
    b = deck("b", *(card("b", f"k{i}") for i in range(5)))
    record(store, "a/k0", 5, DAY)
    record(store, "a/k1", 5, DAY)
    assert len(build_queue(items_of([b]), store, DAY, new_limit=3).new) == 1
    assert len(build_queue(items_of([a, b]), store, DAY, new_limit=3).new) == 1
    assert len(build_queue(items_of([b]), store, DAY, new_limit=2).new) == 0
