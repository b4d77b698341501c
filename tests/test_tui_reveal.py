"""The reveal: what was typed is checked on the answer side, and a long answer's scrollbar
narrows nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tui_support import Clock, make_app, run_async, shown

from zerodrill.deck.load import load_paths
from zerodrill.srs.store import Store
from zerodrill.tui.app import create_app
from zerodrill.tui.widgets.card_side import CardSide

BUNDLED = Path(__file__).resolve().parents[1] / "decks" / "deepspeed-zero.yaml"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


@run_async
async def test_a_typed_answer_is_checked_on_the_answer_side(store: Store) -> None:
    app = make_app(store, "zero")  # its first card is a cloze
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("a", *"wrong", "enter")
        await pilot.pause()
        answer = app.screen.query_one("#answer", CardSide)
        assert answer.display and "wrong" in shown(answer)


@run_async
async def test_the_card_s_text_is_not_rewrapped_when_the_answer_brings_the_scrollbar(
    store: Store,
) -> None:
    # The bundled deck's long answers bring the scrollbar beside the card: its room is kept,
    # so the question does not jump to a narrower width at the reveal.
    decks = load_paths([BUNDLED]).decks
    app = create_app(decks, store, clock=Clock(), new_limit=40)
    # At the smallest size: with the sources folded to a line, fewer answers run long.
    async with app.run_test(size=(80, 24)) as pilot:
        scrolled = 0
        for _ in range(16):
            await pilot.pause()
            await pilot.pause()
            width = app.screen.query_one("#card").content_region.width
            await pilot.press("enter")
            await pilot.pause()
            scrolled += app.screen.query_one("#card-scroll").show_vertical_scrollbar
            assert app.screen.query_one("#card").content_region.width == width
            await pilot.press("4")
        assert scrolled >= 3, scrolled  # the case this is about came up
