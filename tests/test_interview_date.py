"""The interview date: the days before it planned (new cards a day), every interval capped so a
card comes back by the day before, and the schedule as ever once the date is cleared or past.

The simulation drives the drill's own sitting day by day, with a clock that is moved on and
every card answered Good, under SM-2 and under FSRS.
"""

from __future__ import annotations

import asyncio
import math
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_cli
from srs_support import card, deck
from textual.widgets import Input
from tui_support import START, TUI_DECKS, Clock, palette_command, run_async, shown, tui_decks

from zerodrill.cli.drill import saved_line
from zerodrill.deck.load import load_paths
from zerodrill.deck.model import Deck
from zerodrill.paths import bundled_decks_dir
from zerodrill.srs.card_actions import Action
from zerodrill.srs.days import study_day
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import ANKI_LAYOUT, Grade
from zerodrill.srs.interview_plan import Plan, parse_interview, plan_for, plan_text
from zerodrill.srs.queue import items_of
from zerodrill.srs.review_stats import compute_stats, render_text
from zerodrill.srs.schedulers import AnkiDecision, scheduler_named
from zerodrill.srs.schedulers.interview_cap import CappedCard, InterviewCap
from zerodrill.srs.schedulers.protocol import When, outcomes
from zerodrill.srs.settings import INTERVIEW, chosen_scheduler, save_interview, saved_interview
from zerodrill.srs.sitting import Session, Summary
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import ZeroDrillApp, create_app
from zerodrill.tui.widgets.session_header import SessionHeader

#: 9 am, local time: a sitting's grades stay on its study day.
MORNING = datetime(2026, 5, 11, 9, 0).astimezone()
TODAY = study_day(MORNING)


def bundled() -> tuple[Deck, ...]:
    result = load_paths([bundled_decks_dir()])
    assert result.ok, result.problems
    return result.decks


def days(n: int) -> timedelta:
    return timedelta(days=n)


