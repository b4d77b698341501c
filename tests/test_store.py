"""The review store: the log as the truth, undo, durability, sharing, and every bad state."""

from __future__ import annotations

import errno
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import msgspec
import pytest
from srs_support import ReviewKind, kind, reference_states, sm2_states

from zerodrill.srs import sm2_formula as sm2
from zerodrill.srs.card_actions import Action, CardActionEvent
from zerodrill.srs.events import LoggedEvent, ReviewEvent
from zerodrill.srs.grades import Grade
from zerodrill.srs.projections import schedule
from zerodrill.srs.schedulers.decision import AnkiDecision
from zerodrill.srs.schedulers.protocol import When, replay
from zerodrill.srs.schedulers.sm2 import Sm2Card, Sm2Scheduler
from zerodrill.srs.sitting import record_grade
from zerodrill.srs.sm2_formula import Sm2State
from zerodrill.srs.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    NotInEffect,
    Replayed,
    ReviewCounts,
    Store,
    StoreError,
    UndoConflict,
    derive,
)

REPO = Path(__file__).resolve().parent.parent
#: A database written by zerodrill before the store was split into modules (see its test).
V1_DATABASE = REPO / "tests" / "data" / "reviews-v1.db"
#: One written by zerodrill at 7cc0083, the last whose log kept SM-2 states (schema 2), by
#: tests/data/make_reviews_v2.py: grades, repeats, undos, reviews merged from another machine
#: (one older than a local grade) and from Anki, an interview's brought-forward card.
V2_DATABASE = REPO / "tests" / "data" / "reviews-v2.db"
DAY = date(2025, 1, 1)
NOW = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
NOBODY = 65534
IS_ROOT = os.geteuid() == 0
CHILD_ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def record(store: Store, key: str, q: int, day: date = DAY, **kw: object) -> LoggedEvent:
    return record_grade(store, key, q, day=day, at=NOW, **kw)  # type: ignore[arg-type]


def grade(store: Store, key: str, q: int, day: date = DAY, **kw: object) -> sm2.Sm2State:
    """Grade ``key``; its SM-2 state after."""
    logged = record(store, key, q, day, **kw)
    state = store.schedule.state(logged.key)
    assert isinstance(state, Sm2Card)
    return state.sm2


def sm2_of(store: Store, key: str) -> Sm2State:
    state = store.schedule.state(key)
    assert isinstance(state, Sm2Card)
    return state.sm2


# -- the log and the state table -------------------------------------------------------------


def test_record_is_logged_with_everything(db: Path) -> None:
    with Store.open(db) as s:
        review = record(s, "zero/stage-2#c1", 4, answer_ms=3250, typed="gradients")
        assert kind(review) is ReviewKind.GRADE and review.grade is Grade.GOOD
        assert review.introduced and review.identity == (s.machine.id, 1)
    with Store.open(db) as s:
        (logged,) = s.log.entries()
        assert logged == review
        assert logged.at == NOW and logged.at.tzinfo is not None
        assert (logged.answer_ms, logged.typed) == (3250, "gradients")
        assert s.log.events() == [review.event]
        assert sm2_of(s, "zero/stage-2#c1") == sm2.review(Sm2State.new(), 4, DAY)
        assert s.schedule.state("zero/other") == Sm2Card()


def test_naive_wall_time_is_stored_with_its_local_offset(store: Store) -> None:
    review = record_grade(store, "d/a", 5, day=DAY, at=datetime(2025, 1, 1, 9, 30))
    (logged,) = store.log.entries()
    assert logged.at.tzinfo is not None and logged.at == review.at


def test_times_are_kept_as_isoformat_writes_them_whatever_their_zone(db: Path) -> None:
    """The ``at`` column holds each time as datetime.isoformat() writes it: UTC as +00:00
    (not "Z"), an offset in seconds (a zone's local mean time) whole, microseconds or none."""
    amsterdam = ZoneInfo("Europe/Amsterdam")
    times = [
        datetime(2025, 1, 1, 9, 30, tzinfo=UTC),
        datetime(2025, 1, 1, 9, 30, 5, 120, tzinfo=timezone(timedelta(0), "UTC")),
        datetime(2025, 1, 1, 9, 30, 5, 500000, tzinfo=timezone(timedelta(hours=-3, minutes=-30))),
        datetime(2025, 1, 1, 9, 30, tzinfo=timezone(timedelta(hours=1, seconds=37))),
        datetime(1900, 1, 1, 9, 30, 1, tzinfo=amsterdam),  # +00:19:32, local mean time
        datetime(2024, 7, 1, 9, 30, 1, 999999, tzinfo=amsterdam),
    ]
    events = [ReviewEvent("m1", n, f"d/{n}", at, DAY, Grade.GOOD) for n, at in enumerate(times, 1)]
    with Store.open(db) as s:
        s.log.add_events(events, now=NOW)
        assert [e.at for e in s.log.events()] == times
    with sqlite3.connect(db) as conn:
        kept = [at for (at,) in conn.execute("SELECT at FROM event ORDER BY seq")]
    conn.close()
    assert kept == [at.isoformat() for at in times]


def test_events_of_every_shape_are_kept_column_for_column(db: Path) -> None:
    """Grades (with and without what was typed, how long, Anki's decision), an undo, a flag,
    a setting, taken in one go (one statement for many rows): each column holds the value
    or NULL the event has, the same as one logged alone."""
    decided = AnkiDecision(interval=3, ease_permille=2500)
    at = NOW - timedelta(hours=1)
    events = [
        ReviewEvent("m1", 1, "d/a", at, DAY, Grade.GOOD, None, 3250, "gradients", 4),
        ReviewEvent("anki", 7, "d/a", at, DAY, Grade.WRONG, None, None, None, 4, decided),
        ReviewEvent("m1", 2, "d/a", at, DAY, None, ("m1", 1)),
        CardActionEvent("m1", 3, "d/a", at, DAY, Action.FLAG, 3),
        CardActionEvent("m1", 4, "d/rate", at, DAY, Action.SETTING, 0, None, "0.9"),
        ReviewEvent("m1", 5, "d/b", at, DAY, Grade.PERFECT),
    ]
    columns = "origin, seq, key, grade, undoes_origin, undoes_seq, answer_ms, typed, buttons, "
    columns += "action, flag, decided, value, at, at_us, day"
    one_by_one = db.with_name("one-by-one.db")
    for path, batch in ((db, 100), (one_by_one, 1)):
        with Store.open(path) as s:
            s.log.add_events(events, now=NOW, batch=batch)
    read = f"SELECT {columns} FROM event ORDER BY origin, seq"
    with sqlite3.connect(db) as conn, sqlite3.connect(one_by_one) as alone:
        rows = conn.execute(read).fetchall()
        assert rows == alone.execute(read).fetchall()
    conn.close()
    alone.close()
    when = (at.isoformat(), int(at.timestamp()) * 1_000_000, DAY.isoformat())
    json = '{"ivl":3,"factor":2500}'
    assert rows == [
        ("anki", 7, "d/a", 1, None, None, None, None, 4, None, 0, json, None, *when),
        ("m1", 1, "d/a", 4, None, None, 3250, "gradients", 4, None, 0, None, None, *when),
        ("m1", 2, "d/a", None, "m1", 1, None, None, 6, None, 0, None, None, *when),
        ("m1", 3, "d/a", None, None, None, None, None, 6, "flag", 3, None, None, *when),
        ("m1", 4, "d/rate", None, None, None, None, None, 6, "setting", 0, None, "0.9", *when),
        ("m1", 5, "d/b", 5, None, None, None, None, 6, None, 0, None, None, *when),
    ]


