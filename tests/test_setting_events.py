"""FSRS's parameters travel as events of the one log: saved on one machine, a folder sync
carries them to the others, the newest wins everywhere, a sync line that is not a setting
that travels is skipped, and a schema 6 database migrates losing nothing."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from cli_support import run_cli
from fsrs.scheduler import DEFAULT_PARAMETERS

from zerodrill.srs.card_actions import Action, CardActionEvent, CardMarks
from zerodrill.srs.schedulers.fsrs import PARAMETERS
from zerodrill.srs.settings import save_option, save_scheduler_name, saved_option
from zerodrill.srs.store import SCHEMA_VERSION, Store
from zerodrill.srs.store import saved_settings as saved_settings_module
from zerodrill.srs.sync.folder import sync_folder
from zerodrill.srs.sync.wire import BadLine, parse_line, unfit

UTC1 = timezone(timedelta(hours=1))
FITTED = (0.9, 4.0, 8.0, 20.0, *DEFAULT_PARAMETERS[4:])
LATER = (1.1, 3.0, 7.0, 18.0, *DEFAULT_PARAMETERS[4:])
DATA = Path(__file__).resolve().parent / "data"


def machine(path: Path) -> Path:
    with Store.open(path) as store:
        save_scheduler_name(store, "fsrs")
    return path


def saved_at(monkeypatch: pytest.MonkeyPatch, when: datetime) -> None:
    monkeypatch.setattr(saved_settings_module, "local_now", lambda: when)


def test_parameters_saved_on_one_machine_schedule_on_another_after_a_folder_sync(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    a, b = machine(tmp_path / "a.db"), machine(tmp_path / "b.db")
    with Store.open(a) as store:
        store.log.grade("d/c1", 4, day=date(2026, 1, 5), at=datetime(2026, 1, 5, 9, tzinfo=UTC1))
        assert save_option(store, PARAMETERS, FITTED) is None
        sync_folder(store, folder)
    with Store.open(b) as store:
        fingerprint = store.scheduler.fingerprint
        sync_folder(store, folder)
    with Store.open(b) as store:
        assert saved_option(store, PARAMETERS) == FITTED
        # The profile B opens with schedules with them: A's card is due when A has it.
        assert store.scheduler.fingerprint != fingerprint
        assert "w=" + ",".join(map(repr, FITTED)) in store.scheduler.fingerprint
    with Store.open(a) as store_a, Store.open(b) as store_b:
        assert store_a.schedule.due_dates() == store_b.schedule.due_dates()


def test_the_newest_parameters_win_on_every_machine_whatever_order_they_sync_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    a, b = machine(tmp_path / "a.db"), machine(tmp_path / "b.db")
    saved_at(monkeypatch, datetime(2026, 2, 1, 12, tzinfo=UTC1))
    with Store.open(b) as store:
        save_option(store, PARAMETERS, LATER)
    saved_at(monkeypatch, datetime(2026, 1, 1, 12, tzinfo=UTC1))
    with Store.open(a) as store:
        # Saved here last, but made earlier: B's newer fit wins once A hears of it.
        save_option(store, PARAMETERS, FITTED)
        sync_folder(store, folder)
    for path in (b, a):
        with Store.open(path) as store:
            sync_folder(store, folder)
    for path in (a, b):
        with Store.open(path) as store:
            assert saved_option(store, PARAMETERS) == LATER


def test_saving_the_value_in_effect_logs_nothing(tmp_path: Path) -> None:
    with Store.open(machine(tmp_path / "a.db")) as store:
        save_option(store, PARAMETERS, FITTED)
        save_option(store, PARAMETERS, FITTED)
        events = [o.event for o in store.sync.outside({}) if isinstance(o.event, CardActionEvent)]
    assert [(e.action, e.key, e.value) for e in events] == [
        (Action.SETTING, PARAMETERS.setting, PARAMETERS.write(FITTED))
    ]


def setting_line(**fields: object) -> CardActionEvent:
    event = CardActionEvent(
        "b0b",
        3,
        PARAMETERS.setting,
        datetime(2026, 1, 1, 9, tzinfo=UTC1),
        date(2026, 1, 1),
        Action.SETTING,
        value=PARAMETERS.write(FITTED),
    )
    wire = event.to_wire() | fields
    read = parse_line(__import__("json").dumps(wire))
    assert isinstance(read, CardActionEvent)
    return read


def test_a_setting_event_reads_back_from_its_line_as_itself() -> None:
    read = setting_line()
    assert unfit(read) is None
    assert read.action is Action.SETTING and read.value == PARAMETERS.write(FITTED)


@pytest.mark.parametrize(
    "fields",
    [
        {"key": "scheduler"},  # a setting that stays on its machine
        {"key": "d/c1"},
        {"value": "1,2,3"},  # not FSRS's 21
        {"value": ",".join(["nan"] * 21)},
        {"value": None},
        {"value": 7},
        {"value": "x" * 5000},
        {"kind": "flag", "flag": 2},  # a value on no setting
    ],
)
def test_a_setting_line_no_zerodrill_would_write_is_skipped(fields: dict[str, object]) -> None:
    with pytest.raises(BadLine):
        setting_line(**fields)


def test_a_schema_6_database_migrates_losing_nothing_and_its_parameters_then_travel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "reviews.db"
    shutil.copyfile(DATA / "reviews-v6.db", db)
    columns = (
        "id, origin, seq, key, at, at_us, day, grade, undoes_origin, undoes_seq, answer_ms, "
        "typed, buttons, action, flag, decided"
    )
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 6
        rows = conn.execute(f"SELECT {columns} FROM event ORDER BY id").fetchall()
    # Read without migrating (unsuspend's listing), the marks are there.
    code, out, _ = run_cli(capsys, "unsuspend", "--db", str(db))
    assert code == 0 and "zero/stage-1" in out
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 6
    with Store.open(db) as store:
        assert store.actions.marks() == {
            "zero/stage-1": CardMarks(suspended=True),
            "zero/stage-5": CardMarks(flag=3),
        }
        # Saved on this machine alone before they travelled: read still.
        saved = saved_option(store, PARAMETERS)
        assert saved is not None and saved[:4] == (0.5, 1.5, 3.0, 9.0)
        save_option(store, PARAMETERS, FITTED)
        assert saved_option(store, PARAMETERS) == FITTED
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert (
            conn.execute(f"SELECT {columns} FROM event ORDER BY id").fetchall()[: len(rows)] == rows
        )
        (value,) = conn.execute("SELECT value FROM event WHERE action = 'setting'").fetchone()
        assert value == PARAMETERS.write(FITTED)
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(
                "INSERT INTO event (origin, seq, key, at, at_us, day, action, flag, value) "
                "VALUES ('x', 1, 'd/c', '2026-01-01T00:00:00+00:00', 0, '2026-01-01', "
                "'suspend', 0, 'a value on no setting')"
            )