class Moving:
    """The sitting's clock: set to a morning, then twenty seconds on for each card."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def sit(session: Session, clock: Moving, seen: dict[str, set[date]]) -> int:
    """Answer Good to every card the sitting shows, until none is left; how many grades."""
    grades = 0
    while (item := session.current) is not None:
        seen.setdefault(item.key, set()).add(session.day)
        session.grade(4)
        clock.now += timedelta(seconds=20)
        grades += 1
    return grades


def dues_by(store: Store, scheduler: Any) -> dict[str, date | None]:
    return {key: state.due for key, state in store.schedule.states_by(scheduler).items()}


# -- the days simulated ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["sm2", "fsrs"])
def test_five_days_to_an_interview_meet_every_card_twice_and_bring_none_back_after(
    store: Store, name: str
) -> None:
    decks = bundled()
    keys = [item.key for item in items_of(decks)]
    interview = TODAY + days(5)
    last = interview - days(1)
    store.scheduler = chosen_scheduler(store, name, interview=interview)
    clock = Moving(MORNING)
    seen: dict[str, set[date]] = {}
    plans: list[Plan | None] = []
    for n in range(5):
        clock.now = MORNING + days(n)
        session = Session(decks, store, clock=clock, new_limit=20, interview=interview)
        plans.append(session.plan)
        new = session.remaining().new
        sit(session, clock, seen)
        # The day's new cards are the plan's: the unseen ones over the days up to T - 2.
        plan = session.plan
        assert plan is not None
        if n < 4:
            assert plan.new_per_day == max(20, math.ceil(plan.unseen / (4 - n)))
        assert new == plan.new_by_day[0]
        # While the interview is ahead, a card graded before the last day comes back by it.
        for key, state in store.schedule.states().items():
            assert state.last_day is not None and state.due is not None
            if state.last_day < last:
                assert state.due <= last, (key, state)
            assert state.due > state.last_day
    first = plans[0]
    assert first is not None and first.unseen == len(keys) and first.holds
    assert first.new_per_day == math.ceil(len(keys) / 4)
    assert first.seen_by == TODAY + days(3)
    # Every card met on two study days before the interview, the last of them by L.
    for key in keys:
        before = sorted(day for day in seen[key] if day < interview)
        assert len(before) >= 2, (key, before)
        assert before[0] <= interview - days(2)


@pytest.mark.parametrize("name", ["sm2", "fsrs"])
def test_clearing_the_date_gives_the_schedule_without_caps_and_nothing_is_lost(
    store: Store, name: str
) -> None:
    decks = bundled()
    interview = TODAY + days(5)
    capped = chosen_scheduler(store, name, interview=interview)
    plain = chosen_scheduler(store, name, interview=None)
    store.scheduler = capped
    clock = Moving(MORNING)
    for n in range(3):  # three of the five days
        clock.now = MORNING + days(n)
        sit(Session(decks, store, clock=clock, interview=interview), clock, {})
    with_cap = store.schedule.due_dates()
    states = store.schedule.states()
    # The cap touched the schedule: some cards come back sooner than their scheduler says.
    uncapped = dues_by(store, plain)
    assert any(with_cap[key] < due for key, due in uncapped.items() if due is not None)
    # It never fed the next grade: each card's own state is the scheduler's, exactly.
    assert {k: s.inner for k, s in states.items() if isinstance(s, CappedCard)} == (
        store.schedule.states_by(plain)
    )
    # Cleared: every card derived again from its grades, as if no date had ever been set.
    events = store.log.events()
    store.scheduler = plain
    assert store.schedule.due_dates() == uncapped
    assert store.schedule.states() == store.schedule.states_by(plain)
    assert store.log.events() == events
    # Set again: the capped schedule again, exactly.
    store.scheduler = chosen_scheduler(store, name, interview=interview)
    assert store.schedule.due_dates() == with_cap


@pytest.mark.parametrize("name", ["sm2", "fsrs"])
def test_after_the_interview_the_schedule_goes_on_as_the_scheduler_has_it(
    store: Store, name: str
) -> None:
    decks = bundled()
    interview = TODAY + days(3)
    plain = chosen_scheduler(store, name, interview=None)
    store.scheduler = chosen_scheduler(store, name, interview=interview)
    clock = Moving(MORNING)
    for n in range(8):  # to the interview and five days beyond it, the date still set
        clock.now = MORNING + days(n)
        session = Session(decks, store, clock=clock, interview=interview)
        assert (session.plan is None) == (session.day >= interview)
        sit(session, clock, {})
    # Every card graded on the last day before the interview, or since, is where its
    # scheduler puts it: the cap is over.
    uncapped = dues_by(store, plain)
    last = interview - days(1)
    for key, state in store.schedule.states().items():
        assert state.last_day is not None
        if state.last_day >= last:
            assert state.due == uncapped[key]


# -- the cap -----------------------------------------------------------------------------------

NOON = datetime(2026, 5, 11, 12, tzinfo=UTC)


def good(scheduler: Any, state: Any, day: date) -> Any:
    """``state`` answered Good on ``day``, and through its same-day steps."""
    at = datetime.combine(day, NOON.timetz())
    state = scheduler.review(state, Grade.GOOD, When(at, day))
    while state.again_on == day:
        at = max(at, state.step_due) + timedelta(seconds=1)
        state = scheduler.review(state, Grade.GOOD, When(at, day))
    return state


def test_sm2s_six_days_come_back_the_day_before_the_interview() -> None:
    interview = TODAY + days(5)
    sm2 = scheduler_named("sm2")
    capped = InterviewCap(sm2, interview)
    # The first Good: the next day, as SM-2 has it. The second: six days on, after the
    # interview; capped, the day before it, and the grade button says so.
    day1 = good(capped, capped.new_state(), TODAY)
    assert day1.due == TODAY + days(1)
    when = When(datetime.combine(TODAY + days(1), NOON.timetz()), TODAY + days(1))
    by_grade = {o.grade: o for o in outcomes(capped, day1, when)}
    assert good(sm2, day1.inner, TODAY + days(1)).due == TODAY + days(7)
    assert by_grade[Grade.GOOD].due == interview - days(1)
    assert by_grade[Grade.GOOD].interval == 3
    # Graded on the last day: the scheduler's own interval, the interview day left free.
    on_last = good(capped, day1, interview - days(1))
    assert on_last.due == good(sm2, day1.inner, interview - days(1)).due > interview


def test_fsrs_keeps_its_own_due_where_it_comes_before_the_last_day() -> None:
    fsrs = scheduler_named("fsrs")
    last = TODAY + days(7)
    far = InterviewCap(fsrs, last + days(1))
    first = good(far, far.new_state(), TODAY)
    # FSRS-6's first Good: recall falls to the desired retention in two days, before L.
    assert first.due == good(fsrs, fsrs.new_state(), TODAY).due == TODAY + days(2)
    # The second: a week on, after L; capped, L.
    second = good(far, first, first.due)
    assert second.inner.due > last and second.due == last
    # FSRS's recall forecast reads the card's own state.
    later = datetime.combine(last, NOON.timetz())
    assert far.retrievability(second, later) == fsrs.retrievability(second.inner, later)
    assert far.desired_retention == fsrs.desired_retention


def test_the_cap_names_its_date_so_a_new_date_derives_every_card_again(store: Store) -> None:
    store.scheduler = chosen_scheduler(store, "sm2", interview=TODAY + days(9))
    store.log.grade("d/a", 4, day=TODAY, at=MORNING)
    store.log.grade("d/a", 4, day=TODAY + days(1), at=MORNING + days(1))
    assert store.schedule.due_dates() == {"d/a": TODAY + days(7)}  # before T - 1: uncapped
    store.scheduler = chosen_scheduler(store, "sm2", interview=TODAY + days(5))
    assert store.schedule.due_dates() == {"d/a": TODAY + days(4)}
    assert isinstance(chosen_scheduler(store, "sm2"), type(scheduler_named("sm2")))


@pytest.mark.parametrize("name", ["sm2", "fsrs"])
def test_an_answer_given_in_anki_keeps_ankis_due_and_the_next_drill_grade_is_capped(
    store: Store, name: str
) -> None:
    """The phone knows no interview date: capped in the drill only, the card would be due on
    one day there and another on the phone. So Anki's decision stands, however it is derived."""
    interview = TODAY + days(5)
    store.scheduler = chosen_scheduler(store, name, interview=interview)
    store.log.grade("d/a", 4, day=TODAY, at=MORNING)
    at = MORNING + days(1)
    decided = AnkiDecision(20, 2500, stability=20.0, difficulty=5.0)
    phone = ReviewEvent(
        "anki", 1, "d/a", at, at.date(), Grade.GOOD, buttons=ANKI_LAYOUT, decided=decided
    )
    store.log.add_events([phone])  # the cache's update of one answer
    assert store.schedule.due_dates() == {"d/a": TODAY + days(21)}
    store.scheduler = chosen_scheduler(store, name, interview=interview + days(1))
    store.scheduler = chosen_scheduler(store, name, interview=interview)  # derived again
    assert store.schedule.due_dates() == {"d/a": TODAY + days(21)}
    # The next grade is the drill's: capped to the day before the interview.
    store.log.grade("d/a", 4, day=TODAY + days(2), at=MORNING + days(2))
    assert store.schedule.due_dates() == {"d/a": interview - days(1)}


