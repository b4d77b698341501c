"""Easy on Anki's four buttons, beyond Good on every card (issue 24, point 2).

SM-2 gives every pass the same interval, so Easy pressed on the four buttons showed and gave
what Good gives (1 day on a new card). The layout a grade was pressed on is now part of the
event, and the SM-2 scheduler has one rule for a four-button Easy (schedulers/sm2.py). Pinned
here: the rule, a property over random states, the event through the store (undo, rederive,
reopening), the sync folder's wire format, and the drill's buttons. The Anki import of ease 4
is in test_import_progress.py (it needs Anki's backend).
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from srs_support import reference_states, sm2_states
from tui_support import Clock, run_async, tui_decks

from zerodrill.anki_sync.store_bridge import derive as anki_derive
from zerodrill.srs import sm2_formula as sm2
from zerodrill.srs.days import study_day
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import Grade
from zerodrill.srs.schedulers.fsrs import FsrsScheduler
from zerodrill.srs.schedulers.protocol import When
from zerodrill.srs.schedulers.sm2 import EASY_INTERVAL, Sm2Card, Sm2Scheduler
from zerodrill.srs.sitting import record_grade
from zerodrill.srs.sm2_formula import MAX_INTERVAL, Sm2State
from zerodrill.srs.store import Store
from zerodrill.srs.sync.folder import sync_folder
from zerodrill.srs.sync.logfile import file_name, read_log
from zerodrill.srs.sync.wire import BadLine, parse_line
from zerodrill.tui.drill_app import create_app
from zerodrill.tui.widgets.card_view import CardView
from zerodrill.tui.widgets.grade_bar import GradeBar

SM2 = Sm2Scheduler()
DAY = date(2025, 3, 10)
NOON = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
KEY = "zero/stage-1"


def when(day: date, minutes: int = 0) -> When:
    return When(
        datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=12, minutes=minutes), day
    )


def intervals(pressed: list[tuple[int, int, int]]) -> list[int]:
    """The interval after each grade of ``pressed`` (grade, layout, days after the last one),
    each given on the day its card fell due plus the days given."""
    state, day, out = SM2.new_state(), DAY, []
    for grade, buttons, late in pressed:
        if state.due is not None:
            day = state.due + timedelta(days=late)
        state = SM2.review(state, Grade(grade), when(day), buttons)
        out.append(state.interval)
    return out


# -- the rule -------------------------------------------------------------------------------


def test_easy_on_four_buttons_gives_a_new_card_ankis_easy_interval_and_good_one_day() -> None:
    four = SM2.next_states(SM2.new_state(), when(DAY), 4)
    six = SM2.next_states(SM2.new_state(), when(DAY), 6)
    assert (four[Grade.GOOD].interval, four[Grade.PERFECT].interval) == (1, EASY_INTERVAL) == (1, 4)
    assert four[Grade.PERFECT].due == DAY + timedelta(days=4)
    # Only Easy differs, and only in its interval: repetitions, EF and lapses are SM-2's for 5.
    assert {g: s for g, s in four.items() if g != Grade.PERFECT} == {
        g: s for g, s in six.items() if g != Grade.PERFECT
    }
    easy, perfect = four[Grade.PERFECT].sm2, six[Grade.PERFECT].sm2
    assert (easy.repetitions, easy.ef_hundredths, easy.lapses) == (1, 260, 0)
    assert (perfect.repetitions, perfect.ef_hundredths, perfect.lapses) == (1, 260, 0)
    # A 5 on the six grades is SM-2's, exactly: 1 day.
    assert perfect == sm2.review(Sm2State(), 5, DAY)


def test_sm2_goes_on_from_the_interval_easy_gave() -> None:
    # Easy on a new card 4d; Good then gives SM-2's I(2), 6d; Easy ⌈⌈6 × 2.6⌉ × 1.3⌉ = 21d (SM-2
    # alone: 16); Good ⌈21 × 2.7⌉ = 57d; a day late, Hard keeps SM-2's ⌈57 × 2.7⌉ = 154d.
    assert intervals([(5, 4, 0), (4, 4, 0), (5, 4, 0), (4, 4, 0), (3, 4, 1)]) == [4, 6, 21, 57, 154]
    # The same presses on the six grades: SM-2 as it was.
    assert intervals([(5, 6, 0), (4, 6, 0), (5, 6, 0), (4, 6, 0), (3, 6, 1)]) == [1, 6, 16, 44, 119]


def test_a_lapsed_card_easy_on_four_buttons_is_four_days_again() -> None:
    # Learned, then failed on a later day (n = 0 again): Good gives 1 day, Easy 4.
    state = SM2.new_state()
    for grade, day in ((4, DAY), (4, DAY + timedelta(days=1)), (1, DAY + timedelta(days=7))):
        state = SM2.review(state, Grade(grade), when(day))
    later = SM2.next_states(state, when(DAY + timedelta(days=8)), 4)
    assert (later[Grade.GOOD].interval, later[Grade.PERFECT].interval) == (1, 4)
    assert later[Grade.PERFECT].sm2.lapses == 1


def test_a_same_day_repeat_moves_nothing_easy_included() -> None:
    # Failed today (learning): every grade today is a same-day repeat, which moves no schedule
    # on any layout (SM-2's step 7): Easy and Good both leave it due tomorrow.
    failed = SM2.review(SM2.new_state(), Grade.WRONG, when(DAY))
    again = SM2.next_states(failed, when(DAY, 10), 4)
    assert {s.sm2 for s in again.values()} == {failed.sm2}
    assert again[Grade.PERFECT].again_on is None and again[Grade.WRONG].again_on == DAY


@st.composite
def sm2_cards(draw: st.DrawFn) -> tuple[Sm2Card, When]:
    """Any SM-2 card (new, or known with any repetitions, interval, EF and lapses, its last
    grade any) and a moment on a later study day than its last grade."""
    if draw(st.booleans()):
        return Sm2Card(), when(DAY)
    interval = draw(st.one_of(st.integers(1, 60), st.integers(1, MAX_INTERVAL)))
    last = DAY + timedelta(days=draw(st.integers(0, 30)))
    state = Sm2State(
        draw(st.integers(0, 60)),
        interval,
        draw(st.integers(130, 400)),
        last + timedelta(days=interval),
        draw(st.integers(0, 20)),
    )
    grade = draw(st.sampled_from(Grade))
    card = Sm2Card(state, DAY, last, grade, when(last).at)
    later = last + timedelta(days=draw(st.integers(1, 2 * interval + 5)))
    return card, when(later, draw(st.integers(0, 600)))


@settings(max_examples=500, deadline=None)
@given(sm2_cards())
def test_easy_on_four_buttons_is_beyond_good_on_every_card(drawn: tuple[Sm2Card, When]) -> None:
    card, now = drawn
    four, six = SM2.next_states(card, now, 4), SM2.next_states(card, now, 6)
    good, easy = four[Grade.GOOD], four[Grade.PERFECT]
    # Easy beyond Good, by whole days, on every card a grade moves: new, lapsed or known; only
    # the 100-year ceiling, which Good has reached, stops it.
    if good.interval < MAX_INTERVAL:
        assert easy.interval > good.interval and easy.due > good.due
    else:
        assert easy.interval == good.interval == MAX_INTERVAL
    assert easy.interval >= EASY_INTERVAL
    # ... as Anki's easy bonus has it: at most 1.3 × Good's, rounded up, or its 4 days.
    assert easy.interval <= max(EASY_INTERVAL, -(-good.interval * 13 // 10))
    # Everything else is the six grades' (Hard and Good on the four buttons too), and the
    # six grades are SM-2's exactly.
    assert {g: four[g] for g in Grade if g != Grade.PERFECT} == {
        g: six[g] for g in Grade if g != Grade.PERFECT
    }
    for grade in Grade:
        assert six[grade].sm2 == sm2.review(card.sm2, grade, now.day)
    same = easy.sm2
    assert (same.repetitions, same.easiness, same.lapses) == (
        six[Grade.PERFECT].sm2.repetitions,
        six[Grade.PERFECT].sm2.easiness,
        six[Grade.PERFECT].sm2.lapses,
    )


@settings(max_examples=200, deadline=None)
@given(sm2_cards())
def test_on_the_day_of_a_cards_last_grade_no_button_moves_it(drawn: tuple[Sm2Card, When]) -> None:
    # Learning, relearning or done for the day: a same-day repeat moves no schedule, on either
    # layout, Easy's neither (SM-2's step 7, the drill's rule); its buttons say so alike.
    card, _ = drawn
    assume(card.last_day is not None)  # a new card has no same-day repeat
    assert card.last_day is not None
    now = when(card.last_day, 720)
    four, six = SM2.next_states(card, now, 4), SM2.next_states(card, now, 6)
    assert four == six and {s.sm2 for s in four.values()} == {card.sm2}


def test_fsrs_reads_no_layout_and_its_easy_is_beyond_good_on_a_new_card() -> None:
    fsrs = FsrsScheduler()
    now = when(DAY)
    four, six = (
        fsrs.next_states(fsrs.new_state(), now, 4),
        fsrs.next_states(fsrs.new_state(), now, 6),
    )
    assert four == six
    assert four[Grade.PERFECT].interval > 1 and four[Grade.GOOD].interval == 0  # a 10m step


def test_a_layout_that_is_none_is_refused() -> None:
    with pytest.raises(ValueError, match="4 or 6"):
        SM2.review(SM2.new_state(), Grade.GOOD, when(DAY), 5)
    with pytest.raises(ValueError, match="4 or 6"):
        ReviewEvent("m", 1, KEY, NOON, DAY, Grade.GOOD, buttons=3)
    with pytest.raises(ValueError, match="no buttons"):
        ReviewEvent("m", 2, KEY, NOON, DAY, None, ("m", 1), buttons=4)


# -- the event: store, undo, rederive, the wire ---------------------------------------------


def test_the_store_keeps_the_layout_through_undo_rederive_and_reopening(tmp_path: Path) -> None:
    db = tmp_path / "reviews.db"
    with Store.open(db) as s:
        easy = record_grade(s, KEY, 5, day=DAY, at=NOON, buttons=4)
        record_grade(s, "zero/stage-2", 5, day=DAY, at=NOON)
        assert easy.buttons == 4 and easy.introduced
        assert (s.schedule.state(KEY).interval, s.schedule.state(KEY).due) == (
            4,
            DAY + timedelta(days=4),
        )
        assert s.schedule.state("zero/stage-2").interval == 1
        derived = s.schedule.states()
        s.schedule.rederive()
        assert s.schedule.states() == derived
        assert sm2_states(s) == reference_states(s.log.events())
        # Undone, the card is new again; pressed again on the four buttons, 4 days again.
        s.log.undo(easy.id, at=NOON + timedelta(minutes=1))
        assert KEY not in s.schedule.states()
        record_grade(s, KEY, 5, day=DAY, at=NOON + timedelta(minutes=2), buttons=4)
        assert s.schedule.state(KEY).interval == 4
    with Store.open(db) as s:
        assert [(e.grade, e.buttons) for e in s.log.events()] == [(5, 4), (5, 6), (None, 6), (5, 4)]
        assert s.schedule.state(KEY).interval == 4
        # Switching scheduler and back derives it again from the events.
        s.use(FsrsScheduler())
        assert s.schedule.state(KEY).interval > 1
        s.use(Sm2Scheduler())
        assert s.schedule.state(KEY).interval == 4 and sm2_states(s) == reference_states(
            s.log.events()
        )


def test_the_wire_carries_the_layout_only_for_the_four_buttons() -> None:
    four = ReviewEvent("m", 1, KEY, NOON, DAY, Grade.PERFECT, answer_ms=900, buttons=4)
    six = ReviewEvent("m", 2, KEY, NOON, DAY, Grade.PERFECT, answer_ms=900)
    assert four.to_wire()["buttons"] == 4
    # A six-grade line is the line it always was: a reader from before the field reads it.
    assert list(six.to_wire()) == [
        "origin", "seq", "key", "kind", "at", "day", "grade", "undoes", "answer_ms",
    ]  # fmt: skip
    assert parse_line(four.to_json()) == four and parse_line(six.to_json()) == six


@pytest.mark.parametrize("bad", [5, 0, "4", True, None, [4]])
def test_a_line_whose_layout_is_none_is_a_damaged_line(bad: object) -> None:
    record = ReviewEvent("m", 1, KEY, NOON, DAY, Grade.PERFECT).to_wire() | {"buttons": bad}
    with pytest.raises(BadLine, match="4 or 6"):
        parse_line(json.dumps(record))


def test_an_undo_line_with_a_layout_is_a_damaged_line() -> None:
    undo = ReviewEvent("m", 2, KEY, NOON, DAY, None, ("m", 1)).to_wire() | {"buttons": 4}
    with pytest.raises(BadLine, match="no buttons"):
        parse_line(json.dumps(undo))


def test_anki_syncs_replay_keeps_the_layout() -> None:
    # zerodrill anki sync replays the events itself for Anki's revlog and card columns.
    events = [ReviewEvent("m", 1, KEY, NOON, DAY, Grade.PERFECT, buttons=4)]
    (history,) = anki_derive(events, [], [KEY], SM2).values()
    assert (history.interval, history.answers[0].ivl, history.due) == (4, 4, DAY + timedelta(4))


# -- the drill's buttons, and the other machine ---------------------------------------------


@run_async
async def test_a_new_card_on_four_buttons_shows_easy_4d_and_good_1d_and_easy_keeps_to_it(
    tmp_path: Path,
) -> None:
    clock = Clock()
    day = study_day(clock.now)
    with Store.open(tmp_path / "a.db") as a:
        app = create_app(tui_decks("zero"), a, clock=clock, buttons=4)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")
            item = app.screen.query_one(CardView).item
            assert item is not None and a.schedule.state(item.key).due is None  # a new card
            bar = app.screen.query_one(GradeBar)
            assert bar.label(Grade.GOOD) == "3 Good\n1d"
            assert bar.label(Grade.PERFECT) == "4 Easy\n4d"
            await pilot.press("4")
        state = a.schedule.state(item.key)
        assert (state.interval, state.due) == (4, day + timedelta(days=4))
        assert [e.buttons for e in a.log.events()] == [4]
        # Through the sync folder to another machine: still 4 days, still pressed on four.
        folder = tmp_path / "shared"
        folder.mkdir()
        sync_folder(a, folder)
        line = json.loads(read_log(folder / file_name(a.machine.id)).text.splitlines()[1])
        assert line["buttons"] == 4
        with Store.open(tmp_path / "b.db") as b:
            sync_folder(b, folder)
            assert b.schedule.state(item.key) == state and [e.buttons for e in b.log.events()] == [
                4
            ]


@run_async
async def test_switching_to_four_buttons_on_the_answer_side_relabels_easy(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.db") as store:
        app = create_app(tui_decks("zero"), store, clock=Clock(), buttons=6)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")
            bar = app.screen.query_one(GradeBar)
            assert bar.label(Grade.PERFECT) == "5 perfect\n1d"
            await pilot.press("b")
            assert bar.label(Grade.PERFECT) == "4 Easy\n4d"
            await pilot.press("b")
            assert bar.label(Grade.PERFECT) == "5 perfect\n1d"
            await pilot.press("b", "4")
        assert [(e.grade, e.buttons) for e in store.log.events()] == [(5, 4)]
