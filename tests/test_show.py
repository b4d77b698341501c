"""``zerodrill show``: one card, both sides, as the drill draws it; ``--watch`` for editing."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_support import run_cli

HEAD = "deck: {deck}\ntitle: {title}\ndescription: D\ncards:\n"
CARDS = """\
  - id: plain
    kind: basic
    front: What does stage **2** shard?
    back: Optimizer states and gradients.
    refs: ["ZeRO paper §5.2"]
  - id: blanks
    kind: cloze
    text: Stage {{c1::one}} shards states, stage {{c2::two}} gradients.
  - id: flag
    kind: red_flag
    claim: Stage 3 is always best.
    why: It costs 1.5x the traffic.
    instead: Use the lowest stage that fits.
"""


def deck(tmp_path: Path, name: str = "d", cards: str = CARDS) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(HEAD.format(deck=name, title=name.upper()) + cards, encoding="utf-8")
    return path


def test_a_card_prints_its_question_then_its_answer_as_plain_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "show", "plain", str(deck(tmp_path)))
    assert (code, err) == (0, "")
    assert "\x1b" not in out  # not a terminal: no colours
    lines = [line.rstrip() for line in out.splitlines()]
    at = lines.index("Question  d/plain")
    assert lines[at + 2] == "What does stage 2 shard?"  # Markdown drawn, not its source
    assert lines.index("Optimizer states and gradients.") > at + 2
    assert any("ZeRO paper §5.2" in line for line in lines[at:])
    assert [line for line in lines if line.startswith("─")] == [
        line for line in lines if "d/plain" in line and "─" in line
    ]


def test_each_deletion_of_a_cloze_is_shown_and_one_can_be_picked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(deck(tmp_path))
    _, out, _ = run_cli(capsys, "show", "d/blanks", path)
    assert "Stage [...] shards states, stage two gradients." in out
    assert "Stage one shards states, stage [...] gradients." in out
    assert out.count("Stage one shards states, stage two gradients.") == 2
    _, out, _ = run_cli(capsys, "show", "blanks#c2", path)
    assert "d/blanks#c2" in out and "d/blanks#c1" not in out
    code, _, err = run_cli(capsys, "show", "blanks#c3", path)
    assert (code, err) == (1, "zerodrill: card 'blanks' has no deletion c3 (it has c1, c2)\n")


def test_a_red_flag_shows_its_claim_and_both_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run_cli(capsys, "show", "flag", str(deck(tmp_path)))
    for text in ("Stage 3 is always best.", "What is wrong with saying this?", "Say instead"):
        assert text in out


def test_an_unknown_id_is_one_line_with_close_matches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "show", "plian", str(deck(tmp_path)))
    assert (code, out, err) == (1, "", "zerodrill: no card 'plian' in the decks; close: plain\n")


def test_an_id_in_two_decks_asks_for_the_deck(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deck(tmp_path, "d"), deck(tmp_path, "e")
    code, _, err = run_cli(capsys, "show", "plain", str(tmp_path))
    assert (code, err) == (
        1,
        "zerodrill: card id 'plain' is in more than one deck: name one of d/plain, e/plain\n",
    )
    assert run_cli(capsys, "show", "e/plain", str(tmp_path))[0] == 0


def test_the_bundled_decks_are_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "show", "deepspeed-zero/stage-key#c1")
    assert code == 0 and "zero_optimization.stage" in out


#: How long a watched process may stay silent before the test gives up on it: a guard that
#: keeps a broken run from hanging, never a speed limit (on a loaded machine, Textual's first
#: import alone can take many seconds).
HANG_GUARD_SECONDS = 600


class Watched:
    """``zerodrill show --watch`` in a child process, read a drawing at a time."""

    END = b"Ctrl+C to stop\n"

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "zerodrill", "show", "--watch", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env={**os.environ, "COLUMNS": "100"},
        )
        assert self.proc.stdout is not None
        self.stdout = self.proc.stdout
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.stdout, selectors.EVENT_READ)
        self.pending = b""

    def drawing(self) -> str:
        """The next drawing: everything printed up to its "watching" line."""
        while self.END not in self.pending:
            guard = self.selector.select(HANG_GUARD_SECONDS)
            assert guard, f"silent for {HANG_GUARD_SECONDS} s after: {self.pending!r}"
            chunk = os.read(self.stdout.fileno(), 65536)
            assert chunk, f"ended after: {self.pending!r}"
            self.pending += chunk
        text, _, self.pending = self.pending.partition(self.END)
        return (text + self.END).decode()

    def drawing_where(self, shows: Callable[[str], bool]) -> str:
        """The first drawing from now that ``shows`` accepts. A save may be drawn more than
        once (a poll landing mid-save, on an editor's or this test's side), so the test
        waits for what it expects rather than counting drawings."""
        while not shows(text := self.drawing()):
            pass
        return text


def test_watch_redraws_on_save_shows_problems_and_ends_quietly_on_ctrl_c(
    tmp_path: Path,
) -> None:
    path = deck(tmp_path)
    watched = Watched("plain", str(path))
    try:
        assert "What does stage 2 shard?" in watched.drawing()
        stamp = path.stat().st_mtime_ns

        def save(text: str, step: int) -> None:
            # As editors save: the whole file at once, by renaming, so the watcher never
            # reads it half written. Its time is set apart from the last save's: two saves
            # within the file system's time granularity would look like one.
            new = path.with_name(f".{path.name}.{step}")
            new.write_text(text, encoding="utf-8")
            os.utime(new, ns=(stamp + step * 10**9, stamp + step * 10**9))
            os.replace(new, path)

        save(path.read_text().replace("stage **2**", "stage **3**"), 1)
        watched.drawing_where(lambda text: "What does stage 3 shard?" in text)
        save(path.read_text().replace("    back: Optimizer", "   back: Optimizer"), 2)
        broken = watched.drawing_where(lambda text: "YAML syntax error" in text)
        assert f"zerodrill: {path}:8:4: YAML syntax error" in broken
        assert "stage 3 shard" not in broken
        save(path.read_text().replace("   back: Optimizer", "    back: Optimizer"), 3)
        watched.drawing_where(lambda text: "What does stage 3 shard?" in text)
        watched.proc.send_signal(signal.SIGINT)
        assert watched.proc.wait(timeout=HANG_GUARD_SECONDS) == 0
        rest = watched.pending.decode() + watched.stdout.read().decode()
        assert "Traceback" not in rest and "Aborted" not in rest
    finally:
        watched.proc.kill()
        watched.proc.wait()
        watched.selector.close()
        watched.stdout.close()


def test_watching_a_deck_with_problems_never_says_run_again(tmp_path: Path) -> None:
    # Issue 24: show --watch draws again by itself, so its error line must not end with
    # "run again" as the one-shot commands' line does.
    import io

    from rich.console import Console

    from zerodrill.cli.show import watch_card

    path = deck(tmp_path)
    path.write_text(path.read_text().replace("back:", "bak:"), encoding="utf-8")
    out = io.StringIO()

    def stop() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        watch_card(Console(file=out, width=200), [path], "plain", wait=stop)
    text = out.getvalue()
    assert "problems in the decks; fix them" in text
    assert "drawn again when a deck file changes" in text and "run again" not in text
