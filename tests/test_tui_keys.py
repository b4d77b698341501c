"""The keys a learner brings from Anki: Space and Enter, four grade buttons, Ctrl+C and Ctrl+Q,
and the keys that would do nothing saying so. Driven with Pilot, asserted on the screen and
in the store."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from textual.screen import Screen
from textual.widgets import Input
from tui_support import Clock, make_app, run_async, shown, tui_decks

from zerodrill.srs.grades import FOUR_BUTTONS, SIX_BUTTONS, Grade, nearest_button
from zerodrill.srs.settings import BUTTONS
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import ZeroDrillApp, create_app
from zerodrill.tui.screens.drill_screen import DrillScreen
from zerodrill.tui.screens.help import HelpScreen
from zerodrill.tui.screens.nothing_due import NothingDueScreen
from zerodrill.tui.screens.summary import SummaryScreen
from zerodrill.tui.widgets.card_view import CardView
from zerodrill.tui.widgets.grade_bar import GradeBar
from zerodrill.tui.widgets.key_bar import KeyBar

SIZE = (80, 24)


def app_with(store: Store, buttons: int | None = None) -> ZeroDrillApp:
    return create_app(tui_decks("zero"), store, clock=Clock(), buttons=buttons)


def grades(store: Store) -> list[int | None]:
    return [r.grade for r in store.log.entries()]


def card(app: ZeroDrillApp) -> CardView:
    return app.screen.query_one(CardView)


def key_bar(app: ZeroDrillApp) -> str:
    return str(app.screen.query_one(KeyBar).render())


def notices(app: ZeroDrillApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def footer_keys(screen: Screen[object]) -> list[str]:
    """The keys a screen's footer lists (the shown bindings that are not disabled)."""
    return [key for key, b in screen.active_bindings.items() if b.binding.show and b.enabled]


# -- Space and Enter ---------------------------------------------------------------------


@run_async
async def test_space_reveals_and_space_or_enter_then_give_good(store: Store) -> None:
    app = app_with(store)
    async with app.run_test(size=SIZE) as pilot:
        assert "␣⏎ Answer" in key_bar(app)
        await pilot.press("space")
        assert card(app).revealed
        assert "␣⏎ good" in key_bar(app)
        assert app.screen.query_one(GradeBar).highlighted.grade == Grade.GOOD
        await pilot.press("space")
        assert grades(store) == [4] and not card(app).revealed
        await pilot.press("enter", "enter")
        assert grades(store) == [4, 4]


