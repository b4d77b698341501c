"""The look of every interview screen, at 80x24 (the smallest supported) and 120x36.

A fixed clock, moved only by the tests, and the deck under tests/data/interview/ make every
frame exact. Update after a deliberate change with
``pytest --snapshot-update tests/test_tui_interview_snapshots.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from tui_support import Clock

from zerodrill.deck.load import load_paths
from zerodrill.srs.store import Store
from zerodrill.tui.interview.interview_app import InterviewApp, create_interview_app

DECKS = Path(__file__).resolve().parent / "data" / "interview"
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 36), id="120x36")]

#: Keys from the start to each screen (with the clock moved where it says).
TYPED = ["a", *"zero_optimization.stage", "ctrl+j", *"stage 2 shards grads", "escape"]
POINTS = ["enter", "1", "3"]
FOLLOW_UP = [*POINTS, "enter"]
RED_FLAGS = [*FOLLOW_UP, "a", *"FULL_SHARD", "enter", "4", "enter", "2"]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


def make(store: Store, clock: Clock) -> InterviewApp:
    decks = load_paths([DECKS]).decks
    return create_interview_app(decks, store, clock=clock, interview_id="stage-walkthrough")


def test_question(snap_compare, store: Store, size: tuple[int, int]) -> None:
    clock = Clock()
    app = make(store, clock)

    async def answer(pilot: Pilot[object]) -> None:
        clock.advance(seconds=75)
        await pilot.press(*TYPED)
        app.tick()

    assert snap_compare(app, run_before=answer, terminal_size=size)


def test_points_ticked(snap_compare, store: Store, size: tuple[int, int]) -> None:
    assert snap_compare(make(store, Clock()), press=[*TYPED, *POINTS], terminal_size=size)


def test_talk_track(snap_compare, store: Store, size: tuple[int, int]) -> None:
    assert snap_compare(make(store, Clock()), press=[*POINTS, "t"], terminal_size=size)


def test_follow_up_overtime(snap_compare, store: Store, size: tuple[int, int]) -> None:
    clock = Clock()
    app = make(store, clock)

    async def over(pilot: Pilot[object]) -> None:
        await pilot.press(*FOLLOW_UP, "a", *"FULL_SHARD is ZeRO-3", "escape")
        clock.advance(seconds=102)
        app.tick()

    assert snap_compare(app, run_before=over, terminal_size=size)


def test_follow_up_beside_the_model_answer(
    snap_compare, store: Store, size: tuple[int, int]
) -> None:
    keys = [*FOLLOW_UP, "a", *"FULL_SHARD is ZeRO-3", "enter"]
    assert snap_compare(make(store, Clock()), press=keys, terminal_size=size)


def test_red_flags(snap_compare, store: Store, size: tuple[int, int]) -> None:
    keys = [*RED_FLAGS, "1"]
    assert snap_compare(make(store, Clock()), press=keys, terminal_size=size)


def test_end(snap_compare, store: Store, size: tuple[int, int]) -> None:
    clock = Clock()
    app = make(store, clock)

    async def finish(pilot: Pilot[object]) -> None:
        clock.advance(minutes=1, seconds=40)
        await pilot.press("enter", "1", "3", "enter", "enter", "4", "enter", "2", "1", "enter")

    assert snap_compare(app, run_before=finish, terminal_size=size)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "size" in metafunc.fixturenames:
        metafunc.parametrize("size", SIZES)
