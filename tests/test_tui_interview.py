"""``zerodrill interview``, driven with Pilot as a learner would, with an injected clock,
asserting on the screen and in the store."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from cli_support import run_cli
from textual.widgets import Static, TextArea
from tui_support import Clock, run_async, shown

from zerodrill.deck.load import load_paths
from zerodrill.deck.model import Deck
from zerodrill.srs.interview_run import AttemptMovedOn, InterviewRun, Step, history
from zerodrill.srs.queue import build_queue, items_of
from zerodrill.srs.store import Store
from zerodrill.tui.interview.answering import FollowUpScreen, QuestionScreen
from zerodrill.tui.interview.checklists import PointsScreen, RedFlagsScreen, TalkTrackScreen
from zerodrill.tui.interview.end import EndScreen
from zerodrill.tui.interview.interview_app import InterviewApp, create_interview_app
from zerodrill.tui.interview.widgets import CheckItem, InterviewHeader, clock_label
from zerodrill.tui.screens.too_small import TooSmallScreen
from zerodrill.tui.widgets.grade_bar import GradeBar

DECKS = Path(__file__).resolve().parent / "data" / "interview"
SIZE = (80, 24)
WALKTHROUGH = "stage-walkthrough"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


def decks() -> tuple[Deck, ...]:
    result = load_paths([DECKS])
    assert result.ok, result.problems
    return result.decks


def make(store: Store, clock: Clock, interview_id: str = WALKTHROUGH) -> InterviewApp:
    return create_interview_app(decks(), store, clock=clock, interview_id=interview_id)


def reviews(store: Store) -> list[tuple[str, int | None, str | None]]:
    return [(r.key, r.grade, r.typed) for r in store.log.entries()]


def header(app: InterviewApp) -> str:
    return shown(app.screen.query_one(InterviewHeader))


def _text(app: InterviewApp) -> str:
    """What the screen's text widgets draw, as the learner reads it."""
    parts = []
    for widget in app.screen.query("*"):
        if isinstance(widget, Static | CheckItem | InterviewHeader) or widget.id == "model":
            parts.append(shown(widget))
    for side in app.screen.query("CardSide"):
        parts.append(shown(side))
    return "\n".join(parts)


def test_clock_label_counts_down_then_shows_overtime() -> None:
    from datetime import timedelta as td

    assert clock_label(td(0), td(minutes=4)) == "4:00 left"
    assert clock_label(td(seconds=0.4), td(minutes=4)) == "4:00 left"
    assert clock_label(td(seconds=61), td(minutes=4)) == "2:59 left"
    assert clock_label(td(minutes=4), td(minutes=4)) == "0:00 left"
    assert clock_label(td(minutes=4, seconds=0.3), td(minutes=4)) == "+0:01 over"
    assert clock_label(td(minutes=4, seconds=42), td(minutes=4)) == "+0:42 over"


def test_the_end_gives_time_on_the_clock_s_own_scale() -> None:
    from zerodrill.tui.interview.end import _time

    assert _time(5, 240) == "0:05 of 4:00"
    assert _time(251.5, 240) == "4:12 of 4:00 (+0:12 over)"


