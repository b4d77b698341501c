"""Choosing the scheduler: ``--scheduler sm2|fsrs`` and ``--retention``, remembered in the
database as the button layout is, and the palette's command that switches it."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from cli_support import run_cli
from tui_support import TUI_DECKS

from zerodrill.srs.schedulers.fsrs import FsrsCard, FsrsScheduler
from zerodrill.srs.schedulers.sm2 import Sm2Scheduler
from zerodrill.srs.settings import (
    RETENTION,
    SCHEDULER,
    chosen_scheduler,
    save_retention,
    save_scheduler_name,
    saved_retention,
    saved_scheduler_name,
)
from zerodrill.srs.store import Store


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "reviews.db"


@pytest.fixture
def store(db: Path) -> Iterator[Store]:
    with Store.open(db) as s:
        yield s


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
    assert store.setting(RETENTION) == "0.85"
    save_scheduler_name(store, "fsrs")
    fsrs = chosen_scheduler(store)
    assert isinstance(fsrs, FsrsScheduler) and fsrs.desired_retention == 0.85


@pytest.mark.parametrize("value", ["fsrs7", "", "SM2", "sm2 "])
def test_a_scheduler_no_zerodrill_wrote_reads_as_sm2(store: Store, value: str) -> None:
    store.save_setting(SCHEDULER, value)
    assert saved_scheduler_name(store) == "sm2"


@pytest.mark.parametrize("value", ["nan", "inf", "0.5", "1", "ninety", ""])
def test_a_retention_no_zerodrill_wrote_reads_as_fsrs_default(store: Store, value: str) -> None:
    store.save_setting(RETENTION, value)
    assert saved_retention(store) is None
    save_scheduler_name(store, "fsrs")
    fsrs = chosen_scheduler(store)
    assert isinstance(fsrs, FsrsScheduler) and fsrs.desired_retention == 0.9


def test_nothing_unknown_is_saved(store: Store) -> None:
    with pytest.raises(ValueError):
        save_scheduler_name(store, "anki")
    with pytest.raises(ValueError):
        save_retention(store, 0.995)
    assert store.setting(SCHEDULER) is None and store.setting(RETENTION) is None


# -- the command line ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--scheduler", "anki"], "Invalid value for '--scheduler'"),
        (["--scheduler", "FSRS5"], "Invalid value for '--scheduler'"),
        (["--retention", "0.5"], "Invalid value for '--retention'"),
        (["--retention", "high"], "Invalid value for '--retention'"),
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
        due = store.due_dates()
        for k in range(cards):
            key = f"d/k{k}"
            if key in due and due[key] > at.date():
                continue
            grade = rng.choice([1, 3, 4, 4, 4, 5, 5])
            store.grade(key, grade, day=at.date(), at=at)
            if grade < 3:  # a fail comes back the same day
                later = at + timedelta(minutes=10)
                store.grade(key, rng.choice([3, 4, 5]), day=later.date(), at=later)


def schedule_of(store: Store) -> tuple[dict[str, object], dict[str, date]]:
    return {k: s.to_dict() for k, s in store.states().items()}, store.due_dates()


def test_switching_rederives_every_card_and_switching_back_gives_the_old_schedule(
    store: Store,
) -> None:
    history(store)
    events = store.events()
    sm2_schedule = schedule_of(store)
    assert isinstance(store.scheduler, Sm2Scheduler)

    store.scheduler = FsrsScheduler()
    fsrs_schedule = schedule_of(store)
    assert set(fsrs_schedule[0]) == set(sm2_schedule[0])  # the same cards are known
    assert fsrs_schedule != sm2_schedule  # and FSRS scheduled them its own way
    assert all(isinstance(s, FsrsCard) for s in store.states().values())
    # What FSRS derived is a straight replay of the events through FSRS.
    assert store.states() == store.states_by(FsrsScheduler())

    store.scheduler = Sm2Scheduler()
    assert schedule_of(store) == sm2_schedule
    assert store.events() == events  # nothing was lost or added


def test_grades_given_under_fsrs_stay_when_switching_back(store: Store) -> None:
    history(store)
    store.scheduler = FsrsScheduler()
    late = T0 + timedelta(days=200)
    store.grade("d/k0", 4, day=late.date(), at=late)
    store.scheduler = Sm2Scheduler()
    assert store.events()[-1].key == "d/k0" and store.last_day("d/k0") == late.date()
    assert store.states() == store.states_by(Sm2Scheduler())


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
