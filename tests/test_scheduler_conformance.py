"""Every registered scheduler, and the test-only third one (tests/leitner_support.py), held to
what the rest of zerodrill relies on: what it declares, determinism, its JSON, undo, and how a
state reads in Anki."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from leitner_support import NAME as LEITNER
from leitner_support import register_for_test

from zerodrill.srs.grades import ANKI_LAYOUT, DEFAULT_LAYOUT, Grade
from zerodrill.srs.schedulers import SCHEDULERS, Phase, Scheduler, When, scheduler_class
from zerodrill.srs.schedulers.protocol import outcomes, replay
from zerodrill.srs.store import Store

#: Every scheduler zerodrill ships, and the one a contributor would add.
ALL = [*SCHEDULERS, LEITNER]
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(params=ALL)
def name(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    register_for_test(monkeypatch)
    chosen: str = request.param
    return chosen


def history(seed: int, grades: int = 40) -> list[tuple[Grade, When, int]]:
    """Grades over some weeks: gaps of minutes (a same-day repeat) to weeks, both layouts."""
    rng = random.Random(seed)
    at, out = T0, []
    for _ in range(grades):
        at += rng.choice(
            [timedelta(minutes=10), timedelta(days=1), timedelta(days=rng.randint(2, 30))]
        )
        layout = rng.choice([DEFAULT_LAYOUT, ANKI_LAYOUT])
        out.append((rng.choice(list(Grade)), When(at, at.date()), layout))
    return out


def states(scheduler: Scheduler[Any], seed: int) -> list[Any]:
    state = scheduler.new_state()
    out = [state]
    for grade, when, layout in history(seed):
        state = scheduler.review(state, grade, when, layout)
        out.append(state)
    return out


def test_each_declares_what_the_rest_reads(name: str) -> None:
    cls = scheduler_class(name)
    assert cls.name == name
    assert cls.title.strip() and cls.grades_help.strip()
    for option in cls.options:
        # Text no zerodrill wrote (a setting from elsewhere) is refused, to read as unset.
        with pytest.raises(ValueError):
            option.read("not a value")
    # Two options kept under one setting are one option (a shared desired retention).
    kept = {o.setting: o for n in SCHEDULERS for o in scheduler_class(n).options}
    assert all(kept[o.setting] == o for o in cls.options)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_same_grades_give_the_same_state(name: str, seed: int) -> None:
    first = states(scheduler_class(name)(), seed)
    again = states(scheduler_class(name)(), seed)
    assert first == again
    assert [s.to_dict() for s in first] == [s.to_dict() for s in again]
    grades = [(g, w.day, w.at, layout) for g, w, layout in history(seed)]
    assert replay(scheduler_class(name)(), grades)[0] == first[-1]


@pytest.mark.parametrize("seed", [4, 5])
def test_a_state_round_trips_through_its_json(name: str, seed: int) -> None:
    scheduler = scheduler_class(name)()
    for state in states(scheduler, seed):
        text = json.dumps(state.to_dict())
        assert scheduler.state_from_dict(json.loads(text)) == state
    with pytest.raises(ValueError):
        scheduler.state_from_dict({})


@pytest.mark.parametrize("seed", [6, 7])
def test_a_state_reads_in_anki_sensibly(name: str, seed: int) -> None:
    scheduler = scheduler_class(name)()
    new = scheduler.new_state()
    assert new.phase is Phase.NEW and new.due is None and scheduler.anki(new).due is None
    for state in states(scheduler, seed)[1:]:
        card = scheduler.anki(state)
        assert card.due is not None and state.last_day is not None
        assert card.due >= state.last_day and card.interval >= 0
        assert card.due == state.last_day + timedelta(days=card.interval)
        assert card.ease_permille > 0 and card.repetitions >= 0 and card.lapses >= 0


@pytest.mark.parametrize("seed", [8])
def test_the_grade_buttons_show_what_a_review_gives(name: str, seed: int) -> None:
    scheduler = scheduler_class(name)()
    for (_, when, layout), state in zip(history(seed), states(scheduler, seed), strict=False):
        after = scheduler.next_states(state, when, layout)
        assert after == {g: scheduler.review(state, g, when, layout) for g in Grade}
        assert len(outcomes(scheduler, state, when, layout)) == len(Grade)


def test_an_undo_restores_the_card(name: str, tmp_path: Path) -> None:
    scheduler = scheduler_class(name)()
    with Store.open(tmp_path / "r.db", scheduler=scheduler) as store:
        for grade, when, layout in history(9, grades=12):
            store.log.grade("d/a", grade, day=when.day, at=when.at, buttons=layout)
        before = store.schedule.states()
        last = history(9, grades=13)[-1]
        logged = store.log.grade("d/a", last[0], day=last[1].day, at=last[1].at, buttons=last[2])
        store.log.undo(logged.id, at=last[1].at + timedelta(seconds=1))
        assert store.schedule.states() == before
        assert store.schedule.states() == store.schedule.states_by(scheduler_class(name)())