@run_async
async def test_a_full_interview_on_screen_and_in_the_store(store: Store) -> None:
    clock = Clock()
    app = make(store, clock)
    async with app.run_test(size=SIZE) as pilot:
        # The question, its clock from the injected clock.
        assert isinstance(app.screen, QuestionScreen)
        assert "The ZeRO stage key, end to end" in header(app)
        assert "Question" in header(app) and "4:00 left" in header(app)
        assert "Which key selects the ZeRO stage" in _text(app)
        clock.advance(seconds=45)
        app.tick()
        assert "3:15 left" in header(app)
        # Typed: Ctrl+J makes a new line, Enter hands it in.
        await pilot.press("a", *"stage key", "ctrl+j", *"stage 2 grads", "enter")
        assert isinstance(app.screen, PointsScreen)
        run = app.run_
        assert run.question_typed == "stage key\nstage 2 grads"
        assert run.seconds_used == 45
        assert "stage key" in _text(app)  # what was typed, to tick against

        # Points: digits, Space on the highlighted one, a click; a second tick unticks.
        await pilot.press("1", "3", "down", "space", "3")
        await pilot.click(CheckItem, offset=(2, 0))  # the first entry: unticks it
        await pilot.press("1")
        items = list(app.screen.query(CheckItem))
        assert [item.checked for item in items] == [True, False, False, True]
        assert "[x]  1" in shown(items[0]) and "[ ]  2" in shown(items[1])
        await pilot.press("enter")
        assert run.covered == (0, 3)

        # Follow-up 1 of 2: a quarter of the budget, at least a minute; overtime shown.
        assert isinstance(app.screen, FollowUpScreen)
        assert "Follow-up 1/2" in header(app) and "1:00 left" in header(app)
        assert "How does PyTorch FSDP relate to ZeRO-3?" in _text(app)
        clock.advance(seconds=102)
        app.tick()
        assert "+0:42 over" in header(app)
        assert isinstance(app.screen, FollowUpScreen)  # not enforced
        await pilot.press("a", *"FULL_SHARD", "enter")
        model = shown(app.screen.query_one("#model"))
        assert "Your answer" in model and "Model answer" in model
        assert model.splitlines()[2].startswith("FULL_SHARD ")  # yours, on the left
        assert "FSDP's FULL_SHARD is ZeRO-3" in model
        assert app.screen.query_one(GradeBar).display
        await pilot.press("4")
        assert reviews(store) == [("zero-iv/fu-fsdp", 4, "FULL_SHARD")]

        # Follow-up 2, answered out loud, graded with the mouse.
        assert "Follow-up 2/2" in header(app)
        await pilot.press("enter")
        assert "(answered out loud)" in shown(app.screen.query_one("#model"))
        await pilot.click(GradeBar, offset=(1 + 2 * 13 + 6, 1))  # the third button: 2
        assert reviews(store)[-1] == ("zero-iv/fu-offload", 2, None)

        # Red flags: the one ticked is that card's lapse; the other is not reviewed.
        assert isinstance(app.screen, RedFlagsScreen)
        assert "Did you say any of these?" in _text(app)
        await pilot.press("2", "enter")
        assert reviews(store)[-1] == ("zero-iv/rf-markup", 1, None)
        assert len(reviews(store)) == 3

        # The end.
        assert isinstance(app.screen, EndScreen)
        end = shown(app.screen.query_one("#end"))
        assert "2/4 covered; missed 2, 3" in end
        assert "0:45 of 4:00" in end
        assert "4 good" in end and "2 almost" in end
        assert "1 of 2 said" in end
        assert "first attempt: 2/4 now" in end
        assert "2 cards of the missed points" in end
        assert "stage2-shards, stage3-shards" in end
        await pilot.press("q")
    result = app.return_value
    assert result is not None and result.points_covered == (0, 3)
    # What was missed feeds the drill: its cards are due today.
    queue = build_queue(items_of(decks()), store, run.day, new_limit=0)
    due = {item.key for item in queue.reviews}
    assert {"zero-iv/stage2-shards", "zero-iv/stage3-shards#c1"} <= due


