"""Choosing the scheduler: ``--scheduler sm2|fsrs`` and ``--retention``, remembered in the
database as the button layout is, and the palette's command that switches it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import run_cli
from tui_support import TUI_DECKS

from zerodrill.srs.schedulers.fsrs import FsrsScheduler
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
