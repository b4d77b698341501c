"""The reveal: the answer side is drawn while the question is read, so the reveal key draws none
of it; what was typed is checked on the answer side; a long answer's scrollbar narrows nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tui_support import Clock, make_app, run_async, shown

from zerodrill.deck.load import load_paths
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import create_app
from zerodrill.tui.widgets.card_side import CardSide

BUNDLED = Path(__file__).resolve().parents[1] / "decks" / "deepspeed-zero.yaml"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
@run_async
async def test_the_reveal_draws_nothing_of_the_answer_and_rewraps_nothing(
    store: Store, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bundled deck's real cards (code, tables, long answers); some bring the scrollbar
    # beside the card, whose room is kept, so the question does not rewrap at the reveal.
    decks = load_paths([BUNDLED]).decks
    app = create_app(decks, store, clock=Clock(), new_limit=40)
    async with app.run_test(size=size) as pilot:
        drawn: list[Any] = []
        render = app.console.render

        def counted(renderable: Any, *args: Any, **kwargs: Any) -> Any:
            drawn.append(renderable)
            return render(renderable, *args, **kwargs)

        scrolled = 0
        for _ in range(16):
            await pilot.pause()
            await pilot.pause()
            width = app.screen.query_one("#card").content_region.width
            drawn.clear()
            monkeypatch.setattr(app.console, "render", counted)
            await pilot.press("enter")
            await pilot.pause()
            monkeypatch.undo()
            answer = app.screen.query_one("#answer", CardSide)
            assert answer.display and shown(answer)
            assert not any(r is answer.renderable() for r in drawn)
            scrolled += app.screen.query_one("#card-scroll").show_vertical_scrollbar
            assert app.screen.query_one("#card").content_region.width == width
            await pilot.press("4")
        if size == (80, 24):
            assert scrolled >= 3, scrolled  # the case of the scrollbar came up


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
