"""Terminal faults: the real ``zerodrill drill`` in a real pseudo-terminal, ill-treated.

Each test starts ``python -m zerodrill drill`` on the slave side of a pty that is its
controlling terminal (as a terminal emulator or sshd sets it up), types keys into the master,
changes the window size with TIOCSWINSZ + SIGWINCH, and hangs the terminal up or kills the
process. The review database is read from this side with :meth:`Store.open` while the drill
runs; every grade the drill acknowledges must be there afterwards, with the state table equal
to a replay of the log. No tmux and no terminal emulator: only the standard library (POSIX).

Every wait is for something to happen (text on the screen, a grade in the store, the process
gone); the timeouts are generous (30 s) and only say "it never happened". Nothing asserts on
speed, and no pause decides an outcome.
"""

from __future__ import annotations

import os
import random
import re
import select
import signal
import sqlite3
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from srs_support import ReviewKind, kind, reference_states, sm2_states
from tui_support import TUI_DECKS

from zerodrill.srs.events import LoggedEvent
from zerodrill.srs.sitting import record_grade
from zerodrill.srs.store import Store

fcntl = pytest.importorskip("fcntl", reason="needs a POSIX pseudo-terminal")
termios = pytest.importorskip("termios", reason="needs a POSIX pseudo-terminal")

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 30.0

# Run in the child before zerodrill: make the pty (fd 0) the controlling terminal of the new
# session, so that closing the master hangs it up and the kernel sends SIGHUP, as a real
# terminal does. Then exec the real command. argv[1] is "ignore-sighup" (nohup's way) or "-":
# SIGHUP's default, set whatever the tests inherited (run under nohup, they inherit it ignored).
BOOT = (
    "import fcntl, os, signal, sys, termios\n"
    "ignore = sys.argv[1] == 'ignore-sighup'\n"
    "signal.signal(signal.SIGHUP, signal.SIG_IGN if ignore else signal.SIG_DFL)\n"
    "fcntl.ioctl(0, termios.TIOCSCTTY, 0)\n"
    "os.execv(sys.executable, [sys.executable, '-m', 'zerodrill', *sys.argv[2:]])\n"
)

# CSI (including private and kitty forms), OSC (hyperlinks, titles), then any other escape.
ANSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -~]")
TRACEBACK = re.compile(r"Traceback|internal error|Error:|Exception")
SAVED = re.compile(r"(\d+) grades? saved to ")

ENTER, UP, DOWN = b"\r", b"\x1b[A", b"\x1b[B"


def plain_deck(path: Path, n: int) -> Path:
    """A deck of ``n`` plain cards, whose text is easy to find in the terminal's output."""
    lines = ["deck: faults", "title: Terminal faults", "description: Plain cards.", "cards:"]
    for i in range(1, n + 1):
        lines += [
            f"  - id: q{i:02d}",
            "    kind: basic",
            f"    front: Plain question {i:02d}",
            f"    back: Plain answer {i:02d}",
        ]
    path.write_text("\n".join(lines) + "\n")
    return path


