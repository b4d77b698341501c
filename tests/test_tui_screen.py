"""What the drill's screen shows of a long card (issue 14 item 13): a reading width, a cue
while more of the card is below the fold, and the keys that get there."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tui_support import Clock, run_async, shown

from zerodrill.deck.load import load_paths
from zerodrill.srs.store import Store
from zerodrill.tui.app import ZeroDrillApp, create_app
from zerodrill.tui.screens.drill import MORE_CUE, CardScroll
from zerodrill.tui.widgets.card_side import CardSide
from zerodrill.tui.widgets.card_view import CardView

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
    return bool(cue.display) and shown(cue).strip() == MORE_CUE


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
