"""What the drill shows are projections of the one event stream (issue 34, point 1): each
registered with a fingerprint and a pure fold, served by the store from the events it names."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from zerodrill.srs import projections
from zerodrill.srs.card_actions import Action, CardActionEvent
from zerodrill.srs.events import ReviewEvent, StreamEvent
from zerodrill.srs.projections import (
    BROUGHT_FORWARD,
    SCHEDULE,
    Projection,
    as_of,
    register,
    registered,
    schedule,
)
from zerodrill.srs.schedulers import scheduler_named
from zerodrill.srs.store import Store

DAY = date(2025, 3, 10)
NOON = datetime(2025, 3, 10, 12, tzinfo=UTC)


def stream(store: Store) -> None:
    """Every kind of event, on a few cards, from here and from another machine."""
    t = NOON
    store.log.grade("d/a", 4, day=DAY, at=t)
    graded = store.log.grade("d/b", 3, day=DAY, at=t + timedelta(minutes=1))
    store.log.undo(graded.id, at=t + timedelta(minutes=2))
    flag = store.actions.record("d/a", Action.FLAG, at=t, day=DAY, flag=3)
    store.actions.record("d/b", Action.SUSPEND, at=t, day=DAY)
    store.actions.undo(flag.identity, at=t + timedelta(minutes=3))
    attempt = store.attempts.start("d", "i", shape="s", at=t, day=DAY)
    store.attempts.bring_forward(attempt.id, ["d/a", "d/b", "d/c"], day=DAY)
    store.log.add_events(
        [
            ReviewEvent("m2", 1, "d/a", t + timedelta(hours=1), DAY, 5),  # type: ignore[arg-type]
            ReviewEvent("m2", 2, "d/c", t - timedelta(hours=1), DAY, 5),  # type: ignore[arg-type]
            CardActionEvent("m2", 3, "d/c", t, DAY, Action.MARK),
        ],
        now=t,
    )


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store.open(tmp_path / "reviews.db")
    stream(s)
    return s


@pytest.mark.parametrize("projection", registered(), ids=lambda p: p.name)
def test_every_projection_is_its_fold_of_the_whole_stream(
    store: Store, projection: Projection[object]
) -> None:
    # The store reads only the events a projection names: folding every event gives the same.
    outside = store.sync.outside({})
    read = store.sync.events(o.identity for o in outside)
    everything = [read[o.identity] for o in outside]
    assert len({type(e) for e in everything}) == 2
    assert store.log.project(projection) == projection.fold(everything)
    # Pure: folding the same events again gives the same value.
    assert projection.fold(everything) == projection.fold(list(everything))


def test_what_the_drill_shows_is_folded_from_the_stream(store: Store) -> None:
    assert {k: (m.suspended, m.flag, m.marked) for k, m in store.actions.marks().items()} == {
        "d/b": (True, 0, False),
        "d/c": (False, 0, True),
    }
    # d/a was graded after the interview (on m2); d/b's grade was undone; d/c's came before.
    forward = store.attempts.brought_forward(DAY)
    assert forward == as_of(store.log.project(BROUGHT_FORWARD), DAY)
    assert forward.pending == ("d/b", "d/c") and forward.on_day == {"d/a", "d/b", "d/c"}


def test_a_projection_needs_its_module_and_the_registry_only(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(projections, "_REGISTRY", dict(projections._REGISTRY))

    def suspends(events: Sequence[StreamEvent]) -> int:
        return sum(isinstance(e, CardActionEvent) and e.action is Action.SUSPEND for e in events)

    counted = register(
        Projection("suspends", "suspends-1", frozenset({Action.SUSPEND}), False, suspends)
    )
    assert projections.named("suspends") is counted and store.log.project(counted) == 1
    with pytest.raises(ValueError, match="clashes"):
        register(Projection("other", "suspends-1", frozenset(), False, suspends))


def every_read(store: Store) -> tuple[object, ...]:
    """What the drill and the commands read of the schedule's cache."""
    return (
        store.schedule.states(),
        store.schedule.states(["d/a", "d/z"]),
        store.schedule.state("d/a"),
        store.schedule.last_day("d/c"),
        store.schedule.due_dates(),
        store.schedule.due_keys(),
        store.schedule.again_on(DAY),
        store.schedule.review_counts(DAY),
        store.log.entries(),
        store.log.reviews_on(DAY),
    )


@pytest.mark.parametrize("scheduler", ["sm2", "fsrs"])
def test_the_schedule_is_a_projection_under_the_learners_scheduler(
    tmp_path: Path, scheduler: str
) -> None:
    with Store.open(tmp_path / "reviews.db", scheduler=scheduler_named(scheduler)) as store:
        stream(store)
        projection = schedule(store.scheduler)
        assert projection.fingerprint == store.scheduler.fingerprint
        states = store.schedule.states()
        assert set(states) == {"d/a", "d/c"}  # d/b's one grade was undone
        assert store.log.project(projection) == states == store.schedule.states_by(store.scheduler)
    assert SCHEDULE.fingerprint == scheduler_named().fingerprint and SCHEDULE in registered()


@pytest.mark.parametrize("dropped", ["rows", "fingerprint", "rederive"])
def test_the_schedule_cache_is_dropped_and_rebuilt_at_will(
    tmp_path: Path, store: Store, dropped: str
) -> None:
    before = every_read(store)
    if dropped == "rederive":
        store.schedule.rederive()
    else:
        # Another connection drops it, as a user with sqlite3 could: the store finds it gone.
        other = sqlite3.connect(tmp_path / "reviews.db", isolation_level=None)
        tables = ["derived"] + (["card", "effect"] if dropped == "rows" else [])
        for table in tables:
            other.execute(f"DELETE FROM {table}")
        other.close()
    assert every_read(store) == before