def test_sm2_forecasts_no_recall_under_a_cap_and_fsrs_does(store: Store) -> None:
    decks = (deck("d", card("d", "a")),)
    store.log.grade("d/a", 4, day=TODAY, at=MORNING)
    for name, forecasts in (("sm2", False), ("fsrs", True)):
        store.scheduler = chosen_scheduler(store, name, interview=TODAY + days(5))
        stats = compute_stats(decks, store, TODAY, at=MORNING, interview=TODAY + days(5))
        assert (stats.recall is not None) == forecasts


# -- the plan ----------------------------------------------------------------------------------


def ten() -> tuple[Deck, ...]:
    return (deck("d", *(card("d", f"k{n}") for n in range(10))),)


def keys_of(decks: tuple[Deck, ...]) -> list[str]:
    return [item.key for item in items_of(decks)]


def test_the_unseen_cards_are_shared_over_the_days_to_t_minus_2(store: Store) -> None:
    interview = TODAY + days(4)
    store.scheduler = chosen_scheduler(store, "sm2", interview=interview)
    plan = plan_for(keys_of(ten()), store, TODAY, interview, new_limit=0)
    assert plan is not None
    assert (plan.unseen, plan.new_per_day, plan.new_by_day) == (10, 4, (4, 4, 2, 0))
    assert plan.seen_by == TODAY + days(2) and plan.holds
    # Never fewer than the drill's --new.
    more = plan_for(keys_of(ten()), store, TODAY, interview, new_limit=20)
    assert more is not None and more.new_by_day == (10, 0, 0, 0)
    # From the interview day on, no plan.
    assert plan_for(keys_of(ten()), store, interview, interview, new_limit=0) is None


