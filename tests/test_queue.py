"""Study days, today's queue and the drill session over it."""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from zerodrill.deck.model import Card, Deck, Item, Kind, Pos
from zerodrill.srs import sm2
from zerodrill.srs.days import study_day
from zerodrill.srs.queue import Counts, Session, build_queue, items_of, preview
from zerodrill.srs.sm2 import Grade, Sm2State
from zerodrill.srs.store import ReviewKind, Store

DAY = date(2025, 3, 10)
NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
POS = Pos("t.yaml", 1, 1)


def card(deck: str, id: str, *, cloze: Sequence[int] = (), retired: bool = False) -> Card:
    if cloze:
        fields = {"text": " ".join(f"{{{{c{n}::x{n}}}}}" for n in cloze)}
        return Card(deck, id, Kind.CLOZE, fields, (), (), POS, {}, tuple(cloze), retired=retired)
    return Card(deck, id, Kind.BASIC, {"front": "q", "back": "a"}, (), (), POS, {}, retired=retired)


def deck(id: str, *cards: Card) -> Deck:
    return Deck(id, id.title(), "test deck", cards, Path(f"{id}.yaml"), POS)


def keys(items: Sequence[Item]) -> list[str]:
    return [item.key for item in items]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


def schedule(store: Store, key: str, due: date) -> None:
    """Give ``key`` one passing grade so that it falls due on ``due``."""
    store.record(key, 4, now=NOW, day=due - timedelta(days=1))


def drain(session: Session, grade: int = 5) -> list[str]:
    shown = []
    while (item := session.next()) is not None:
        shown.append(item.key)
        session.grade(item, grade)
    return shown


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
        with pytest.raises(dataclasses.FrozenInstanceError):
            made.key = "d/b"  # type: ignore[misc]
    retired = card("d", "r", retired=True)
    assert deck("d", basic, retired, cloze).items() == basic.items() + cloze.items()


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
    first = Session.for_decks([d], store, day=DAY, new_limit=5, clock=lambda: NOW)
    for _ in range(3):
        item = first.next()
        assert item is not None
        first.grade(item, 5)
    again = Session.for_decks([d], store, day=DAY, new_limit=5, clock=lambda: NOW)
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
    store.record("d/c#c1", 5, now=NOW, day=DAY)
    q = build_queue(items_of([d]), store, DAY)
    assert (q.reviews, q.new, q.repeats) == ((), (), ())
    # A deletion since removed from the card still counts as a sibling today.
    store.record("d/c#c9", 5, now=NOW, day=DAY + timedelta(days=1))
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
    assert drain(Session.for_decks([d], store, day=DAY, clock=lambda: NOW)) == ["d/live"]
    assert {r.key for r in store.log()} >= {"d/old", "gone/deck-card", "d/removed"}
    assert store.next_due_after(DAY, {"d/live"}) == DAY + timedelta(days=1)


def test_queue_reads_only_by_index(store: Store) -> None:
    d = deck("d", *(card("d", f"k{i}") for i in range(20)))
    for i in range(10):
        schedule(store, f"d/k{i}", DAY - timedelta(days=i % 3))
    store.record("d/k19", 1, now=NOW, day=DAY)
    statements: list[str] = []
    store._conn.set_trace_callback(statements.append)
    try:
        build_queue(items_of([d]), store, DAY)
    finally:
        store._conn.set_trace_callback(None)
    plans = [
        detail
        for sql in statements
        for *_, detail in store._conn.execute(f"EXPLAIN QUERY PLAN {sql}")
    ]
    assert plans and not [p for p in plans if p.startswith("SCAN")], plans
    # Not even the per-card table is scanned: the due and the later keys are index ranges.


def _reference_queue(
    items: Sequence[Item], store: Store, day: date, new_limit: int
) -> tuple[list[str], list[str]]:
    """The queue's rules spelled out the plain way: new means no schedule at all."""
    by_key = {item.key: item for item in items}
    latest = {r.key: r for r in store.reviews_on(day)}
    introduced = sum(1 for r in store.reviews_on(day) if r.introduced and r.key in by_key)
    busy = {by_key[k].card.key if k in by_key else k.partition("#")[0] for k in latest}
    reviews = []
    for key in store.due_keys(day):
        if key in by_key and key not in latest and by_key[key].card.key not in busy:
            busy.add(by_key[key].card.key)
            reviews.append(key)
    new: list[str] = []
    known = store.known_keys()
    for key, item in by_key.items():
        if len(new) < new_limit - introduced and key not in known | set(latest):
            if item.card.key not in busy:
                busy.add(item.card.key)
                new.append(key)
    return reviews, new


