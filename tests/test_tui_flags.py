"""Flags within reach (issue 36, point 7): key f opens a menu of Anki's seven flags, which any
terminal passes on (tmux turns Ctrl+1-7 into nothing), the palette has a command for each,
and the card's header shows its flag and mark. Ctrl+1-7 still work where they arrive."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_tui_mash import in_effect, queue
from textual.widgets import OptionList
from tui_support import Clock, make_app, run_async, shown

from zerodrill.srs.card_actions import Action, CardMarks
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import ZeroDrillApp
from zerodrill.tui.screens.drill_screen import DrillScreen
from zerodrill.tui.screens.flag_menu import FlagMenu
from zerodrill.tui.widgets.card_side import CardSide

SIZE = (80, 24)
FIRST = "zero-tui/stage-key#c1"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


def header(app: ZeroDrillApp, side: str = "question") -> str:
    """The line above the card: its kind, id, flag and mark."""
    return shown(app.screen.query_one(f"#{side}", CardSide)).splitlines()[0]


def menu_lines(app: ZeroDrillApp) -> list[str]:
    """The flag menu's entries, as drawn."""
    flags = app.screen.query_one("#flags", OptionList)
    return [str(flags.get_option_at_index(n).prompt) for n in range(flags.option_count)]


def notices(app: ZeroDrillApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


@run_async
async def test_f_opens_the_flag_menu_and_a_digit_flags_the_card(store: Store) -> None:
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        assert header(app) == "Fill in the blank  zero-tui/stage-key#c1"
        await pilot.press("f")
        assert isinstance(app.screen, FlagMenu)
        assert [line.split() for line in menu_lines(app)] == [
            ["1", "⚑", "Red"],
            ["2", "⚑", "Orange"],
            ["3", "⚑", "Green"],
            ["4", "⚑", "Blue"],
            ["5", "⚑", "Pink"],
            ["6", "⚑", "Turquoise"],
            ["7", "⚑", "Purple"],
            ["0", "No", "flag"],
        ]
        await pilot.press("3")
        assert isinstance(app.screen, DrillScreen)
        assert store.actions.marks()[FIRST] == CardMarks(flag=3)
        assert notices(app)[-1] == "Flagged green."
        assert header(app) == "Fill in the blank  zero-tui/stage-key#c1  ⚑ flagged green"
        # The menu says which flag the card has; that flag again clears it, as in Anki.
        await pilot.press("f")
        assert "3  ⚑ Green  (this card's)" in menu_lines(app)
        await pilot.press("3")
        assert FIRST not in store.actions.marks()
        assert header(app) == "Fill in the blank  zero-tui/stage-key#c1"
        # 0 clears whatever flag it has; Esc, f or q close the menu with nothing done.
        await pilot.press("f", "7", "f", "0")
        assert FIRST not in store.actions.marks()
        assert notices(app)[-2:] == ["Flagged purple.", "Flag cleared."]
        for close in ("escape", "f", "q"):
            await pilot.press("f", close)
            assert isinstance(app.screen, DrillScreen) and app.is_running
        await pilot.press("f", "0")
        assert notices(app)[-1] == "The card has no flag to clear."
        assert len(store.actions.events()) == 4


@run_async
async def test_the_menu_picks_by_arrows_and_enter_or_by_a_click(store: Store) -> None:
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f", "down", "enter")
        assert store.actions.marks()[FIRST].flag == 2
        await pilot.press("f")
        await pilot.pause()
        # A click on Blue, the fourth row, picks it.
        await pilot.click("#flags", offset=(4, 3))
        assert store.actions.marks()[FIRST].flag == 4


@run_async
async def test_f_and_a_digit_typed_fast_on_the_answer_side_flag_and_never_grade(
    store: Store,
) -> None:
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        # The digit reaches the app before the menu is up: it is the menu's, not a grade.
        queue(app, "f", "4")
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, DrillScreen)
        assert store.actions.marks()[FIRST].flag == 4
        assert in_effect(store) == [] and app.screen.card.revealed
        await pilot.press("5")
        assert in_effect(store) == [(FIRST, 5)]


@run_async
async def test_the_palette_flags_the_card_on_show_and_clears_its_flag(store: Store) -> None:
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p", *"Flag: Blue")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert store.actions.marks()[FIRST].flag == 4
        assert header(app).endswith("⚑ flagged blue")
        # A command to clear it now that it has one.
        commands = [c.title for c in app.get_system_commands(app.screen)]
        assert [c for c in commands if c.startswith("Flag")] == [
            *(f"Flag: {c}" for c in "Red Orange Green Blue Pink Turquoise Purple".split()),
            "Flag: none",
        ]
        await pilot.press("ctrl+p", *"Flag: none")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert FIRST not in store.actions.marks() and not header(app).endswith("blue")
        commands = [c.title for c in app.get_system_commands(app.screen)]
        assert "Flag: none" not in commands and "Flag: Red" in commands


@run_async
async def test_the_header_shows_the_flag_and_the_mark_and_undo_takes_them_off(
    store: Store,
) -> None:
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("asterisk", "ctrl+6")
        marked = "Fill in the blank  zero-tui/stage-key#c1  ⚑ flagged turquoise  ★ marked"
        assert header(app) == marked
        # A cloze's answer side shows its text in place of the question: the header too.
        await pilot.press("enter")
        assert header(app, "answer") == marked
        await pilot.press("u")  # the flag, then the mark, taken back
        assert header(app) == "Fill in the blank  zero-tui/stage-key#c1  ★ marked"
        await pilot.press("u")
        assert header(app) == "Fill in the blank  zero-tui/stage-key#c1"


@run_async
async def test_a_card_flagged_and_marked_before_shows_so_when_it_comes_up(store: Store) -> None:
    now = Clock()()
    # In an earlier sitting, or in Anki, brought in by a sync.
    store.actions.record(FIRST, Action.FLAG, at=now, day=now.date(), flag=5)
    store.actions.record(FIRST, Action.MARK, at=now, day=now.date())
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        assert header(app).endswith("  ⚑ flagged pink  ★ marked")
        await pilot.press("enter", "4")  # the next card has neither
        assert header(app) == "Question  zero-tui/stage-2-shards"


@run_async
async def test_the_log_of_marks_is_read_once_a_change_not_once_a_card(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every card shows its marks, and reading them replays the whole action log: they are
    # read again only after an action of this sitting may have changed them.
    reads: list[int] = []
    replayed = type(store.actions).marks

    def counted(self: object) -> dict[str, CardMarks]:
        reads.append(1)
        return replayed(self)

    monkeypatch.setattr(type(store.actions), "marks", counted)
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        at_start = len(reads)
        for _ in range(3):
            await pilot.press("enter", "4")
        assert len(reads) == at_start
        await pilot.press("ctrl+1", "enter", "4")  # the fifth card is the last: still on
        assert isinstance(app.screen, DrillScreen)
        assert len(reads) == at_start + 1
        assert store.actions.marks() != {}
