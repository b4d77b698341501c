"""One sitting of drill: today's queue worked through, its undo stack, the grade buttons."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from srs_support import DAY, NOW, ReviewKind, card, deck, drain, kind, record, schedule

from zerodrill.deck.model import Deck
from zerodrill.srs import sm2_formula as sm2
from zerodrill.srs.grades import Grade
from zerodrill.srs.queue import Counts
from zerodrill.srs.schedulers.protocol import GradeOutcome, When, outcomes
from zerodrill.srs.schedulers.sm2 import Sm2Card, Sm2Scheduler
from zerodrill.srs.sitting import Session
from zerodrill.srs.sm2_formula import Sm2State
from zerodrill.srs.store import Store, StoreError, UndoConflict


class Clock:
    """A clock that moves only when told."""

    def __init__(self, now: datetime = NOW) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


def sitting(
    store: Store, *decks: Deck, clock: Callable[[], datetime] = lambda: NOW, new_limit: int = 20
) -> Session:
    return Session(decks, store, clock=clock, new_limit=new_limit)


# -- working through the queue ----------------------------------------------------------------


def test_step_7_a_card_below_4_comes_back_until_it_gets_4(store: Store) -> None:
    d = deck("d", card("d", "a"), card("d", "b"), card("d", "c"))
    schedule(store, "d/c", DAY)
    s = sitting(store, d)
    assert s.day == DAY and s.title == "D" and s.deck_id is None
    assert s.remaining() == Counts(new=2, repeats=0, reviews=1)
    shown, grades = [], {"d/a": [2, 3, 4], "d/b": [5], "d/c": [3, 5]}
    while (item := s.current) is not None:
        assert s.current == item  # asking again is safe
        shown.append(item.key)
        s.grade(grades[item.key].pop(0))
    assert shown == ["d/c", "d/a", "d/b", "d/c", "d/a", "d/a"]
    log = store.log.reviews_on(DAY)
    assert [(r.key, kind(r)) for r in log][-6:] == [
        ("d/c", ReviewKind.GRADE),
        ("d/a", ReviewKind.GRADE),
        ("d/b", ReviewKind.GRADE),
        ("d/c", ReviewKind.REPEAT),
        ("d/a", ReviewKind.REPEAT),
        ("d/a", ReviewKind.REPEAT),
    ]
    # The repeats moved nothing: each card's state is what its first grade today made it.
    new = Sm2State.new()
    firsts = {
        "d/a": sm2.review(new, 2, DAY),
        "d/b": sm2.review(new, 5, DAY),
        "d/c": sm2.review(sm2.review(new, 4, DAY - timedelta(days=1)), 3, DAY),
    }
    assert {k: s.sm2 for k, s in store.schedule.states(["d/a", "d/b", "d/c"]).items()} == firsts
    assert s.done == 6 and s.remaining() == Counts(0, 0, 0)


def test_repeats_survive_a_restart_the_same_day(store: Store) -> None:
    d = deck("d", card("d", "a"), card("d", "b"))
    s = sitting(store, d)
    s.grade(1)
    again = sitting(store, d)
    assert again.remaining() == Counts(new=1, repeats=1, reviews=0)
    assert drain(again) == ["d/b", "d/a"]


def test_grading_with_no_card_or_a_bad_grade_is_refused(store: Store) -> None:
    d = deck("d", card("d", "a"))
    s = sitting(store, d, new_limit=0)
    assert s.current is None
    with pytest.raises(RuntimeError, match="no card to grade"):
        s.grade(5)
    s = sitting(store, d)
    for bad in (7, -1, True):
        with pytest.raises(ValueError):
            s.grade(bad)
    assert list(store.log.entries()) == [] and s.done == 0 and s.current is not None


def test_grade_stamps_the_clock_times_the_answer_and_keeps_the_sittings_day(store: Store) -> None:
    clock = Clock()
    d = deck("d", card("d", "a"), card("d", "b"))
    s = sitting(store, d, clock=clock)
    clock.now += timedelta(seconds=1.2)
    s.grade(4, typed="stage 2")
    # Past the 4 am rollover the next day: still the sitting's day, and a coffee break is no
    # answering time.
    clock.now = datetime(2025, 3, 11, 5, 30).astimezone()
    s.grade(5)
    first, second = store.log.entries()
    assert (first.at, first.day, first.answer_ms, first.typed) == (
        NOW + timedelta(seconds=1.2),
        DAY,
        1200,
        "stage 2",
    )
    assert (second.at, second.day, second.answer_ms) == (clock.now, DAY, 60_000)
    assert s.outlook().next_review == datetime(2025, 3, 11, 4, 0).astimezone()


def test_the_outlook_gives_the_next_review_of_the_decks_and_the_next_day(store: Store) -> None:
    d = deck("d", card("d", "a"), card("d", "b"))
    schedule(store, "d/a", DAY + timedelta(days=5))
    schedule(store, "e/x", DAY + timedelta(days=2))  # another deck's card
    s = sitting(store, d, new_limit=0)
    assert s.current is None
    outlook = s.outlook()
    assert outlook.next_review == datetime(2025, 3, 15, 4, 0).astimezone()
    assert outlook.next_day == datetime(2025, 3, 11, 4, 0).astimezone()
    assert (outlook.new_waiting, outlook.new_limit) == (1, 0)
    assert sitting(store, deck("empty")).outlook().next_review is None


# -- undo ----------------------------------------------------------------------------------------


def test_undo_brings_the_card_back_first_with_its_old_state(store: Store) -> None:
    d = deck("d", card("d", "a"), card("d", "b"))
    schedule(store, "d/a", DAY)
    before = store.schedule.state("d/a")
    s = sitting(store, d)
    a = s.current
    assert a is not None and a.key == "d/a"
    s.grade(5)
    b = s.current
    assert b is not None and b.key == "d/b"
    s.grade(2)
    assert s.remaining() == Counts(new=0, repeats=1, reviews=0)

    assert s.can_undo and s.undo() == b
    assert s.current == b and not s.is_repeat
    assert s.remaining() == Counts(new=1, repeats=0, reviews=0)
    assert s.undo() == a
    assert s.current == a and store.schedule.state("d/a") == before
    assert s.remaining() == Counts(new=1, repeats=0, reviews=1)
    assert s.done == 0 and not s.can_undo and s.undo() is None
    assert drain(s) == ["d/a", "d/b"]


def test_undo_of_a_repeat(store: Store) -> None:
    d = deck("d", card("d", "a"))
    s = sitting(store, d)
    a = s.current
    s.grade(3)
    scheduled = store.schedule.state("d/a")
    s.grade(5)  # the repeat
    assert s.current is None
    assert s.undo() == a and s.current == a and s.is_repeat
    assert s.remaining() == Counts(new=0, repeats=1, reviews=0)
    assert store.schedule.state("d/a") == scheduled


def test_undo_takes_back_only_this_sittings_grades(tmp_path: Path) -> None:
    db = tmp_path / "reviews.db"
    with Store.open(db) as mine_store, Store.open(db) as theirs_store:
        mine = sitting(mine_store, deck("d", card("d", "a")))
        theirs = sitting(theirs_store, deck("e", card("e", "b")))
        mine.grade(5)
        theirs.grade(5)
        theirs_state = theirs_store.schedule.state("e/b")
        undone = mine.undo()
        assert undone is not None and undone.key == "d/a"
        assert mine.undo() is None
        assert mine_store.schedule.state("e/b") == theirs_state


def test_undo_skips_grades_already_undone(tmp_path: Path) -> None:
    db = tmp_path / "reviews.db"
    with Store.open(db) as store, Store.open(db) as elsewhere:
        s = sitting(store, deck("d", card("d", "a"), card("d", "b")))
        s.grade(5)
        s.grade(5)
        elsewhere.log.undo(2, at=NOW)  # the second grade, undone by id from outside the sitting
        assert s.undo() is not None and s.current is not None and s.current.key == "d/a"
        undone = [r.undoes for r in store.log.entries() if kind(r) is ReviewKind.UNDO]
        assert undone == [(store.machine.id, 2), (store.machine.id, 1)]
        assert store.schedule.states() == {} and s.done == 0 and s.undo() is None


def test_an_undo_superseded_elsewhere_is_refused_and_the_next_goes_on(tmp_path: Path) -> None:
    db = tmp_path / "reviews.db"
    with Store.open(db) as store, Store.open(db) as elsewhere:
        s = sitting(store, deck("d", card("d", "a"), card("d", "b")))
        s.grade(5)
        s.grade(4)
        record(elsewhere, "d/b", 5, DAY)  # another terminal grades the second card again
        with pytest.raises(UndoConflict, match="graded again since") as exc:
            s.undo()
        assert isinstance(exc.value, StoreError) and s.done == 1 and s.current is None
        assert s.undo() is not None and s.current is not None and s.current.key == "d/a"
        undone = [r.undoes for r in store.log.entries() if kind(r) is ReviewKind.UNDO]
        assert undone == [(store.machine.id, 1)]


def test_choosing_a_deck_keeps_the_sitting_and_its_undo(store: Store) -> None:
    decks = (deck("d", card("d", "a")), deck("e", card("e", "b"), card("e", "c")))
    s = sitting(store, *decks)
    assert s.title == "All decks" and [c.title for c in s.deck_counts()] == ["All decks", "D", "E"]
    s.grade(4)  # d/a
    s.select_deck("e")
    assert (s.deck_id, s.title, s.day) == ("e", "E", DAY)
    assert s.current is not None and s.current.key == "e/b"
    s.grade(3)
    summary = s.summary()
    assert (summary.reviews, summary.cards, dict(summary.grades)) == (2, 2, {4: 1, 3: 1})
    assert s.undo() is not None and s.undo() is None  # d/a is not among the cards now ...
    assert s.done == 0 and store.schedule.states() == {}  # ... but its grade was the sitting's
    s.select_deck(None)
    assert s.current is not None and s.current.key == "d/a"


# -- the grade buttons ----------------------------------------------------------------------------


def preview(state: Sm2Card, day: date) -> tuple[GradeOutcome, ...]:
    return outcomes(Sm2Scheduler(), state, When(NOW, day))


def test_preview_of_a_new_card() -> None:
    outcomes = preview(Sm2Card(), DAY)
    assert [o.grade for o in outcomes] == list(Grade)
    assert {o.interval for o in outcomes} == {1}
    assert [o.again_today for o in outcomes] == [True, True, True, True, False, False]
    assert all(o.moves_schedule and o.due == DAY + timedelta(days=1) for o in outcomes)


def test_preview_matches_what_grading_does() -> None:
    state = Sm2State(2, 6, 270, DAY, 0)
    last = DAY - timedelta(days=6)
    outcomes = preview(Sm2Card(state, last - timedelta(days=1), last, Grade.PERFECT, NOW), DAY)
    assert [o.interval for o in outcomes] == [1, 1, 1, 17, 17, 17]
    assert [o.due for o in outcomes] == [DAY + timedelta(days=d) for d in (1, 1, 1, 17, 17, 17)]
    for o in outcomes:
        assert (o.interval, o.due) == (
            sm2.review(state, o.grade, DAY).interval,
            sm2.review(state, o.grade, DAY).due,
        )


def test_choices_of_a_repeat_move_nothing(store: Store) -> None:
    s = sitting(store, deck("d", card("d", "a")))
    s.grade(2)
    assert s.is_repeat
    assert {(o.interval, o.due, o.moves_schedule) for o in s.choices()} == {
        (1, DAY + timedelta(days=1), False)
    }


def test_choices_of_a_repeat_of_a_scheduled_card_keep_todays_schedule(store: Store) -> None:
    # A card with a real interval: had the repeat been previewed as a review, grades 3-5
    # would show ceil(17 x 2.56) = 44 days, not the 17 today's grade already set.
    record(store, "d/a", 5, DAY - timedelta(days=7))
    record(store, "d/a", 5, DAY - timedelta(days=6))  # I = 6, due today
    s = sitting(store, deck("d", card("d", "a")))
    s.grade(3)  # the scheduled review: I = 17; below 4, so it comes back today
    assert s.is_repeat
    assert {(o.interval, o.due, o.moves_schedule) for o in s.choices()} == {
        (17, DAY + timedelta(days=17), False)
    }
    s.grade(5)
    assert s.current is None and s.choices() == ()


# -- two terminals on one database ----------------------------------------------------------------


def test_a_card_graded_in_another_terminal_today_takes_only_a_repeat(tmp_path: Path) -> None:
    db = tmp_path / "reviews.db"
    d = deck("d", card("d", "a"), card("d", "b"))
    with Store.open(db) as left_store, Store.open(db) as right_store:
        left, right = sitting(left_store, d), sitting(right_store, d)
        assert left.current == right.current and right.current is not None
        left.grade(4)
        first = left_store.schedule.state("d/a")
        # The right terminal shows the same card, read before the left one graded it.
        assert right.is_repeat
        assert not any(o.moves_schedule for o in right.choices())
        right.grade(5)
        assert [kind(r) for r in right_store.log.entries()] == [ReviewKind.GRADE, ReviewKind.REPEAT]
        assert right_store.schedule.state("d/a").sm2 == first.sm2
        assert (first.sm2.repetitions, first.interval) == (1, 1)


def test_the_queue_leaves_out_what_another_terminal_graded_meanwhile(tmp_path: Path) -> None:
    db = tmp_path / "reviews.db"
    d = deck("d", card("d", "a"), card("d", "b"), card("d", "c"))
    with Store.open(db) as left_store, Store.open(db) as right_store:
        left, right = sitting(left_store, d), sitting(right_store, d)
        left.grade(5)  # d/a
        left.grade(5)  # d/b
        right.grade(5)  # d/a, on its screen since the start: a repeat
        assert right.current is not None and right.current.key == "d/c"
        assert right.remaining() == Counts(new=1, repeats=0, reviews=0)
        assert drain(right) == ["d/c"]
        kinds = [(r.key, kind(r)) for r in right_store.log.entries()]
        assert kinds == [
            ("d/a", ReviewKind.GRADE),
            ("d/b", ReviewKind.GRADE),
            ("d/a", ReviewKind.REPEAT),
            ("d/c", ReviewKind.GRADE),
        ]


def test_a_terminal_still_on_yesterday_repeats_a_card_graded_today(tmp_path: Path) -> None:
    # A sitting keeps the day it started on; one started after the rollover grades the card
    # for the next day. The older sitting's grade must not move it back to its own day.
    db = tmp_path / "reviews.db"
    d = deck("d", card("d", "a"))
    with Store.open(db) as old_store, Store.open(db) as new_store:
        clock = Clock()
        old = sitting(old_store, d, clock=clock)
        new = sitting(new_store, d, clock=lambda: NOW + timedelta(days=1))
        new.grade(4)
        scheduled = new_store.schedule.state("d/a")
        clock.now = NOW + timedelta(days=1, minutes=1)
        old.grade(5)
        assert old_store.schedule.state("d/a").sm2 == scheduled.sm2
        assert [kind(r) for r in old_store.log.entries()] == [ReviewKind.GRADE, ReviewKind.REPEAT]


def test_undo_in_one_terminal_lets_the_other_grade_the_card_in_full(tmp_path: Path) -> None:
    db = tmp_path / "reviews.db"
    d = deck("d", card("d", "a"))
    with Store.open(db) as left_store, Store.open(db) as right_store:
        left, right = sitting(left_store, d), sitting(right_store, d)
        left.grade(4)
        assert right.is_repeat
        assert left.undo() is not None  # taken back: the card is new again
        assert not right.is_repeat
        right.grade(5)
        assert [kind(r) for r in right_store.log.entries()] == [
            ReviewKind.GRADE,
            ReviewKind.UNDO,
            ReviewKind.GRADE,
        ]
        assert right_store.schedule.state("d/a").sm2.repetitions == 1