@pytest.mark.parametrize("seed", range(12))
def test_queue_matches_the_rules_spelled_out(store: Store, seed: int) -> None:
    rng = random.Random(seed)
    cards = [
        card("d", f"k{i}", cloze=rng.choice([(), (), (1,), (1, 2), (1, 2, 3)])) for i in range(40)
    ]
    items = items_of([deck("d", *cards)])
    with store.batch():
        for item in rng.sample(items, 30):
            # Due long ago, today or later, new again after an undo, graded today.
            shift = rng.choice([-20, -3, 0, 1, 5])
            store.record(item.key, 4, now=NOW, day=DAY - timedelta(days=1) + timedelta(shift))
            if rng.random() < 0.1:
                store.undo_last(now=NOW)
        for item in rng.sample(items, 6):
            store.record(item.key, rng.choice([1, 4, 5]), now=NOW, day=DAY)
    for limit in (0, 3, 20, 100):
        q = build_queue(items, store, DAY, new_limit=limit)
        assert (keys(q.reviews), keys(q.new)) == _reference_queue(items, store, DAY, limit)


# -- the session ----------------------------------------------------------------------------------


def test_step_7_a_card_below_4_comes_back_until_it_gets_4(store: Store) -> None:
    d = deck("d", card("d", "a"), card("d", "b"), card("d", "c"))
    schedule(store, "d/c", DAY)
    s = Session.for_decks([d], store, day=DAY, clock=lambda: NOW)
    assert s.remaining() == Counts(new=2, repeats=0, reviews=1)
    shown, grades = [], {"d/a": [2, 3, 4], "d/b": [5], "d/c": [3, 5]}
    while (item := s.next()) is not None:
        assert s.next() == item  # asking again is safe
        shown.append(item.key)
        s.grade(item, grades[item.key].pop(0))
    assert shown == ["d/c", "d/a", "d/b", "d/c", "d/a", "d/a"]
    log = store.reviews_on(DAY)
    assert [(r.key, r.kind) for r in log][-6:] == [
        ("d/c", ReviewKind.GRADE),
        ("d/a", ReviewKind.GRADE),
        ("d/b", ReviewKind.GRADE),
        ("d/c", ReviewKind.REPEAT),
        ("d/a", ReviewKind.REPEAT),
        ("d/a", ReviewKind.REPEAT),
    ]
    # The repeats moved nothing: each card's state is what its first grade today made it.
    firsts = {r.key: r.after for r in log if r.kind is ReviewKind.GRADE and r.day == DAY}
    assert store.states(["d/a", "d/b", "d/c"]) == firsts
    assert s.done == 6 and s.remaining() == Counts(0, 0, 0)


def test_repeats_survive_a_restart_the_same_day(store: Store) -> None:
    d = deck("d", card("d", "a"), card("d", "b"))
    s = Session.for_decks([d], store, day=DAY, clock=lambda: NOW)
    item = s.next()
    assert item is not None
    s.grade(item, 1)
    again = Session.for_decks([d], store, day=DAY, clock=lambda: NOW)
    assert again.remaining() == Counts(new=1, repeats=1, reviews=0)
    assert drain(again) == ["d/b", "d/a"]


def test_undo_brings_the_card_back_first_with_its_old_state(store: Store) -> None:
    d = deck("d", card("d", "a"), card("d", "b"))
    schedule(store, "d/a", DAY)
    before = store.state("d/a")
    s = Session.for_decks([d], store, day=DAY, clock=lambda: NOW)
    a = s.next()
    assert a is not None and a.key == "d/a"
    s.grade(a, 5)
    b = s.next()
    assert b is not None and b.key == "d/b"
    s.grade(b, 2)
    assert s.remaining() == Counts(new=0, repeats=1, reviews=0)

    assert s.undo() == b
    assert s.next() == b and not s.is_repeat(b)
    assert s.remaining() == Counts(new=1, repeats=0, reviews=0)
    assert s.undo() == a
    assert s.next() == a and store.state("d/a") == before
    assert s.remaining() == Counts(new=1, repeats=0, reviews=1)
    assert s.done == 0 and s.undo() is None
    assert drain(s) == ["d/a", "d/b"]