class PtyDrill:
    """``zerodrill drill`` running in a pseudo-terminal that this test holds the master of."""

    def __init__(
        self, tmp: Path, deck: Path, size: tuple[int, int], *, ignore_sighup: bool = False
    ) -> None:
        self.db = tmp / "reviews.db"
        self.output = bytearray()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.master, slave = os.openpty()
        self.closed = False
        try:
            self._set_size(*size)
            self.termios_before = termios.tcgetattr(self.master)
            env = {
                k: v
                for k, v in os.environ.items()
                if k not in ("COLUMNS", "LINES") and not k.startswith("TEXTUAL")
            }
            env.update(
                TERM="xterm-256color",
                ZERODRILL_CACHE_DIR=str(tmp / "cache"),
                PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
            )
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    BOOT,
                    "ignore-sighup" if ignore_sighup else "-",
                    "drill",
                    str(deck),
                    "--db",
                    str(self.db),
                    "--new",
                    "100",
                ],
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=env,
                cwd=tmp,
                start_new_session=True,
            )
        except BaseException:
            os.close(self.master)
            raise
        finally:
            os.close(slave)
        self._reader = threading.Thread(target=self._read, name="pty-reader", daemon=True)
        self._reader.start()

    # -- the terminal's side ------------------------------------------------------------------

    def _read(self) -> None:
        # Always drained, so the drill never blocks writing to a full pty buffer.
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:  # EIO: every slave fd is closed, the drill has gone
                return
            if not data:
                return
            with self._lock:
                self.output += data

    def text(self, start: int = 0) -> str:
        """What the drill wrote from byte ``start`` on, escape sequences removed."""
        with self._lock:
            raw = bytes(self.output[start:])
        return ANSI.sub(b"", raw).decode("utf-8", "replace")

    @property
    def mark(self) -> int:
        with self._lock:
            return len(self.output)

    def press(self, *keys: bytes) -> None:
        for key in keys:
            os.write(self.master, key)

    def _set_size(self, cols: int, rows: int) -> None:
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def resize(self, cols: int, rows: int) -> None:
        """The window is dragged to ``cols`` x ``rows``: new size, then SIGWINCH."""
        self._set_size(cols, rows)
        self.proc.send_signal(signal.SIGWINCH)

    def close_terminal(self) -> None:
        """Close the master, as a terminal window closing does: the kernel hangs the pty up."""
        self._stop.set()
        self._reader.join()
        os.close(self.master)
        self.closed = True

    # -- waiting --------------------------------------------------------------------------------

    def wait_for(self, what: str, start: int = 0) -> None:
        until(lambda: what in self.text(start), f"{what!r} on the screen", self)

    def wait_grades(self, n: int) -> list[LoggedEvent]:
        grades: list[LoggedEvent] = []

        def enough() -> bool:
            nonlocal grades
            grades = graded(self.db)
            return len(grades) >= n

        until(enough, f"{n} grades in the store", self)
        return grades

    def grade(self, quality: int = 4) -> None:
        """Reveal the current card, grade it, and wait until the store has the grade."""
        before = len(graded(self.db))
        self.press(ENTER, str(quality).encode())
        self.wait_grades(before + 1)

    def wait_exit(self, timeout: float = TIMEOUT) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the drill did not exit within {timeout:.0f} s:\n{self.text()[-1500:]}")

    def finish(self) -> None:
        """Whatever happened, leave no process, thread or fd behind."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if not self.closed:
            # The drill is gone: the reader sees EIO; stop it in any case.
            self._stop.set()
            self._reader.join()
            os.close(self.master)
            self.closed = True


def until(condition: Callable[[], bool], what: str, drill: PtyDrill) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        if drill.proc.poll() is not None:
            pytest.fail(
                f"the drill exited ({drill.proc.returncode}) before {what}:\n{drill.text()[-1500:]}"
            )
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} after {TIMEOUT:.0f} s:\n{drill.text()[-1500:]}")
        time.sleep(0.05)


def graded(db: Path) -> list[LoggedEvent]:
    """The grades in the store, read the way a second terminal would."""
    if not db.exists():
        return []
    with Store.open(db, create=False) as store:
        return [r for r in store.log.entries() if kind(r) is not ReviewKind.UNDO]


def assert_store_sound(db: Path) -> list[LoggedEvent]:
    """The database is intact and its state table is what its log says; returns the log."""
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
    with Store.open(db, create=False) as store:
        assert reference_states(store.log.events()) == sm2_states(store)
        return list(store.log.entries())


def assert_terminal_restored(drill: PtyDrill) -> None:
    """Handed back as found: off the alternate screen, cursor shown, the same tty modes."""
    with drill._lock:
        raw = bytes(drill.output)
    assert raw.rfind(b"\x1b[?1049l") > raw.rfind(b"\x1b[?1049h") >= 0
    assert raw.rfind(b"\x1b[?25h") > raw.rfind(b"\x1b[?25l") >= 0
    assert termios.tcgetattr(drill.master) == drill.termios_before


def assert_no_traceback(text: str) -> None:
    match = TRACEBACK.search(text)
    assert match is None, f"error output from the drill:\n{text[max(0, match.start() - 500) :]}"


@pytest.fixture
def run(tmp_path: Path) -> Iterator[Callable[..., PtyDrill]]:
    drills: list[PtyDrill] = []

    def start(
        deck: Path, size: tuple[int, int] = (100, 30), *, ignore_sighup: bool = False
    ) -> PtyDrill:
        drill = PtyDrill(tmp_path, deck, size, ignore_sighup=ignore_sighup)
        drills.append(drill)
        return drill

    yield start
    for drill in drills:
        drill.finish()


ZERO_DECK = TUI_DECKS / "zero.yaml"
ZERO_FIRST = "The ZeRO stage is set by"


def three_graded(run: Callable[..., PtyDrill]) -> tuple[PtyDrill, list[tuple[str, int | None]]]:
    """The ZeRO deck's drill with three cards graded 4: the drill, and (card, grade) of each."""
    drill = run(ZERO_DECK)
    drill.wait_for(ZERO_FIRST)
    for _ in range(3):
        drill.grade(4)
    return drill, [(r.key, r.grade) for r in graded(drill.db)]


