"""A database and a sync folder written by the zerodrill before card actions and brought-forward
cards joined the one event stream (schema 4; issue 34, point 1), read and migrated once, losing
nothing. tests/data/make_reviews_v4.py wrote both, and printed what this pins."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from cli_support import run_cli

from zerodrill.srs.card_actions import Action, CardActionEvent, CardMarks
from zerodrill.srs.store import SCHEMA_VERSION, Store
from zerodrill.srs.sync.folder import sync_folder
from zerodrill.srs.sync.logfile import read_log

DATA = Path(__file__).resolve().parent / "data"
V4_DATABASE = DATA / "reviews-v4.db"
V4_FOLDER = DATA / "sync-v4"
MACHINE = "5face642197feb2f"
OTHER = "0123456789abcdef"
DAY = date(2025, 1, 1)
TOP = 2**63

#: The marks the schema 4 store had (make_reviews_v4.py printed them).
MARKS = {
    "zero/stage-1": CardMarks(suspended=True),
    "zero/stage-2": CardMarks(flag=3, marked=True),
    "zero/stage-3": CardMarks(buried_on=DAY),
    "zero/stage-4": CardMarks(suspended=True),
    "zero/stage-5": CardMarks(flag=5),
    "zero/stage-6": CardMarks(flag=2),
}
#: Its card actions, in the order logged: (origin, number apart from the reviews, action, undoes).
ACTIONS = [
    (MACHINE, 1, "suspend", None),
    (MACHINE, 2, "flag", None),
    (MACHINE, 3, "mark", None),
    (MACHINE, 4, "bury", None),
    (MACHINE, 5, "flag", None),
    (MACHINE, 6, "undo", (MACHINE, 5)),
    (MACHINE, 7, "suspend", None),
    (MACHINE, 8, "unsuspend", None),
    (MACHINE, 9, "undo", (MACHINE, 8)),
    (OTHER, 1, "mark", None),
    (OTHER, 2, "flag", None),
    ("anki", 2**62, "flag", None),
    (OTHER, 3, "undo", (OTHER, 1)),
]


def reviews_of(path: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        where = " WHERE action IS NULL" if version == SCHEMA_VERSION else ""
        return conn.execute(
            "SELECT id, origin, seq, key, at, at_us, day, grade, undoes_origin, undoes_seq, "
            f"answer_ms, typed, buttons FROM event{where} ORDER BY id"
        ).fetchall()
    finally:
        conn.close()


def tables_of(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {n for (n,) in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    finally:
        conn.close()


def test_a_schema_4_database_migrates_into_one_stream_losing_nothing(tmp_path: Path) -> None:
    db = tmp_path / "reviews.db"
    shutil.copyfile(V4_DATABASE, db)
    reviews = reviews_of(db)
    assert {"card_action", "brought_forward"} <= tables_of(db)
    with Store.open(db) as s:
        assert s.machine.id == MACHINE
        # Every review as it was, row for row.
        assert reviews_of(db) == reviews
        # Every card action, each under its old number moved once (2**63 - n), the undos
        # naming theirs moved alike: the marks are the old store's.
        assert [
            (e.origin, TOP - e.seq, e.action.value, e.undoes and (e.undoes[0], TOP - e.undoes[1]))
            for e in s.actions.events()
        ] == ACTIONS
        assert s.actions.marks() == MARKS
        # The interview's two cards, one graded since: as the old table had them.
        forward = s.attempts.brought_forward(DAY)
        assert forward.pending == ("zero/stage-7",)
        assert forward.on_day == {"zero/stage-7", "zero/stage-8"}
        # The log goes on: the next event is numbered after this machine's reviews, an old
        # action is undone by the one undo rule, and the card graded after the interview
        # stays settled.
        (suspend,) = [e for e in s.actions.events() if e.identity == (MACHINE, TOP - 1)]
        undo = s.actions.undo(suspend.identity, at=suspend.at)
        assert undo.seq == 6 + 2 + 1  # its 6 reviews, the 2 cards brought forward
        assert "zero/stage-1" not in s.actions.marks()
    assert tables_of(db).isdisjoint({"card_action", "brought_forward"})
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT count(*) FROM sync_position").fetchone() == (0,)
    finally:
        conn.close()


def test_the_migrated_database_syncs_with_the_folder_it_wrote_before(tmp_path: Path) -> None:
    db, folder = tmp_path / "reviews.db", tmp_path / "shared"
    shutil.copyfile(V4_DATABASE, db)
    shutil.copytree(V4_FOLDER, folder)
    own = folder / f"zerodrill-{MACHINE}.jsonl"
    before = own.read_text()
    with Store.open(db) as s:
        report = sync_folder(s, folder)
        # Its own old lines are its events (no new machine id, nothing received twice); the
        # cards brought forward, never sent before, go out now as events of their own kind.
        assert report.warnings == () and s.machine.id == MACHINE
        assert (report.received, report.actions_received, report.actions_sent) == (0, 0, 2)
        assert sync_folder(s, folder).actions_sent == 0
    after = read_log(own)
    assert after.text.startswith(before) and after.damaged == []
    assert [e.action for e in after.actions[-2:]] == [Action.BRING_FORWARD] * 2


def test_a_new_machine_reads_the_old_folder_as_the_old_store_had_it(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    shutil.copytree(V4_FOLDER, folder)
    with Store.open(tmp_path / "b.db") as b:
        report = sync_folder(b, folder)
        assert report.warnings == ()
        assert (report.received, report.actions_received) == (7, len(ACTIONS))
        assert b.actions.marks() == MARKS


def test_listing_what_is_suspended_reads_a_schema_4_database_without_migrating_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "reviews.db"
    shutil.copyfile(V4_DATABASE, db)
    before = db.read_bytes()
    code, out, _ = run_cli(capsys, "unsuspend", "--db", str(db))
    assert code == 0 and out.splitlines()[:2] == ["zero/stage-1", "zero/stage-4"]
    assert db.read_bytes() == before


def schema_7(path: Path) -> None:
    """The schema 4 database brought to schema 7 by the migrations that shipped, as the
    zerodrill before Set Due Date and Forget joined the log left it, with an answer given in
    Anki and its decision."""
    from zerodrill.srs.store.migrations import MIGRATIONS, _statements, add_functions

    conn = sqlite3.connect(path, isolation_level=None)
    try:
        add_functions(conn)
        conn.execute("BEGIN IMMEDIATE")
        for step in range(4, 7):
            migration = MIGRATIONS[step]
            if callable(migration):
                migration(conn)
            else:
                for statement in _statements(migration):
                    conn.execute(statement)
        conn.execute(
            "INSERT INTO event (origin, seq, key, at, at_us, day, grade, buttons, decided) "
            "VALUES ('anki', 1735732800000, 'zero/stage-2', '2025-01-01T12:00:00+00:00', "
            "1735732800000000, '2025-01-01', 4, 4, '{\"ivl\":4,\"factor\":2500}')"
        )
        conn.execute("PRAGMA user_version = 7")
        conn.execute("COMMIT")
    finally:
        conn.close()


def every_event(path: Path) -> list[tuple[object, ...]]:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT * FROM event ORDER BY id").fetchall()


def test_a_schema_7_database_takes_set_due_and_forget_keeping_every_event(
    tmp_path: Path,
) -> None:
    """Schema 8 widens the action column's CHECK (Anki's Set Due Date and Forget), which
    SQLite changes only by making the table again: every row stays as it was, id and all, and
    the log stays append-only."""
    from zerodrill.srs.schedulers.decision import AnkiDecision

    db = tmp_path / "reviews.db"
    shutil.copyfile(V4_DATABASE, db)
    schema_7(db)
    before = every_event(db)
    with Store.open(db) as store:
        marks = store.actions.marks()
        set_on = DAY + timedelta(days=1)
        store.log.add_events(
            [
                CardActionEvent(
                    "anki",
                    1,
                    "zero/stage-2",
                    datetime(2025, 1, 2, 12, tzinfo=UTC),
                    set_on,
                    Action.SET_DUE,
                    decided=AnkiDecision(4, 2500, due_days=9),
                ),
                CardActionEvent(
                    "anki",
                    2,
                    "zero/stage-1",
                    datetime(2025, 1, 2, 12, tzinfo=UTC),
                    set_on,
                    Action.FORGET,
                ),
            ],
            now=datetime(2025, 1, 3, tzinfo=UTC),
        )
        dues = store.schedule.due_dates()
        assert dues["zero/stage-2"] == set_on + timedelta(days=9)
        assert "zero/stage-1" not in dues
        assert store.actions.marks() == marks == MARKS
    assert every_event(db)[: len(before)] == before
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 9
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("DELETE FROM event WHERE id = 1")
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(
                "INSERT INTO event (origin, seq, key, at, at_us, day, action) "
                "SELECT origin, seq, key, at, at_us, day, 'suspend' FROM event LIMIT 1"
            )


def test_a_schema_8_database_keeps_every_event_and_its_checks_take_and_refuse_the_same_rows(
    tmp_path: Path,
) -> None:
    """Schema 9 asks whether an event's action is NULL (a grade's, an undo of a grade's)
    before looking it up among the kinds the CHECK lists, so that SQLite builds no table of
    them for each row it inserts: every row stays as it was, id and all; a grade and each
    kind of action are taken, another kind refused."""
    from zerodrill.srs.store.by_hand_events import ACTIONS as KINDS
    from zerodrill.srs.store.by_hand_events import migrate

    db = tmp_path / "reviews.db"
    shutil.copyfile(V4_DATABASE, db)
    schema_7(db)
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        conn.execute("BEGIN IMMEDIATE")
        migrate(conn)
        conn.execute("PRAGMA user_version = 8")
        conn.execute("COMMIT")
    before = every_event(db)
    Store.open(db).close()
    assert every_event(db) == before
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 9
        table = conn.execute("SELECT sql FROM sqlite_schema WHERE name = 'event'").fetchone()
        assert "CHECK (action IS NULL OR action IN (" in table[0]
        insert = (
            "INSERT INTO event (origin, seq, key, at, at_us, day, grade, undoes_origin, "
            "undoes_seq, action, value) VALUES ('m', ?, 'd/a', '2025-01-01T12:00:00+00:00', 1, "
            "'2025-01-01', ?, ?, ?, ?, ?)"
        )
        conn.execute("BEGIN")
        conn.execute(insert, (1, 3, None, None, None, None))
        for seq, kind in enumerate(KINDS, start=2):
            undone = ("m", 1) if kind == "undo" else (None, None)
            conn.execute(insert, (seq, None, *undone, kind, "1" if kind == "setting" else None))
        with pytest.raises(sqlite3.IntegrityError, match="action IS NULL OR action IN"):
            conn.execute(insert, (99, None, None, None, "shuffle", None))
        conn.execute("ROLLBACK")
