"""A scheduler zerodrill does not ship (Leitner's boxes, tests/leitner_support.py), registered
and nothing else changed: chosen, drilled, explained, switched to and from, exported with
progress and synced through a folder."""

from __future__ import annotations

import sqlite3
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from cli_support import run_cli
from leitner_support import FIRST_INTERVAL, LeitnerCard, LeitnerScheduler, register_for_test
from textual.pilot import Pilot
from tui_support import TUI_DECKS, Clock, palette_command, run_async, shown, tui_decks

from zerodrill.srs.schedulers.fsrs import FsrsScheduler
from zerodrill.srs.schedulers.sm2 import Sm2Scheduler
from zerodrill.srs.settings import (
    SCHEDULER,
    chosen_scheduler,
    save_option,
    save_scheduler_name,
)
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import ZeroDrillApp, create_app
from zerodrill.tui.widgets.grade_bar import GradeBar

SIZE = (100, 30)
DECK = TUI_DECKS / "zero.yaml"


@pytest.fixture
def leitner(monkeypatch: pytest.MonkeyPatch) -> str:
    return register_for_test(monkeypatch)


def app_over(store: Store, clock: Clock, **choices: object) -> ZeroDrillApp:
    return create_app(tui_decks("zero"), store, clock=clock, **choices)  # type: ignore[arg-type]


def bar(app: ZeroDrillApp) -> str:
    return " ".join(shown(app.screen.query_one(GradeBar)).split())


async def next_scheduler(app: ZeroDrillApp, pilot: Pilot[object]) -> None:
    await palette_command(app, pilot, "scheduler", "Scheduler: SM-2 / FSRS / Leitner")


@run_async
async def test_it_is_chosen_drilled_and_explained(leitner: str, store: Store) -> None:
    app = app_over(store, Clock(), scheduler=leitner, buttons=4)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        # A new card: every grade puts it in the first box, a day on; Again brings it back.
        assert bar(app) == "1 Again 2 Hard 3 Good 4 Easy 1d ↻ 1d 1d 1d"
        await pilot.press("3")
        await pilot.press("question_mark")
        grades = " ".join(shown(app.screen.query_one("#grades")).split())
        assert "Leitner's boxes: a pass (3-5) moves the card up a box" in grades
        assert "FSRS" not in grades and "Below 4" not in grades
    assert store.settings.get(SCHEDULER) == leitner
    assert isinstance(store.scheduler, LeitnerScheduler)
    assert [type(s) for s in store.schedule.states().values()] == [LeitnerCard]


@run_async
async def test_it_is_switched_to_and_from(leitner: str, store: Store) -> None:
    app = app_over(store, Clock(), buttons=4)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter", "4")  # under SM-2
        await next_scheduler(app, pilot)
        assert isinstance(store.scheduler, FsrsScheduler)
        await next_scheduler(app, pilot)
        assert app.scheduler == leitner and store.settings.get(SCHEDULER) == leitner
        assert "Leitner schedules every card now." in [str(n.message) for n in app._notifications]
        await pilot.press("enter", "4")  # under Leitner
        assert store.schedule.states() == store.schedule.states_by(LeitnerScheduler()) != {}
        await next_scheduler(app, pilot)  # round to the first: SM-2
        assert app.scheduler == "sm2" and isinstance(store.scheduler, Sm2Scheduler)
        # Every grade stays, each scheduled SM-2's way.
        assert store.schedule.states() == store.schedule.states_by(Sm2Scheduler())
    assert len(store.log.events()) == 2


def test_its_option_is_a_setting_like_any_other(leitner: str, db: Path) -> None:
    with Store.open(db) as store:
        assert save_option(store, FIRST_INTERVAL, 3) is None
        save_scheduler_name(store, leitner)
    with Store.open(db) as store:
        assert store.scheduler.fingerprint == "leitner boxes=5 first=3"
        store.settings.save(FIRST_INTERVAL.setting, "ninety")  # none of zerodrill's
        assert chosen_scheduler(store).fingerprint == "leitner boxes=5 first=1"


def test_the_command_line_offers_it(leitner: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "drill", "--help")
    assert code == 0 and "--scheduler [sm2|fsrs|leitner]" in out


def drilled(db: Path, scheduler: str) -> None:
    """Three weeks of Good on two cards of the zero deck, under ``scheduler``."""
    keys = [f"zero-tui/{c}" for c in ("stage-2-shards", "offload")]
    with Store.open(db) as store:
        save_scheduler_name(store, scheduler)
    start = Clock().now - timedelta(days=21)
    with Store.open(db) as store:
        for n in range(21):
            at = start + timedelta(days=n)
            due = store.schedule.due_dates()
            for key in keys:
                if key not in due or due[key] <= at.date():
                    store.log.grade(key, 4, day=at.date(), at=at)


def test_it_is_exported_with_progress(
    leitner: str, db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drilled(db, leitner)
    with Store.open(db) as store:
        intervals = sorted(s.interval for s in store.schedule.states().values())
        fingerprint = store.scheduler.fingerprint
    assert intervals == [16, 16]  # boxes 1, 2, 3, 4, 5: 1 + 2 + 4 + 8 days on
    out = tmp_path / "out.apkg"
    code, _, err = run_cli(
        capsys, "export", str(DECK), "--with-progress", "--db", str(db), "-o", str(out)
    )
    assert code == 0, err
    with zipfile.ZipFile(out) as z:
        data = z.read("collection.anki2")
    conn = sqlite3.connect(":memory:")
    conn.deserialize(data)
    rows = conn.execute("SELECT ivl, factor, reps FROM cards WHERE type = 2").fetchall()
    conn.close()
    assert sorted(rows) == [(16, 2500, 5), (16, 2500, 5)]
    with Store.open(db) as store:
        assert store.scheduler.fingerprint == fingerprint


def test_it_is_synced_through_a_folder(
    leitner: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    drilled(a, leitner)
    with Store.open(b) as store:
        save_scheduler_name(store, leitner)
    for db in (a, b):
        code, _, err = run_cli(capsys, "sync", str(folder), "--db", str(db))
        assert code == 0, err
    with Store.open(a) as store:
        theirs = store.schedule.states()
    with Store.open(b) as store:
        assert isinstance(store.scheduler, LeitnerScheduler)
        assert store.schedule.states() == theirs != {}
    conn = sqlite3.connect(b)
    assert (
        conn.execute("SELECT fingerprint FROM derived").fetchone()[0] == "leitner boxes=5 first=1"
    )
    conn.close()