def test_a_days_figure_stays_while_its_cards_are_seen_and_suspended_ones_are_left_out(
    store: Store,
) -> None:
    decks = ten()
    interview = TODAY + days(4)
    store.scheduler = chosen_scheduler(store, "sm2", interview=interview)
    session = Session(decks, store, clock=lambda: MORNING, new_limit=0, interview=interview)
    assert session.plan == Plan(interview, TODAY, 10, 4)
    session.grade(4)
    session.grade(4)
    marks = store.actions.marks()
    assert plan_for(keys_of(decks), store, TODAY, interview, new_limit=0, marks=marks) == (
        Plan(interview, TODAY, 10, 4)
    )
    assert session.remaining().new == 2
    session.act(Action.SUSPEND)  # a new card: out of the plan, nine left over three days
    marks = store.actions.marks()
    assert plan_for(keys_of(decks), store, TODAY, interview, new_limit=0, marks=marks) == (
        Plan(interview, TODAY, 9, 3)
    )


def test_on_the_last_day_every_unseen_card_comes_once(store: Store) -> None:
    interview = TODAY + days(1)
    store.scheduler = chosen_scheduler(store, "sm2", interview=interview)
    plan = plan_for(keys_of(ten()), store, TODAY, interview, new_limit=3)
    assert plan is not None and plan.new_per_day == 10 and not plan.holds and plan.once == 10
    assert "too late to see every card twice" in plan_text(interview, TODAY, plan)


def test_a_cloze_cards_deletions_share_a_day_while_a_plan_is_in_force(store: Store) -> None:
    decks = (deck("d", card("d", "c", cloze=(1, 2, 3)), card("d", "b")),)
    plain = Session(decks, store, clock=lambda: MORNING)
    assert plain.remaining().new == 2  # one deletion a day
    store.scheduler = chosen_scheduler(store, "sm2", interview=TODAY + days(3))
    planned = Session(decks, store, clock=lambda: MORNING, interview=TODAY + days(3))
    assert planned.remaining().new == 4


def test_the_plan_in_words() -> None:
    interview = date(2026, 12, 9)
    today = interview - days(5)
    plan = Plan(interview, today, 187, 47)
    assert plan_text(interview, today, plan) == (
        "Interview on Wed Dec 9, in 5 days: 47 new cards a day; at this pace every card is "
        "seen by Mon Dec 7, and again by Tue Dec 8."
    )
    seen = Plan(interview, today, 0, 20)
    assert plan_text(interview, today, seen) == (
        "Interview on Wed Dec 9, in 5 days: every card seen already; each comes back by "
        "Tue Dec 8 at the latest."
    )
    assert plan_text(interview, interview, None) == "Interview on Wed Dec 9, today: good luck."
    assert "as usual" in plan_text(interview, interview + days(2), None)