@pytest.mark.parametrize("how", ["terminal-closed", "sighup"])
def test_a_hung_up_terminal_ends_the_drill_and_keeps_every_grade(
    run: Callable[..., PtyDrill], how: str
) -> None:
    drill, given = three_graded(run)
    assert len(given) == 3 and len({key for key, _ in given}) == 3

    if how == "terminal-closed":
        drill.close_terminal()  # the window closes: the kernel sends SIGHUP
    else:
        drill.proc.send_signal(signal.SIGHUP)  # e.g. the ssh connection dropped
    drill.wait_exit()

    log = assert_store_sound(drill.db)
    assert [(r.key, r.grade) for r in log] == given


def test_a_closed_terminal_ends_the_drill_even_with_sighup_ignored(
    run: Callable[..., PtyDrill],
) -> None:
    """SIGHUP ignored (inherited from a parent that ignores it, e.g. after ``trap '' HUP``):
    the drill can learn of the hang-up only from its input, which then reads end-of-file."""
    drill = run(ZERO_DECK, ignore_sighup=True)
    drill.wait_for(ZERO_FIRST)
    drill.grade(5)
    drill.close_terminal()
    drill.wait_exit(timeout=10)
    log = assert_store_sound(drill.db)
    assert [r.grade for r in log] == [5]


def test_a_resize_storm_loses_nothing(tmp_path: Path, run: Callable[..., PtyDrill]) -> None:
    drill = run(plain_deck(tmp_path / "plain.yaml", 40), (100, 30))
    drill.wait_for("Plain question 01")
    storm = drill.mark
    rnd = random.Random(20260511)
    keys = [ENTER, ENTER, b"4", b"5", UP, DOWN]
    for i in range(50):
        if i % 3 == 0:  # below 80x24: the "make the terminal bigger" screen
            size = (rnd.randint(40, 79), rnd.randint(10, 23))
        else:
            size = (rnd.randint(40, 200), rnd.randint(10, 60))
        drill.resize(*size)
        drill.press(rnd.choice(keys))
        time.sleep(0.01)  # spreads the storm out; what happens meanwhile is the test's chaos
    # Settle: a size no storm size has (wider than any), too small, and wait for its notice.
    # The too-small screen ignores every storm key, so from here on none can grade a card, and
    # the drill's own text is drawn again only once the window is big enough.
    drill.resize(201, 20)
    drill.wait_for("this one is 201×20", storm)
    settled = drill.mark
    drill.resize(100, 30)
    drill.wait_for("Plain ", settled)

    assert "Make the terminal" in drill.text(storm)  # the small screen came and went
    drill.grade(4)
    after_storm = graded(drill.db)
    drill.press(b"q")
    assert drill.wait_exit() == 0

    text = drill.text()
    assert_no_traceback(text)
    saved = SAVED.search(text)
    assert saved, f"no '... grades saved' line:\n{text[-800:]}"
    log = assert_store_sound(drill.db)
    # Every grade the drill acknowledged is stored, once, and no card was graded twice.
    assert len(log) == int(saved.group(1)) == len(after_storm)
    assert all(kind(r) is ReviewKind.GRADE and r.grade in (4, 5) for r in log)
    assert len({r.key for r in log}) == len(log)
    assert_terminal_restored(drill)


def test_a_tiny_terminal_says_so_and_quits_cleanly(run: Callable[..., PtyDrill]) -> None:
    drill = run(ZERO_DECK, (30, 8))
    drill.wait_for("Make the terminal")
    drill.press(b"q")
    assert drill.wait_exit() == 0

    text = drill.text()
    assert_no_traceback(text)
    assert ZERO_FIRST not in text  # the drill is there, under the message
    assert not SAVED.search(text)
    assert assert_store_sound(drill.db) == []
    assert_terminal_restored(drill)
    # The whole message is readable, wrapped rather than cut off at the terminal's edge.
    words = " ".join(text.split())
    for part in (
        "Make the terminal bigger",
        "zerodrill needs 80×24; this one is 30×8.",
        "Your progress is saved. q quits.",
    ):
        assert part in words, f"{part!r} is not on a 30x8 screen:\n{text}"


@pytest.mark.parametrize("key", [b"\x03", b"\x11"], ids=["ctrl+c", "ctrl+q"])
def test_ctrl_c_and_ctrl_q_quit_the_real_drill_as_q_does(
    run: Callable[..., PtyDrill], key: bytes
) -> None:
    drill, given = three_graded(run)
    drill.press(b"?")  # over a dialog, too
    drill.wait_for("Grades (SM-2)")
    start = drill.mark
    drill.press(key)
    assert drill.wait_exit() == 0
    text = drill.text(start)
    assert_no_traceback(text)
    assert "to quit" not in text  # Textual's "press ctrl+q to quit"
    match = SAVED.search(text)
    assert match is not None and int(match.group(1)) == len(given) == 3
    assert_terminal_restored(drill)


