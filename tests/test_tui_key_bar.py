"""The drill's key bar at 80 columns: every key on one of its two pages, the card's actions
(bury, suspend, mark, flag) and the dialogs behind m as in Anki's More menu, and the help
listing the new keys without a line cut or wrapped.

Update the snapshots after a deliberate change with
``pytest --snapshot-update tests/test_tui_key_bar.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.strip import Strip
from textual.widgets import Input, Static
from tui_support import Clock, make_app, next_frame, run_async, shown, tui_decks

from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import ZeroDrillApp, create_app
from zerodrill.tui.screens.drill_screen import DrillScreen
from zerodrill.tui.screens.help import HelpScreen
from zerodrill.tui.widgets.card_view import CardView
from zerodrill.tui.widgets.key_bar import KeyBar

SIZE = (80, 24)
#: The card's actions and the sitting's dialogs, on the second page.
MORE_PAGE = [" - Bury ", " @ Suspend ", " * Mark ", " f Flag ", " d Decks ", " s Stats "]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


def bar(app: ZeroDrillApp) -> str:
    return shown(app.screen.query_one(KeyBar))


def on_a_page(app: ZeroDrillApp) -> tuple[str, str]:
    """The key bar's two pages as drawn now: (first, second)."""
    assert isinstance(app.screen, DrillScreen)
    app.screen.key_bar.show_more(False)
    first = bar(app)
    app.screen.key_bar.show_more(True)
    second = bar(app)
    app.screen.key_bar.show_more(False)
    return first, second


@pytest.mark.parametrize("buttons", [6, 4])
@run_async
async def test_every_key_is_on_a_page_and_each_page_fits_80_columns(
    store: Store, buttons: int
) -> None:
    app = create_app(tui_decks("zero"), store, clock=Clock(), buttons=buttons)
    async with app.run_test(size=SIZE) as pilot:
        grades = "0-5 Grade" if buttons == 6 else "1-4 Grade"
        answer = ["␣⏎ ", grades, " o Sources "]  # its first card has sources
        for side, keys in (("question", ["␣⏎ Answer"]), ("answer", answer)):
            first, second = on_a_page(app)
            for page in (first, second):
                assert len(page) <= 80, (side, page)
            for key in (*keys, " u Undo ", " e Edit ", " ? Help ", " q Quit ", " m More "):
                assert key in first, (side, key, first)
            for key in (*MORE_PAGE, " ^p palette ", " m Back "):
                assert key in second, (side, key, second)
            await pilot.press("enter")  # the answer side next


@run_async
async def test_m_shows_the_cards_actions_and_m_or_esc_goes_back(store: Store) -> None:
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        assert " m More " in bar(app) and " - Bury " not in bar(app)
        await pilot.press("m")
        assert all(key in bar(app) for key in MORE_PAGE)
        await pilot.press("m")
        assert " m More " in bar(app)
        await pilot.press("m", "escape")
        assert " m More " in bar(app)
        # A click on "m More" (the bar's last entry) does what m does.
        await pilot.click(KeyBar, offset=(len(bar(app).rstrip()) - 2, 0))
        assert " m Back " in bar(app)


@run_async
async def test_the_more_page_lasts_until_the_answer_or_the_next_card(store: Store) -> None:
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        first = app.screen.query_one(CardView).item
        await pilot.press("m", "asterisk")
        # Marked, and the page stays: flag it too if you like.
        assert " m Back " in bar(app)
        await pilot.press("enter")  # the answer: the grade keys are on the first page
        assert " m More " in bar(app) and "Grade" in bar(app)
        await pilot.press("m", "minus")  # a key of the second page works from it
        assert app.screen.query_one(CardView).item is not first
        assert " m More " in bar(app) and "␣⏎ Answer" in bar(app)


@run_async
async def test_while_typing_m_is_text_and_esc_stops_typing(store: Store) -> None:
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "m")
        assert isinstance(app.focused, Input) and app.focused.value == "m"
        assert " m More " in bar(app) and " - Bury " not in bar(app)
        await pilot.press("escape")
        assert app.focused is None and " m More " in bar(app)


@run_async
async def test_the_help_lists_the_new_keys_each_on_one_line_at_80x24(store: Store) -> None:
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys = app.screen.query(Static).filter(".section").first(Static)
        lines = shown(keys).splitlines()
        # Drawn at the dialog's width, each line of the text is one line on screen.
        assert keys.size.height == len(lines) == len(str(keys.content).splitlines())
        assert max(len(line) for line in lines) <= keys.content_size.width
        said = {line.split(maxsplit=1)[0]: line for line in lines}
        assert "bury the card until tomorrow" in said["-"]
        assert "suspend" in said["@"] and "Unsuspend" in said["@"]
        assert "mark" in said["*"]
        assert "flag it" in said["f"] and "Ctrl+1-7" in said["f"]
        assert "unfold" in said["o"]
        assert "edit the card's YAML" in said["e"]
        assert "key bar's other keys" in said["m"]


async def _key_line_after(store: Store, keys: list[str], theme: str, *, switch: bool) -> Strip:
    """The key bar's line after ``keys``, in ``theme``: set before the start, or after the keys
    (``switch``), when each set of keys met on the way has been drawn in the other theme."""
    app = make_app(store, "zero")
    other = "textual-dark" if theme == "textual-light" else "textual-light"
    app.theme = other if switch else theme
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*keys)
        if switch:
            app.theme = theme
            await pilot.pause()
        (line,) = next_frame(app.screen.query_one(KeyBar))
        return line


@run_async
async def test_keys_drawn_before_are_drawn_anew_in_a_new_theme(tmp_path: Path) -> None:
    # The answer's keys are met on the second card and again on the third, the question's
    # on each card, before the theme changes.
    keys = ["enter", "4", "enter", "4", "enter"]
    for theme in ("textual-light", "textual-dark"):
        with Store.open(tmp_path / f"switched-{theme}.db") as store:
            switched = await _key_line_after(store, keys, theme, switch=True)
        with Store.open(tmp_path / f"started-{theme}.db") as store:
            started = await _key_line_after(store, keys, theme, switch=False)
        assert "Grade" in switched.text
        assert list(switched) == list(started)


# -- how it looks at 80x24 -------------------------------------------------------------------


def test_snapshot_key_bar_more_on_the_question(snap_compare, store: Store) -> None:
    assert snap_compare(make_app(store, "zero"), press=["m"], terminal_size=SIZE)


def test_snapshot_key_bar_on_the_answer(snap_compare, store: Store) -> None:
    assert snap_compare(make_app(store, "zero"), press=["enter"], terminal_size=SIZE)


def test_snapshot_key_bar_more_on_the_answer(snap_compare, store: Store) -> None:
    assert snap_compare(make_app(store, "zero"), press=["enter", "m"], terminal_size=SIZE)
