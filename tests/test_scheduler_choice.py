"""Choosing the scheduler: ``--scheduler sm2|fsrs`` and ``--retention``, remembered in the
database as the button layout is, and the palette's command that switches it."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from cli_support import run_cli
from textual.pilot import Pilot
from tui_support import TUI_DECKS, Clock, palette_command, run_async, shown, tui_decks

from zerodrill.srs.card_actions import Action
from zerodrill.srs.schedulers.fsrs import FsrsCard, FsrsScheduler
from zerodrill.srs.schedulers.sm2 import Sm2Scheduler
from zerodrill.srs.settings import (
    RETENTION,
    SCHEDULER,
    chosen_scheduler,
    save_interview,
    save_retention,
    save_scheduler_name,
    saved_retention,
    saved_scheduler_name,
)
from zerodrill.srs.sitting import Session
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import ZeroDrillApp, create_app
from zerodrill.tui.widgets.grade_bar import GradeBar

# -- the settings ----------------------------------------------------------------------------


def test_sm2_until_another_is_chosen_then_that_one(store: Store) -> None:
    assert saved_scheduler_name(store) == "sm2"
    assert isinstance(chosen_scheduler(store), Sm2Scheduler)
    assert save_scheduler_name(store, "fsrs") is None
    assert saved_scheduler_name(store) == "fsrs"
    fsrs = chosen_scheduler(store)
    assert isinstance(fsrs, FsrsScheduler) and fsrs.desired_retention == 0.9
    assert isinstance(chosen_scheduler(store, "sm2"), Sm2Scheduler)


def test_the_desired_retention_is_remembered_and_used_by_fsrs(store: Store) -> None:
    assert saved_retention(store) is None
    assert save_retention(store, 0.85) is None
    assert store.settings.get(RETENTION) == "0.85"
    save_scheduler_name(store, "fsrs")
    fsrs = chosen_scheduler(store)
    assert isinstance(fsrs, FsrsScheduler) and fsrs.desired_retention == 0.85


@pytest.mark.parametrize("value", ["fsrs7", "", "SM2", "sm2 "])
def test_a_scheduler_no_zerodrill_wrote_reads_as_sm2(store: Store, value: str) -> None:
    store.settings.save(SCHEDULER, value)
    assert saved_scheduler_name(store) == "sm2"


@pytest.mark.parametrize("value", ["nan", "inf", "0.5", "1", "ninety", ""])
def test_a_retention_no_zerodrill_wrote_reads_as_fsrs_default(store: Store, value: str) -> None:
    store.settings.save(RETENTION, value)
    assert saved_retention(store) is None
    save_scheduler_name(store, "fsrs")
    fsrs = chosen_scheduler(store)
    assert isinstance(fsrs, FsrsScheduler) and fsrs.desired_retention == 0.9


def test_nothing_unknown_is_saved(store: Store) -> None:
    with pytest.raises(ValueError):
        save_scheduler_name(store, "anki")
    with pytest.raises(ValueError):
        save_retention(store, 0.995)
    assert store.settings.get(SCHEDULER) is None and store.settings.get(RETENTION) is None


# -- the command line ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--scheduler", "anki"], "Invalid value for '--scheduler'"),
        (["--scheduler", "FSRS5"], "Invalid value for '--scheduler'"),
        (["--retention", "0.5"], "Invalid value for '--retention'"),
        (["--retention", "high"], "Invalid value for '--retention'"),
        # Not a number, though float() reads it as one: refused before anything is saved (the
        # scheduler given beside it included), not an internal error after.
        (["--scheduler", "fsrs", "--retention", "nan"], "'nan' is not a number"),
        (["--scheduler", "fsrs", "--retention", "inf"], "Invalid value for '--retention'"),
        (["--scheduler", "fsrs", "--retention", "-1"], "Invalid value for '--retention'"),
        (["--scheduler", "fsrs", "--retention", "1.5"], "Invalid value for '--retention'"),
    ],
)
def test_a_bad_choice_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], db: Path, args: list[str], said: str
) -> None:
    code, _, err = run_cli(capsys, "drill", str(TUI_DECKS), "--db", str(db), *args)
    assert code == 2 and said in err and "Usage:" in err
    assert not db.exists()


def test_the_help_names_both_schedulers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "drill", "--help")
    assert code == 0
    assert "--scheduler [sm2|fsrs]" in out and "--retention R" in out


# -- switching: every card derived again, nothing lost, and back again exactly ---------------

T0 = datetime(2026, 5, 11, 10, 0, tzinfo=UTC)


def history(store: Store, cards: int = 6, days: int = 150) -> None:
    """Five months of drilling: each card graded on the days it falls due (as SM-2 schedules
    it), mostly passed, some failed and then graded again the same day."""
    rng = random.Random(21)
    for n in range(days):
        at = T0 + timedelta(days=n, minutes=rng.randrange(0, 300))
        due = store.schedule.due_dates()
        for k in range(cards):
            key = f"d/k{k}"
            if key in due and due[key] > at.date():
                continue
            grade = rng.choice([1, 3, 4, 4, 4, 5, 5])
            store.log.grade(key, grade, day=at.date(), at=at)
            if grade < 3:  # a fail comes back the same day
                later = at + timedelta(minutes=10)
                store.log.grade(key, rng.choice([3, 4, 5]), day=later.date(), at=later)


def schedule_of(store: Store) -> tuple[dict[str, object], dict[str, date]]:
    return {k: s.to_dict() for k, s in store.schedule.states().items()}, store.schedule.due_dates()


def test_switching_rederives_every_card_and_switching_back_gives_the_old_schedule(
    store: Store,
) -> None:
    history(store)
    events = store.log.events()
    sm2_schedule = schedule_of(store)
    assert isinstance(store.scheduler, Sm2Scheduler)

    store.scheduler = FsrsScheduler()
    fsrs_schedule = schedule_of(store)
    assert set(fsrs_schedule[0]) == set(sm2_schedule[0])  # the same cards are known
    assert fsrs_schedule != sm2_schedule  # and FSRS scheduled them its own way
    assert all(isinstance(s, FsrsCard) for s in store.schedule.states().values())
    # What FSRS derived is a straight replay of the events through FSRS.
    assert store.schedule.states() == store.schedule.states_by(FsrsScheduler())

    store.scheduler = Sm2Scheduler()
    assert schedule_of(store) == sm2_schedule
    assert store.log.events() == events  # nothing was lost or added


def test_grades_given_under_fsrs_stay_when_switching_back(store: Store) -> None:
    history(store)
    store.scheduler = FsrsScheduler()
    late = T0 + timedelta(days=200)
    store.log.grade("d/k0", 4, day=late.date(), at=late)
    store.scheduler = Sm2Scheduler()
    assert store.log.events()[-1].key == "d/k0" and store.schedule.last_day("d/k0") == late.date()
    assert store.schedule.states() == store.schedule.states_by(Sm2Scheduler())


def test_the_desired_retention_changes_the_schedule_and_back(store: Store) -> None:
    history(store)
    store.scheduler = FsrsScheduler()
    ninety = schedule_of(store)
    store.scheduler = FsrsScheduler(0.97)
    picky = schedule_of(store)
    assert picky != ninety
    # A higher retention brings reviews forward, never back.
    assert all(picky[1][k] <= due for k, due in ninety[1].items())
    store.scheduler = FsrsScheduler()
    assert schedule_of(store) == ninety


# -- the drill: the grade bar, the palette, the option ---------------------------------------

SIZE = (100, 30)


def app_over(store: Store, clock: Clock, **choices: object) -> ZeroDrillApp:
    return create_app(tui_decks("zero"), store, clock=clock, **choices)  # type: ignore[arg-type]


def bar(app: ZeroDrillApp) -> str:
    return " ".join(shown(app.screen.query_one(GradeBar)).split())


@run_async
async def test_the_grade_bar_shows_fsrs_steps_and_intervals(store: Store) -> None:
    clock = Clock()
    app = app_over(store, clock, scheduler="fsrs", buttons=4)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        # A new card: Again, Hard and Good are learning steps; Easy graduates to 8 days.
        assert bar(app) == "1 Again 2 Hard 3 Good 4 Easy 1m 6m 10m 8d"
        first = app.session.current
        await pilot.press("3")
        clock.advance(minutes=10)
        while app.session.current != first:  # the other new cards, once each
            await pilot.press("enter", "4")
        await pilot.press("enter")
        # Ten minutes on, the same day: Good now graduates it, which SM-2 would call a repeat.
        assert bar(app) == "1 Again 2 Hard 3 Good 4 Easy 1m 10m 2d 4d"
    assert isinstance(store.scheduler, FsrsScheduler)


@run_async
async def test_sm2s_grade_bar_is_unchanged(store: Store) -> None:
    app = app_over(store, Clock(), buttons=4)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        # A new card under SM-2: Easy on the four buttons is Anki's 4 days, beyond Good's 1.
        assert bar(app) == "1 Again 2 Hard 3 Good 4 Easy 1d ↻ 1d ↻ 1d 4d"
        await pilot.press("1")
        while app.session.current is not None and not app.session.is_repeat:
            await pilot.press("enter", "4")
        await pilot.press("enter")
        assert bar(app) == "1 Again 2 Hard 3 Good 4 Easy ↻ again ↻ again ✔ done ✔ done"


async def palette_switch(app: ZeroDrillApp, pilot: Pilot[object]) -> None:
    await palette_command(app, pilot, "scheduler", "Scheduler: SM-2 / FSRS")


@run_async
async def test_the_palette_switches_the_scheduler_and_remembers_it(store: Store) -> None:
    app = app_over(store, Clock(), buttons=4)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter", "4")  # one grade under SM-2
        await palette_switch(app, pilot)
        assert app.scheduler == "fsrs" and isinstance(store.scheduler, FsrsScheduler)
        assert store.settings.get(SCHEDULER) == "fsrs"
        assert "FSRS schedules every card now." in [str(n.message) for n in app._notifications]
        await pilot.press("enter")
        assert bar(app) == "1 Again 2 Hard 3 Good 4 Easy 1m 6m 10m 8d"
        await pilot.press("4", "u")  # a grade under FSRS, undone: the sitting's undo stack held
        assert len(store.log.events()) == 3
        await palette_switch(app, pilot)
        assert app.scheduler == "sm2" and isinstance(store.scheduler, Sm2Scheduler)
        assert store.settings.get(SCHEDULER) == "sm2"
        await pilot.press("enter")
        assert bar(app) == "1 Again 2 Hard 3 Good 4 Easy 1d ↻ 1d ↻ 1d 4d"
        await pilot.press("u")  # the first grade, given under SM-2, is undone as well
    assert [e.is_undo for e in store.log.events()] == [False, False, True, True]
    assert store.schedule.states() == {}


def test_the_option_is_remembered_across_drills(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async def drill(**choices: object) -> tuple[str, str]:
        with Store.open(db) as store:
            app = app_over(store, Clock(), buttons=4, **choices)
            async with app.run_test(size=SIZE) as pilot:
                await pilot.press("enter")
                return app.scheduler, bar(app)

    runs = [asyncio.run(drill(**c)) for c in [{}, {"scheduler": "fsrs"}, {}, {"retention": 0.97}]]
    assert [name for name, _ in runs] == ["sm2", "fsrs", "fsrs", "fsrs"]
    assert runs[1][1] == runs[2][1] == "1 Again 2 Hard 3 Good 4 Easy 1m 6m 10m 8d"
    # A higher retention: Easy's first interval is shorter.
    assert runs[3][1] == "1 Again 2 Hard 3 Good 4 Easy 1m 6m 10m 2d"
    with Store.open(db) as store:
        assert (store.settings.get(SCHEDULER), store.settings.get(RETENTION)) == ("fsrs", "0.97")


def built_with(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        return str(conn.execute("SELECT fingerprint FROM derived").fetchone()[0])
    finally:
        conn.close()


def test_sync_derives_with_the_chosen_scheduler(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Machine a drills under SM-2, machine b under FSRS; b's sync must keep b's cache FSRS's
    # (a sync deriving with SM-2 would make b's next drill rebuild every card).
    folder = tmp_path / "shared"
    folder.mkdir()
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    with Store.open(a) as store:
        history(store, cards=3, days=30)
    with Store.open(b) as store:
        save_scheduler_name(store, "fsrs")
    for db in (a, b):
        code, _, _ = run_cli(capsys, "sync", str(folder), "--db", str(db))
        assert code == 0
    assert built_with(b) == FsrsScheduler().fingerprint
    assert built_with(a) == Sm2Scheduler().fingerprint
    with Store.open(b) as store:
        store.scheduler = FsrsScheduler()
        assert store.schedule.states() == store.schedule.states_by(FsrsScheduler()) != {}


@run_async
async def test_the_help_explains_the_grades_of_the_scheduler_in_use(store: Store) -> None:
    app = app_over(store, Clock())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        sm2_help = " ".join(shown(app.screen.query_one("#grades")).split())
        await pilot.press("escape")
        await palette_switch(app, pilot)
        await pilot.press("question_mark")
        fsrs_help = " ".join(shown(app.screen.query_one("#grades")).split())
    assert "Below 4, the card also comes back later in this session" in sm2_help
    assert "FSRS" not in sm2_help
    assert "FSRS reads them as ratings: 0-2 Again, 3 Hard, 4 Good, 5 Easy." in fsrs_help
    assert "FSRS's steps (1 and 10 minutes)" in fsrs_help


@run_async
async def test_a_retention_given_under_sm2_is_kept_and_said(store: Store) -> None:
    app = app_over(store, Clock(), retention=0.8)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        said = [str(n.message) for n in app._notifications]
    assert said == [
        "The desired retention is FSRS's: kept for when FSRS schedules "
        "(--scheduler fsrs, or Ctrl+P Scheduler)."
    ]
    assert isinstance(store.scheduler, Sm2Scheduler) and store.settings.get(RETENTION) == "0.8"
    fsrs = chosen_scheduler(store, "fsrs")
    assert isinstance(fsrs, FsrsScheduler) and fsrs.desired_retention == 0.8


def test_two_weeks_of_sittings_under_fsrs_match_a_straight_replay(store: Store) -> None:
    # Sittings over the test decks, one a day, random grades and a few undos: every card the
    # drill leaves is what replaying the log through FSRS gives, and each sitting ends.
    rng = random.Random(7)
    store.scheduler = FsrsScheduler()
    decks = tui_decks()
    clock = Clock(datetime(2026, 5, 11, 9, 0).astimezone())
    shown_per_day = []
    for _ in range(14):
        session = Session(decks, store, clock=clock, new_limit=5)
        shown = 0
        while session.current is not None:
            shown += 1
            assert shown < 200, "a sitting that never ends"
            clock.advance(minutes=rng.choice([1, 2, 5, 11]))
            session.grade(rng.choice([1, 3, 4, 4, 5]))
            if rng.random() < 0.05:
                session.undo()
        shown_per_day.append(shown)
        clock.advance(days=1)
        clock.now = clock.now.replace(hour=9)
    assert store.schedule.states() == store.schedule.states_by(FsrsScheduler()) != {}
    assert sum(shown_per_day) > 30  # the decks were drilled, not skipped
    # Back to SM-2: every grade given under FSRS is there, scheduled SM-2's way.
    store.scheduler = Sm2Scheduler()
    assert store.schedule.states() == store.schedule.states_by(Sm2Scheduler())


def test_sm2s_drill_never_imports_fsrs(tmp_path: Path) -> None:
    # The first card does not wait for a scheduler it does not use.
    code = (
        "import sys\n"
        "import zerodrill.cli.drill, zerodrill.cli.stats, zerodrill.tui.drill_app\n"
        "from zerodrill.srs.settings import chosen_scheduler\n"
        "from zerodrill.srs.store import Store\n"
        f"with Store.open({str(tmp_path / 'r.db')!r}) as store:\n"
        "    store.scheduler = chosen_scheduler(store)\n"
        "    store.schedule.states()\n"
        "assert 'fsrs' not in sys.modules, 'fsrs imported'\n"
        "from zerodrill.srs.settings import save_scheduler_name\n"
        f"with Store.open({str(tmp_path / 'r.db')!r}) as store:\n"
        "    save_scheduler_name(store, 'fsrs')\n"
        "    store.scheduler = chosen_scheduler(store)\n"
        "assert 'fsrs' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@run_async
async def test_a_switch_the_database_refuses_leaves_the_drill_as_it_was(
    store: Store, db: Path
) -> None:
    app = app_over(store, Clock(), buttons=4)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter", "4")  # one grade: FSRS would have a card to derive
        # Another program holds the write lock past the busy timeout: no cache can be rebuilt.
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            await palette_switch(app, pilot)
            said = [str(n.message) for n in app._notifications]
            assert app.return_code is None and app.scheduler == "sm2"
            assert any(n.startswith("SM-2 still schedules: ") and "locked" in n for n in said)
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert isinstance(store.scheduler, Sm2Scheduler) and store.settings.get(SCHEDULER) is None
        await pilot.press("enter")
        assert bar(app) == "1 Again 2 Hard 3 Good 4 Easy 1d ↻ 1d ↻ 1d 4d"
        await pilot.press("4")
    assert len(store.log.events()) == 2


def _learner_on_fsrs(db: Path) -> None:
    """A learner who chose FSRS at 0.85 and an interview date, with a history and a suspend."""
    with Store.open(db) as store:
        history(store, cards=3, days=30)
        save_scheduler_name(store, "fsrs")
        save_retention(store, 0.85)
        save_interview(store, date.today() + timedelta(days=20))
    with Store.open(db) as store:
        now = datetime.now().astimezone()
        store.actions.record("d/k0", Action.SUSPEND, at=now, day=now.date())


def test_the_store_opens_with_the_learners_scheduler(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    _learner_on_fsrs(db)
    with Store.open(db) as store:
        assert store.scheduler.fingerprint == chosen_scheduler(store).fingerprint
        assert "fsrs" in store.scheduler.fingerprint and "0.85" in store.scheduler.fingerprint
        assert "interview=" in store.scheduler.fingerprint
    # A scheduler given on opening is the one used (a scratch sitting, a test).
    with Store.open(db, scheduler=Sm2Scheduler()) as store:
        assert store.scheduler.fingerprint == Sm2Scheduler().fingerprint


@pytest.mark.parametrize(
    "command", [("unsuspend", "--all"), ("unsuspend",), ("stats",)], ids=" ".join
)
def test_commands_keep_the_cache_the_learners_scheduler_built(
    command: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before the store opened with the learner's profile, `unsuspend --all` rebuilt every card
    # under SM-2 (and the next drill rebuilt them all again under FSRS).
    db = tmp_path / "r.db"
    _learner_on_fsrs(db)
    with Store.open(db) as store:
        # The cache, built as the drill builds it.
        store.scheduler = chosen_scheduler(store)
        learners = store.scheduler.fingerprint
        store.schedule.states()
    assert built_with(db) == learners
    code, _, _ = run_cli(capsys, *command, "--db", str(db))
    assert code == 0
    assert built_with(db) == learners
