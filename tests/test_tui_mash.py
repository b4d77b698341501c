"""Key mashing: the real drill over a real store, driven by random keys at machine speed.

Keys, resizes and clicks are queued as the terminal driver queues them, without waiting for the
app between them, so screens are pushed and popped while keys for the old ones are still on
their way (the issue's ScreenStackError and KeyError came from exactly that). Every few dozen
keys the app is let settle and what the screen says is compared with the store; at the end the
drill must quit on q with a summary equal to the review log. Any exception in the app fails
the test (Pilot re-raises it when the app exits).

The suite runs a light set of seeds; --run-slow (ZERODRILL_HEAVY=1) runs ten times more.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import unicodedata
from collections import Counter
from pathlib import Path

import pytest
from srs_support import ReviewKind, kind
from textual import events
from textual.drivers.headless_driver import HeadlessDriver
from textual.errors import NoWidget
from textual.geometry import Size
from tui_support import Clock, make_app, run_async

from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import ZeroDrillApp
from zerodrill.tui.screens.drill_screen import DrillScreen
from zerodrill.tui.widgets.session_header import SessionHeader

SCALE = 10 if os.environ.get("ZERODRILL_HEAVY") else 1
#: Seeds that once found a break stay in the quick set: 51, the palette's search after it
#: closed; 89, the theme picker closed twice; 28 and 43, a palette taken off the stack with its
#: search still queued; 118, a click on a closed dialog's widget; 53, Ctrl+P again before the
#: closed palette was removed (its fixed id taken twice).
SEEDS = sorted({*range(12 * SCALE), 28, 43, 51, 53, 89, 118})
KEYS_PER_RUN = 240
#: Between checks of the screen against the store.
STRETCH = 40

#: Every key a screen binds, and the keys a learner's hand falls on. Not q, Ctrl+Q or Ctrl+C:
#: those end the run, which comes at the end.
KEYS = [
    *("enter", "escape", "tab", "shift+tab", "up", "down", "left", "right"),
    *("pageup", "pagedown", "home", "end", "backspace", "delete", "ctrl+p", "space"),
    *"0123456789",
    *"adsum?x",  # m: the key bar's second page
    *"fo",  # the flag menu; the answer's sources unfolded
    *("enter", "enter", "escape", "d", "ctrl+p", "4", "5", "u", "a", "s", "?"),
]
SIZES = [(100, 30), (80, 24), (120, 40), (79, 24), (60, 20), (20, 5)]


def key_event(key: str) -> events.Key:
    """The event the terminal driver makes for ``key`` (as Pilot's press does)."""
    names = {"?": "question_mark", " ": "space"}
    key = names.get(key, key)
    try:
        char: str | None = unicodedata.lookup(key.upper().replace("_", " "))
    except KeyError:
        char = key if len(key) == 1 else None
    if key == "space":
        char = " "
    elif key == "enter":
        char = "\r"
    elif key == "tab":
        char = "\t"
    elif key == "escape":
        char = "\x1b"
    return events.Key(key, char)


def in_effect(store: Store) -> list[tuple[str, int | None]]:
    """The grades the log holds that no undo took back, as (card, grade)."""
    log = list(store.log.entries())
    undone = {r.undoes for r in log if kind(r) is ReviewKind.UNDO}
    return [
        (r.key, r.grade)
        for r in log
        if kind(r) in (ReviewKind.GRADE, ReviewKind.REPEAT) and r.identity not in undone
    ]


def assert_screen_matches_store(app: ZeroDrillApp, store: Store) -> None:
    given = in_effect(store)
    assert app.session.done == len(given)
    screen = app.screen_stack[-1] if app.screen_stack else None
    drills = [s for s in app.screen_stack if isinstance(s, DrillScreen)]
    if drills and drills[-1] is app.screen_stack[-1] or isinstance(screen, DrillScreen):
        drill = drills[-1]
        header = drill.query_one(SessionHeader)
        # What the header shows: grades given in the sitting, and what is left.
        assert header.done == len(given)
        assert header.remaining == app.session.remaining()
        assert f"{header.done}/{header.done + header.remaining.total}" in str(header.render())
        # The card on show is the one a grade would go to.
        if app.session.current is not None:
            assert drill.card.item is app.session.current


async def mash(tmp_path: Path, seed: int) -> None:
    rnd = random.Random(seed)
    with Store.open(tmp_path / f"mash-{seed}.db") as store:
        app = make_app(store, clock=Clock(), new_limit=rnd.choice([0, 3, 20]))
        async with app.run_test(size=(100, 30)) as pilot:
            driver = app._driver
            assert isinstance(driver, HeadlessDriver)
            for n in range(1, KEYS_PER_RUN + 1):
                roll = rnd.random()
                if roll < 0.04:
                    size = Size(*rnd.choice(SIZES))
                    driver._size = size
                    app.post_message(events.Resize(size, size))
                elif roll < 0.06:
                    # A click on the bottom line (the key bar or a dialog's footer) or anywhere,
                    # whatever is open. Pilot refuses a click where no widget is: nothing to do.
                    x = rnd.randrange(app.size.width)
                    y = rnd.choice((app.size.height - 1, rnd.randrange(app.size.height)))
                    with contextlib.suppress(NoWidget):
                        await pilot.click(offset=(x, y))
                else:
                    event = key_event(rnd.choice(KEYS))
                    event.set_sender(app)
                    driver.send_message(event)
                for _ in range(rnd.choice((0, 0, 0, 1, 2, 8))):
                    await asyncio.sleep(0)
                if n % STRETCH == 0:
                    await pilot.pause()
                    await pilot.pause()
                    assert_screen_matches_store(app, store)
            # The end: a terminal big enough, every dialog closed, then q.
            await pilot.resize_terminal(100, 30)
            for _ in range(8):
                if app.return_value is not None or not app.is_running:
                    break
                await pilot.press("escape", "escape", "escape", "q")
                await pilot.pause()
        summary = app.return_value
        assert summary is not None, f"seed {seed}: q did not end the drill ({app.error!r})"
        given = in_effect(store)
        assert summary.reviews == len(given)
        assert dict(summary.grades) == dict(Counter(g for _, g in given if g is not None))


@pytest.mark.parametrize("seed", SEEDS)
@run_async
async def test_random_keys_never_crash_and_the_screen_matches_the_store(
    tmp_path: Path, seed: int
) -> None:
    await mash(tmp_path, seed)


# -- the sequences, each at machine speed -------------------------------------------


def queue(app: ZeroDrillApp, *keys: str) -> None:
    """Put ``keys`` in the app's queue at once, as a terminal does with keys typed 15 ms apart."""
    for key in keys:
        event = key_event(key)
        event.set_sender(app)
        app.post_message(event)


@pytest.mark.parametrize(
    "keys",
    [
        ("d", "enter", "enter", "enter"),
        ("ctrl+p", "enter", "enter"),
        ("ctrl+p", "pageup"),
        ("ctrl+p", "pagedown", "pageup", "enter", "enter"),
        ("d", "pageup"),
        ("d", "escape", "escape"),
        ("d", "d", "enter"),
        ("s", "?", "escape", "escape"),
        ("enter", "4", "u", "u", "d", "enter"),
    ],
)
@run_async
async def test_keys_faster_than_screens_change_never_crash(
    tmp_path: Path, keys: tuple[str, ...]
) -> None:
    with Store.open(tmp_path / "reviews.db") as store:
        app = make_app(store, clock=Clock())
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            queue(app, *keys)
            await pilot.pause()
            await pilot.pause()
            if app.is_running:
                # One dialog at most over the drill, and the drill still under it.
                assert isinstance(app.screen_stack[0], DrillScreen)
                assert len(app.screen_stack) <= 2
                await pilot.press("escape", "q")
        assert app.return_value is not None
        assert app.return_value.reviews == len(in_effect(store))


@run_async
async def test_the_too_small_notice_follows_a_resize_made_while_ctrl_p_was_pressed(
    tmp_path: Path,
) -> None:
    with Store.open(tmp_path / "reviews.db") as store:
        app = make_app(store, "zero", clock=Clock())
        async with app.run_test(size=(20, 5)) as pilot:
            await pilot.pause()
            await pilot.press("ctrl+p")
            await pilot.resize_terminal(100, 30)
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, DrillScreen)
            # Digits grade again: no stale notice is left swallowing them.
            await pilot.press("enter", "5")
            assert len(in_effect(store)) == 1


