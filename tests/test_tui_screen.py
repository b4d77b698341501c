"""What the drill's screen shows of a long card (issue 14 item 13): a reading width, a cue
while more of the card is below the fold, and the keys that get there."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets._toast import Toast
from tui_support import Clock, run_async, shown

from zerodrill.deck.load import load_paths
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import ZeroDrillApp, create_app
from zerodrill.tui.screens.drill_screen import CardScroll
from zerodrill.tui.screens.summary import SummaryScreen
from zerodrill.tui.widgets.card_side import CardSide
from zerodrill.tui.widgets.card_view import CardView
from zerodrill.tui.widgets.grade_bar import GradeBar

ROOT = Path(__file__).resolve().parents[1]
LONG = ROOT / "tests" / "data" / "screen"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


def app_on(store: Store, path: Path) -> ZeroDrillApp:
    result = load_paths([path])
    assert result.ok, result.problems
    return create_app(result.decks, store, clock=Clock())


def cue_shown(app: ZeroDrillApp) -> bool:
    cue = app.screen.query_one("#more")
    return cue.display and cue.visible and shown(cue).strip() == CardScroll.CUE


@run_async
async def test_a_long_answer_says_there_is_more_below_and_the_keys_get_there(store: Store) -> None:
    app = app_on(store, LONG)
    async with app.run_test(size=(80, 24)) as pilot:
        scroll = app.screen.query_one(CardScroll)
        assert not cue_shown(app)  # the question fits
        await pilot.press("enter")
        await pilot.pause()
        bottom = scroll.max_scroll_y
        assert bottom > 0 and scroll.scroll_y == 0 and cue_shown(app)
        await pilot.press("j", "j")
        assert scroll.scroll_y == 2 and cue_shown(app)
        await pilot.press("k")
        assert scroll.scroll_y == 1
        await pilot.press("end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y and not cue_shown(app)
        await pilot.press("home")
        await pilot.pause()
        assert scroll.scroll_y == 0 and cue_shown(app)
        await pilot.press("pagedown")
        page = scroll.scrollable_content_region.height - 1
        assert scroll.scroll_y == min(page, scroll.max_scroll_y)
        await pilot.press("pageup")
        assert scroll.scroll_y == 0
        # The next card starts at its top, with no stale cue.
        await pilot.press("end", "4")
        await pilot.pause()
        assert scroll.scroll_y == 0 and not cue_shown(app)


@run_async
async def test_at_160_columns_the_card_is_read_at_most_100_wide(store: Store) -> None:
    app = app_on(store, ROOT / "decks")
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        view = app.screen.query_one(CardView)
        assert view.content_size.width == 100
        region = view.content_region
        # Centred in the screen, give or take the scrollbar's column.
        assert abs(region.x - (160 - region.right)) <= 2
        lines = shown(app.screen.query_one("#answer", CardSide)).splitlines()
        assert max(len(line) for line in lines) <= 100
        assert max(len(line) for line in lines) > 90  # the measure is used, not wasted


@run_async
async def test_the_summary_never_wraps_a_grade_mid_item_at_80_columns(store: Store) -> None:
    app = app_on(store, ROOT / "tests" / "data" / "tui" / "zero.yaml")
    async with app.run_test(size=(80, 24)) as pilot:
        grades = iter([0, 1, 2, 3, *[5] * 30])
        while not isinstance(app.screen, SummaryScreen):
            await pilot.press("enter", str(next(grades)))
        body = shown(app.screen.query_one("#summary-body")).splitlines()
        given = [line for line in body if "×" in line]
        assert [line.split() for line in given] == [
            ["5", "perfect", f"×{app.session.summary().grades[5]}"],
            ["3", "hard", "×1"],
            ["2", "almost", "×1"],
            ["1", "wrong", "×1"],
            ["0", "blackout", "×1"],
        ]


@run_async
async def test_a_notice_covers_neither_the_hint_nor_the_grade_buttons(store: Store) -> None:
    app = app_on(store, ROOT / "tests" / "data" / "tui" / "zero.yaml")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("enter", "4", "u")
        await pilot.pause()
        (toast,) = app.screen.query(Toast)
        assert "Last grade undone." in str(toast.render())
        hint = app.screen.query_one("#hint").region
        assert not toast.region.overlaps(hint)
        # On a row of its own, just above the key bar (tests/test_tui_notices.py says more).
        assert toast.region.bottom == app.screen.query_one("KeyBar").region.y
        # On the answer side, a notice that stays long enough to be looked at.
        await pilot.press("enter")
        app.notify("A notice that stays a while.", timeout=600)
        await pilot.pause()
        grades = app.screen.query_one(GradeBar).region
        toasts = [t for t in app.screen.query(Toast) if "stays" in str(t.render())]
        assert grades.height and toasts and not toasts[0].region.overlaps(grades)


@run_async
async def test_the_help_says_there_is_more_below_at_80x24_too(store: Store) -> None:
    # The same eye on the help dialog: its grades paragraph runs below the fold at 80x24.
    from zerodrill.tui.screens.help import HelpScreen
    from zerodrill.tui.widgets.cued_scroll import CuedScroll

    app = app_on(store, LONG)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        scroll = app.screen.query_one("#dialog", CuedScroll)
        cue = app.screen.query_one("#more")
        assert scroll.max_scroll_y > 0 and cue.display
        assert shown(cue).strip() == CuedScroll.CUE
        await pilot.press("end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y and not cue.display
    async with app_on(store, LONG).run_test(size=(120, 40)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        # Where it all fits, no cue.
        assert not pilot.app.screen.query_one("#more").display