@run_async
async def test_enter_gives_the_suggested_grade_and_space_is_text_while_typing(
    store: Store,
) -> None:
    app = app_with(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", *"the optimizer")
        assert isinstance(app.focused, Input) and app.focused.value == "the optimizer"
        assert not card(app).revealed
        await pilot.press("enter")
        assert card(app).revealed and app.screen.query_one(GradeBar).suggested == 1
        assert "␣⏎ wrong" in key_bar(app)
        await pilot.press("enter")
    assert grades(store) == [1]


def test_the_key_bar_fits_80_columns_whatever_grade_is_highlighted() -> None:
    widest = max(len(b.name) for b in (*SIX_BUTTONS, *FOUR_BUTTONS))
    # The answer side's other keys, as drawn (see the six-button snapshot's last line); the
    # second page, behind m, is tests/test_tui_key_bar.py's.
    rest = " 0-5 Grade  o Sources  u Undo  e Edit  ? Help  q Quit  m More "
    assert len(f" ␣⏎ {'x' * widest} ") + len(rest) <= 80


# -- four buttons --------------------------------------------------------------------------


def test_the_four_buttons_are_sm2_grades_1_3_4_5_and_suggestions_keep_pass_or_fail() -> None:
    assert [(b.key, b.name, int(b.grade)) for b in FOUR_BUTTONS] == [
        (1, "Again", 1),
        (2, "Hard", 3),
        (3, "Good", 4),
        (4, "Easy", 5),
    ]
    nearest = {g: nearest_button(FOUR_BUTTONS, g).name for g in range(6)}
    assert nearest == {0: "Again", 1: "Again", 2: "Again", 3: "Hard", 4: "Good", 5: "Easy"}


@run_async
async def test_four_buttons_grade_1_3_4_5_and_0_and_5_do_nothing(store: Store) -> None:
    app = app_with(store, buttons=4)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        bar = app.screen.query_one(GradeBar)
        text = shown(bar)
        for name in ("1 Again", "2 Hard", "3 Good", "4 Easy"):
            assert name in text
        assert "blackout" not in text and "perfect" not in text
        assert "1-4 Grade" in key_bar(app) and "␣⏎ Good" in key_bar(app)
        await pilot.press("0", "5")
        assert card(app).revealed and grades(store) == []
        await pilot.press("2")
        for key in ("enter", "4", "enter", "3", "enter", "1"):
            await pilot.press(key)
    assert grades(store) == [3, 5, 4, 1]


@run_async
async def test_a_suggested_grade_highlights_the_nearest_of_four_buttons(store: Store) -> None:
    app = app_with(store, buttons=4)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", *"optimizer", "enter")
        assert app.screen.query_one(GradeBar).suggested == 1
        assert "␣⏎ Again" in key_bar(app)
        # The typed-answer check calls the grade what its button is called: not "1 wrong".
        verdict = " ".join(shown(app.screen.query_one("#answer")).split())
        assert "Not right: 1 Again suggested" in verdict
        await pilot.press("space")
    assert grades(store) == [1]


@run_async
async def test_a_near_miss_in_four_buttons_suggests_hard_by_its_key(store: Store) -> None:
    app = create_app(tui_decks("comm"), store, clock=Clock(), buttons=4)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", *"reduce-scater, all-gather", "enter")
        verdict = " ".join(shown(app.screen.query_one("#answer")).split())
        assert "Nearly right, a slip where marked ≈: 2 Hard suggested" in verdict
        await pilot.press("enter")
    assert grades(store) == [3]


@run_async
async def test_b_switches_the_layout_on_the_card_shown(store: Store) -> None:
    app = app_with(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter", "b")
        assert "4 Easy" in shown(app.screen.query_one(GradeBar))
        assert "1-4 Grade" in key_bar(app)
        await pilot.press("4")
        await pilot.press("enter", "b", "5")
    assert grades(store) == [5, 5]


def test_the_layout_is_remembered_across_two_runs_on_one_database(db: Path) -> None:
    async def drill(buttons: int | None, keys: tuple[str, ...]) -> tuple[int, str]:
        with Store.open(db) as store:
            app = app_with(store, buttons)
            async with app.run_test(size=SIZE) as pilot:
                await pilot.press("enter")
                layout = shown(app.screen.query_one(GradeBar))
                await pilot.press(*keys)
            return app.buttons, layout

    results: list[tuple[int, str]] = []
    for buttons, keys in [(None, ("b",)), (None, ()), (6, ()), (None, ())]:
        results.append(asyncio.run(drill(buttons, keys)))
    # The default; then four, chosen in the drill; then six, from --buttons; and it stays.
    assert [r[0] for r in results] == [4, 4, 6, 6]
    assert "5 perfect" in results[0][1] and "4 Easy" in results[1][1]
    assert "5 perfect" in results[3][1]


@run_async
async def test_a_layout_that_cannot_be_saved_is_used_and_said_once(store: Store, db: Path) -> None:
    # Another program holds the write lock past the busy timeout: nothing can be saved.
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        app = app_with(store, buttons=4)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("enter")
            assert "4 Easy" in shown(app.screen.query_one(GradeBar))
            said = [n for n in notices(app) if "not remembered" in n]
            assert len(said) == 1 and "locked" in said[0]
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert store.settings.get(BUTTONS) is None


# -- quitting ------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["ctrl+c", "ctrl+q"])
@pytest.mark.parametrize("where", ["question", "answer", "typing", "help", "summary"])
def test_ctrl_c_and_ctrl_q_quit_as_q_does_everywhere(store: Store, key: str, where: str) -> None:
    @run_async
    async def go() -> None:
        app = make_app(store, "zero")
        async with app.run_test(size=SIZE) as pilot:
            if where != "typing":  # the first card is the one to type in
                await pilot.press("enter", "4")
            if where == "answer":
                await pilot.press("enter")
            elif where == "typing":
                await pilot.press("a", "x")
                assert isinstance(app.focused, Input)
            elif where == "help":
                await pilot.press("question_mark")
                assert isinstance(app.screen, HelpScreen)
            elif where == "summary":
                for _ in range(4):
                    await pilot.press("enter", "5")
                assert isinstance(app.screen, SummaryScreen)
            await pilot.press(key)
            assert not notices(app)  # no "press ctrl+q to quit"
        assert app.return_value is not None and app.return_value.reviews == len(
            list(store.log.entries())
        )
        assert app.return_code == 0

    go()


# -- the end of a sitting ------------------------------------------------------------------


@run_async
async def test_enter_on_session_done_does_not_quit_and_undo_still_works(store: Store) -> None:
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(5):
            await pilot.press("enter", "5")
        assert isinstance(app.screen, SummaryScreen)
        assert sorted(footer_keys(app.screen)) == sorted(["u", "d", "s", "question_mark", "q"])
        await pilot.press("enter", "space")
        assert app.is_running and isinstance(app.screen, SummaryScreen)
        await pilot.press("u")
        assert isinstance(app.screen, DrillScreen)


@run_async
async def test_enter_on_all_caught_up_does_not_quit(store: Store) -> None:
    clock = Clock()
    app = make_app(store, "zero", clock=clock, new_limit=0)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, NothingDueScreen)
        assert sorted(footer_keys(app.screen)) == sorted(["d", "s", "question_mark", "q"])
        await pilot.press("enter")
        assert app.is_running and isinstance(app.screen, NothingDueScreen)
        await pilot.press("u")
        assert notices(app) == ["Nothing to undo."]
        await pilot.press("q")
    assert not app.is_running


# -- keys with nothing to do ---------------------------------------------------------------


@run_async
async def test_u_with_nothing_to_undo_says_so(store: Store) -> None:
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("u")
        assert notices(app) == ["Nothing to undo."]
        assert " u Undo " in key_bar(app)  # still listed, dimmed
        await pilot.press("enter", "4", "u")
        assert notices(app)[-1] == "Last grade undone."


@run_async
async def test_a_on_a_red_flag_says_there_is_nothing_to_type(store: Store) -> None:
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(3):
            await pilot.press("enter", "5")
        assert card(app).item.key == "zero-tui/stage3-default"
        await pilot.press("a")
        assert app.focused is None and not card(app).revealed
        assert notices(app) == ["Nothing to type on this card: Space or Enter shows the answer."]


@run_async
async def test_quitting_while_a_screen_warms_up_is_no_crash(store: Store) -> None:
    # A Ctrl+C in the real terminal just as the first card shows ends the drill while the
    # screen still makes its typing widgets ready: the warm-up then finds it torn down.
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE):
        screen = DrillScreen(app.session, warm_up_on_mount=False)
        await app.push_screen(screen)
        app.exit()
        warm_up = asyncio.create_task(screen.warm_up())
    await warm_up
    assert app.return_code == 0