@run_async
async def test_a_notice_under_a_closing_screen_checks_the_size_when_back_on_top(
    tmp_path: Path,
) -> None:
    from zerodrill.tui.screens.help import HelpScreen
    from zerodrill.tui.screens.too_small import TooSmallScreen

    with Store.open(tmp_path / "reviews.db") as store:
        app = make_app(store, "zero", clock=Clock())
        async with app.run_test(size=(20, 5)) as pilot:
            await pilot.pause()
            # However a screen came over the notice, the notice is right once it shows again.
            await app.push_screen(HelpScreen())
            await pilot.resize_terminal(100, 30)
            assert isinstance(app.screen_stack[-2], TooSmallScreen)
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, DrillScreen)
            await app.push_screen(HelpScreen())
            await pilot.resize_terminal(30, 10)
            await pilot.resize_terminal(50, 12)
            assert isinstance(app.screen, TooSmallScreen)
            notices = [s for s in app.screen_stack if isinstance(s, TooSmallScreen)]
            assert "this one is 50×12" in str(notices[-1].query_one("#too-small-message").render())


@pytest.mark.parametrize("key", ["ctrl+c", "ctrl+q"])
@pytest.mark.parametrize("opened", ["", "?", "s", "d", "ctrl+p", "a", "small"])
@run_async
async def test_ctrl_c_or_ctrl_q_on_every_screen_ends_the_drill_with_its_summary(
    tmp_path: Path, opened: str, key: str
) -> None:
    with Store.open(tmp_path / "reviews.db") as store:
        app = make_app(store, "zero", clock=Clock())
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("enter", "4")
            if opened == "small":
                await pilot.resize_terminal(20, 5)
            elif opened:
                await pilot.press(opened)
            # Issue 14: Ctrl+C quits as q and Ctrl+Q do (it used to only say how to quit),
            # over every screen and dialog: never a crash, never a loss.
            await pilot.press(key)
            assert not app.is_running
        assert app.return_value is not None
        assert app.return_value.reviews == len(in_effect(store)) == 1