def test_repeat_is_logged_but_moves_nothing(store: Store) -> None:
    first = grade(store, "d/a", 2)
    review = record(store, "d/a", 5)  # the same study day: a repeat
    assert review.repeat and sm2_of(store, "d/a") == first
    assert [kind(r) for r in store.log.reviews_on(DAY)] == [ReviewKind.GRADE, ReviewKind.REPEAT]


def test_record_rejects_bad_input_and_stores_nothing(store: Store) -> None:
    for bad in (-1, 6, 2.5, True):
        with pytest.raises(ValueError):
            record(store, "d/a", bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        record(store, "", 3)
    with pytest.raises(ValueError):
        record(store, "d/a", 3, answer_ms=-5)
    assert list(store.log.entries()) == []


def test_states_and_due_dates(store: Store) -> None:
    grade(store, "d/a", 5, DAY - timedelta(days=3))  # due DAY - 2
    grade(store, "d/b", 5, DAY - timedelta(days=1))  # due DAY
    grade(store, "d/c", 5, DAY)  # due DAY + 1
    grade(store, "e/x", 5, DAY + timedelta(days=4))  # due DAY + 5
    everything = store.schedule.due_dates()
    assert list(everything.items()) == [  # earliest first: most overdue first
        ("d/a", DAY - timedelta(days=2)),
        ("d/b", DAY),
        ("d/c", DAY + timedelta(days=1)),
        ("e/x", DAY + timedelta(days=5)),
    ]
    assert list(store.schedule.due_dates(through=DAY)) == ["d/a", "d/b"]
    # Due after a day: every scheduled key less the due ones, the next due first.
    assert list(store.schedule.due_dates(after=DAY).items()) == [
        ("d/c", DAY + timedelta(days=1)),
        ("e/x", DAY + timedelta(days=5)),
    ]
    assert store.schedule.due_dates(after=DAY - timedelta(days=3)) == everything
    assert store.schedule.due_dates(after=DAY + timedelta(days=5)) == {}
    assert store.schedule.due_dates(after=DAY, through=DAY + timedelta(days=4)) == {
        "d/c": DAY + timedelta(days=1)
    }
    assert set(store.schedule.states(["d/a", "d/zzz"])) == {"d/a"}
    assert store.schedule.states() == store.schedule.states(everything)
    assert {key: state.due for key, state in store.schedule.states().items()} == everything
    assert store.schedule.state("d/zzz") == Sm2Card()


def test_states_of_many_keys(store: Store) -> None:
    with store.transaction():
        for i in range(1200):
            grade(store, f"d/k{i}", 4)
    keys = [f"d/k{i}" for i in range(0, 1300, 2)]
    assert set(store.schedule.states(keys)) == {f"d/k{i}" for i in range(0, 1200, 2)}


def test_a_transaction_is_all_or_nothing(store: Store) -> None:
    grade(store, "d/a", 4)
    with pytest.raises(ValueError), store.transaction():
        grade(store, "d/b", 4)
        grade(store, "d/c", 9)
    assert [r.key for r in store.log.entries()] == ["d/a"] and set(store.schedule.due_dates()) == {
        "d/a"
    }
    grade(store, "d/b", 4)  # and the next grade is a transaction of its own again
    assert set(store.schedule.due_dates()) == {"d/a", "d/b"}


def test_a_grade_follows_on_from_one_another_terminal_gave_meanwhile(db: Path) -> None:
    with Store.open(db) as mine, Store.open(db) as theirs:
        assert mine.schedule.state("d/a") == Sm2Card()  # read before the other terminal grades
        theirs_after = grade(theirs, "d/a", 5, DAY - timedelta(days=1))
        # The state is read inside the grade's transaction: it follows on from theirs.
        logged = record(mine, "d/a", 4)
        assert not logged.introduced and sm2_of(mine, "d/a") == sm2.review(theirs_after, 4, DAY)
        assert [r.grade for r in mine.log.entries()] == [Grade.PERFECT, Grade.GOOD]


def test_review_counts_leave_out_undone_first_sights_and_repeats(store: Store) -> None:
    grade(store, "e/c", 5, DAY - timedelta(days=40))
    grade(store, "e/c", 5, DAY - timedelta(days=31))  # a recall, but outside the window
    earlier = DAY - timedelta(days=10)
    grade(store, "d/a", 5, earlier)  # first sight: not a recall
    grade(store, "d/b", 5, earlier)
    grade(store, "d/a", 2)  # recall failed
    grade(store, "d/b", 4)  # recall passed
    repeat = record(store, "d/a", 3)  # a repeat: not a recall
    zero = record(store, "d/b", 0)
    store.log.undo(zero.id, at=NOW)  # the 0 ...
    store.log.undo(repeat.id, at=NOW)  # ... and the repeat: neither counts any more
    assert store.schedule.review_counts(DAY) == {
        "d": ReviewCounts(reviews=4, reviews_today=2, recall_graded=2, recall_passed=1),
        "e": ReviewCounts(reviews=2, reviews_today=0, recall_graded=0, recall_passed=0),
    }


def test_log_is_append_only(db: Path) -> None:
    with Store.open(db) as s:
        grade(s, "d/a", 4)
    conn = sqlite3.connect(db)
    try:
        for statement in ("UPDATE event SET grade = 5", "DELETE FROM event"):
            with pytest.raises(sqlite3.DatabaseError, match="append-only"):
                conn.execute(statement)
    finally:
        conn.close()


# -- undo -------------------------------------------------------------------------------------
# Which grades a sitting may take back, and in what order, is the sitting's (test_session.py);
# the store undoes one review by id.


def test_undo_restores_the_exact_previous_state_and_is_logged(store: Store) -> None:
    first = record(store, "d/a", 5)
    s1 = sm2_of(store, "d/a")
    second = record(store, "d/a", 5, DAY + timedelta(days=1))
    s2 = sm2_of(store, "d/a")
    third = record(store, "d/a", 1, DAY + timedelta(days=7))
    undo = store.log.undo(third.id, at=NOW)
    assert kind(undo) is ReviewKind.UNDO and undo.undoes == third.identity and undo.at == NOW
    assert undo.day == third.day and sm2_of(store, "d/a") == s2
    store.log.undo(second.identity, at=NOW)  # by identity, as well as by id
    assert sm2_of(store, "d/a") == s1
    # The first grade undone: the card is new again, and absent from the cache.
    store.log.undo(first.id, at=NOW)
    assert store.schedule.state("d/a") == Sm2Card()
    assert "d/a" not in store.schedule.due_dates() and store.schedule.states() == {}
    kinds = [kind(r) for r in store.log.entries()]
    assert kinds == [ReviewKind.GRADE] * 3 + [ReviewKind.UNDO] * 3
    assert [r.undoes for r in store.log.entries()][3:] == [
        third.identity,
        second.identity,
        first.identity,
    ]
    assert not any(r.in_effect for r in store.log.entries())


def test_undo_of_a_review_undone_already_or_never_logged_is_refused(db: Path) -> None:
    with Store.open(db) as s:
        grade(s, "d/a", 5)
        grade(s, "d/b", 5)
        s.log.undo(2, at=NOW)
        for review_id in (2, 99):
            with pytest.raises(NotInEffect, match="already undone") as exc:
                s.log.undo(review_id, at=NOW)
            assert isinstance(exc.value, StoreError) and exc.value.path == db
        assert list(s.schedule.states()) == ["d/a"]
        assert [kind(r) for r in s.log.entries()] == [ReviewKind.GRADE] * 2 + [ReviewKind.UNDO]


def test_a_snapshot_does_not_see_what_another_terminal_commits_meanwhile(db: Path) -> None:
    with Store.open(db) as mine, Store.open(db) as theirs:
        grade(mine, "d/a", 5, DAY - timedelta(days=1))
        with mine.snapshot():
            assert list(mine.schedule.due_dates(through=DAY)) == ["d/a"]
            grade(theirs, "d/a", 5)  # committed, and no longer due
            grade(theirs, "d/b", 5)
            assert list(mine.schedule.due_dates(through=DAY)) == ["d/a"]
            assert mine.schedule.due_dates(after=DAY) == {}
            assert [r.key for r in mine.log.reviews_on(DAY)] == []
        assert mine.schedule.due_dates(through=DAY) == {}
        assert set(mine.schedule.due_dates(after=DAY)) == {"d/a", "d/b"}
        with mine.transaction(), mine.snapshot():  # inside a write transaction: part of it
            grade(mine, "d/c", 5)
            assert set(mine.schedule.due_dates(after=DAY)) == {"d/a", "d/b", "d/c"}
        grade(mine, "d/d", 5)  # the snapshot is over: writing works as ever
        assert len(mine.schedule.due_dates()) == 4


def test_undo_refused_when_the_card_was_graded_since_elsewhere(db: Path) -> None:
    with Store.open(db) as mine, Store.open(db) as theirs:
        mine_first = record(mine, "d/a", 5)
        after_theirs = grade(theirs, "d/a", 5, DAY + timedelta(days=1))
        with pytest.raises(UndoConflict, match="graded again since") as exc:
            mine.log.undo(mine_first.id, at=NOW)
        assert isinstance(exc.value, StoreError) and exc.value.path == db
        assert sm2_of(mine, "d/a") == after_theirs
        assert [kind(r) for r in mine.log.entries()] == [ReviewKind.GRADE] * 2


def test_undo_of_a_repeat_keeps_the_schedule(store: Store) -> None:
    after = grade(store, "d/a", 2)
    repeat = record(store, "d/a", 4)
    assert repeat.repeat and store.schedule.state("d/a").again_on is None  # a 4: done for today
    store.log.undo(repeat.id, at=NOW)
    assert sm2_of(store, "d/a") == after and store.schedule.state("d/a").again_on == DAY
    assert [r.grade for r in store.log.reviews_on(DAY)] == [Grade.ALMOST]


# -- the cache, derived from the log ----------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_the_cache_is_the_log_replayed(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    keys = [f"d/k{i}" for i in range(6)] + ["d/cloze#c1", "d/cloze#c2", "gone/x"]
    with Store.open(tmp_path / f"{seed}.db") as s:
        day = DAY
        given: list[int] = []  # undone last first, as a sitting does
        for _ in range(120):
            roll = rng.random()
            if roll < 0.2:
                if given:
                    s.log.undo(given.pop(), at=NOW)
            else:
                review = record(s, rng.choice(keys), rng.randint(0, 5), day)
                given.append(review.id)
            day += timedelta(days=rng.randint(0, 3))
        table = sm2_states(s)
        assert table, "the random run should leave some cards scheduled"
        assert reference_states(s.log.events()) == table
        cached = s.schedule.states()
        s.schedule.rederive()  # dropped and derived again: the same
        assert s.schedule.states() == cached


@pytest.mark.parametrize("seed", range(8))
def test_events_added_in_batches_give_what_replaying_them_all_gives(
    tmp_path: Path, seed: int
) -> None:
    # What syncs bring: another machine's grades, mostly after the card's others (taken on
    # the cached state), some before them or undoing one (the card replayed), in batches.
    # (An undo that arrives before its grade is skipped, as ever.)
    rng = random.Random(seed)
    keys = ["d/a", "d/b", "d/c#c1", "d/c#c2"]
    made: list[ReviewEvent] = []
    at = datetime(2025, 1, 1, 8, tzinfo=UTC)
    for n in range(1, 90):
        at += timedelta(hours=rng.choice((1, 5, 20, 30, 60)))
        grades = [e for e in made if e.grade is not None]
        if grades and rng.random() < 0.1:
            target = rng.choice(grades)
            made.append(ReviewEvent("m1", n, target.key, at, target.day, None, target.identity))
        else:
            q = Grade(rng.randint(0, 5))
            made.append(ReviewEvent("m1", n, rng.choice(keys), at, at.date(), q, None, 900))
    # A few come late: after others of their card made since.
    arriving = sorted(
        made, key=lambda e: e.seq + (rng.randint(5, 40) if rng.random() < 0.15 else 0)
    )
    with Store.open(tmp_path / "a.db") as s:
        start = 0
        while start < len(arriving):
            size = rng.randint(1, 15)
            s.log.add_events(arriving[start : start + size], now=at, batch=rng.randint(1, 8))
            start += size
        states, effects = s.schedule.states(), {r.identity: r.effect for r in s.log.entries()}
        assert reference_states(s.log.events()) == sm2_states(s)
        s.schedule.rederive()
        assert s.schedule.states() == states
        assert {r.identity: r.effect for r in s.log.entries()} == effects


def test_a_lost_cache_is_in_the_log(db: Path) -> None:
    with Store.open(db) as s:
        for i in range(20):
            grade(s, f"d/k{i % 7}", i % 6, DAY + timedelta(days=i))
        expected = s.schedule.states()
        counts = s.schedule.review_counts(DAY + timedelta(days=20))
    conn = sqlite3.connect(db)
    try:
        with conn:
            conn.execute("DELETE FROM card")
            conn.execute("DELETE FROM effect")
            conn.execute("DELETE FROM derived")  # as if no scheduler had built it
    finally:
        conn.close()
    with Store.open(db) as s:
        assert s.schedule.states() == expected
        assert s.schedule.review_counts(DAY + timedelta(days=20)) == counts


def test_a_database_written_before_the_store_was_split_migrates(tmp_path: Path) -> None:
    # Written by the store when it was one module: grades, a same-day repeat, and an undo of a
    # grade and of a repeat. Opening it keeps every review, as an event, and gives the same
    # schedule; opened again, it does not change one byte.
    db = tmp_path / "reviews.db"
    shutil.copyfile(V1_DATABASE, db)
    held = rows_of(db)
    with Store.open(db) as s:
        log = list(s.log.entries())
        states = sm2_states(s)
        assert s.log.reviews_on(date(2025, 1, 1))[0].typed == "stage"
        assert s.schedule.review_counts(date(2025, 1, 2))["zero"].reviews == 5
        assert [r.identity for r in log] == [(s.machine.id, r.id) for r in log]
        machine = s.machine.id
    assert events_of(db) == as_events(held, machine)
    before = db.read_bytes()
    with Store.open(db) as s:
        assert list(s.log.entries()) == log and sm2_states(s) == states
    assert db.read_bytes() == before
    assert [kind(r) for r in log].count(ReviewKind.UNDO) == 2
    assert states == old_schedule(held) and set(states) == {
        "comm/ring",
        "zero/stage-key#c1",
        "zero/stage-key#c2",
    }
    assert states["zero/stage-key#c1"] == Sm2State(2, 6, 260, date(2025, 1, 8), 0)
    # The same schema, statement for statement, as a database made now ...
    made_now = tmp_path / "new.db"
    Store.open(made_now).close()
    assert schema_of(db) == schema_of(made_now)
    # ... and it takes new grades as one made now does.
    with Store.open(db) as s:
        logged = record(s, "comm/ring", 4, date(2025, 1, 3))
        assert logged.id == len(log) + 1 and logged.identity == (s.machine.id, len(log) + 1)
        assert reference_states(s.log.events()) == sm2_states(s)
        assert sm2_states(s)["comm/ring"] == sm2.review(states["comm/ring"], 4, date(2025, 1, 3))


def test_a_database_of_the_last_log_with_states_migrates_without_losing_a_thing(
    tmp_path: Path,
) -> None:
    db = tmp_path / "reviews.db"
    shutil.copyfile(V2_DATABASE, db)
    held = rows_of(db, identity=True)
    machine = "b668e9c5dcd10916"
    with Store.open(db) as s:
        assert s.machine.id == machine and header(db)[0] == SCHEMA_VERSION
        # Every review kept, with its id, identity, times, grade, answer time, typed text ...
        assert events_of(db) == as_events(held, machine)
        # ... and the same schedule the old store had in its state table.
        assert sm2_states(s) == old_schedule(held)
        assert sm2_states(s)["zero/stage-1"] == Sm2State(1, 1, 214, date(2025, 1, 4), 1)
        # The Anki answer and the other machine's reviews keep their identities.
        origins = {r.identity[0] for r in s.log.entries()}
        assert origins == {machine, "0123456789abcdef", "anki"}
        # The settings and the interview's card, due until reviewed after the interview.
        assert s.settings.get("buttons") == "4"
        assert s.attempts.brought_forward(date(2025, 1, 5)).pending == ("zero/stage-3",)
        later = datetime(2025, 1, 5, 9, tzinfo=UTC)
        record_grade(s, "zero/stage-3", 4, day=date(2025, 1, 5), at=later)
        assert s.attempts.brought_forward(date(2025, 1, 5)).pending == ()


def old_schedule(rows: list[tuple[object, ...]]) -> dict[str, Sm2State]:
    """The old state table's rows (the last rows of :func:`rows_of`) as states."""
    return {
        str(r[1]): Sm2State(
            int(r[2]),
            int(r[3]),
            int(r[4]),
            date.fromisoformat(str(r[5])),
            int(r[6]),  # type: ignore[call-overload]
        )
        for r in rows
        if r[0] == "card_state"
    }


def as_events(rows: list[tuple[object, ...]], machine: str) -> list[tuple[object, ...]]:
    """The old review rows (of :func:`rows_of`) as the event rows they must become: id,
    origin, seq, key, at, day, grade (none for an undo), the identity undone, answer time and
    typed text. Rows read without their identity were made on ``machine``, numbered by id."""
    reviews = {r[1]: r[1:] for r in rows if r[0] == "review"}

    def identity(r: tuple[object, ...]) -> tuple[object, object]:
        return (r[19], r[20]) if len(r) > 19 else (machine, r[0])

    events = []
    for r in reviews.values():
        rid, key, kind_, at, day, grade_, undoes, answer_ms, typed = r[:9]
        undone = identity(reviews[undoes]) if undoes is not None else (None, None)
        graded = None if kind_ == "undo" else grade_
        events.append((rid, *identity(r), key, at, day, graded, *undone, answer_ms, typed))
    return events


def events_of(path: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT id, origin, seq, key, at, day, grade, undoes_origin, undoes_seq, "
            "answer_ms, typed FROM event WHERE action IS NULL ORDER BY id"
        ).fetchall()
    finally:
        conn.close()


def rows_of(path: Path, *, identity: bool = False) -> list[tuple[object, ...]]:
    """Every column of every review row and state row of the first schema (and the
    identity columns of the second, with ``identity``), each headed by its table's name."""
    ids = ", origin, origin_seq" if identity else ""
    conn = sqlite3.connect(path)
    try:
        return [
            ("review", *row)
            for row in conn.execute(
                "SELECT id, key, kind, at, day, grade, undoes, answer_ms, typed, "
                "reps_before, interval_before, ef_before, due_before, lapses_before, "
                f"reps_after, interval_after, ef_after, due_after, lapses_after{ids} "
                "FROM review ORDER BY id"
            )
        ] + [("card_state", *row) for row in conn.execute("SELECT * FROM card_state ORDER BY key")]
    finally:
        conn.close()


def schema_of(path: Path) -> list[tuple[str, str, str | None]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT type, name, sql FROM sqlite_schema ORDER BY name").fetchall()
    finally:
        conn.close()


# -- the file: schema, migrations and every bad state ----------------------------------------


def header(path: Path) -> tuple[int, int]:
    conn = sqlite3.connect(path)
    try:
        return (
            conn.execute("PRAGMA user_version").fetchone()[0],
            conn.execute("PRAGMA application_id").fetchone()[0],
        )
    finally:
        conn.close()


def test_new_database_is_marked_and_versioned(db: Path) -> None:
    Store.open(db).close()
    assert header(db) == (SCHEMA_VERSION, APPLICATION_ID)


def test_an_empty_file_becomes_a_database(db: Path) -> None:
    db.touch()
    with Store.open(db) as s:
        grade(s, "d/a", 3)
    assert header(db) == (SCHEMA_VERSION, APPLICATION_ID)


def test_settings_are_kept_and_a_database_gains_their_table_only_when_one_is_saved(
    db: Path,
) -> None:
    with Store.open(db) as s:
        grade(s, "d/a", 4)
        assert s.settings.get("buttons") is None
    # Opening and reading leave the file as an older zerodrill wrote and reads it.
    assert "setting" not in {name for _, name, _ in schema_of(db)}
    with Store.open(db) as s:
        s.settings.save("buttons", "4")
        s.settings.save("buttons", "6")
    assert header(db) == (SCHEMA_VERSION, APPLICATION_ID)
    with Store.open(db) as s:
        assert s.settings.get("buttons") == "6"
        assert [r.key for r in s.log.entries()] == ["d/a"]


def test_sync_positions_are_kept_and_a_database_gains_their_table_only_when_one_is_saved(
    db: Path,
) -> None:
    with Store.open(db) as s:
        grade(s, "d/a", 4)
        assert s.sync.saved("folder:/x", s.machine.id) == {}
    # Opening and reading leave the file as an older zerodrill wrote and reads it.
    assert "sync_position" not in {name for _, name, _ in schema_of(db)}
    with Store.open(db) as s:
        s.sync.save("folder:/x", s.machine.id, {"m1": ("p1", "c1"), "m2": ("p2", "c2")}, [])
        s.sync.save("folder:/y", s.machine.id, {"m1": ("q1", "d1")}, [])
    assert header(db) == (SCHEMA_VERSION, APPLICATION_ID)
    with Store.open(db) as s:
        s.sync.save("folder:/x", s.machine.id, {"m1": ("p3", "c3")}, ["m2"])
        assert s.sync.saved("folder:/x", s.machine.id) == {"m1": ("p3", "c3")}
        assert s.sync.saved("folder:/y", s.machine.id) == {"m1": ("q1", "d1")}
        assert [r.key for r in s.log.entries()] == ["d/a"]
        # Read under a machine id the database no longer has: void, and dropped at the next
        # save; a save under it (a sync that began before the renewal) keeps nothing.
        old = s.machine.id
        new = s.machine.renew([1])
        assert s.sync.saved("folder:/x", new) == {}
        s.sync.save("folder:/x", old, {"m1": ("p4", "c4")}, [])
        s.sync.save("folder:/z", new, {"m1": ("r1", "e1")}, [])
        assert s.sync.saved("folder:/x", old) == s.sync.saved("folder:/y", old) == {}
        assert s.sync.saved("folder:/z", new) == {"m1": ("r1", "e1")}


def test_the_log_read_for_a_few_cards_or_as_times_and_grades(store: Store) -> None:
    """events_of, numbers and graded (anki sync's reads): what events() says, narrowed."""
    at = datetime(2025, 1, 1, 9, tzinfo=UTC)
    later = at + timedelta(days=1)
    made = [
        ReviewEvent("m1", 1, "d/a", later, DAY + timedelta(1), Grade.GOOD),
        ReviewEvent("m1", 2, "d/a", at, DAY, Grade.WRONG),
        ReviewEvent("m1", 3, "d/b", at, DAY, Grade.HARD),
        ReviewEvent("m1", 4, "d/b", at, DAY, None, ("m1", 3)),
        ReviewEvent("anki", 1735722000000, "d/a", at, DAY, Grade.PERFECT),
        ReviewEvent("m1", 5, "d/c", at, DAY, Grade.GOOD),
    ]
    store.log.add_events(made)
    every = store.log.events()
    # Card by card, each in the replay's order (by day, time, origin and number).
    assert store.log.events_of(["d/b", "d/a"]) == [made[4], made[1], made[0], made[2], made[3]]
    assert sorted(store.log.events_of(["d/a", "d/b"]), key=lambda e: e.identity) == sorted(
        (e for e in every if e.key != "d/c"), key=lambda e: e.identity
    )
    assert store.log.events_of([]) == []
    assert store.log.numbers("anki") == {1735722000000}
    assert store.log.numbers("m1") == {1, 2, 3, 4, 5}
    # In effect (d/b's grade undone), not Anki's, in the replay's order (by day and time).
    assert store.log.graded(not_of="anki") == {
        "d/a": [(at, Grade.WRONG), (later, Grade.GOOD)],
        "d/c": [(at, Grade.GOOD)],
    }
    # Of the cards asked about only (a two-way sync asks about those Anki did not move).
    assert store.log.graded(not_of="anki", keys=["d/c", "d/b"]) == {"d/c": [(at, Grade.GOOD)]}
    assert store.log.graded(not_of="anki", keys=[]) == {}


def test_a_card_replayed_by_the_caller_is_taken_only_if_it_is_the_cards_events(
    store: Store, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """add_events(replayed=...) (anki sync's replay, handed over): taken as it is when the
    card's grades in effect are exactly those it names under the cache's scheduler; else the
    card is replayed from its events, as ever."""
    at = datetime(2025, 1, 1, 9, tzinfo=UTC)
    first = ReviewEvent("m1", 1, "d/a", at, DAY, Grade.GOOD)
    second = ReviewEvent("m1", 2, "d/a", at + timedelta(days=1), DAY + timedelta(1), Grade.WRONG)
    scheduler = store.scheduler
    fingerprint = schedule(scheduler).fingerprint
    only_first, effects = replay(scheduler, [(first.grade, first.day, first.at)])
    assert first.grade is not None
    # Naming one grade of the two, or another scheduler's cache: replayed.
    for handed in (
        Replayed(fingerprint, (first.identity,), only_first, tuple(effects)),
        Replayed("fsrs", (first.identity, second.identity), only_first, (*effects, *effects)),
    ):
        with Store.open(db.with_name(f"other-{handed.fingerprint}.db")) as other:
            other.log.add_events([first, second], replayed={"d/a": handed})
            assert other.schedule.state("d/a") != only_first
            assert other.schedule.state("d/a").due == DAY + timedelta(2)
    # Exactly its grades: taken, with no replay.
    both = [(e.grade, e.day, e.at) for e in (first, second) if e.grade is not None]
    state, effects = replay(scheduler, both)
    handed = Replayed(fingerprint, (first.identity, second.identity), state, tuple(effects))

    def no_replay(*args: object) -> None:
        raise AssertionError("replayed again")

    monkeypatch.setattr(derive, "replay_card", no_replay)
    store.log.add_events([first, second], replayed={"d/a": handed})
    assert store.schedule.state("d/a") == state


@pytest.mark.parametrize(("origin", "seq"), [("", 1), ("m1", 0), ("m1", True), ("m1", -3)])
def test_an_event_from_elsewhere_without_its_origin_and_number_adds_nothing(
    store: Store, origin: str, seq: int
) -> None:
    good = [ReviewEvent("m1", n, "d/a", NOW, DAY, Grade.GOOD) for n in range(2, 5)]
    bad = ReviewEvent(origin, seq, "d/b", NOW, DAY, Grade.GOOD)
    with pytest.raises(ValueError, match="needs its origin and number"):
        store.log.add_events([*good, bad, *good], now=NOW)
    assert store.log.events() == []


def test_events_added_in_batches_are_on_disk_when_it_returns_or_fails(store: Store) -> None:
    """Every batch but the last commits without waiting for the disk (synchronous NORMAL);
    the last one's commit, at FULL, puts them all there; and the store is back at FULL for
    every write after, whether adding returned or failed midway. The batches keep their
    statement journals in memory (temp_store MEMORY), and every write after in a file again
    (DEFAULT)."""

    def pragma(name: str) -> int:
        level: int = store._conn.execute(f"PRAGMA {name}").fetchone()[0]
        return level

    def seen_now(_: object) -> None:
        seen.append((pragma("synchronous"), pragma("temp_store")))

    events = [ReviewEvent("m1", n, f"d/{n}", NOW, DAY, Grade.GOOD) for n in range(1, 7)]
    seen: list[tuple[int, int]] = []
    store.log.add_events(events[:5], now=NOW, batch=2, after_batch=seen_now)
    assert seen == [(1, 2), (1, 2), (2, 2)]  # NORMAL, NORMAL, FULL; MEMORY
    assert (pragma("synchronous"), pragma("temp_store")) == (2, 0)

    def fail(_: object) -> None:
        raise RuntimeError("the sync stopped")

    with pytest.raises(RuntimeError):
        store.log.add_events([events[5], *events], now=NOW, batch=1, after_batch=fail)
    assert (pragma("synchronous"), pragma("temp_store")) == (2, 0)
    assert len(store.log.events()) == 6


def test_a_batch_with_a_bad_row_adds_none_of_it_and_the_batches_before_stay(
    store: Store,
) -> None:
    """A row the table refuses (an answer time below zero) fails its statement, whose journal
    (in memory while adding) takes back the rows it had put in; the batch's transaction is
    rolled back whole, the batches committed before it stay."""
    good = [ReviewEvent("m1", n, f"d/{n}", NOW, DAY, Grade.GOOD) for n in range(1, 4)]
    fine = ReviewEvent("m1", 8, "d/9", NOW, DAY, Grade.GOOD)
    bad = ReviewEvent("m1", 9, "d/9", NOW, DAY, Grade.GOOD)
    msgspec.structs.force_setattr(bad, "answer_ms", -1)
    with pytest.raises(StoreError):
        store.log.add_events([*good, fine, bad], now=NOW, batch=3)
    assert [e.seq for e in store.log.events()] == [1, 2, 3]


def test_a_card_handed_over_is_taken_past_its_flags_undos_and_withdrawn_grades(
    store: Store, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Among a card's events, what is no grade in effect (a flag, an undo, the grade it
    withdraws) is no part of what a caller hands over: taken without a replay when it names
    the grades in effect, not when it names a flag too."""
    at = datetime(2025, 1, 1, 9, tzinfo=UTC)
    first = ReviewEvent("m1", 1, "d/a", at, DAY, Grade.GOOD)
    flag = CardActionEvent("m1", 2, "d/a", at + timedelta(hours=1), DAY, Action.FLAG, 3)
    withdrawn = ReviewEvent("m1", 3, "d/a", at + timedelta(days=1), DAY + timedelta(1), Grade.WRONG)
    undo = ReviewEvent("m1", 4, "d/a", withdrawn.at, withdrawn.day, None, withdrawn.identity)
    third = ReviewEvent("m1", 5, "d/a", at + timedelta(days=2), DAY + timedelta(2), Grade.GOOD)
    events = [first, flag, withdrawn, undo, third]
    later = third.at + timedelta(hours=1)
    scheduler = store.scheduler
    fingerprint = schedule(scheduler).fingerprint
    state, effects = replay(scheduler, [(e.grade, e.day, e.at) for e in (first, third)])
    with Store.open(db.with_name("other.db")) as other:
        naming_the_flag = (first.identity, flag.identity, third.identity)
        handed = Replayed(fingerprint, naming_the_flag, Sm2Card(), tuple(effects))
        other.log.add_events(events, now=later, replayed={"d/a": handed})
        assert other.schedule.state("d/a") == state

    def no_replay(*args: object) -> None:
        raise AssertionError("replayed again")

    monkeypatch.setattr(derive, "replay_card", no_replay)
    handed = Replayed(fingerprint, (first.identity, third.identity), state, tuple(effects))
    store.log.add_events(events, now=later, replayed={"d/a": handed})
    assert store.schedule.state("d/a") == state
    assert [e.introduced for e in store.log.entries() if e.in_effect] == [True, False]


def test_the_events_outside_the_runs_a_transport_carries_are_found_by_range(
    store: Store,
) -> None:
    at = datetime(2025, 1, 1, 9, tzinfo=UTC)
    made = [
        *(ReviewEvent("m1", n, "d/a", at, DAY, Grade.GOOD) for n in range(1, 8)),
        # Anki's numbers are its revlog ids: far apart, a run each.
        *(ReviewEvent("anki", n, "d/b", at, DAY, Grade.GOOD) for n in range(1000, 1200, 2)),
    ]
    store.log.add_events(made)
    ordered = [e.identity for e in store.log.events()]
    anki = [(n, n) for n in range(1000, 1200, 2) if n != 1100]
    outside = store.sync.outside({"m1": [(2, 3), (5, 5)], "anki": anki})
    assert [e.identity for e in outside] == [
        i for i in ordered if i in {("m1", 1), ("m1", 4), ("m1", 6), ("m1", 7), ("anki", 1100)}
    ]
    assert store.sync.outside({"m1": [(1, 7)], "anki": [(1000, 1198)]}) == []
    found = store.sync.events([("m1", 3), ("m1", 99), ("zz", 1)])
    assert list(found) == [("m1", 3)] and found[("m1", 3)] == made[2]


def test_two_processes_creating_it_at_once(db: Path) -> None:
    code = "import sys; from zerodrill.srs.store import Store; Store.open(sys.argv[1]).close()"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(db)], env=CHILD_ENV, stderr=subprocess.PIPE
        )
        for _ in range(3)
    ]
    for p in procs:
        _, err = p.communicate(timeout=30)
        assert p.returncode == 0, err.decode()
    assert header(db) == (SCHEMA_VERSION, APPLICATION_ID)


def assert_one_line(exc: pytest.ExceptionInfo[StoreError], path: Path) -> str:
    message = str(exc.value)
    assert "\n" not in message and str(path) in message
    assert isinstance(exc.value, StoreError) and exc.value.path == path
    return message


def refused(path: Path, *, create: bool = True) -> str:
    with pytest.raises(StoreError) as exc:
        Store.open(path, create=create).close()
    return assert_one_line(exc, path)


def test_missing_folder(tmp_path: Path) -> None:
    path = tmp_path / "no-such-folder" / "reviews.db"
    assert "does not exist" in refused(path)
    assert not path.parent.exists()


def test_missing_file_when_not_creating(db: Path) -> None:
    assert "no review database" in refused(db, create=False)
    assert not db.exists()


def test_a_folder_where_the_file_should_be(db: Path) -> None:
    db.mkdir()
    assert "is a folder" in refused(db)


def test_garbage_file_is_refused_and_left_as_it_was(db: Path) -> None:
    garbage = random.Random(4).randbytes(8192)
    db.write_bytes(garbage)
    assert "not a zerodrill review database" in refused(db)
    assert db.read_bytes() == garbage
    assert sorted(p.name for p in db.parent.iterdir()) == [db.name]


def test_another_programs_sqlite_file_is_refused_and_left_as_it_was(db: Path) -> None:
    conn = sqlite3.connect(db)
    try:
        with conn:
            conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, flds TEXT)")
    finally:
        conn.close()
    before = db.read_bytes()
    assert "not a zerodrill review database" in refused(db)
    assert db.read_bytes() == before


def test_damaged_pages_are_reported_and_left_as_they_were(db: Path) -> None:
    with Store.open(db) as s:
        with s.transaction():
            for i in range(300):
                grade(s, f"d/k{i}", 4, typed="x" * 200)
    data = bytearray(db.read_bytes())
    page = 4096
    assert len(data) > 3 * page
    # Keep page 1 (header and schema) and wreck every b-tree page after it.
    data[page:] = b"\xff" * (len(data) - page)
    db.write_bytes(bytes(data))
    with pytest.raises(StoreError) as exc:
        with Store.open(db) as s:
            s.schedule.states()
            s.log.reviews_on(DAY)
    assert "damaged" in assert_one_line(exc, db)
    assert db.read_bytes() == bytes(data)


@pytest.mark.parametrize(
    ("table", "column", "value"),
    [
        ("card", "due", "garbage"),
        ("card", "state", '{"reps": 1, "ef": 99}'),
        ("card", "state", "not JSON"),
        ("event", "at", "not a time"),
        ("event", "day", "2025-13-45"),
    ],
)
def test_damaged_values_are_reported_as_one_line(
    db: Path, table: str, column: str, value: object
) -> None:
    # Values SQLite cannot check (a hand edit, a flipped bit): still a StoreError, no traceback.
    _graded_then_edited(db, (f"UPDATE {table} SET {column} = ?", (value,)))
    reads = [
        lambda s: s.schedule.state("d/a"),
        lambda s: s.schedule.states(),
        lambda s: s.schedule.due_dates(through=DAY + timedelta(days=9)),
        lambda s: s.schedule.due_dates(after=DAY),
        lambda s: s.schedule.due_dates(),
        lambda s: list(s.log.entries()),
        lambda s: s.log.reviews_on(DAY),
        lambda s: s.log.events_of(["d/a"]),
        lambda s: record(s, "d/a", 4, DAY + timedelta(days=1)),
    ]
    failed = 0
    for read in reads:
        with Store.open(db) as s:
            try:
                read(s)
            except StoreError as exc:
                message = str(exc)
                assert "\n" not in message and str(db) in message and "damaged" in message
                failed += 1
    assert failed >= 2  # each damaged value is read by more than one of them


def test_a_grade_out_of_range_read_by_events_of_is_one_line(db: Path) -> None:
    """A grade SQLite's check would refuse, put there past it (a hand edit): the reader of a
    sync's events (one pass, no call of to_grade) says so in one line."""
    _graded_then_edited(
        db, ("PRAGMA ignore_check_constraints = 1", ()), ("UPDATE event SET grade = 9", ())
    )
    with Store.open(db) as s, pytest.raises(StoreError) as exc:
        s.log.events_of(["d/a"])
    assert "damaged" in assert_one_line(exc, db)


def _graded_then_edited(db: Path, *edits: tuple[str, tuple[object, ...]]) -> None:
    """A grade of "d/a" logged, then the file edited by hand past the log's guard."""
    with Store.open(db) as s:
        grade(s, "d/a", 4)
    conn = sqlite3.connect(db)
    try:
        with conn:
            conn.execute("DROP TRIGGER event_no_update")
            for statement, values in edits:
                conn.execute(statement, values)
    finally:
        conn.close()


def test_a_negative_database_version_is_one_line_and_left_as_it_was(db: Path) -> None:
    Store.open(db).close()
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA user_version = -3")
    finally:
        conn.close()
    before = db.read_bytes()
    with pytest.raises(StoreError) as exc:
        Store.open(db)
    assert assert_one_line(exc, db) == f"{db} is damaged (its database version is -3)"
    assert db.read_bytes() == before


def test_schema_text_that_is_not_utf8_reads_as_any_other(db: Path) -> None:
    with Store.open(db) as s:
        grade(s, "d/a", 4)
        s.settings.save("buttons", "4")
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute(
            "UPDATE sqlite_schema SET sql = CAST(sql || CAST(X'202d2d20ff' AS TEXT) AS TEXT) "
            "WHERE sql IS NOT NULL"
        )
        conn.commit()
    finally:
        conn.close()
    with Store.open(db) as s:  # neither a traceback nor a refusal: SQLite reads it
        assert s.settings.get("buttons") == "4" and list(s.schedule.due_dates()) == ["d/a"]
        grade(s, "d/b", 4)
        s.schedule.rederive()
        assert list(s.schedule.due_dates()) == ["d/a", "d/b"]


def test_a_setting_that_is_not_text_or_not_a_choice_is_one_line_or_the_default(db: Path) -> None:
    from zerodrill.srs.settings import saved_layout

    with Store.open(db) as s:
        s.settings.save("buttons", "7")
        assert saved_layout(s) == 6  # not a layout: the default
    conn = sqlite3.connect(db)
    try:
        with conn:
            conn.execute("UPDATE setting SET value = CAST(X'ff34' AS TEXT)")
    finally:
        conn.close()
    # The store opens with the learner's profile, so the damage is met on opening.
    with pytest.raises(StoreError) as exc:
        Store.open(db)
    message = assert_one_line(exc, db)
    assert message == f"cannot read {db}: it is damaged (the setting 'buttons' is not text)"


def test_newer_database_is_refused_and_left_as_it_was(db: Path) -> None:
    Store.open(db).close()
    conn = sqlite3.connect(db)
    try:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    finally:
        conn.close()
    before = db.read_bytes()
    message = refused(db)
    assert "newer zerodrill" in message and f"version {SCHEMA_VERSION + 1}" in message
    assert db.read_bytes() == before


# Root ignores file permissions, so as root each permission case runs the check in a child
# process that has dropped to user "nobody"; as anyone else it runs here, with chmod alone.


@pytest.fixture
def reachable_dir() -> Iterator[Path]:
    """A folder user nobody can reach (pytest's tmp_path lives in a root-only folder)."""
    folder = Path(tempfile.mkdtemp(prefix="zerodrill-store-test-"))
    folder.chmod(0o755)
    try:
        yield folder / "box"
    finally:
        for path in folder.rglob("*"):
            path.chmod(0o700)
        shutil.rmtree(folder)


def give_away(*paths: Path) -> None:
    if IS_ROOT:
        for path in paths:
            os.chown(path, NOBODY, NOBODY)


def open_unprivileged(path: Path) -> str:
    """Store.open(path) as a user without root's powers: its StoreError, or 'OPENED'."""
    if not IS_ROOT:
        try:
            Store.open(path).close()
        except StoreError as exc:
            return str(exc)
        return "OPENED"
    code = textwrap.dedent(
        f"""
        import os, sys
        from zerodrill.srs.store import Store, StoreError
        # Imported before the switch: nobody may not read the package's folder.
        import zerodrill.srs.schedulers.sm2
        import zerodrill.srs.settings  # Store.open reads the learner's scheduler
        os.setgid({NOBODY})
        os.setuid({NOBODY})
        try:
            Store.open(sys.argv[1]).close()
        except StoreError as exc:
            print(exc)
        else:
            print("OPENED")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        env=CHILD_ENV,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def make_db(folder: Path) -> tuple[Path, bytes]:
    folder.mkdir()
    path = folder / "reviews.db"
    with Store.open(path) as s:
        grade(s, "d/a", 4)
    give_away(folder, path)
    return path, path.read_bytes()


def test_permissions_are_real_for_the_unprivileged_user(reachable_dir: Path) -> None:
    path, _ = make_db(reachable_dir)
    assert open_unprivileged(path) == "OPENED"


def test_unreadable_file(reachable_dir: Path) -> None:
    path, before = make_db(reachable_dir)
    path.chmod(0o000)
    message = open_unprivileged(path)
    assert message.startswith(f"cannot read {path}") and "ermission denied" in message
    path.chmod(0o600)
    assert path.read_bytes() == before


def test_read_only_file(reachable_dir: Path) -> None:
    path, before = make_db(reachable_dir)
    path.chmod(0o444)
    assert open_unprivileged(path) == f"cannot write {path}: it is read-only"
    assert path.read_bytes() == before


def test_read_only_folder(reachable_dir: Path) -> None:
    path, before = make_db(reachable_dir)
    reachable_dir.chmod(0o555)
    message = open_unprivileged(path)
    assert message == f"cannot write {path}: its folder {reachable_dir} is read-only"
    assert path.read_bytes() == before
    assert sorted(p.name for p in reachable_dir.iterdir()) == ["reviews.db"]


def test_cannot_create_in_a_read_only_folder(reachable_dir: Path) -> None:
    reachable_dir.mkdir()
    give_away(reachable_dir)
    reachable_dir.chmod(0o555)
    path = reachable_dir / "reviews.db"
    assert (
        open_unprivileged(path) == f"cannot create {path}: the folder {reachable_dir} is read-only"
    )
    assert not path.exists()


@pytest.fixture
def mount_point(tmp_path: Path) -> Iterator[Path]:
    if not IS_ROOT or shutil.which("mount") is None:
        pytest.skip("needs root and mount(8)")
    point = tmp_path / "mnt"
    point.mkdir()
    yield point
    subprocess.run(["umount", str(point)], capture_output=True)


def test_read_only_mount_refuses_even_root(tmp_path: Path, mount_point: Path) -> None:
    path = tmp_path / "reviews.db"
    with Store.open(path) as s:
        grade(s, "d/a", 4)
    before = path.read_bytes()
    bound = subprocess.run(["mount", "--bind", "-o", "ro", str(tmp_path), str(mount_point)])
    remounted = subprocess.run(["mount", "-o", "remount,ro,bind", str(mount_point)])
    if bound.returncode or remounted.returncode:
        pytest.skip("cannot make a read-only bind mount here")
    seen = mount_point / "reviews.db"
    assert refused(seen) == f"cannot write {seen}: it is read-only"
    assert path.read_bytes() == before


def test_full_disk_by_page_limit(store: Store, db: Path) -> None:
    # SQLite's max_page_count gives the same SQLITE_FULL a full disk gives, anywhere; the
    # tmpfs test below fills a real (small) file system when the machine allows mounting.
    grade(store, "d/a", 4)
    log_before, states_before = list(store.log.entries()), store.schedule.states()
    bytes_before = db.read_bytes()
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    # The migrations leave free pages (the tables of older schemas were dropped): more than
    # those is more than the disk holds.
    free = store._conn.execute("PRAGMA freelist_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(StoreError) as exc:
        record(store, "d/b", 5, typed="y" * (20000 + 4096 * free))
    assert assert_one_line(exc, db) == f"cannot save to {db}: the disk is full"
    assert list(store.log.entries()) == log_before and store.schedule.states() == states_before
    assert db.read_bytes() == bytes_before
    store._conn.execute(f"PRAGMA max_page_count = {pages + 1000}")
    grade(store, "d/b", 5)  # space again: the store carries on


def test_full_disk_on_a_small_tmpfs(mount_point: Path) -> None:
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount_point)],
        capture_output=True,
    )
    if mounted.returncode:
        pytest.skip("cannot mount a tmpfs here")
    path = mount_point / "reviews.db"
    acknowledged = []
    with Store.open(path) as s:
        for i in range(5):
            acknowledged.append(record(s, f"d/k{i}", 4).id)
        filler = mount_point / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError as exc:
            assert exc.errno == errno.ENOSPC  # the disk is full now
        finally:
            os.close(fd)
        failure = None
        for i in range(200):
            main_file = path.read_bytes()
            try:
                acknowledged.append(record(s, f"d/n{i}", 5, typed="z" * 3000).id)
            except StoreError as exc:
                failure = str(exc)
                assert path.read_bytes() == main_file
                break
        assert failure == f"cannot save to {path}: the disk is full"
        filler.unlink()
        acknowledged.append(record(s, "d/after", 3).id)
    with Store.open(path) as s:
        assert [r.id for r in s.log.entries()] == acknowledged
        assert reference_states(s.log.events()) == sm2_states(s)


# -- durability and sharing -------------------------------------------------------------------

# A writer in its own process. It opens the database, says "ready" and waits for a line on its
# standard input before grading, so that the test starts several at the same moment with no
# sleep: each grade's id and number is printed once it is committed.
WRITER = textwrap.dedent(
    """
    import sys
    from datetime import date, datetime, timezone
    from zerodrill.srs.sitting import record_grade
    from zerodrill.srs.store import Store
    path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Store.open(path) as s:
        print("ready", flush=True)
        sys.stdin.readline()
        i = 0
        while count < 0 or i < count:
            r = record_grade(s, f"d/k{i % 11}", i % 6, day=date(2025, 1, 1 + i % 28),
                             at=datetime.now(timezone.utc), typed=f"{name}-{i}")
            print(r.id, i, flush=True)
            i += 1
    """
)


def start_writers(db: Path, count: int, *names: str) -> list[subprocess.Popen[str]]:
    """Writers of ``count`` grades each (-1: until killed), all told to go once all are ready."""
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), name, str(count)],
            env=CHILD_ENV,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in names
    ]
    for w in writers:
        assert w.stdout is not None
        ready = w.stdout.readline()
        assert ready == "ready\n", (w.stderr.read() if w.stderr else "") or ready
    for w in writers:
        assert w.stdin is not None
        w.stdin.write("go\n")
        w.stdin.flush()
    return writers


def assert_one_chain_per_card(s: Store) -> None:
    """Every card's log is one chain: in the order logged, no grade is on an earlier study day
    than the one before it (a grade never goes back in time behind another terminal's)."""
    log = list(s.log.entries())
    for key in s.schedule.states():
        chain = [r for r in log if r.key == key]
        for earlier, later in zip(chain, chain[1:], strict=False):
            assert later.day >= earlier.day


def test_sigkill_right_after_grading_loses_nothing(db: Path) -> None:
    Store.open(db).close()
    (child,) = start_writers(db, -1, "killed")  # grades until killed
    acked: dict[int, int] = {}
    assert child.stdout is not None
    try:
        while len(acked) < 150:
            line = child.stdout.readline()
            assert line, child.stderr.read() if child.stderr else ""
            review_id, i = map(int, line.split())
            acked[review_id] = i
        child.send_signal(signal.SIGKILL)  # mid-way through the next grade, most likely
    finally:
        child.kill()
        unread, _ = child.communicate()
    assert child.returncode == -signal.SIGKILL
    # The grades it acknowledged while these 150 were read (their lines still in the pipe,
    # each one write) are acknowledged all the same: a busy machine left it 8 ahead once.
    for line in unread.splitlines():
        review_id, i = map(int, line.split())
        acked[review_id] = i
    with Store.open(db) as s:
        stored = {r.id: r for r in s.log.entries()}
        for review_id, i in acked.items():
            assert stored[review_id].typed == f"killed-{i}"
            assert stored[review_id].grade == i % 6
        assert len(stored) - len(acked) in (0, 1)  # at most the grade in flight, whole
        assert reference_states(s.log.events()) == sm2_states(s)


def test_two_writers_at_once_lose_nothing(db: Path) -> None:
    # Two processes grading flat out from the same moment: one mostly waits (busy timeout)
    # while the other commits, and neither fails with "database is locked".
    Store.open(db).close()
    writers = start_writers(db, 150, "left", "right")
    for w in writers:
        out, err = w.communicate(timeout=60)
        assert w.returncode == 0 and err == "", err
        assert len(out.splitlines()) == 150
    with Store.open(db) as s:
        typed = sorted(r.typed or "" for r in s.log.entries())
        assert typed == sorted(f"{n}-{i}" for n in ("left", "right") for i in range(150))
        assert reference_states(s.log.events()) == sm2_states(s)
        # Both wrote the same eleven cards: each card's log is one consistent chain.
        assert_one_chain_per_card(s)


def test_two_terminals_interleaving_keep_one_chain_per_card(db: Path) -> None:
    # Two connections driven step by step in one thread, so that their grades interleave the
    # same way on every run: both grade the same eleven cards, in a seeded random order.
    order = random.Random(5).choices(("left", "right"), k=300)
    given = {"left": 0, "right": 0}
    with Store.open(db) as left, Store.open(db) as right:
        terminals = {"left": left, "right": right}
        for name in order:
            i = given[name]
            given[name] += 1
            day = date(2025, 1, 1 + i % 28)
            record(terminals[name], f"d/k{i % 11}", i % 6, day, typed=f"{name}-{i}")
    switches = sum(a != b for a, b in zip(order, order[1:], strict=False))
    assert switches > 100  # the two really take turns, card by card
    with Store.open(db) as s:
        assert [(r.typed or "").split("-")[0] for r in s.log.entries()] == order
        assert reference_states(s.log.events()) == sm2_states(s)
        assert_one_chain_per_card(s)


def test_a_card_reviewed_that_day_takes_only_a_repeat(db: Path) -> None:
    with Store.open(db) as mine, Store.open(db) as theirs:
        first = grade(theirs, "d/a", 4)
        second = record(mine, "d/a", 5)  # read inside the transaction: a repeat
        assert second.repeat and sm2_of(mine, "d/a") == first
        later = record(mine, "d/a", 5, DAY + timedelta(days=1))  # the next day: a grade
        assert kind(later) is ReviewKind.GRADE and mine.schedule.state("d/a").interval == 6
        # A terminal still on an earlier study day grades it on the card's latest day.
        behind = record(theirs, "d/a", 3, DAY)
        assert behind.day == DAY + timedelta(days=1) and behind.repeat


def test_two_processes_grading_one_card_on_one_day_give_one_grade(db: Path) -> None:
    # Each writer grades d/k0 on 2025-01-01 once (i = 0), both told to go at the same moment.
    Store.open(db).close()
    writers = start_writers(db, 1, "left", "right")
    for w in writers:
        out, err = w.communicate(timeout=60)
        assert w.returncode == 0 and err == "", err
    with Store.open(db) as s:
        assert sorted(kind(r) for r in s.log.entries()) == [ReviewKind.GRADE, ReviewKind.REPEAT]
        assert sm2_of(s, "d/k0").repetitions == 0
        assert reference_states(s.log.events()) == sm2_states(s)


class _Doubling:
    """SM-2 with every interval twice as long: another scheduler, for the switch."""

    name = "sm2x2"
    fingerprint = "sm2x2"

    def __init__(self) -> None:
        self._sm2 = Sm2Scheduler()

    def new_state(self) -> Sm2Card:
        return Sm2Card()

    def review(self, state: Sm2Card, grade: Grade, when: When, buttons: int = 6) -> Sm2Card:
        after = self._sm2.review(state, grade, when, buttons)
        if after.sm2 == state.sm2:
            return after
        s, longer = after.sm2, after.sm2.interval * 2
        state = Sm2State(
            s.repetitions, longer, s.ef_hundredths, when.day + timedelta(longer), s.lapses
        )
        return Sm2Card(state, after.first_day, after.last_day, after.last_grade, after.last_at)

    def next_states(self, state: Sm2Card, when: When, buttons: int = 6) -> dict[Grade, Sm2Card]:
        return {g: self.review(state, g, when, buttons) for g in Grade}

    def state_from_dict(self, data: dict[str, object]) -> Sm2Card:
        return self._sm2.state_from_dict(data)


def test_switching_scheduler_rederives_every_card_and_switching_back_restores_it(db: Path) -> None:
    with Store.open(db) as s:
        grade(s, "d/a", 4)
        grade(s, "d/a", 5, DAY + timedelta(days=1))
        grade(s, "d/b", 2)
        first = s.schedule.states()
    with Store.open(db, scheduler=_Doubling()) as s:
        doubled = s.schedule.states()
        assert doubled["d/a"].interval == 12 and doubled["d/b"].interval == 2
        assert len(s.log.entries()) == 3  # nothing lost
        s.use(Sm2Scheduler())
        assert s.schedule.states() == first
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT fingerprint FROM derived").fetchone() == ("sm2",)
    finally:
        conn.close()
