"""Nothing a deck holds reaches the terminal as live markup: Rich markup, Textual actions and
links in card fields, tags and titles are shown as the characters they are, and do nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console
from rich.segment import Segment
from tui_support import Clock, run_async, shown

from zerodrill.deck.load import load_paths
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import create_app
from zerodrill.tui.screens.drill_screen import DrillScreen
from zerodrill.tui.widgets.card_side import CardSide
from zerodrill.tui.widgets.session_header import SessionHeader

LIVE = "[@click=app.quit]press[/] [bold red]loud[/] [link=https://example.invalid]go[/link]"

DECK = f"""\
deck: untrusted
title: "Title {LIVE}"
description: Markup in every field.
cards:
  - id: markup-basic
    kind: basic
    front: "Front {LIVE}"
    back: "Back {LIVE}"
  - id: markup-cloze
    kind: cloze
    text: "Cloze {{{{c1::[@click=app.quit]x[/]}}}} and {LIVE}"
"""


def segments(side: CardSide) -> list[Segment]:
    console = Console(width=100, color_system="truecolor")
    return list(console.render(side.renderable(), console.options.update(width=100)))


@run_async
async def test_rich_markup_and_actions_in_a_deck_are_shown_literally_and_do_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "untrusted.yaml"
    path.write_text(DECK)
    result = load_paths([path])
    assert result.ok, result.problems
    with Store.open(tmp_path / "reviews.db") as store:
        app = create_app(result.decks, store, clock=Clock())
        async with app.run_test(size=(120, 30)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, DrillScreen)
            header = shown(screen.query_one(SessionHeader))
            assert "Title [@click=app.quit]press[" in header  # shortened to fit
            for _ in range(2):
                side = screen.query_one("#question", CardSide)
                text = shown(side)
                assert "[@click=app.quit]" in text and "[bold red]loud[/]" in text
                assert "[link=https://example.invalid]go[/link]" in text
                # No style carries an action or a link: nothing to click, nothing to open.
                for segment in segments(side):
                    style = segment.style
                    assert style is None or (not style.meta and not style.link), segment
                # A click right on the text does nothing either.
                await pilot.click(CardSide, offset=(text.splitlines()[2].index("press") + 1, 2))
                assert app.is_running
                await pilot.press("enter")
                answer = shown(screen.query_one("#answer", CardSide))
                assert "[@click=app.quit]" in answer and "[bold red]loud[/]" in answer
                for segment in segments(screen.query_one("#answer", CardSide)):
                    style = segment.style
                    assert style is None or (not style.meta and not style.link), segment
                await pilot.press("5")
            await pilot.press("q")
        assert app.return_value is not None and app.return_value.reviews == 2


def _nested_deck(tmp_path: Path) -> Path:
    # About 1 KB: emphasis 300 deep around one word, which validate accepts (issue 24).
    back = "".join("*a " for _ in range(300)) + "core" + "".join(" b*" for _ in range(300))
    path = tmp_path / "nested.yaml"
    path.write_text(
        "deck: nested\ntitle: Nested\ndescription: Deep emphasis.\ncards:\n"
        f"  - id: deep\n    kind: basic\n    front: Deep?\n    back: '{back}'\n",
        encoding="utf-8",
    )
    return path


@run_async
async def test_emphasis_nested_hundreds_deep_is_drawn_in_the_drill(tmp_path: Path) -> None:
    result = load_paths([_nested_deck(tmp_path)])
    assert result.ok, result.problems
    with Store.open(tmp_path / "reviews.db") as store:
        app = create_app(result.decks, store, clock=Clock())
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("enter")
            await pilot.pause()
            answer = shown(app.screen.query_one("#answer", CardSide))
            assert "core" in answer and "a a a" in answer
            await pilot.press("4")
            await pilot.press("q")
        assert app.return_value is not None and app.return_value.reviews == 1


def test_emphasis_nested_hundreds_deep_is_printed_by_show(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli_support import run_cli

    code, out, err = run_cli(capsys, "show", "deep", str(_nested_deck(tmp_path)))
    assert code == 0, err
    assert "core" in out