@pytest.mark.parametrize("after", ["s", "d", "?"])
@run_async
async def test_a_dialog_opened_as_the_last_card_is_graded_gives_way_to_the_summary(
    tmp_path: Path, after: str
) -> None:
    with Store.open(tmp_path / "reviews.db") as store:
        app = make_app(store, "zero", clock=Clock(), new_limit=1)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("enter")
            # The grade ends the sitting; the dialog's key comes before the screen changes.
            queue(app, "5", after)
            await pilot.pause()
            await pilot.pause()
            assert app.session.done == 1
            assert app.screen.__class__.__name__ == "SummaryScreen"
            await pilot.press("q")
        assert app.return_value is not None and app.return_value.reviews == 1


@run_async
async def test_the_theme_picker_closes_once_however_fast_enter_comes(tmp_path: Path) -> None:
    with Store.open(tmp_path / "reviews.db") as store:
        app = make_app(store, "zero", clock=Clock())
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            app.action_change_theme()
            queue(app, "down", "enter", "enter", "enter")
            await pilot.pause()
            await pilot.pause()
            assert isinstance(app.screen, DrillScreen)
            await pilot.press("q")
        assert app.return_value is not None


@pytest.mark.parametrize("key", ["question_mark", "ctrl+p"])  # the help; the palette
@run_async
async def test_a_resize_to_a_size_the_terminal_no_longer_has_lays_no_screen_out(
    tmp_path: Path, key: str
) -> None:
    # Resized twice while busy, a screen can hold events of two sizes: laid out at each in
    # turn, the drill and a dialog over it went back and forth without end. Only the
    # terminal's size of now lays a screen out.
    with Store.open(tmp_path / "reviews.db") as store:
        app = make_app(store, clock=Clock())
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press(key)  # a screen over the drill, the drill showing through
            await pilot.pause()
            assert len(app.screen_stack) == 2
            gone = Size(60, 20)
            for screen in app.screen_stack:
                screen.post_message(events.Resize(gone, gone))
            await pilot.pause()
            assert [s.outer_size for s in app.screen_stack] == [Size(100, 30)] * 2
            # The size of now still lays them out.
            await pilot.resize_terminal(90, 28)
            await pilot.pause()
            assert [s.outer_size for s in app.screen_stack] == [Size(90, 28)] * 2


@run_async
async def test_keys_typed_fast_never_leave_the_focus_in_a_hidden_typing_box(tmp_path: Path) -> None:
    # Issue 36, break 9: `a` asked for the focus, which came only after the `@` behind it had
    # moved on to the next card, into the typing box hidden with the card it was made for:
    # Space and the digits were text there, unseen, until Esc.
    with Store.open(tmp_path / "reviews.db") as store:
        app = make_app(store, "zero", clock=Clock())
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("enter", "5")
            drill = app.screen
            assert isinstance(drill, DrillScreen)
            # Bury this card; `a` on the next one, which has a box to type in; suspend that
            # one and the one after it.
            queue(app, "minus", "a", "at", "at")
            await pilot.pause()
            await pilot.pause()
            acted = [(e.action.value, e.key) for e in store.actions.events()]
            assert acted == [
                ("bury", "zero-tui/stage-2-shards"),
                ("suspend", "zero-tui/fsdp"),  # a follow-up: the card `a` was pressed on
                ("suspend", "zero-tui/stage3-default"),
            ]
            assert app.focused is None
            assert drill.card.item is not None and drill.card.item.key == "zero-tui/offload"
            await pilot.press("space")
            assert drill.card.revealed
            await pilot.press("4")
            assert in_effect(store)[-1] == ("zero-tui/offload", 4)
