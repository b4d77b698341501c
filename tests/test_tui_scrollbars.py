"""One scrollbar thumb in sight: a dialog over a long list or card hides the scrollbar of the
screen below, which showed through its backdrop beside the dialog's own (issue 24, "two
scrollbar thumbs on the points screen": the talk track opened over a long list of points).

Update the snapshot after a deliberate change with
``pytest --snapshot-update tests/test_tui_scrollbars.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.app import App
from textual.widget import Widget
from tui_support import Clock, run_async

from zerodrill.deck.load import load_paths
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import create_app
from zerodrill.tui.interview.checklists import PointsScreen, TalkTrackScreen
from zerodrill.tui.interview.interview_app import InterviewApp, create_interview_app
from zerodrill.tui.screens.help import HelpScreen

DATA = Path(__file__).resolve().parent / "data"
POINTS = 30


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


@pytest.fixture
def long_points(tmp_path: Path) -> Path:
    """The interview tests' deck, its walkthrough with 30 points (the most its 30 minutes
    allow), each added one two lines long: more than any screen holds."""
    text = (DATA / "interview" / "deck.yaml").read_text()
    first = "      - text: The key is `zero_optimization.stage`, 0 to 3.\n"
    assert first in text and text.count("    minutes: 4\n") == 1
    many = "".join(
        f"      - text: Point {n}, long enough to be a line of its own, and then long enough "
        "again to wrap onto a second line on the widest screen.\n"
        "        cards: [stage-key]\n"
        for n in range(1, POINTS - 3)
    )
    deck = tmp_path / "deck.yaml"
    text = text.replace("    minutes: 4\n", "    minutes: 30\n")
    deck.write_text(text.replace(first, many + first, 1))
    return deck


def interview(store: Store, deck: Path) -> InterviewApp:
    decks = load_paths([deck]).decks
    return create_interview_app(decks, store, clock=Clock(), interview_id="stage-walkthrough")


def thumbs(app: App[object]) -> list[str]:
    """The widgets drawing a vertical scrollbar on the screens in sight: the one on top and,
    under a dialog, the one its backdrop shows."""
    screens = app.screen_stack[-2:] if app.screen.is_modal else [app.screen]
    return [
        f"{type(screen).__name__} {widget!r}"
        for screen in screens
        for widget in screen.query("*").results(Widget)
        if widget.show_vertical_scrollbar and widget.styles.scrollbar_visibility == "visible"
    ]


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
@run_async
async def test_the_talk_track_over_a_long_list_of_points_shows_one_thumb(
    store: Store, long_points: Path, size: tuple[int, int]
) -> None:
    app = interview(store, long_points)
    async with app.run_test(size=size) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PointsScreen)
        assert thumbs(app) == ["PointsScreen Body(id='body')"]
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, TalkTrackScreen)
        assert thumbs(app) == ["TalkTrackScreen VerticalScroll(id='talk-track')"]
        # Closed, the points' own scrollbar is back.
        await pilot.press("escape")
        await pilot.pause()
        assert thumbs(app) == ["PointsScreen Body(id='body')"]


@run_async
async def test_the_help_over_a_long_card_shows_one_thumb(store: Store) -> None:
    app = create_app(load_paths([DATA / "screen"]).decks, store, clock=Clock())
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("enter")  # a long answer: the card scrolls
        await pilot.pause()
        assert thumbs(app) == ["DrillScreen CardScroll(id='card-scroll')"]
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert all(t.startswith("HelpScreen") for t in thumbs(app))
        await pilot.press("escape")
        await pilot.pause()
        assert thumbs(app) == ["DrillScreen CardScroll(id='card-scroll')"]


def test_snapshot_talk_track_over_long_points(
    snap_compare, store: Store, long_points: Path
) -> None:
    app = interview(store, long_points)
    assert snap_compare(app, press=["enter", "t"], terminal_size=(120, 36))


def test_snapshot_long_points(snap_compare, store: Store, long_points: Path) -> None:
    app = interview(store, long_points)
    assert snap_compare(app, press=["enter", "pagedown"], terminal_size=(80, 24))
