"""A WAL left by a killed drill beside a database restored from a backup is refused; a WAL
that is the database's own (a crash, a checkpoint part way, another terminal) is not."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from zerodrill.srs.sitting import record_grade
from zerodrill.srs.store import Store, StoreError

REPO = Path(__file__).resolve().parent.parent
CHILD_ENV = {**os.environ, "PYTHONPATH": str(REPO)}
DAY = date(2025, 1, 1)
NOW = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)

# Grades cards in a database of its own process and says "done" with the WAL not yet
# checkpointed (unless told to checkpoint, with or without a reader holding an older
# snapshot), then waits to be killed: what a drill leaves when it is SIGKILLed.
CHILD = textwrap.dedent(
    """
    import sqlite3, sys
    from datetime import date, datetime, timezone
    from zerodrill.srs.sitting import record_grade
    from zerodrill.srs.store import Store
    path, prefix, count, checkpoint = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    s = Store.open(path)
    reader = None
    for i in range(count):
        if checkpoint == "partial" and i == count // 2:
            reader = sqlite3.connect(path, isolation_level=None)
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM event").fetchone()
        record_grade(s, f"{prefix}/k{i}", 4, day=date(2025, 1, 1), at=datetime.now(timezone.utc))
    if checkpoint != "none":
        s._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    print("done", flush=True)
    sys.stdin.readline()
    if reader is not None:
        reader.close()
    s.close()
    """
)


def grades(path: Path, prefix: str, count: int, checkpoint: str = "none") -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), prefix, str(count), checkpoint],
        env=CHILD_ENV,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line == "done\n", child.stderr.read() if child.stderr else line
    return child


def finished(child: subprocess.Popen[str]) -> None:
    child.communicate("go on\n")
    assert child.returncode == 0


def killed(child: subprocess.Popen[str]) -> None:
    child.send_signal(signal.SIGKILL)
    child.communicate()
    assert child.returncode == -signal.SIGKILL


@pytest.fixture
def children() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for child in started:
        if child.poll() is None:
            child.kill()
            child.communicate()


def keys(path: Path) -> list[str]:
    with Store.open(path, create=False) as s:
        return [r.key for r in s.log.entries()]


def files(*paths: Path) -> list[bytes]:
    return [p.read_bytes() for p in paths]


def restore(backup: Path, db: Path) -> None:
    """Copy ``backup`` over ``db``, as a person does, later than the drill was killed (the
    file system's clock ticks coarsely: the WAL is dated a second back to say so)."""
    shutil.copyfile(backup, db)
    wal = db.with_name(db.name + "-wal")
    written = db.stat().st_mtime_ns
    assert written >= wal.stat().st_mtime_ns
    os.utime(wal, ns=(written - 10**9, written - 10**9))


def assert_refused(db: Path) -> None:
    wal, shm = db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")
    before = files(db, wal)
    with pytest.raises(StoreError) as exc:
        Store.open(db, create=False)
    message = str(exc.value)
    assert "\n" not in message
    assert message == (
        f"cannot open {db}: the {wal.name} beside it is older than it and not its own (was "
        f"{db.name} restored from a backup?), and SQLite would write it over {db.name}: move "
        f"{wal.name} and {shm.name} away to open {db.name} as it is"
    )
    assert files(db, wal) == before  # both left exactly as they were
    # Doing what the line says gives the restored file as it is.
    wal.rename(db.with_name("aside-wal"))
    shm.unlink(missing_ok=True)


def test_another_databases_backup_restored_over_a_killed_drills_file(
    tmp_path: Path, children: list[subprocess.Popen[str]]
) -> None:
    db, backup = tmp_path / "w.db", tmp_path / "backup.db"
    with Store.open(backup):
        pass
    children.append(grades(backup, "old", 30, "full"))
    finished(children[-1])
    children.append(grades(db, "new", 5))
    killed(children[-1])
    restore(backup, db)
    assert_refused(db)
    assert len(keys(db)) == 30


@pytest.mark.parametrize("shm", ["kept", "gone"])
def test_an_earlier_backup_of_the_same_database_restored(
    tmp_path: Path, children: list[subprocess.Popen[str]], shm: str
) -> None:
    db, backup = tmp_path / "w.db", tmp_path / "backup.db"
    children.append(grades(db, "a", 20, "full"))
    finished(children[-1])  # a clean exit: all in w.db
    shutil.copyfile(db, backup)
    children.append(grades(db, "b", 5))
    killed(children[-1])
    restore(backup, db)
    if shm == "gone":
        db.with_name("w.db-shm").unlink()
    assert_refused(db)
    assert keys(db) == [f"a/k{i}" for i in range(20)]


@pytest.mark.parametrize("checkpoint", ["none", "full", "partial"])
def test_a_crash_without_a_restore_keeps_its_wal(
    tmp_path: Path, children: list[subprocess.Popen[str]], checkpoint: str
) -> None:
    # With a checkpoint just before the kill, the database was written after its WAL; with a
    # reader holding an older snapshot, that checkpoint could not finish.
    db = tmp_path / "w.db"
    children.append(grades(db, "a", 20, "full"))
    finished(children[-1])
    children.append(grades(db, "b", 40, checkpoint))
    killed(children[-1])
    wal = db.with_name("w.db-wal")
    if checkpoint == "full":
        # What makes this case hard: the database was written after its WAL. The file
        # system's clock ticks coarsely, so that both may carry the same time: make it tell.
        written = db.stat().st_mtime_ns
        assert written >= wal.stat().st_mtime_ns
        os.utime(wal, ns=(written - 10**9, written - 10**9))
    assert keys(db) == [f"a/k{i}" for i in range(20)] + [f"b/k{i}" for i in range(40)]


def test_another_terminal_drilling_meanwhile(
    tmp_path: Path, children: list[subprocess.Popen[str]]
) -> None:
    db = tmp_path / "w.db"
    for checkpoint in ("none", "full", "partial"):
        children.append(grades(db, checkpoint, 10, checkpoint))  # and still running
        assert keys(db)[-10:] == [f"{checkpoint}/k{i}" for i in range(10)]


def test_a_checkpoint_held_back_part_way_by_a_reader_keeps_its_wal(tmp_path: Path) -> None:
    # A reader's older snapshot stops the checkpoint part way: the database is written after
    # its WAL, and holds its pages as of an early commit only. The files, copied as they are
    # on disk at that moment, are what a crash leaves.
    live, db = tmp_path / "live.db", tmp_path / "w.db"
    with Store.open(live) as s:
        for i in range(20):
            record_grade(s, f"a/k{i}", 4, day=DAY, at=NOW)
        reader = sqlite3.connect(live, isolation_level=None)
        try:
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM event").fetchone()
            for i in range(20):
                record_grade(s, f"b/k{i}", 4, day=DAY, at=NOW)
            busy, frames, folded = s._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            assert busy == 0 and 0 < folded < frames
            shutil.copyfile(live, db)
            for side in ("-wal", "-shm"):
                shutil.copyfile(live.with_name("live.db" + side), db.with_name("w.db" + side))
        finally:
            reader.close()
    restore_time = db.stat().st_mtime_ns
    os.utime(db.with_name("w.db-wal"), ns=(restore_time - 10**9, restore_time - 10**9))
    assert keys(db) == [f"{p}/k{i}" for p in "ab" for i in range(20)]


def test_a_wal_checkpointed_whole_is_kept_even_without_its_index(tmp_path: Path) -> None:
    # The database holds every page of the WAL's last commit: replaying it changes nothing,
    # whatever became of the -shm that would say so.
    live, db = tmp_path / "live.db", tmp_path / "w.db"
    with Store.open(live) as s:
        for i in range(20):
            record_grade(s, f"a/k{i}", 4, day=DAY, at=NOW)
        busy, frames, folded = s._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        assert busy == 0 and folded == frames > 0
        shutil.copyfile(live, db)
        shutil.copyfile(live.with_name("live.db-wal"), db.with_name("w.db-wal"))
    restore_time = db.stat().st_mtime_ns
    os.utime(db.with_name("w.db-wal"), ns=(restore_time - 10**9, restore_time - 10**9))
    assert keys(db) == [f"a/k{i}" for i in range(20)]
