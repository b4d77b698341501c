from __future__ import annotations

import os
import time
from collections.abc import Generator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from kind_support import DEFINITION, register_for_test

from zerodrill.deck.kinds import CardKind
from zerodrill.srs.store import Store

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"

#: The markers of whole test modules, in one place so that what CI must provide reads from one
#: table (the markers themselves are described in pyproject.toml).
MODULE_MARKERS = {
    "test_export_anki.py": "anki",
    "test_cloze_anki.py": "anki",
    "test_import_progress.py": "anki",
    "test_anki_sync.py": "anki",
    "test_anki_fuzz.py": "anki",
    "test_exports_upgrade.py": "anki",
    "test_terminal_faults.py": "pty",
    "test_tui_editor.py": "pty",
    "test_fuzz_loader.py": "slow",
    "test_soak_store.py": "slow",
    "test_tui_mash.py": "slow",
}
#: Set by .ci/run: there every tool a test needs is installed, so a skip is a failure.
NO_SKIPS = "ZERODRILL_NO_SKIPS"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-slow",
        action="store_true",
        help="run the fuzz and soak tests (marked slow) at 10-50 times the size; "
        "the same as ZERODRILL_HEAVY=1",
    )


def _at_local_noon() -> None:
    """The tests' local time zone set so that their clock reads about noon, far from a study
    day's turn (04:00) and from midnight, whenever they run.

    Anki's backend and zerodrill both read the real clock, and an answer with a learning step
    of minutes given just before 04:00 falls due in the next study day: eleven tests of
    learning steps failed when run between about 03:50 and 04:00. Where a day turns is
    tested with times of its own (tests/test_queue.py, tests/test_anki_calendar.py). A zone
    written as POSIX does (hours west of UTC) needs no time zone database. Set once a run:
    the programs the tests start inherit it."""
    if os.environ.get(_NOON_ZONE) == os.environ.get("TZ", ""):
        return
    east = 12 - datetime.now(UTC).hour  # -11 to 12: the hours from UTC to local noon
    zone = f"NOON{-east:+d}"
    os.environ["TZ"] = os.environ[_NOON_ZONE] = zone
    time.tzset()


#: The zone :func:`_at_local_noon` set, so that it is set once for the whole run.
_NOON_ZONE = "ZERODRILL_TEST_ZONE"


def pytest_configure(config: pytest.Config) -> None:
    _at_local_noon()
    for name in MODULE_MARKERS:
        if not (Path(__file__).parent / name).is_file():
            raise pytest.UsageError(f"tests/conftest.py marks {name}, which does not exist")
    # The heavy variants read this when their module is imported, after this hook.
    if config.getoption("--run-slow"):
        os.environ["ZERODRILL_HEAVY"] = "1"


def pytest_report_header(config: pytest.Config) -> str:
    heavy = "heavy" if os.environ.get("ZERODRILL_HEAVY") else "light (--run-slow for heavy)"
    return f"zerodrill: fuzz and soak tests {heavy}"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        marker = MODULE_MARKERS.get(item.path.name)
        if marker is not None:
            item.add_marker(marker)


def _no_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail") and os.environ.get(NO_SKIPS):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped, but {NO_SKIPS} is set (every test must run): {reason}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    _no_skip(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    report = yield  # a whole module skipped, e.g. by importorskip
    _no_skip(report)
    return report


@pytest.fixture(autouse=True)
def _private_review_db(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """No test may touch the real user's review database, deck cache or deck folder, nor read
    the decks of the folder it was started from (the repository's own decks/, which a command
    given no path reads): each starts in an empty folder of its own, beside ``tmp_path``
    (whose contents some tests list)."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))
    db = tmp_path / "reviews.db"
    monkeypatch.setenv("ZERODRILL_DB", str(db))
    monkeypatch.setenv("ZERODRILL_CACHE_DIR", str(tmp_path / "deck-cache"))
    monkeypatch.setenv("ZERODRILL_DECKS_DIR", str(tmp_path / "my-decks"))
    monkeypatch.delenv("ZERODRILL_DEBUG", raising=False)
    return db


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """The review database a test opens itself (where ZERODRILL_DB points, too)."""
    return tmp_path / "reviews.db"


@pytest.fixture
def store(db: Path) -> Iterator[Store]:
    with Store.open(db) as s:
        yield s


@pytest.fixture
def definition_kind(monkeypatch: pytest.MonkeyPatch) -> CardKind:
    """A card kind zerodrill does not ship (tests/kind_support.py), registered for one test."""
    return register_for_test(monkeypatch, DEFINITION)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The folder a sync tool shares between machines, empty (a test may override it)."""
    shared = tmp_path / "shared"
    shared.mkdir()
    return shared


@pytest.fixture
def col(tmp_path: Path) -> Iterator[Any]:
    """A fresh, empty Anki collection (Anki's own backend), closed after the test."""
    from anki.collection import Collection  # the test extra's; only tests marked anki use it

    folder = tmp_path / "anki"
    folder.mkdir()
    c = Collection(str(folder / "collection.anki2"))
    try:
        yield c
    finally:
        c.close()