@pytest.mark.parametrize(
    ("text", "day"),
    [("2026-05-16", date(2026, 5, 16)), (" 2026-05-11 ", TODAY), ("none", None), ("", None)],
)
def test_a_date_is_read_as_yyyy_mm_dd_today_or_later(text: str, day: date | None) -> None:
    assert parse_interview(text, TODAY) == day


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("2026-05-10", "is past"),
        ("tomorrow", "not a date as YYYY-MM-DD"),
        ("20260516", "not a date"),
        ("2026-02-30", "not a date"),
        ("16/05/2026", "not a date"),
    ],
)
def test_anything_else_is_refused_saying_why(text: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        parse_interview(text, TODAY)


# -- remembered, and on the command line -------------------------------------------------------


def test_the_date_is_remembered_and_cleared(store: Store) -> None:
    assert saved_interview(store) is None
    assert save_interview(store, TODAY + days(5)) is None
    assert saved_interview(store) == TODAY + days(5)
    cap = chosen_scheduler(store)
    assert isinstance(cap, InterviewCap) and cap.interview == TODAY + days(5)
    assert save_interview(store, None) is None
    assert store.settings.get(INTERVIEW) == "" and saved_interview(store) is None
    store.settings.save(INTERVIEW, "soon")
    assert saved_interview(store) is None


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("2001-01-01", "is past"),
        ("next week", "not a date as YYYY-MM-DD"),
        ("--new", "not a date"),
    ],
)
def test_a_past_date_or_garbage_is_a_usage_error_before_anything_is_saved(
    capsys: pytest.CaptureFixture[str], db: Path, value: str, said: str
) -> None:
    code, _, err = run_cli(capsys, "drill", str(TUI_DECKS), "--db", str(db), f"--interview={value}")
    assert code == 2 and "Invalid value for '--interview'" in err and said in err
    assert not db.exists()


def test_the_help_tells_the_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "drill", "--help")
    assert code == 0 and "--interview DATE" in out


def app_over(store: Store, **choices: Any) -> ZeroDrillApp:
    return create_app(tui_decks("zero"), store, clock=Clock(), **choices)


def test_the_drill_saves_a_date_given_and_reads_the_one_saved(db: Path) -> None:
    interview = START.date() + days(5)

    async def header(**choices: Any) -> str:
        with Store.open(db) as store:
            app = app_over(store, **choices)
            async with app.run_test(size=(100, 30)):
                return shown(app.screen.query_one(SessionHeader))

    assert "interview in 5 days" in asyncio.run(header(interview=interview))
    assert "interview in 5 days" in asyncio.run(header())
    assert "interview" not in asyncio.run(header(interview=None))
    with Store.open(db) as store:
        assert saved_interview(store) is None


