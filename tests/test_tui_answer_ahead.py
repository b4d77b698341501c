"""The answer side is drawn while the question is read, so the reveal key draws none of it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tui_support import make_app, run_async, shown

from zerodrill.srs.store import Store
from zerodrill.tui.widgets.card_side import CardSide


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
