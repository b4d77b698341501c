"""Faults a user can cause around the commands end as one line and exit 1, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from zerodrill.paths import default_db_path

DATA = Path(__file__).resolve().parent / "data" / "decks"


def _run(
    args: list[str], env_extra: dict[str, str], tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    import os

    import zerodrill

    env = {k: v for k, v in os.environ.items() if k != "ZERODRILL_DB"}
    # The child imports the same zerodrill as this test (installed or from the checkout).
    root = str(Path(zerodrill.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    env.update(env_extra)
    return subprocess.run(
        [sys.executable, "-m", "zerodrill", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


def test_drill_when_the_data_folder_cannot_be_created(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder's parent should be")
    # --personal: a deck new to the learner is otherwise tried in a scratch database, which
    # needs no data folder (issue 24).
    proc = _run(["drill", str(DATA), "--personal"], {"XDG_DATA_HOME": str(blocker)}, tmp_path)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"zerodrill: cannot create the data folder {blocker / 'zerodrill'}: Not a directory"
    ]


def test_garbage_database_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "reviews.db"
    garbage = b"this is not a database, it is a shopping list\n" * 200
    db.write_bytes(garbage)
    for command in (
        ["drill", str(DATA)],
        ["stats", str(DATA)],
        ["export", str(DATA), "--with-progress", "-o", str(tmp_path / "out.apkg")],
    ):
        proc = _run([*command, "--db", str(db)], {}, tmp_path)
        assert proc.returncode == 1, (command, proc.stderr)
        assert "Traceback" not in proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and str(db) in lines[0], (command, lines)
        assert db.read_bytes() == garbage
    assert not (tmp_path / "out.apkg").exists()


def test_databases_that_are_not_files_are_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    for db, says in ((fifo, "not a regular file"), (loop, "")):
        for command in (["stats", str(DATA)], ["drill", str(DATA)]):
            proc = _run([*command, "--db", str(db)], {}, tmp_path)  # a pipe once hung here
            assert proc.returncode == 1, (command, proc.stderr)
            lines = proc.stderr.strip().splitlines()
            assert len(lines) == 1 and says in lines[0] and str(db) in lines[0], lines


def test_an_empty_zerodrill_db_means_the_default_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As when the variable is unset, the data folder is ours to create.
    monkeypatch.setenv("ZERODRILL_DB", "")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    db = default_db_path(create_folder=True)
    assert db == tmp_path / "data" / "zerodrill" / "reviews.db"
    assert db.parent.is_dir()
