"""The one writer of whole files: flushed to disk with its folder, never through a planted link.

Its other behaviours are pinned where its callers are: a kill or a full disk at each step of an
export (test_export_interrupted.py), the mode the umask gives (test_deck_cache.py), a sync log
written over (test_sync_logfile.py).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from zerodrill import atomic_write
from zerodrill.atomic_write import open_temp, write_atomic, write_together


def test_each_file_and_then_its_folder_are_flushed_to_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flushed: list[tuple[str, bool]] = []  # (what, whether the file was in place yet)
    real_fsync = os.fsync
    a, b = tmp_path / "a.apkg", tmp_path / "sub" / "a.manifest.json"

    def fsync(fd: int) -> None:
        mode = os.fstat(fd).st_mode
        flushed.append(("folder" if stat.S_ISDIR(mode) else "file", b.exists()))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    write_together([(a, b"package"), (b, b"manifest")])
    # Both files before any rename; both folders after the renames.
    assert flushed == [("file", False), ("file", False), ("folder", True), ("folder", True)]
    assert (a.read_bytes(), b.read_bytes()) == (b"package", b"manifest")


def test_a_file_that_cannot_be_flushed_is_not_put_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"old")

    def fsync(fd: int) -> None:
        raise OSError(5, os.strerror(5))  # EIO: the disk said no

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OSError) as failed:
        write_atomic(path, b"new")
    assert failed.value.filename == str(path)
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["log.jsonl"]


def test_a_planted_link_at_the_temporary_name_is_never_written_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep me")
    names = iter(["aaaa", "bbbb"])
    monkeypatch.setattr(atomic_write.secrets, "token_hex", lambda _n: next(names))
    target = tmp_path / "deck.apkg"
    planted = tmp_path / f".deck.apkg.{os.getpid()}.aaaa.tmp"
    planted.symlink_to(victim)

    fd, name = open_temp(target)
    os.write(fd, b"written")
    os.close(fd)

    assert Path(name).name == f".deck.apkg.{os.getpid()}.bbbb.tmp"
    assert victim.read_bytes() == b"keep me" and planted.is_symlink()
    assert Path(name).read_bytes() == b"written"


def test_a_link_at_every_name_drawn_is_an_error_not_a_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep me")
    monkeypatch.setattr(atomic_write.secrets, "token_hex", lambda _n: "aaaa")
    (tmp_path / f".deck.apkg.{os.getpid()}.aaaa.tmp").symlink_to(victim)
    with pytest.raises(FileExistsError):
        open_temp(tmp_path / "deck.apkg")
    assert victim.read_bytes() == b"keep me"


def test_without_make_folder_a_missing_folder_is_an_error_and_stays_missing(
    tmp_path: Path,
) -> None:
    # A sync folder that is not mounted must not be made on the local disk.
    missing = tmp_path / "sync"
    with pytest.raises(FileNotFoundError):
        write_atomic(missing / "zerodrill-m1.jsonl", b"x", make_folder=False)
    assert not missing.exists()
    write_atomic(missing / "a", b"x")
    assert (missing / "a").read_bytes() == b"x"


def test_a_file_asked_for_with_mode_0600_never_exists_with_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A sync login is written so: from the moment its temporary exists, only its user reads it.
    import stat

    from zerodrill import atomic_write

    seen: list[int] = []
    real = atomic_write.open_temp

    def spy(path: Path, mode: int = 0o666) -> tuple[int, str]:
        fd, name = real(path, mode)
        seen.append(stat.S_IMODE(os.fstat(fd).st_mode))
        return fd, name

    monkeypatch.setattr(atomic_write, "open_temp", spy)
    target = tmp_path / "login.json"
    write_atomic(target, b"{}", mode=0o600)
    assert seen == [0o600] and stat.S_IMODE(target.stat().st_mode) == 0o600
