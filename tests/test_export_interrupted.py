"""An export interrupted at each step (SIGKILL, a full disk): the package and its manifest
change together, a rerun gives the bytes an uninterrupted export gives, and nothing is left
behind."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from zerodrill import atomic_write
from zerodrill.cli import main
from zerodrill.export import apkg

DATA = Path(__file__).parent / "data" / "export"
REPO = Path(__file__).resolve().parent.parent
T0, T1, T2 = 1_760_000_000, 1_760_003_600, 1_760_090_000

# Exports the deck at argv[1] to argv[2] with the clock at argv[3]; with argv[4] = "write:N"
# or "replace:N" it SIGKILLs itself in the middle of the Nth temporary file's write, or just
# before the Nth rename.
_EXPORT = """
import os, signal, sys
from pathlib import Path
from zerodrill import atomic_write
from zerodrill.deck.load import load_paths
from zerodrill.export import apkg

deck, out, clock = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])
step, _, n = (sys.argv[4] if len(sys.argv) > 4 else ":0").partition(":")
calls = {"write": 0, "replace": 0}

def die():
    os.kill(os.getpid(), signal.SIGKILL)

real_open_temp, real_replace = atomic_write.open_temp, os.replace

def open_temp(*a, **k):
    fd, name = real_open_temp(*a, **k)
    calls["write"] += 1
    if step == "write" and calls["write"] == int(n):
        os.write(fd, b"half a file")
        die()
    return fd, name

def replace(*a, **k):
    calls["replace"] += 1
    if step == "replace" and calls["replace"] == int(n):
        die()
    return real_replace(*a, **k)

atomic_write.open_temp, os.replace = open_temp, replace
apkg.export(list(load_paths([deck]).decks), out, clock=lambda: clock)
"""

STEPS = ["write:1", "write:2", "replace:1", "replace:2"]


def _export(deck: Path, out: Path, clock: int, step: str | None = None) -> int:
    args = [sys.executable, "-c", _EXPORT, str(deck), str(out), str(clock)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(args + ([step] if step else []), env=env, check=False).returncode


def _edit(deck_file: Path) -> None:
    """A new card and an edited one: the next package differs from the last in both ways."""
    text = deck_file.read_text().replace("PyTorch-native", "PyTorch's own")
    deck_file.write_text(text + "  - id: added\n    kind: basic\n    front: F\n    back: B\n")


def _pair(out: Path) -> tuple[bytes, bytes]:
    return out.read_bytes(), apkg.manifest_path(out).read_bytes()


@pytest.fixture
def reference(tmp_path: Path) -> tuple[bytes, bytes]:
    """The pair an uninterrupted export at T1 writes after one at T0 and an edit."""
    src = tmp_path / "ref-src"
    shutil.copytree(DATA / "kinds", src)
    out = tmp_path / "ref" / "deck.apkg"
    assert _export(src, out, T0) == 0
    _edit(src / "deck.yaml")
    assert _export(src, out, T1) == 0
    return _pair(out)


@pytest.mark.parametrize("step", STEPS)
def test_a_kill_at_any_step_then_a_rerun_gives_the_uninterrupted_pair(
    step: str, tmp_path: Path, reference: tuple[bytes, bytes]
) -> None:
    src = tmp_path / "src"
    shutil.copytree(DATA / "kinds", src)
    out = tmp_path / "out" / "deck.apkg"
    assert _export(src, out, T0) == 0
    before = _pair(out)
    _edit(src / "deck.yaml")

    assert _export(src, out, T1, step) == -signal.SIGKILL
    package, manifest = _pair(out)
    if step != "replace:2":
        assert (package, manifest) == before  # killed before any rename: nothing changed
    else:
        # Killed between the renames: the manifest already records what the package will be.
        assert package == before[0] and manifest == reference[1]
    assert [p.name for p in out.parent.iterdir() if p.name.endswith(".tmp")]

    # The rerun, even a day later, writes exactly the uninterrupted export's pair (the clock
    # is the killed run's where its manifest was kept) and removes the killed run's leftovers.
    clock = T2 if step == "replace:2" else T1
    assert _export(src, out, clock) == 0
    assert _pair(out) == reference
    assert sorted(p.name for p in out.parent.iterdir()) == ["deck.apkg", "deck.manifest.json"]


def test_leftovers_of_a_running_writer_are_left_alone(tmp_path: Path) -> None:
    out = tmp_path / "deck.apkg"
    live = tmp_path / f".deck.apkg.{os.getppid()}.abc123.tmp"  # a process that still runs
    live.write_bytes(b"")
    assert _export(DATA / "kinds", out, T0) == 0
    assert live.exists()


@pytest.mark.parametrize("full", ["manifest", "package"])
def test_a_full_disk_names_the_file_and_changes_neither(
    full: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "src"
    shutil.copytree(DATA / "kinds", src)
    out = tmp_path / "out" / "deck.apkg"
    assert _export(src, out, T0) == 0
    before = _pair(out)
    _edit(src / "deck.yaml")
    target = apkg.manifest_path(out) if full == "manifest" else out

    real_open_temp = atomic_write.open_temp

    def open_temp(path: Path, mode: int = 0o666) -> tuple[int, str]:
        fd, name = real_open_temp(path, mode)
        if path == target:
            os.close(fd)
            fd = os.open("/dev/full", os.O_WRONLY)  # every write: ENOSPC, from the kernel
        return fd, name

    monkeypatch.setattr(atomic_write, "open_temp", open_temp)
    with pytest.raises(SystemExit) as exit_:
        main(["export", str(src), "-o", str(out)])
    _, err = capsys.readouterr()
    assert exit_.value.code == 1
    assert err == f"zerodrill: cannot write {target}: {os.strerror(errno.ENOSPC)}\n"
    assert _pair(out) == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["deck.apkg", "deck.manifest.json"]


def test_a_folder_that_refuses_new_files_names_the_file_not_a_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "deck.apkg"

    def refused(path: Path, mode: int = 0o666) -> tuple[int, str]:
        # What os.open raises in a folder without write permission (tests may run as root).
        name = path.parent / f".{path.name}.{os.getpid()}.x1y2z3.tmp"
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(name))

    monkeypatch.setattr(atomic_write, "open_temp", refused)
    with pytest.raises(SystemExit):
        main(["export", str(DATA / "kinds"), "-o", str(out)])
    _, err = capsys.readouterr()
    manifest = apkg.manifest_path(out)
    assert err == f"zerodrill: cannot write {manifest}: {os.strerror(errno.EACCES)}\n"
