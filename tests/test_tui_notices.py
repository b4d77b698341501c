"""Notices (Textual's toasts) cover nothing: not the card's title, not a dialog's border, not the
hint, the grade buttons or the key bar, in the drill and the interview, at 80x24 and wider.

They take rows of their own above the key bar (zerodrill/tui/app_base.tcss). Each test raises a
notice the way the learner does (a key, the interview's clock) and compares regions; the
snapshots at 80x24 show the look. Update them after a deliberate change with
``pytest --snapshot-update tests/test_tui_notices.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.app import App
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets._toast import Toast
from tui_support import Clock, make_app, run_async

from zerodrill.deck.load import load_paths
from zerodrill.srs.store import Store
from zerodrill.tui.interview.checklists import PointsScreen, TalkTrackScreen
from zerodrill.tui.interview.interview_app import InterviewApp, create_interview_app
from zerodrill.tui.screens.deck_picker import DeckPickerScreen
from zerodrill.tui.screens.help import HelpScreen
from zerodrill.tui.screens.stats_screen import StatsScreen

INTERVIEW_DECKS = Path(__file__).resolve().parent / "data" / "interview"
SIZES = [(80, 24), (100, 30), (200, 50)]
NO_EDITOR = "No editor: set $VISUAL or $EDITOR"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


@pytest.fixture(autouse=True)
def no_editor(monkeypatch: pytest.MonkeyPatch) -> None:
    # Key e then says there is no editor, in a notice that stays 8 seconds: long enough for
    # a snapshot on a busy machine.
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)


def toasts(app: App[object], says: str) -> list[Region]:
    found = [t.region for t in app.screen.query(Toast) if says in str(t.render())]
    assert found, f"no notice saying {says!r}"
    return found


def covered(app: App[object], says: str, *selectors: str) -> list[str]:
    """Which of the widgets ``selectors`` name the notice saying ``says`` is drawn over."""
    over = []
    for toast in toasts(app, says):
        for selector in selectors:
            for widget in app.screen.query(selector).results(Widget):
                if widget.region and toast.overlaps(widget.region):
                    over.append(selector)
    return over


def interview(store: Store, clock: Clock) -> InterviewApp:
    decks = load_paths([INTERVIEW_DECKS]).decks
    return create_interview_app(decks, store, clock=clock, interview_id="stage-walkthrough")


async def time_up(app: InterviewApp, clock: Clock, pilot: Pilot[object]) -> None:
    """Let the question's four minutes run out: the app says so and shows the points."""
    clock.advance(minutes=4)
    app.tick()
    await pilot.pause()
    assert isinstance(app.screen, PointsScreen)


# -- where they are -------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@run_async
async def test_a_notice_in_the_drill_covers_neither_the_card_nor_the_bars(
    store: Store, size: tuple[int, int]
) -> None:
    app = make_app(store, "zero")
    async with app.run_test(size=size, notifications=True) as pilot:
        drill = ("SessionHeader", "#card-scroll", "#question", "#under-question", "KeyBar")
        await pilot.press("asterisk")
        await pilot.pause()
        assert covered(app, "Card marked.", *drill) == []
        # The card's title stays on its row under the header: nothing moved down.
        assert app.screen.query_one("#question").region.y == 2
        # On the answer side, over neither the grade buttons nor the card.
        await pilot.press("enter", "ctrl+1")
        await pilot.pause()
        assert covered(app, "Flagged", "#card-scroll", "GradeBar", "KeyBar") == []


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize(
    ("key", "dialog"),
    [("question_mark", HelpScreen), ("d", DeckPickerScreen), ("s", StatsScreen)],
    ids=["help", "decks", "stats"],
)
@run_async
async def test_a_notice_over_a_dialog_leaves_its_border_whole(
    store: Store, size: tuple[int, int], key: str, dialog: type[object]
) -> None:
    app = make_app(store)
    async with app.run_test(size=size, notifications=True) as pilot:
        # A notice raised on the drill stays while the dialog opens over it.
        await pilot.press("e", key)
        await pilot.pause()
        assert isinstance(app.screen, dialog)
        assert covered(app, NO_EDITOR, "#dialog", "Footer") == []


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@run_async
async def test_a_notice_in_the_interview_covers_neither_the_step_nor_the_talk_track(
    store: Store, size: tuple[int, int]
) -> None:
    clock = Clock()
    app = interview(store, clock)
    async with app.run_test(size=size, notifications=True) as pilot:
        await time_up(app, clock, pilot)
        step = ("InterviewHeader", "#body", "#lead", "#checklist", "KeyBar")
        assert covered(app, "Time's up", *step) == []
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, TalkTrackScreen)
        assert covered(app, "Time's up", "#talk-track", "KeyBar") == []


# -- how they look at 80x24 -----------------------------------------------------------------


def test_snapshot_drill_notice_under_the_card(snap_compare, store: Store) -> None:
    assert snap_compare(make_app(store, "zero"), press=["e"], terminal_size=(80, 24))


def test_snapshot_help_with_a_notice(snap_compare, store: Store) -> None:
    app = make_app(store, "zero")
    assert snap_compare(app, press=["e", "question_mark"], terminal_size=(80, 24))


def test_snapshot_deck_picker_with_a_notice(snap_compare, store: Store) -> None:
    assert snap_compare(make_app(store), press=["e", "d"], terminal_size=(80, 24))


def test_snapshot_interview_time_up(snap_compare, store: Store) -> None:
    clock = Clock()
    app = interview(store, clock)

    async def run_out(pilot: Pilot[object]) -> None:
        await time_up(app, clock, pilot)

    assert snap_compare(app, run_before=run_out, terminal_size=(80, 24))