def test_stats_shows_the_plan(
    db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("zerodrill.cli.stats.local_now", lambda: START)
    with Store.open(db) as store:
        save_interview(store, START.date() + days(5))
    code, out, _ = run_cli(capsys, "stats", "--db", str(db), str(TUI_DECKS / "zero.yaml"))
    assert code == 0
    cards = len(keys_of(tui_decks("zero")))
    assert (
        f"Interview on Sat May 16, in 5 days: {cards} new cards today; at this pace every "
        "card is seen by Mon May 11, and again by Fri May 15." in " ".join(out.split())
    )
    code, out, _ = run_cli(capsys, "stats", "--json", "--db", str(db), str(TUI_DECKS / "zero.yaml"))
    assert code == 0
    import json

    figures = json.loads(out)
    assert figures["interview"] == "2026-05-16"
    assert figures["plan"]["holds"] is True and figures["plan"]["unseen"] == cards


def test_the_quit_line_says_what_tomorrow_holds(db: Path) -> None:
    assert saved_line(Summary(3, 3, {4: 3}, 60.0, 23), db).endswith("; 23 due tomorrow.")
    dated = Summary(3, 3, {4: 3}, 60.0, 23, date(2026, 12, 9), 31, date(2026, 12, 4))
    assert saved_line(dated, db).endswith("; 23 due tomorrow, 31 new (interview in 5 days).")


def test_a_sittings_summary_counts_tomorrows_new_cards_by_the_plan(store: Store) -> None:
    decks = ten()
    interview = TODAY + days(4)
    store.scheduler = chosen_scheduler(store, "sm2", interview=interview)
    clock = Moving(MORNING)
    session = Session(decks, store, clock=clock, new_limit=0, interview=interview)
    sit(session, clock, {})
    summary = session.summary()
    # Four today; tomorrow, six left over the two days to T - 2: three, and today's four due.
    assert (summary.due_tomorrow, summary.new_tomorrow, summary.interview) == (4, 3, interview)


# -- the drill: the palette, the header, the stats screen ---------------------------------------


async def palette_interview(app: ZeroDrillApp, pilot: Any) -> None:
    await palette_command(app, pilot, "interview date", "Interview date")


@run_async
async def test_the_palette_sets_the_date_and_the_drill_plans_for_it(store: Store) -> None:
    app = app_over(store)
    async with app.run_test(size=(100, 30)) as pilot:
        assert "interview" not in shown(app.screen.query_one(SessionHeader))
        await palette_interview(app, pilot)
        typed = app.screen.query_one(Input)
        await pilot.press(*"2026-05-01", "enter")  # past: said, and the dialog stays
        assert "is past" in shown(app.screen.query_one("#interview-problem"))
        typed.value = ""
        await pilot.press(*"2026-05-16", "enter")
        await pilot.pause()
        assert saved_interview(store) == date(2026, 5, 16)
        assert isinstance(store.scheduler, InterviewCap)
        assert "interview in 5 days" in shown(app.screen.query_one(SessionHeader))
        assert app.session.plan is not None
        await palette_interview(app, pilot)
        app.screen.query_one(Input).value = ""
        await pilot.press("enter")  # nothing typed: no date
        await pilot.pause()
        assert saved_interview(store) is None and not isinstance(store.scheduler, InterviewCap)
        assert "interview" not in shown(app.screen.query_one(SessionHeader))


def test_stats_text_puts_the_plan_after_the_figures(store: Store) -> None:
    decks = ten()
    interview = TODAY + days(4)
    store.scheduler = chosen_scheduler(store, "sm2", interview=interview)
    text = render_text(compute_stats(decks, store, TODAY, interview=interview, new_limit=0))
    lines = text.splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("Interview on"))
    assert lines[at - 1] == "" and lines[at - 2].startswith("retention")
    assert "4 new cards a day" in text


def test_under_a_plan_cards_that_teach_the_same_thing_are_introduced_apart(store: Store) -> None:
    """A cloze card's deletions may share a day while a plan is in force, but two cards the deck
    says teach the same thing are introduced on different days, until the last day new cards
    are planned for (then nothing may wait, or a card would be met only once)."""
    decks = bundled()
    interview = TODAY + days(5)
    store.scheduler = chosen_scheduler(store, "sm2", interview=interview)
    clock = Moving(MORNING)
    seen: dict[str, set[date]] = {}
    for n in range(5):
        clock.now = MORNING + days(n)
        sit(Session(decks, store, clock=clock, new_limit=20, interview=interview), clock, seen)
    first = {key.partition("#")[0]: min(d) for key, d in sorted(seen.items())}
    for held in (c for d in decks for c in d.cards if not c.retired):
        for other in held.siblings:
            both = {first[held.key], first[f"{held.deck}/{other}"]}
            assert len(both) == 2 or both <= {interview - days(2), interview - days(1)}, (
                held.key,
                other,
                both,
            )
    # The deletions of a cloze card did share days: there are not the days for one a day.
    cloze_days = [d for key, d in seen.items() if key.endswith("#c2")]
    assert any(
        min(d) == min(seen[key.replace("#c2", "#c1")])
        for key, d in seen.items()
        if key.endswith("#c2")
    )
    assert cloze_days
