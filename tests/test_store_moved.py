"""The database file deleted, moved, replaced or its folder removed while a store has it open.

Nothing more is written once the path no longer names the file opened; what that file held
is copied aside (this connection is the last way to it), and the one line says where.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from zerodrill.srs.events import LoggedEvent
from zerodrill.srs.sitting import record_grade
from zerodrill.srs.store import FileGone, Store, StoreError

DAY = date(2025, 1, 1)
NOW = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)


def record(store: Store, key: str, q: int = 4) -> LoggedEvent:
    return record_grade(store, key, q, day=DAY, at=NOW)


def keys_in(path: Path) -> list[str]:
    with Store.open(path, create=False) as s:
        return [r.key for r in s.log.entries()]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)  # where a copy goes when the database's folder is gone
    folder = tmp_path / "data"
    folder.mkdir()
    yield folder


def three_grades_then(db: Path, change: object) -> tuple[str, Store]:
    """Open ``db``, grade three cards, call ``change()``, grade once more: the error's line."""
    store = Store.open(db)
    for key in ("d/a", "d/b", "d/c"):
        record(store, key)
    change()  # type: ignore[operator]
    with pytest.raises(FileGone) as exc:
        record(store, "d/d")
    assert isinstance(exc.value, StoreError) and exc.value.path == db
    message = str(exc.value)
    assert "\n" not in message and message.startswith(f"stopped saving to {db}: ")
    # Every later write repeats the same line, and copies nothing again.
    with pytest.raises(FileGone, match="stopped saving") as again:
        record(store, "d/e")
    assert str(again.value) == message
    return message, store


def test_deleted_mid_drill(folder: Path) -> None:
    db = folder / "rep.db"
    message, store = three_grades_then(db, db.unlink)
    store.close()
    rescued = folder / "rep-rescued.db"
    assert message.endswith(
        f"it was deleted or moved away during the drill; everything it held, this drill's "
        f"grades included, is in {rescued}; move that to {db} to go on"
    )
    assert not db.exists()  # nothing was written where the user did not open a file
    assert keys_in(rescued) == ["d/a", "d/b", "d/c"]
    assert sorted(p.name for p in folder.iterdir()) == ["rep-rescued.db"]


def test_replaced_by_another_database_mid_drill(folder: Path) -> None:
    db, other = folder / "rep.db", folder / "other.db"
    with Store.open(other) as s:
        record(s, "other/x")
    message, store = three_grades_then(db, lambda: os.replace(other, db))
    store.close()
    assert "it was replaced by another file during the drill (left as it is)" in message
    assert keys_in(db) == ["other/x"]  # the other database holds what it held, only that
    assert keys_in(folder / "rep-rescued.db") == ["d/a", "d/b", "d/c"]


def test_renamed_away_mid_drill(folder: Path) -> None:
    db, moved = folder / "rep.db", folder / "moved.db"
    message, store = three_grades_then(db, lambda: os.rename(db, moved))
    store.close()
    assert "deleted or moved away" in message and not db.exists()
    # The file itself, under its new name, has every grade given before the move too.
    assert keys_in(moved) == keys_in(folder / "rep-rescued.db") == ["d/a", "d/b", "d/c"]


def test_a_symlink_switched_to_another_database_mid_drill(folder: Path) -> None:
    db, first, second = folder / "rep.db", folder / "first.db", folder / "second.db"
    Store.open(second).close()
    db.symlink_to(first)
    message, store = three_grades_then(db, lambda: (db.unlink(), db.symlink_to(second)))
    store.close()
    assert "replaced by another file" in message
    assert keys_in(second) == [] and keys_in(first) == ["d/a", "d/b", "d/c"]


def test_its_folder_removed_mid_drill(folder: Path) -> None:
    db = folder / "rep.db"
    message, store = three_grades_then(db, lambda: shutil.rmtree(folder))
    store.close()
    rescued = Path.cwd() / "rep-rescued.db"
    assert f"its folder {folder} was removed during the drill" in message
    assert f"is in {rescued};" in message and not folder.exists()
    assert keys_in(rescued) == ["d/a", "d/b", "d/c"]


def test_a_copy_never_overwrites_a_file(folder: Path) -> None:
    db = folder / "rep.db"
    (folder / "rep-rescued.db").write_text("mine")
    message, store = three_grades_then(db, db.unlink)
    store.close()
    assert f"is in {folder / 'rep-rescued-2.db'};" in message
    assert (folder / "rep-rescued.db").read_text() == "mine"


def test_check_file_before_claiming_the_grades_saved(folder: Path) -> None:
    # The drill asks before printing "N grades saved to ...": no grade need follow the loss.
    db = folder / "rep.db"
    with Store.open(db) as store:
        record(store, "d/a")
        store.check_file()  # still there: nothing to say
        db.unlink()
        with pytest.raises(FileGone, match="deleted or moved away"):
            store.check_file()
    assert keys_in(folder / "rep-rescued.db") == ["d/a"]


@pytest.mark.parametrize("side", ["-wal", "-shm"])
def test_its_wal_or_shm_deleted_mid_drill(folder: Path, side: str) -> None:
    # With the -wal gone, the grades in it were reachable only through this connection: a
    # crash would lose them, and another terminal would start a WAL of its own.
    db = folder / "rep.db"
    message, store = three_grades_then(db, db.with_name("rep.db" + side).unlink)
    assert message == (
        f"stopped saving to {db}: its rep.db{side} was deleted or replaced during the drill; "
        f"every grade given before is in {db}: start again to go on"
    )
    # Folded into the database file itself, there even if this process is killed now: the
    # file alone, copied without any -wal, holds them.
    alone = folder / "alone.db"
    shutil.copyfile(db, alone)
    assert keys_in(alone) == ["d/a", "d/b", "d/c"]
    store.close()
    assert keys_in(db) == ["d/a", "d/b", "d/c"]


def test_the_wal_beside_a_symlinked_database_is_watched_too(folder: Path) -> None:
    # SQLite keeps the -wal beside the file the link leads to, not beside the link.
    db, real = folder / "rep.db", folder / "real.db"
    db.symlink_to(real)
    message, store = three_grades_then(db, folder.joinpath("real.db-wal").unlink)
    store.close()
    assert "its real.db-wal was deleted or replaced during the drill" in message
    assert keys_in(db) == ["d/a", "d/b", "d/c"] and db.is_symlink()
