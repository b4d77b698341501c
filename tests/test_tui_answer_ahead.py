"""The answer side is drawn while the question is read, so the reveal key draws none of it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tui_support import Clock, make_app, run_async, shown

from zerodrill.deck.load import load_paths
from zerodrill.srs.store import Store
from zerodrill.tui.app import create_app
from zerodrill.tui.widgets.card_side import CardSide, DrawnOnce

BUNDLED = Path(__file__).resolve().parents[1] / "decks" / "deepspeed-zero.yaml"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
@run_async
async def test_the_reveal_draws_no_answer_line_the_question_time_drew(
    store: Store, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(store, "zero")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        drawn: list[Any] = []
        render_lines = app.console.render_lines

        def counted(renderable: Any, *args: Any, **kwargs: Any) -> Any:
            drawn.append(renderable)
            return render_lines(renderable, *args, **kwargs)

        monkeypatch.setattr(app.console, "render_lines", counted)
        await pilot.press("enter")
        await pilot.pause()
        answer = app.screen.query_one("#answer", CardSide)
        assert answer.display and "set by zero_optimization.stage" in shown(answer)
        shown_now = answer.render()
        assert not any(r is getattr(shown_now, "_renderable", None) for r in drawn)


@run_async
async def test_a_typed_answer_is_checked_on_the_answer_side(store: Store) -> None:
    # What was typed changes the answer side: it is drawn then, with the check.
    app = make_app(store, "zero")  # its first card is a cloze
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("a", *"wrong", "enter")
        await pilot.pause()
        answer = app.screen.query_one("#answer", CardSide)
        assert answer.display and "wrong" in shown(answer)


@run_async
async def test_no_side_is_drawn_nor_rewrapped_at_the_reveal_when_the_answer_brings_the_scrollbar(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bundled deck's long answers bring the scrollbar beside the card, which narrowed
    # both sides; and the layout after a grade settles in passes, so the widths seen first
    # were the last card's. Every side a reveal shows was drawn ahead at the width it shows
    # at, and the answer made into strips in its style.
    decks = load_paths([BUNDLED]).decks
    app = create_app(decks, store, clock=Clock(), new_limit=40)
    misses: list[tuple[str | None, int]] = []
    lines_at, render_strips = DrawnOnce.lines_at, DrawnOnce.render_strips

    def counted(self: DrawnOnce, width: int) -> Any:
        # The card's sides (the grade bar is drawn with DrawnOnce too, on the reveal).
        if isinstance(self._widget, CardSide) and width not in self._lines:
            misses.append((self._widget.id, width))
        return lines_at(self, width)

    def counted_strips(self: DrawnOnce, width: int, height: Any, style: Any, opts: Any) -> Any:
        # The answer's lines come ready as strips in its style, too.
        if self._widget.id == "answer" and (width, height, style) not in self._strips:
            misses.append(("answer strips", width))
        return render_strips(self, width, height, style, opts)

    # At the smallest size: with the sources folded to a line, fewer answers run long.
    async with app.run_test(size=(80, 24)) as pilot:
        scrolled = 0
        for _ in range(16):
            await pilot.pause()
            await pilot.pause()
            width = app.screen.query_one("#card").content_region.width
            monkeypatch.setattr(DrawnOnce, "lines_at", counted)
            monkeypatch.setattr(DrawnOnce, "render_strips", counted_strips)
            await pilot.press("enter")
            await pilot.pause()
            monkeypatch.setattr(DrawnOnce, "lines_at", lines_at)
            monkeypatch.setattr(DrawnOnce, "render_strips", render_strips)
            scrolled += app.screen.query_one("#card-scroll").show_vertical_scrollbar
            assert misses == []
            # The scrollbar's room is kept: the card's text does not rewrap when it comes.
            assert app.screen.query_one("#card").content_region.width == width
            await pilot.press("4")
        assert scrolled >= 3, scrolled  # the case this is about came up
