"""Reviews with a global identity, merged from elsewhere, and cards rebuilt by replay.

Reviews made on other machines or in Anki arrive in any order, and may be older than what a
card's schedule was built from. Whatever the order they are merged in, and however often, the
store ends with the same log (by identity) and the schedule a replay of that log in time order
gives: SM-2 run again, undos cancelling what they name, a second grade on a day a repeat.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from srs_support import reference_states, sm2_states

from zerodrill.srs import sm2_formula as sm2
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import Grade
from zerodrill.srs.sitting import record_grade
from zerodrill.srs.sm2_formula import Sm2State
from zerodrill.srs.store import Store, StoreError

DAY = date(2025, 5, 1)
KEYS = ("d/a", "d/b", "d/c#c1")
ORIGINS = ("anki", "m1", "m2")


def at_of(day: date, minute: int) -> datetime:
    return datetime(day.year, day.month, day.day, 12, tzinfo=UTC) + timedelta(minutes=minute)


def review(
    origin: str,
    seq: int,
    key: str,
    grade: int | None,
    day: date,
    minute: int = 0,
    *,
    undoes: tuple[str, int] | None = None,
) -> ReviewEvent:
    """An event as it arrives from elsewhere."""
    given = Grade(grade) if grade is not None else None
    return ReviewEvent(origin, seq, key, at_of(day, minute), day, given, undoes)


@st.composite
def logs(draw: st.DrawFn) -> list[ReviewEvent]:
    """Events from several origins: grades, and undos of an origin's own grades."""
    out: list[ReviewEvent] = []
    for origin in draw(st.sets(st.sampled_from(ORIGINS), min_size=1)):
        day = DAY + timedelta(days=draw(st.integers(0, 3)))
        mine: list[ReviewEvent] = []
        for seq in range(1, draw(st.integers(1, 14)) + 1):
            day += timedelta(days=draw(st.sampled_from((0, 0, 1, 2, 5))))
            minute = draw(st.integers(0, 600))
            undone = {m.undoes for m in mine}
            undoable = [r for r in mine if not r.is_undo and r.identity not in undone]
            if undoable and origin != "anki" and draw(st.integers(0, 5)) == 0:
                target = draw(st.sampled_from(undoable))
                entry = review(
                    origin, seq, target.key, None, target.day, minute, undoes=target.identity
                )
            else:
                key = draw(st.sampled_from(KEYS))
                entry = review(origin, seq, key, draw(st.integers(0, 5)), day, minute)
            mine.append(entry)
        out += mine
    return out


def by_origin_prefixes(data: st.DataObject, log: list[ReviewEvent]) -> list[list[ReviewEvent]]:
    """``log`` cut into batches as syncing delivers it: each origin's events in order, each
    batch a prefix of some origin's (so an undo never comes before what it undoes), batches
    repeated, in a random interleaving."""
    lines: dict[str, list[ReviewEvent]] = {}
    for r in log:
        lines.setdefault(r.origin, []).append(r)
    batches = []
    for line in lines.values():
        cuts = sorted(data.draw(st.lists(st.integers(0, len(line)), max_size=3)) + [len(line)])
        batches += [line[:cut] for cut in cuts]
    return data.draw(st.permutations(batches))