def test_undo_of_a_repeat(store: Store) -> None:
    d = deck("d", card("d", "a"))
    s = Session.for_decks([d], store, day=DAY, clock=lambda: NOW)
    a = s.next()
    assert a is not None
    s.grade(a, 3)
    scheduled = store.state("d/a")
    s.grade(a, 5)  # the repeat
    assert s.next() is None
    assert s.undo() == a and s.is_repeat(a)
    assert s.remaining() == Counts(new=0, repeats=1, reviews=0)
    assert store.state("d/a") == scheduled


def test_grading_an_item_not_in_the_queue_is_refused(store: Store) -> None:
    d = deck("d", card("d", "a"), card("d", "later"))
    s = Session.for_decks([d], store, day=DAY, new_limit=1, clock=lambda: NOW)
    outsider = items_of([d])[1]
    with pytest.raises(ValueError, match="not in today's queue"):
        s.grade(outsider, 5)
    with pytest.raises(ValueError):
        s.grade(items_of([d])[0], 7)
    assert list(store.log()) == []


def test_grade_stamps_the_clock_and_keeps_the_sessions_day(store: Store) -> None:
    late = datetime(2025, 3, 11, 2, 30, tzinfo=UTC)
    d = deck("d", card("d", "a"))
    s = Session.for_decks([d], store, day=DAY, clock=lambda: late)
    item = s.next()
    assert item is not None
    review = s.grade(item, 4, answer_ms=1200, typed="stage 2")
    assert (review.at, review.day, review.answer_ms, review.typed) == (late, DAY, 1200, "stage 2")
    assert s.next_due_after() == DAY + timedelta(days=1)


# -- the grade buttons ----------------------------------------------------------------------------


def test_preview_of_a_new_card() -> None:
    outcomes = preview(Sm2State.new(), DAY)
    assert [o.grade for o in outcomes] == list(Grade)
    assert {o.interval for o in outcomes} == {1}
    assert [o.again_today for o in outcomes] == [True, True, True, True, False, False]
    assert all(o.moves_schedule and o.due == DAY + timedelta(days=1) for o in outcomes)


def test_preview_matches_what_grading_does(store: Store) -> None:
    state = Sm2State.from_hundredths(2, 6, 270, DAY, 0)
    outcomes = preview(state, DAY)
    assert [o.interval for o in outcomes] == [1, 1, 1, 17, 17, 17]
    assert [o.due for o in outcomes] == [DAY + timedelta(days=d) for d in (1, 1, 1, 17, 17, 17)]
    for o in outcomes:
        assert (o.interval, o.due) == (
            sm2.review(state, o.grade, DAY).interval,
            sm2.review(state, o.grade, DAY).due,
        )


def test_preview_of_a_repeat_moves_nothing(store: Store) -> None:
    d = deck("d", card("d", "a"))
    s = Session.for_decks([d], store, day=DAY, clock=lambda: NOW)
    item = s.next()
    assert item is not None
    s.grade(item, 2)
    outcomes = s.preview(item)
    assert {(o.interval, o.due, o.moves_schedule) for o in outcomes} == {
        (1, DAY + timedelta(days=1), False)
    }


def test_preview_of_a_repeat_of_a_scheduled_card_keeps_todays_schedule(store: Store) -> None:
    # A card with a real interval: had the repeat been previewed as a review, grades 3-5
    # would show ceil(17 x 2.56) = 44 days, not the 17 today's grade already set.
    store.record("d/a", 5, now=NOW, day=DAY - timedelta(days=7))
    store.record("d/a", 5, now=NOW, day=DAY - timedelta(days=6))  # I = 6, due today
    s = Session.for_decks([deck("d", card("d", "a"))], store, day=DAY, clock=lambda: NOW)
    item = s.next()
    assert item is not None
    s.grade(item, 3)  # the scheduled review: I = 17; below 4, so it comes back today
    assert s.is_repeat(item)
    assert {(o.interval, o.due, o.moves_schedule) for o in s.preview(item)} == {
        (17, DAY + timedelta(days=17), False)
    }