# -- four buttons everywhere (issue 24, point 2) --------------------------------------------


@run_async
async def test_the_summary_names_four_button_grades_by_their_buttons(store: Store) -> None:
    app = app_with(store, buttons=4)
    async with app.run_test(size=SIZE) as pilot:
        # Easy, Good, Easy, Again (its card comes back), Easy, then the repeat: Good.
        for key in ("4", "3", "4", "1", "4", "3"):
            await pilot.press("enter", key)
        assert isinstance(app.screen, SummaryScreen)
        body = " ".join(str(app.screen.query_one("#summary-body").render()).split())
        assert "4 Easy ×3" in body and "3 Good ×2" in body and "1 Again ×1" in body
        assert "perfect" not in body and "good" not in body


@run_async
async def test_the_summary_keeps_six_grades_by_their_sm2_names(store: Store) -> None:
    app = app_with(store, buttons=6)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(5):
            await pilot.press("enter", "5")
        body = " ".join(str(app.screen.query_one("#summary-body").render()).split())
        assert "5 perfect ×5" in body


@pytest.mark.parametrize(("buttons", "usual"), [(4, "else 3 Good"), (6, "else 4 good")])
def test_the_help_names_what_enter_gives_in_the_layout_in_use(
    store: Store, buttons: int, usual: str
) -> None:
    @run_async
    async def go() -> None:
        app = app_with(store, buttons=buttons)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("question_mark")
            assert isinstance(app.screen, HelpScreen)
            text = " ".join(shown(app.screen.query_one(".section")).split())
            assert usual in text
            # Enter on the answer side gives what the help says it gives.
            await pilot.press("escape", "enter", "enter")
        assert grades(store) == [4]

    go()