def identities(store: Store) -> set[tuple[str, int]]:
    return {r.identity for r in store.log.entries()}


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(log=logs(), data=st.data())
def test_merging_in_any_order_equals_replaying_the_sorted_union(
    tmp_path_factory: pytest.TempPathFactory, log: list[ReviewEvent], data: st.DataObject
) -> None:
    folder = tmp_path_factory.mktemp("merge")
    expected = reference_states(log)
    stores = []
    for n in range(2):
        store = Store.open(folder / f"{n}.db")
        stores.append(store)
        for batch in by_origin_prefixes(data, log):
            store.log.add_events(batch, batch=data.draw(st.sampled_from((1, 3, 2000))))
        # Nothing lost, nothing doubled, and the schedule is the replay of the union.
        assert identities(store) == {r.identity for r in log}
        assert len(list(store.log.entries())) == len(log)
        assert sm2_states(store) == expected == reference_states(store.log.events())
    try:
        # A local drill goes on from the derived schedule, undo included.
        for store in stores:
            later = max(r.day for r in log) + timedelta(days=1)
            moment = at_of(later, 0)
            first = record_grade(store, "d/a", 4, day=later, at=moment)
            second = record_grade(store, "d/b", 2, day=later, at=moment)
            before = expected.get("d/a", Sm2State.new())
            assert sm2_states(store)["d/a"] == sm2.review(before, Grade.GOOD, later)
            store.log.undo(second.id, at=moment)
            assert sm2_states(store).get("d/b") == expected.get("d/b")
            assert sm2_states(store) == reference_states(store.log.events())
            assert first.identity == (store.machine.id, first.identity[1])
        # Each store's own events are its own: added to the other, both agree again.
        a, b = stores
        a.log.add_events([r for r in a.log.events() if r.origin == a.machine.id])
        b.log.add_events([r for r in a.log.events() if r.origin == a.machine.id])
        a.log.add_events([r for r in b.log.events() if r.origin == b.machine.id])
        assert identities(a) == identities(b) and a.schedule.states() == b.schedule.states()
        assert sm2_states(a) == reference_states(a.log.events())
    finally:
        for store in stores:
            store.close()


def test_a_review_from_anki_older_than_the_schedule_is_replayed_in_its_place(
    tmp_path: Path,
) -> None:
    with Store.open(tmp_path / "r.db") as store:
        # Graded here on day 10 (first sight) and day 11; Anki saw it on day 5 and 6.
        record_grade(store, "d/a", 5, day=DAY + timedelta(days=10), at=at_of(DAY, 14_400))
        record_grade(store, "d/a", 5, day=DAY + timedelta(days=11), at=at_of(DAY, 15_840))
        assert [r.introduced for r in store.log.entries()] == [True, False]
        merged = store.log.add_events(
            [
                review("anki", 1, "d/a", 4, DAY + timedelta(days=5)),
                review("anki", 2, "d/a", 1, DAY + timedelta(days=5), 5),
                review("anki", 3, "d/a", 4, DAY + timedelta(days=6)),
            ]
        )
        assert (merged.added, merged.present, merged.keys) == (3, 0, {"d/a"})
        state = Sm2State.new()
        for grade, offset in ((4, 5), (4, 6), (5, 10), (5, 11)):  # day 5's second: a repeat
            state = sm2.review(state, grade, DAY + timedelta(days=offset))
        assert sm2_states(store)["d/a"] == state and state.repetitions == 4
        # What each grade was is the replay's: the day-10 grade no longer introduced the card
        # (the figures and the new-card limit read this, not what was true when it was given).
        effects = {r.identity: r.effect for r in store.log.entries()}
        assert [r.introduced for r in store.log.entries()] == [False, False, True, False, False]
        assert effects[("anki", 2)] is not None and store.log.entries()[3].repeat
        assert store.schedule.review_counts(DAY + timedelta(days=11))["d"].recall_graded == 3
        again = store.log.add_events([review("anki", 3, "d/a", 4, DAY + timedelta(days=6))])
        assert (again.added, again.present, again.keys) == (0, 1, frozenset())
        assert len(list(store.log.entries())) == 5


