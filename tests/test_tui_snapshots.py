"""The look of every screen, at 80x24 (the smallest supported) and 120x36.

A fixed clock and the small decks under tests/data/tui/ make every frame exact. Update the
pictures after a deliberate change with ``pytest --snapshot-update tests/test_tui_snapshots.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from textual.pilot import Pilot
from tui_support import START, Clock, make_app, tui_decks

from zerodrill.deck.load import load_paths
from zerodrill.srs.days import study_day
from zerodrill.srs.queue import items_of
from zerodrill.srs.sitting import record_grade
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import ZeroDrillApp, create_app

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 36), id="120x36")]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


def seed_history(store: Store) -> None:
    """Three weeks of reviews of every item, so the stats have a forecast and a retention."""
    items = items_of(tui_decks())
    for n, item in enumerate(items):
        if item.key.endswith("#c2"):
            continue
        for back, grade in ((24, 5), (23, 4), (12 - n % 6, 2 + n % 4)):
            now = START - timedelta(days=back)
            record_grade(store, item.key, grade, day=study_day(now), at=now)


def test_drill_question(snap_compare, store: Store, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(store, "zero"), terminal_size=size)


def test_drill_cloze_typed_and_checked(snap_compare, store: Store, size: tuple[int, int]) -> None:
    app = make_app(store, "zero")
    assert snap_compare(app, press=["a", *"zero_optimisation", "enter"], terminal_size=size)


def test_drill_basic_with_list_and_table(snap_compare, store: Store, size: tuple[int, int]) -> None:
    app = make_app(store, "zero")
    assert snap_compare(app, press=["enter", "4", "enter"], terminal_size=size)


def test_drill_follow_up_beside_the_model_answer(
    snap_compare, store: Store, size: tuple[int, int]
) -> None:
    app = make_app(store, "zero")
    keys = ["enter", "5", "enter", "5", "a", *"sharded params", "escape", "enter"]
    assert snap_compare(app, press=keys, terminal_size=size)


def test_drill_red_flag_answer(snap_compare, store: Store, size: tuple[int, int]) -> None:
    app = make_app(store, "zero")
    keys = ["enter", "5", "enter", "5", "enter", "5", "enter"]
    assert snap_compare(app, press=keys, terminal_size=size)


def screen_app(store: Store) -> ZeroDrillApp:
    """The deck of long cards and many sources (tests/data/screen)."""
    result = load_paths([Path(__file__).resolve().parent / "data" / "screen"])
    assert result.ok, result.problems
    return create_app(result.decks, store, clock=Clock())


def test_long_answer_scrolled_with_the_more_cue(snap_compare, store: Store) -> None:
    # Three lines down a red flag's answer that runs below the fold: the cue says how to go on.
    app = screen_app(store)
    assert snap_compare(app, press=["enter", "j", "j", "j"], terminal_size=(80, 24))


def test_source_list(snap_compare, store: Store, size: tuple[int, int]) -> None:
    # Unfolded (key o): one a line, each with the version it names.
    keys = ["enter", "5", "enter", "o"]
    assert snap_compare(screen_app(store), press=keys, terminal_size=size)


def test_card_flagged_and_marked_with_its_sources_folded(
    snap_compare, store: Store, size: tuple[int, int]
) -> None:
    # Issue 36: the header shows the card's flag and mark; five sources fold to one line.
    keys = ["enter", "5", "f", "4", "asterisk", "enter"]
    assert snap_compare(screen_app(store), press=keys, terminal_size=size)


def test_flag_menu(snap_compare, store: Store) -> None:
    # Key f: Anki's seven flags, the card's own (orange, Ctrl+2) named.
    app = make_app(store, "zero")
    assert snap_compare(app, press=["ctrl+2", "f"], terminal_size=(80, 24))


def test_drill_four_buttons_answer(snap_compare, store: Store, size: tuple[int, int]) -> None:
    # Anki's layout, on a basic card's answer (no suggestion: Good is highlighted).
    app = create_app(tui_decks("zero"), store, clock=Clock(), buttons=4)
    assert snap_compare(app, press=["enter", "4", "enter"], terminal_size=size)


def test_help(snap_compare, store: Store, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(store, "zero"), press=["question_mark"], terminal_size=size)


def test_deck_picker(snap_compare, store: Store, size: tuple[int, int]) -> None:
    seed_history(store)
    assert snap_compare(make_app(store), press=["d"], terminal_size=size)


def test_stats(snap_compare, store: Store, size: tuple[int, int]) -> None:
    seed_history(store)
    assert snap_compare(make_app(store), press=["s"], terminal_size=size)


def test_stats_with_an_interview_date(snap_compare, store: Store, size: tuple[int, int]) -> None:
    # The plan for the days left, under the figures; the header counts the days down.
    seed_history(store)
    app = create_app(tui_decks(), store, clock=Clock(), interview=START.date() + timedelta(days=5))
    assert snap_compare(app, press=["s"], terminal_size=size)


def test_session_summary(snap_compare, store: Store, size: tuple[int, int]) -> None:
    clock = Clock()
    app = make_app(store, "comm", clock=clock)

    async def drill(pilot: Pilot[object]) -> None:
        for key in ("5", "2", "4"):
            clock.advance(seconds=40)
            await pilot.press("enter", key)

    assert snap_compare(app, run_before=drill, terminal_size=size)


def test_nothing_due(snap_compare, store: Store, size: tuple[int, int]) -> None:
    for item in items_of(tui_decks("zero")):
        if not item.key.endswith("#c2"):
            record_grade(store, item.key, 5, day=study_day(START), at=START)
    assert snap_compare(make_app(store, "zero"), terminal_size=size)


def test_nothing_due_daily_limit(snap_compare, store: Store, size: tuple[int, int]) -> None:
    # Two new cards today with a limit of two: the note names the limit, what waits, and --new.
    for key in ("zero-tui/stage-key#c1", "zero-tui/stage-2-shards"):
        record_grade(store, key, 5, day=study_day(START), at=START)
    assert snap_compare(make_app(store, "zero", new_limit=2), terminal_size=size)


@pytest.mark.parametrize("small", [(60, 15), (79, 23)], ids=["60x15", "79x23"])
def test_too_small(snap_compare, store: Store, small: tuple[int, int]) -> None:
    assert snap_compare(make_app(store, "zero"), terminal_size=small)


def test_light_theme(snap_compare, store: Store) -> None:
    app = make_app(store, "zero")

    async def light(pilot: Pilot[object]) -> None:
        # Switched with a card on show: what is drawn already must take the new colours.
        await pilot.press("enter", "4", "enter")
        app.theme = "textual-light"
        await pilot.pause()

    assert snap_compare(app, run_before=light, terminal_size=(80, 24))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "size" in metafunc.fixturenames:
        metafunc.parametrize("size", SIZES)