@run_async
async def test_undo_last_grade_is_not_offered_where_there_is_no_grade(store: Store) -> None:
    app = make_app(store, "zero", new_limit=0)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, NothingDueScreen)
        await pilot.pause()  # the footer is drawn
        assert "Quit" in footer_text(app.screen)
        assert "Undo last grade" not in footer_text(app.screen)
        await pilot.press("u")
        assert notices(app) == ["Nothing to undo."]
    app = make_app(store, "comm")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter", "5", "enter", "5")
        assert isinstance(app.screen, SummaryScreen)
        await pilot.pause()
        assert "Undo last grade" in footer_text(app.screen)
        await pilot.press("u", "enter", "5")
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        assert "Undo last grade" in footer_text(app.screen)


@run_async
async def test_after_a_card_action_the_last_screens_name_it_not_a_grade(
    store: Store, tmp_path: Path
) -> None:
    # Issue 36, break 11: after a suspend the summary offered "Undo last grade", and u took
    # back the suspend.
    app = make_app(store, "comm")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter", "5", "@")
        assert isinstance(app.screen, SummaryScreen)
        await pilot.pause()
        footer = footer_text(app.screen)
        assert "Undo suspend" in footer and "Undo last grade" not in footer
        await pilot.press("u")
        assert notices(app)[-1] == "Suspend undone."
        assert isinstance(app.screen, DrillScreen) and not store.actions.marks()
        await pilot.press("minus")
        assert isinstance(app.screen, SummaryScreen)
        await pilot.pause()
        assert "Undo bury" in footer_text(app.screen)
        await pilot.press("u", "enter", "4")
        assert isinstance(app.screen, SummaryScreen)
        await pilot.pause()
        assert "Undo last grade" in footer_text(app.screen)
    assert grades(store) == [5, 4]
    # Nothing graded, every card suspended: the nothing-due screen says the same.
    with Store.open(tmp_path / "other.db") as other:
        app = make_app(other, "comm")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("at", "at")
            assert isinstance(app.screen, NothingDueScreen)
            await pilot.pause()
            footer = footer_text(app.screen)
            assert "Undo suspend" in footer and "Undo last grade" not in footer


def footer_text(screen: Screen[object]) -> str:
    """What the screen's Footer draws: the keys it shows, dimmed ones included."""
    from textual.widgets import Footer

    footer = screen.query_one(Footer)
    return " ".join(str(key.render()) for key in footer.children)