def test_an_undo_added_without_what_it_undoes_is_skipped_with_a_warning(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.db") as store:
        undo = review("m1", 2, "d/a", None, DAY, undoes=("m1", 1))
        merged = store.log.add_events([undo])
        assert (merged.added, merged.skipped) == (0, 1) and len(merged.warnings) == 1
        assert "1 undo naming no review or card action of its card here" in merged.warnings[0]
        assert list(store.log.entries()) == []
        merged = store.log.add_events([undo, review("m1", 1, "d/a", 4, DAY)])
        assert merged.added == 2 and store.schedule.states() == {}
        # A second undo of the same grade, an undo of an undo, an undo of another card's grade.
        merged = store.log.add_events(
            [
                review("m1", 3, "d/a", None, DAY, undoes=("m1", 1)),
                review("m1", 4, "d/a", None, DAY, undoes=("m1", 2)),
                review("m1", 5, "d/b", 3, DAY),
                review("m1", 6, "d/a", None, DAY, undoes=("m1", 5)),
            ]
        )
        assert (merged.added, merged.skipped) == (1, 3)
        assert list(sm2_states(store)) == ["d/b"]


def test_each_database_has_its_own_machine_id_and_numbers_its_reviews(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.db") as a, Store.open(tmp_path / "b.db") as b:
        assert a.machine.id != b.machine.id and len(a.machine.id) == 16
        for n in range(3):
            record_grade(a, f"d/k{n}", 4, day=DAY, at=at_of(DAY, n))
        assert [r.identity for r in a.log.entries()] == [
            (a.machine.id, 1),
            (a.machine.id, 2),
            (a.machine.id, 3),
        ]
    conn = sqlite3.connect(tmp_path / "a.db")
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute("UPDATE event SET origin = 'anki'")
        with pytest.raises(sqlite3.IntegrityError, match="never changes"):
            conn.execute("UPDATE machine SET origin = 'other'")
    finally:
        conn.close()


def test_undoing_a_grade_after_an_older_review_arrived_keeps_the_older_one(
    tmp_path: Path,
) -> None:
    with Store.open(tmp_path / "r.db") as store:
        mine = record_grade(store, "d/a", 5, day=DAY + timedelta(days=10), at=at_of(DAY, 14_400))
        store.log.add_events([review("anki", 1, "d/a", 4, DAY + timedelta(days=5))])
        store.log.undo(mine.id, at=at_of(DAY, 14_401))
        # Not the state before this grade (new): Anki's review, five days before it, stays.
        assert sm2_states(store)["d/a"] == sm2.review(Sm2State.new(), 4, DAY + timedelta(days=5))
        assert sm2_states(store) == reference_states(store.log.events())


def test_a_large_merge_lets_a_drill_in_between_its_batches(tmp_path: Path) -> None:
    # A sync adding many events holds the write lock one batch of cards at a time: a drill in
    # another terminal that will not wait at all still gets its grade in between.
    db = tmp_path / "r.db"
    events = [
        review("m2", n * 4 + i + 1, f"d/k{n}", 4, DAY + timedelta(days=i * 3), i)
        for n in range(50)
        for i in range(4)
    ]
    with Store.open(db) as syncing, Store.open(db) as drilling:
        drilling._conn.execute("PRAGMA busy_timeout = 0")  # no waiting: a lock held is an error
        graded = []

        def drill(_: object) -> None:
            key = f"e/drill{len(graded)}"
            graded.append(record_grade(drilling, key, 4, day=DAY, at=at_of(DAY, len(graded))))

        merged = syncing.log.add_events(events, batch=20, after_batch=drill)
        assert merged.added == 200 and len(graded) == 10  # 10 batches of 5 cards
        assert len(syncing.log.entries()) == 210 and len(sm2_states(syncing)) == 60
        assert sm2_states(syncing) == reference_states(syncing.log.events())
        # The same merge inside one transaction holds the lock throughout: the drill fails.
        more = [review("m3", n + 1, f"f/k{n}", 4, DAY) for n in range(40)]
        with pytest.raises(StoreError, match="locked"), syncing.transaction():
            syncing.log.add_events(more, batch=20, after_batch=drill)


def test_events_dated_more_than_a_day_ahead_are_held_back_until_their_time(
    tmp_path: Path,
) -> None:
    # A machine with its clock years ahead would freeze the card until then.
    now = at_of(DAY, 0)
    ahead = review("m2", 1, "d/a", 5, DAY + timedelta(days=3 * 365))
    soon = review("m2", 2, "d/b", 4, DAY, 60 * 20)  # 20 hours ahead: a time zone, not a fault
    with Store.open(tmp_path / "r.db") as store:
        record_grade(store, "d/a", 4, day=DAY, at=now)
        merged = store.log.add_events([ahead, soon], now=now)
        assert (merged.added, merged.held) == (1, 1)
        assert merged.warnings == (
            "1 review from m2 dated more than a day ahead (up to 2028-04-30) held back until "
            "then: is that machine's clock wrong?",
        )
        assert sm2_states(store)["d/a"] == sm2.review(Sm2State.new(), 4, DAY)
        assert {r.identity for r in store.log.entries()} == {(store.machine.id, 1), ("m2", 2)}
        # Given again once its time has come, it is taken.
        later = store.log.add_events([ahead, soon], now=ahead.at)
        assert (later.added, later.present, later.held) == (1, 1, 0)
        assert sm2_states(store) == reference_states(store.log.events())
