"""A named pipe given as a deck (issue 24): `validate` and `show --watch` must not hang on
one that nothing writes to, and a pipe that is written to is still read."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from zerodrill.deck.files import read_deck_bytes
from zerodrill.deck.model import Problem

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX named pipes")

DECK = b"deck: piped\\ntitle: Piped\\ncards:\\n  - id: one\\n    front: Q?\\n    back: A.\\n"


def _zerodrill(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zerodrill", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "NO_COLOR": "1"},
    )


def test_validate_refuses_a_silent_named_pipe_in_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "deck.yaml"
    os.mkfifo(fifo)
    done = _zerodrill("validate", str(fifo))
    assert done.returncode == 1
    assert f"{fifo}:1:1: a pipe that nothing wrote to within 2 s, not a deck file" in done.stdout
    assert "Traceback" not in done.stderr


def test_show_watch_on_a_silent_named_pipe_reports_and_keeps_watching(tmp_path: Path) -> None:
    fifo = tmp_path / "deck.yaml"
    os.mkfifo(fifo)
    proc = subprocess.Popen(
        [sys.executable, "-m", "zerodrill", "show", "one", str(fifo), "--watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out = ""
        assert proc.stdout is not None
        # Without the fix the first drawing never comes: the open blocks for good.
        timer = threading.Timer(30, proc.kill)
        timer.start()
        try:
            while "watching the deck files" not in out:
                line = proc.stdout.readline()
                if not line:
                    break
                out += line
        finally:
            timer.cancel()
        assert "a pipe that nothing wrote to" in out
        assert "watching the deck files" in out
        assert proc.poll() is None  # still watching
    finally:
        proc.kill()
        proc.communicate()


def test_a_pipe_that_is_written_to_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "deck.yaml"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as f:
            f.write(DECK)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert read_deck_bytes(fifo) == DECK
    finally:
        writer.join(timeout=10)


def test_a_regular_file_reads_as_before(tmp_path: Path) -> None:
    deck = tmp_path / "deck.yaml"
    deck.write_bytes(DECK)
    assert read_deck_bytes(deck) == DECK
    missing = read_deck_bytes(tmp_path / "gone.yaml")
    assert isinstance(missing, Problem) and "cannot read file" in missing.message