@run_async
async def test_time_up_says_so_and_moves_on_keeping_what_was_typed(store: Store) -> None:
    clock = Clock()
    app = make(store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", *"half an answer")
        clock.advance(minutes=3, seconds=59)
        app.tick()
        assert isinstance(app.screen, QuestionScreen) and "0:01 left" in header(app)
        clock.advance(seconds=1)
        app.tick()
        await pilot.pause()
        assert isinstance(app.screen, PointsScreen)
        assert any("Time's up" in str(n.message) for n in app._notifications)
        assert app.run_.question_typed == "half an answer"
        assert app.run_.seconds_used == 240
        # Another tick, or a late Enter, hands nothing in twice.
        app.tick()
        await pilot.pause()
        assert isinstance(app.screen, PointsScreen)


#: Keys taking a fresh attempt to each step, from the start.
TO_STEP = {
    Step.QUESTION: [],
    Step.POINTS: ["enter"],
    Step.FOLLOW_UP: ["enter", "2", "enter"],
    Step.RED_FLAGS: ["enter", "2", "enter", "enter", "5", "enter", "3"],
}
SCREEN_OF = {
    Step.QUESTION: QuestionScreen,
    Step.POINTS: PointsScreen,
    Step.FOLLOW_UP: FollowUpScreen,
    Step.RED_FLAGS: RedFlagsScreen,
}


@pytest.mark.parametrize("step", list(TO_STEP), ids=lambda s: s.value)
@pytest.mark.parametrize("quit_key", ["q", "ctrl+q", "ctrl+c"])
@run_async
async def test_quitting_at_each_step_resumes_there(store: Store, step: Step, quit_key: str) -> None:
    clock = Clock()
    app = make(store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*TO_STEP[step])
        assert isinstance(app.screen, SCREEN_OF[step])
        if step in (Step.QUESTION, Step.FOLLOW_UP) and quit_key != "q":
            # From the typing box too, with text selected (where Ctrl+C would copy).
            await pilot.press("a", *"typed", "shift+left")
            assert app.screen.query_one(TextArea).selected_text == "d"
        await pilot.press(quit_key)
        assert app.return_code == 0  # the key ended the app
    assert app.return_value is None
    before = reviews(store)

    clock.advance(minutes=5)
    again = make(store, clock)
    async with again.run_test(size=SIZE) as pilot:
        assert again.run_.attempt_id == app.run_.attempt_id
        assert isinstance(again.screen, SCREEN_OF[step])
        if step is Step.QUESTION:
            assert "4:00 left" in header(again)  # a resumed step's clock starts again
        if step is Step.FOLLOW_UP:
            assert "Follow-up 1/2" in header(again)
        # Finish from there: each step is saved once, nothing given twice.
        while not isinstance(again.screen, EndScreen):
            await pilot.press("enter", "4") if isinstance(
                again.screen, FollowUpScreen
            ) else await pilot.press("enter")
        await pilot.press("q")
    assert reviews(store)[: len(before)] == before
    keys = [key for key, _, _ in reviews(store)]
    assert len(keys) == len(set(keys))
    summary = history(store, "zero-iv", WALKTHROUGH)
    assert len(summary) == 1 and summary[0].finished


@pytest.mark.parametrize("quit_key", ["q", "ctrl+c"])
@run_async
async def test_quitting_while_ticking_keeps_every_tick(store: Store, quit_key: str) -> None:
    """Ticks are saved as they are given: resuming the points (then the red flags) shows
    them ticked, and Enter hands them in."""
    clock = Clock()
    app = make(store, clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter", "1", "3", "down", "space", "3")  # ticks 1, then 4
        await pilot.click(CheckItem, offset=(2, 0))  # unticks 1: clicks are saved too
        await pilot.press("2", quit_key)
    clock.advance(minutes=5)
    again = make(store, clock)
    async with again.run_test(size=SIZE) as pilot:
        assert isinstance(again.screen, PointsScreen)
        assert [i.checked for i in again.screen.query(CheckItem)] == [False, True, False, True]
        await pilot.press("4", "q")  # one more unticked, then quit again
    third = make(store, clock)
    async with third.run_test(size=SIZE) as pilot:
        assert [i.checked for i in third.screen.query(CheckItem)] == [False, True, False, False]
        await pilot.press("enter")
        assert third.run_.covered == (1,)
        await pilot.press("enter", "4", "enter", "4")
        assert isinstance(third.screen, RedFlagsScreen)
        assert not any(i.checked for i in third.screen.query(CheckItem))
        await pilot.press("2", quit_key)
    fourth = make(store, clock)
    async with fourth.run_test(size=SIZE) as pilot:
        assert isinstance(fourth.screen, RedFlagsScreen)
        assert [i.checked for i in fourth.screen.query(CheckItem)] == [False, True]
        await pilot.press("enter")
        assert isinstance(fourth.screen, EndScreen)
        await pilot.press("q")
    assert reviews(store)[-1] == ("zero-iv/rf-markup", 1, None)
    (summary,) = history(store, "zero-iv", WALKTHROUGH)
    assert summary.finished and summary.points_covered == 1 and summary.red_flags_said == 1


@run_async
async def test_without_an_id_an_attempt_left_today_is_resumed_first(store: Store) -> None:
    clock = Clock()
    app = make(store, clock, "offload-only")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter", "q")
    again = create_interview_app(decks(), store, clock=clock)
    assert again.run_.interview.id == "offload-only"
    assert again.run_.attempt_id == app.run_.attempt_id


@run_async
async def test_a_step_another_terminal_took_ends_the_app_with_one_line(store: Store) -> None:
    clock = Clock()
    first, second = make(store, clock), make(store, clock)
    async with first.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        assert isinstance(first.screen, PointsScreen)
    async with second.run_test(size=SIZE) as pilot:
        assert isinstance(second.screen, QuestionScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert second.return_code == 1
    assert isinstance(second.error, AttemptMovedOn)
    assert "another terminal" in str(second.error)
    assert first.run_.attempt_id == second.run_.attempt_id
    assert len(history(store, "zero-iv", WALKTHROUGH)) == 1


@run_async
async def test_the_talk_track_shows_each_point_with_what_its_cards_say(store: Store) -> None:
    app = make(store, Clock())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter", "2", "t")
        assert isinstance(app.screen, TalkTrackScreen)
        text = _text(app)
        assert "1." in text and "The key is zero_optimization.stage, 0 to 3." in text
        assert "The optimizer states and the gradients." in text  # stage2-shards' back
        await pilot.press("escape")
        assert isinstance(app.screen, PointsScreen)
        # What was ticked before the talk track is still ticked.
        assert [i.checked for i in app.screen.query(CheckItem)] == [False, True, False, False]


@run_async
async def test_deck_markup_is_shown_as_text(store: Store) -> None:
    app = make(store, Clock())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("enter")
        assert "[link=https://x.test]here[/link]" in _text(app)
        await pilot.press("enter", "enter", "4", "enter", "4")
        assert isinstance(app.screen, RedFlagsScreen)
        assert "[bold]always[/bold] [@click=app.quit]really[/]" in _text(app)
        await pilot.click(CheckItem, offset=(20, 1))
        assert app.is_running and isinstance(app.screen, RedFlagsScreen)


@run_async
async def test_a_terminal_too_small_shows_the_drills_notice(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The test ticks by hand: the app's own timer, firing during a slow pause on a loaded
    # machine, handed the question in before the first assert (flaky before this).
    monkeypatch.setattr("zerodrill.tui.interview.interview_app.TICK", 3600.0)
    clock = Clock()
    app = make(store, clock)
    async with app.run_test(size=(60, 20)) as pilot:
        assert isinstance(app.screen, TooSmallScreen)
        assert "Make the terminal bigger" in _text(app)
        # The time runs on under the notice, and is up once it goes.
        clock.advance(minutes=5)
        app.tick()
        await pilot.press("enter")
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        # The app's own once-a-second tick may already have seen the time is up (it does,
        # on a loaded machine), so the question screen may be gone before this looks.
        assert isinstance(app.screen, QuestionScreen | PointsScreen)
        app.tick()
        await pilot.pause()
        assert isinstance(app.screen, PointsScreen)


@run_async
async def test_an_interview_without_red_flags_ends_after_its_follow_ups(store: Store) -> None:
    app = make(store, Clock(), "offload-only")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter", "1", "enter", "enter", "5")
        assert isinstance(app.screen, EndScreen)
        end = shown(app.screen.query_one("#end"))
        assert "1/1 covered" in end and "Red flags" not in end
        assert "nothing: every point was covered" in end


@run_async
async def test_the_trend_shows_earlier_attempts(store: Store) -> None:
    clock = Clock()
    for keys in (["enter", "1", "enter", "enter", "3"], ["enter", "enter", "enter", "3"]):
        app = make(store, clock, "offload-only")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press(*keys)
            assert isinstance(app.screen, EndScreen)
            end = shown(app.screen.query_one("#end"))
        clock.advance(days=1)
    assert "1/1 11 May → 0/1 now" in end


def test_interview_command_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "r.db")
    code, _, err = run_cli(capsys, "interview", str(DECKS), "--db", db, "--id", "nope")
    assert code == 1 and err.count("\n") == 1 and "nope" in err
    code, _, err = run_cli(capsys, "interview", str(DECKS), "--db", db, "--deck", "nope")
    assert code == 1 and err.count("\n") == 1 and "nope" in err
    tui = Path(__file__).resolve().parent / "data" / "tui"
    code, _, err = run_cli(capsys, "interview", str(tui), "--db", db)
    assert code == 1 and err.count("\n") == 1
    code, _, err = run_cli(capsys, "interview", str(tmp_path / "missing.yaml"), "--db", db)
    assert code == 1 and "no such file or folder" in err
    folder = tmp_path / "a-folder"
    folder.mkdir()
    code, _, err = run_cli(capsys, "interview", str(DECKS), "--db", str(folder))
    assert code != 0 and "Traceback" not in err


def test_resumed_run_is_the_same_attempt(store: Store) -> None:
    # The API the screens rely on: a second run on the same day continues the attempt.
    clock = Clock()
    deck = decks()[0]
    interview = deck.interviews[0]
    first = InterviewRun.start_or_resume(store, deck, interview, clock=clock)
    first.finish_question(None)
    second = InterviewRun.start_or_resume(store, deck, interview, clock=clock)
    assert second.attempt_id == first.attempt_id and second.step is Step.POINTS


@run_async
async def test_a_long_step_says_there_is_more_below(store: Store) -> None:
    # The shipped deck's nine points and the answer under them run below the fold at 80x24.
    from zerodrill.paths import bundled_decks_dir
    from zerodrill.tui.widgets.cued_scroll import CuedScroll

    result = load_paths([bundled_decks_dir()])
    assert result.ok, result.problems
    app = create_interview_app(
        result.decks, store, clock=Clock(), interview_id="stage-key-walkthrough"
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PointsScreen)
        body = app.screen.query_one("#body", CuedScroll)
        cue = body.query_one("#more")
        assert body.max_scroll_y > 0 and cue.display and shown(cue).strip() == "↓ more: PgDn"
        for _ in range(10):
            await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y and not cue.display


@pytest.mark.parametrize(("width", "whole"), [(160, True), (80, False)])
def test_the_interview_title_takes_the_room_the_header_has(width: int, whole: bool) -> None:
    from textual.app import App, ComposeResult

    from zerodrill.tui.interview.widgets import InterviewHeader

    title = "Walk me through what ZeRO stage 3 changes for a 70B model on 64 GPUs, step by step"
    assert len(title) > 80

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield InterviewHeader(title, "Question")

    async def go() -> str:
        app = Host()
        async with app.run_test(size=(width, 5)) as pilot:
            header = app.query_one(InterviewHeader)
            header.set_clock(timedelta(seconds=5), timedelta(minutes=4))
            await pilot.pause()
            return str(header.render())

    text = asyncio.run(go())
    assert len(text) <= width - 2
    assert (title in text) is whole
    assert "Question" in text and "left" in text
    if not whole:
        assert "…" in text
