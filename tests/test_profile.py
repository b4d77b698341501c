"""The learner's profile, read when the store opens: every command works under the learner's
scheduler, options, layout and interview date, and none rebuilds the cache under another."""

from __future__ import annotations

import sqlite3
import zipfile
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from cli_support import run_cli
from fsrs.scheduler import DEFAULT_PARAMETERS
from tui_support import Clock, tui_decks

from zerodrill.export.collection import CREATED
from zerodrill.srs.card_actions import Action
from zerodrill.srs.days import local_now, study_day
from zerodrill.srs.schedulers.fsrs import PARAMETERS, FsrsScheduler
from zerodrill.srs.schedulers.interview_cap import InterviewCap
from zerodrill.srs.schedulers.sm2 import Sm2Scheduler
from zerodrill.srs.settings import (
    chosen_scheduler,
    save_interview,
    save_layout,
    save_option,
    save_retention,
    save_scheduler_name,
)
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import create_app

DECK = """\
deck: d
title: D
description: Three cards.
cards:
"""
KEYS = [f"d/k{n}" for n in range(3)]


def write_deck(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    cards = "".join(
        f"  - id: k{n}\n    kind: basic\n    front: Q{n}\n    back: A{n}\n" for n in range(3)
    )
    path = folder / "d.yaml"
    path.write_text(DECK + cards, encoding="utf-8")
    return path


def learner_on_fsrs(db: Path) -> None:
    """Three weeks of drilling under FSRS at 0.85 with an interview ahead, and a suspend."""
    now = local_now()
    with Store.open(db) as store:
        save_scheduler_name(store, "fsrs")
        save_retention(store, 0.85)
        save_interview(store, study_day(now) + timedelta(days=20))
    with Store.open(db) as store:
        for n in range(21, 0, -1):
            at = now - timedelta(days=n)
            for i, key in enumerate(KEYS):
                if n % (i + 2) == 0:
                    store.log.grade(key, 4 if n % 5 else 1, day=study_day(at), at=at)
        store.actions.record(KEYS[2], Action.SUSPEND, at=now, day=study_day(now))
        store.schedule.states()  # the cache, built as the drill builds it


def built_with(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        return str(conn.execute("SELECT fingerprint FROM derived").fetchone()[0])
    finally:
        conn.close()


def test_the_store_opens_with_every_saved_choice(db: Path) -> None:
    with Store.open(db) as store:
        assert store.profile.buttons == 6 and store.profile.interview is None
        assert isinstance(store.scheduler, Sm2Scheduler)
        save_layout(store, 4)
        save_scheduler_name(store, "fsrs")
        save_retention(store, 0.85)
        save_interview(store, date(2030, 1, 2))
        # A choice saved is the profile's at once (a drill's palette changes it so).
        assert store.profile.buttons == 4 and store.profile.interview == date(2030, 1, 2)
    with Store.open(db) as store:
        profile = store.profile
        assert (profile.buttons, profile.interview, profile.scheduler_name) == (
            4,
            date(2030, 1, 2),
            "fsrs",
        )
        assert isinstance(profile.scheduler, InterviewCap)
        assert isinstance(profile.scheduler.inner, FsrsScheduler)
        assert profile.scheduler.inner.desired_retention == 0.85
        assert store.scheduler is profile.scheduler
        # The drill takes every choice it is not given from the profile.
        app = create_app(tui_decks("zero"), store, clock=Clock())
        assert (app.buttons, app.scheduler, app.session.interview) == (4, "fsrs", date(2030, 1, 2))


@pytest.mark.parametrize("command", ["unsuspend", "stats", "export", "sync"])
def test_every_command_works_under_the_learners_scheduler(
    command: str, tmp_path: Path, db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    learner_on_fsrs(db)
    learners = built_with(db)
    assert learners.startswith("fsrs r=0.85") and "interview=" in learners
    deck = write_deck(tmp_path / "decks")
    out = tmp_path / "out.apkg"
    args = {
        "unsuspend": ["unsuspend", "--all"],
        "stats": ["stats", str(deck)],
        "export": ["export", str(deck), "--with-progress", "-o", str(out)],
        "sync": ["sync", str(tmp_path / "shared")],
    }[command]
    (tmp_path / "shared").mkdir()
    code, _, err = run_cli(capsys, *args, "--db", str(db))
    assert code == 0, err
    assert built_with(db) == learners  # no flip to SM-2, no rebuild at the next drill
    if command == "export":
        with Store.open(db) as store:
            fsrs = sorted(store.schedule.due_dates().values())
            sm2 = sorted(store.schedule.states_by(Sm2Scheduler(), KEYS)[k].due for k in KEYS)  # type: ignore[type-var]
        assert exported_dues(out) == fsrs != sm2


def exported_dues(apkg: Path) -> list[date]:
    """The due days of the package's review cards."""
    with zipfile.ZipFile(apkg) as z:
        data = z.read("collection.anki2")
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(data)
        rows = conn.execute("SELECT due FROM cards WHERE type = 2").fetchall()
    finally:
        conn.close()
    return sorted(CREATED + timedelta(days=due) for (due,) in rows)


@pytest.mark.anki
def test_anki_sync_works_under_the_learners_scheduler(
    tmp_path: Path, db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    collection = pytest.importorskip("anki.collection")
    learner_on_fsrs(db)
    learners = built_with(db)
    decks = write_deck(tmp_path / "decks").parent
    path = tmp_path / "desktop" / "collection.anki2"
    path.parent.mkdir()
    collection.Collection(str(path)).close()
    code, _, err = run_cli(
        capsys, "anki", "sync", str(decks), "--collection", str(path), "--db", str(db)
    )
    assert code == 0, err
    assert built_with(db) == learners
    # Anki holds the due days the drill shows (FSRS's, capped before the interview).
    with Store.open(db) as store:
        dues = store.schedule.due_dates()
        assert store.scheduler.fingerprint == chosen_scheduler(store).fingerprint
    col = collection.Collection(str(path))
    try:
        today = col.sched.today
        rows = col.db.all("SELECT due FROM cards WHERE type = 2")
    finally:
        col.close()
    now = study_day(datetime.now().astimezone())
    assert sorted(now + timedelta(days=due - today) for (due,) in rows) == sorted(dues.values())


def test_fsrs_parameters_saved_are_the_ones_it_schedules_with(db: Path) -> None:
    fitted = (0.4, *DEFAULT_PARAMETERS[1:])
    with Store.open(db) as store:
        save_scheduler_name(store, "fsrs")
        assert save_option(store, PARAMETERS, fitted) is None
        with pytest.raises(ValueError):
            save_option(store, PARAMETERS, (100.0,) * len(fitted))  # out of FSRS's bounds
    with Store.open(db) as store:
        assert store.scheduler.fingerprint == FsrsScheduler(parameters=fitted).fingerprint
        assert store.scheduler.fingerprint != FsrsScheduler().fingerprint
        # Weights no zerodrill wrote (too few, not numbers): FSRS-6's defaults.
        for text in ("1,2,3", "a,b", "nan," * 20 + "nan"):
            store.settings.save(PARAMETERS.setting, text)
            assert chosen_scheduler(store).fingerprint == FsrsScheduler().fingerprint