def test_sigkill_mid_session_keeps_the_grades_given(run: Callable[..., PtyDrill]) -> None:
    drill = run(ZERO_DECK)
    drill.wait_for(ZERO_FIRST)
    drill.grade(4)
    drill.grade(5)
    given = [(r.key, r.grade) for r in graded(drill.db)]
    drill.proc.kill()
    assert drill.wait_exit() == -signal.SIGKILL

    log = assert_store_sound(drill.db)
    assert [(r.key, r.grade) for r in log] == given
    assert [grade for _, grade in given] == [4, 5]


@pytest.mark.parametrize("then", ["grade", "quit"])
def test_the_database_deleted_mid_drill_stops_it_and_claims_nothing(
    run: Callable[..., PtyDrill], then: str
) -> None:
    drill, given = three_graded(run)
    drill.db.unlink()
    drill.press(*((ENTER, b"4") if then == "grade" else (b"q",)))
    assert drill.wait_exit() == 1
    words = " ".join(drill.text().split())
    assert SAVED.search(words) is None  # no "3 grades saved to" a file that is gone
    rescued = drill.db.with_name("reviews-rescued.db")
    assert (
        f"zerodrill: stopped saving to {drill.db}: it was deleted or moved away during the "
        f"drill; everything it held, this drill's grades included, is in {rescued}; move that "
        f"to {drill.db} to go on"
    ) in words
    assert_no_traceback(words)
    assert not drill.db.exists()
    assert [(r.key, r.grade) for r in assert_store_sound(rescued)] == given


def test_the_database_replaced_mid_drill_is_left_as_it_is(
    tmp_path: Path, run: Callable[..., PtyDrill]
) -> None:
    other = tmp_path / "other.db"
    with Store.open(other) as store:
        record_grade(store, "other/x", 5, day=date(2025, 1, 1), at=datetime.now(UTC))
    drill, given = three_graded(run)
    os.replace(other, drill.db)
    drill.press(ENTER, b"4")
    assert drill.wait_exit() == 1
    words = " ".join(drill.text().split())
    assert "it was replaced by another file during the drill (left as it is)" in words
    assert SAVED.search(words) is None
    assert [r.key for r in assert_store_sound(drill.db)] == ["other/x"]
    rescued = drill.db.with_name("reviews-rescued.db")
    assert [(r.key, r.grade) for r in assert_store_sound(rescued)] == given


#: The keys of the pty mash, as a terminal sends them.
MASH_KEYS = [
    *(ENTER, ENTER, b"\x1b", b"\t", UP, DOWN, b"\x1b[C", b"\x1b[D", b" ", b"\x7f"),
    *(b"\x1b[5~", b"\x1b[6~", b"\x10"),  # PageUp, PageDown, Ctrl+P
    *(str(d).encode() for d in range(10)),
    *(b"a", b"d", b"s", b"u", b"?", b"x", b"4", b"5", b"d", b"\x10"),
]


@pytest.mark.parametrize("seed", range(3 * (10 if os.environ.get("ZERODRILL_HEAVY") else 1)))
def test_random_keys_15ms_apart_never_crash_the_real_drill(
    run: Callable[..., PtyDrill], seed: int
) -> None:
    """The issue's own setting: the installed drill, keys 15 ms apart, resizes among them."""
    drill = run(TUI_DECKS)
    drill.wait_for("show the answer")
    rnd = random.Random(seed)
    for _ in range(200):
        if drill.proc.poll() is not None:
            break  # the palette's Quit, chosen by chance: it must have ended cleanly
        if rnd.random() < 0.04:
            drill.resize(*rnd.choice([(100, 30), (80, 24), (60, 20), (20, 5)]))
        else:
            drill.press(rnd.choice(MASH_KEYS))
        time.sleep(0.015)
    if drill.proc.poll() is None:
        drill.resize(100, 30)
        for attempt in range(10):
            # A lone Esc is told from the start of an escape sequence by the pause after it.
            drill.press(b"\x1b")
            time.sleep(0.5)
            # q, or Ctrl+Q should q have been typed into a text field: both end the drill.
            drill.press(b"q" if attempt < 3 else b"\x11")
            try:
                drill.proc.wait(1.0)
                break
            except subprocess.TimeoutExpired:
                continue
    assert drill.wait_exit() == 0
    text = drill.text()
    assert_no_traceback(text)
    log = assert_store_sound(drill.db)
    undone = {r.undoes for r in log if kind(r) is ReviewKind.UNDO}
    in_effect = [r for r in log if kind(r) is not ReviewKind.UNDO and r.identity not in undone]
    saved = SAVED.search(text)
    assert (int(saved.group(1)) if saved else 0) == len(in_effect)
    assert_terminal_restored(drill)
