"""Where the drill's key presses spend their time, profiled in a real terminal (tmux).

Run by hand from the repository root (it takes a minute or two)::

    python tests/bench/profile_keys.py [--cards 10000] [--presses 15] [--top 20]
        [--only new|due] [--bare] [--cpu-only] [--save DIR] [--cards-of generated|real]

The drill runs in tmux on the bench's generated deck, as ``bench_drill.py`` runs it, with all
cards new and with all cards due. It is started through this file, which installs two signal
handlers and then hands over to zerodrill's command line: SIGUSR1 turns cProfile on, SIGUSR2
turns it off. For each key this side sends SIGUSR1, the key, waits until the pane shows the
key's effect, then sends SIGUSR2; reveal keys (Enter) and grade keys (4) go into profiles of
their own. A profile thus holds all that a key cost the app's main thread up to the screen
changing: Textual's key dispatch and bindings, the drill's action, styling, layout, rendering
and writing the frame. Time the main thread spent waiting (the event loop's ``select``, while
this side polls the pane) is left out: shares are of the busy time. The table by cumulative
time leaves out the event loop's and Textual's dispatch frames, which hold everything.

cProfile slows small Python calls down more than big ones, so the shares lean towards code
with many small calls; ``--cpu-only`` runs without it and reports the process's CPU time a
key, to set beside the profiled figure. Garbage-collector passes inside the windows are
counted through ``gc.callbacks``. ``--bare`` profiles the bench's bare Textual app's key
too, for scale. ``--save DIR`` keeps the ``.prof`` files (for snakeviz, or ``pstats``).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pstats
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench_drill import Screen

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

# Where the waiting shows up in a profile of the main thread.
_IDLE = ("<method 'poll' of 'select.epoll' objects>", "<method 'select' of 'select.epoll' objects>")


# -- inside the profiled app ---------------------------------------------------------------------


def _child(out: Path, cpu_only: bool, argv: list[str]) -> None:
    """Install the handlers, then run ``argv`` (a script, or ``-m module ...``) as __main__.

    Each signal carries a request in ``out/next`` ("<bucket> <n>", or "!dump <n>") and is
    answered in ``out/ack`` with ``<n>`` once done, so the measuring side never sends a key
    before the profiler is on, nor the next request while a handler still runs.
    """
    import cProfile
    import runpy

    profiles: dict[str, cProfile.Profile] = {}
    figures: dict[str, dict[str, float]] = {}
    state: dict[str, Any] = {"bucket": None, "cpu": 0.0, "gc_at": 0.0}

    def on_gc(phase: str, info: dict[str, int]) -> None:
        bucket = state["bucket"]
        if bucket is None:
            return
        if phase == "start":
            state["gc_at"] = time.perf_counter()
        else:
            f = figures[bucket]
            f["gc_passes"] += 1
            f["gc_s"] += time.perf_counter() - state["gc_at"]

    def ack(n: str) -> None:
        (out / "ack.tmp").write_text(n)
        (out / "ack.tmp").replace(out / "ack")

    def start(signum: int, frame: object) -> None:
        bucket, n = (out / "next").read_text().split()
        if bucket == "!dump":
            for name, profile in profiles.items():
                profile.dump_stats(out / f"{name}.prof")
            (out / "figures.json").write_text(json.dumps(figures))
            ack(n)
            return
        state["bucket"] = bucket
        figures.setdefault(bucket, {"windows": 0, "cpu_s": 0.0, "gc_passes": 0, "gc_s": 0.0})
        ack(n)
        state["cpu"] = time.process_time()
        if not cpu_only:
            profiles.setdefault(bucket, cProfile.Profile()).enable()

    def stop(signum: int, frame: object) -> None:
        bucket = state["bucket"]
        if not cpu_only:
            profiles[bucket].disable()
        f = figures[bucket]
        f["cpu_s"] += time.process_time() - state["cpu"]
        f["windows"] += 1
        state["bucket"] = None
        ack((out / "next").read_text().split()[1])

    gc.callbacks.append(on_gc)
    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    if argv[0] == "-m":
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv
        runpy.run_path(argv[0], run_name="__main__")


# -- the measuring side --------------------------------------------------------------------------


def _pane_pid(session: str) -> int:
    from bench_drill import TMUX

    out = subprocess.run(
        [*TMUX, "display-message", "-p", "-t", session, "#{pane_pid}"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout.strip())


class _Control:
    """Requests to the profiled app (see :func:`_child`), each answered before it returns."""

    def __init__(self, pid: int, out: Path) -> None:
        self.pid, self.out, self.n = pid, out, 0

    def __call__(self, sig: signal.Signals, bucket: str = "-") -> None:
        self.n += 1
        (self.out / "next").write_text(f"{bucket} {self.n}")
        os.kill(self.pid, sig)
        ack = self.out / "ack"
        start = time.perf_counter()
        while not (ack.exists() and ack.read_text() == str(self.n)):
            if time.perf_counter() - start > 30:
                raise TimeoutError(f"the app did not answer request {self.n} ({bucket})")
            time.sleep(0.001)

    def window(self, bucket: str, send: Callable[[], None], done: Callable[[], float]) -> float:
        """One profiled key: on, the key, wait for the screen, off. Its wall time to screen."""
        self(signal.SIGUSR1, bucket)
        t = time.perf_counter()
        send()
        seen = done() - t
        self(signal.SIGUSR2)
        return seen


def profile_app(
    kind: str,
    argv: list[str],
    env: dict[str, str],
    presses: int,
    out: Path,
    cpu_only: bool,
    screen: Screen | None = None,
) -> dict[str, list[float]]:
    """Run ``argv`` in tmux under the handlers and profile ``presses`` keys of each kind.

    ``screen`` reads a review app's pane (reveal with Enter, grade with 4); without one,
    ``argv`` is the bench's bare app (Enter). Two keys of each kind warm up first, unprofiled
    (the drill's grade bar and Markdown parser come then).
    """
    from bench_drill import TMUX, _capture, _wait_for

    session = f"zdprof{os.getpid()}{kind}"
    child = [sys.executable, str(Path(__file__).resolve()), "--child", str(out)]
    if cpu_only:
        child.append("--child-cpu-only")
    cmd = ["env", *(f"{k}={v}" for k, v in env.items()), *child, "--", *argv]
    # As separate words, the command is run without a shell: the pane's process is the app.
    subprocess.run(
        [*TMUX, "new-session", "-d", "-s", session, "-x", "100", "-y", "30", *cmd], check=True
    )
    walls: dict[str, list[float]] = {"reveal": [], "grade": [], "key": []}

    def send(key: str) -> Callable[[], None]:
        return lambda: subprocess.run([*TMUX, "send-keys", "-t", session, key], check=True)

    def seen(found: Callable[[str], bool]) -> Callable[[], float]:
        return lambda: _wait_for(session, found)

    try:
        control = _Control(_pane_pid(session), out)
        if screen is None:
            _wait_for(session, lambda s: "BARE READY" in s)
            for n in range(1, presses + 3):
                pressed = seen(lambda s, n=n: f"BARE PRESSED {n}" in s)
                if n <= 2:
                    send("Enter")(), pressed()
                else:
                    walls["key"].append(control.window("key", send("Enter"), pressed))
        else:
            sc = screen
            _wait_for(session, lambda s: sc.card_key(s) is not None and sc.asking(s))
            for n in range(presses + 2):
                before = sc.card_key(_capture(session))
                revealed = seen(sc.revealed)
                graded = seen(
                    lambda s, b=before: not sc.revealed(s) and sc.card_key(s) not in (None, b)
                )
                if n < 2:
                    send("Enter")(), revealed(), send("4")(), graded()
                    continue
                walls["reveal"].append(control.window("reveal", send("Enter"), revealed))
                walls["grade"].append(control.window("grade", send("4"), graded))
        control(signal.SIGUSR1, "!dump")
        return walls
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", session], capture_output=True)


# -- the report ----------------------------------------------------------------------------------


def _where(func: tuple[str, int, str]) -> str:
    file, line, name = func
    if file == "~":
        return name
    path = Path(file)
    parts = path.parts
    for anchor in ("site-packages", "zerodrill"):
        if anchor in parts:
            i = parts.index(anchor)
            rel = parts[i + 1 :] if anchor == "site-packages" else parts[i:]
            return f"{'/'.join(rel)}:{line}({name})"
    return f"{path.name}:{line}({name})"


def _dispatch(func: tuple[str, int, str]) -> bool:
    """The event loop's and Textual's dispatch frames: around everything, they say nothing
    (and the loop's hold the waiting too)."""
    file, _, name = func
    parts = Path(file).parts
    return (
        "asyncio" in parts
        or Path(file).name in ("selectors.py", "_callback.py")
        or name == "<method 'run' of '_contextvars.Context' objects>"
    )


def _breakdown(table: dict[Any, Any], n: int, busy: float) -> list[str]:
    """The key's busy time in Textual's stages, from the cumulative times of their functions.

    The stages follow each other in the main thread (a key's binding and action, then the
    screen update: layout, drawing, writing the frame), so their times do not overlap; what
    is left is the rest of the message traffic (the Resize, Show and Hide events a layout
    posts, timers) and the profiler's own calls.
    """

    def cum(suffix: str, *names: str) -> float:
        return sum(
            ct
            for (file, _, name), (_, _, _, ct, _) in table.items()
            if name in names and Path(file).as_posix().endswith(suffix)
        )

    dispatch = cum("textual/app.py", "_check_bindings")
    action = cum("zerodrill/tui/screens/drill_screen.py", "action_reveal", "action_grade")
    layout = cum("textual/_compositor.py", "reflow")
    heights = cum("textual/widget.py", "get_content_height")
    drawing = cum("textual/_compositor.py", "render_update")
    content = cum("textual/widget.py", "_render_content")
    frame = cum("textual/app.py", "_display")
    rest = busy - dispatch - layout - drawing - frame
    rows = [
        (dispatch, "the key's binding and action (App._check_bindings), of which"),
        (action, "  the drill's action (DrillScreen.action_reveal / action_grade)"),
        (layout, "layout (Compositor.reflow), of which"),
        (heights, "  measuring heights (Widget.get_content_height: renders what it measures)"),
        (drawing, "drawing the changed regions (Compositor.render_update), of which"),
        (content, "  widgets' own content (Widget._render_content)"),
        (drawing - content, "  the rest: each line's styles, containers' lines, compositing"),
        (frame, "writing the frame to the terminal (App._display)"),
        (rest, "everything else (events the layout posts, timers, the loop)"),
    ]
    out = ["  where the busy time went:   share  ms/key  stage"]
    for t, label in rows:
        out.append(f"  {'':<26}{100 * t / busy:5.1f}%  {1000 * t / n:6.2f}  {label}")
    return out


def report(name: str, out: Path, walls: list[float], top: int, cpu_only: bool) -> str:
    figures = json.loads((out / "figures.json").read_text())[name]
    n = figures["windows"]
    lines = [
        f"{name}: {n} keys; to screen (wall, polled) median {1000 * statistics.median(walls):.1f}"
        f" ms; process CPU {1000 * figures['cpu_s'] / n:.1f} ms a key"
        + (" (no profiler)" if cpu_only else " (under the profiler)")
        + f"; GC passes {figures['gc_passes'] / n:.1f} a key, {1000 * figures['gc_s'] / n:.1f} ms"
    ]
    if cpu_only:
        return "\n".join(lines)
    stats = pstats.Stats(str(out / f"{name}.prof"))
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    idle = sum(tt for func, (_, _, tt, _, _) in table.items() if func[2] in _IDLE)
    total = sum(tt for (_, _, tt, _, _) in table.values())
    busy = total - idle
    lines[0] += (
        f"\n  main thread busy {1000 * busy / n:.1f} ms a key (waiting {1000 * idle / n:.1f} ms "
        "left out); shares are of the busy time"
    )
    lines += _breakdown(table, n, busy)
    rows = [
        (ct, tt, nc, func) for func, (_, nc, tt, ct, _) in table.items() if func[2] not in _IDLE
    ]
    for title, key in (("cumulative", 0), ("self", 1)):
        lines.append(f"  by {title} time:   share  ms/key  calls/key  function")
        shown = [r for r in rows if key == 1 or not _dispatch(r[3])]
        for row in sorted(shown, key=lambda r: r[key], reverse=True)[:top]:
            t = row[key]
            lines.append(
                f"  {'':<{len(title) + 11}}{100 * t / busy:5.1f}%  {1000 * t / n:6.2f}"
                f"  {row[2] / n:9.1f}  {_where(row[3])}"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument(
        "--presses",
        type=int,
        default=15,
        help="profiled keys of each kind (all new: at most 17 of its 20 cards; 2 warm up)",
    )
    parser.add_argument("--top", type=int, default=20, help="functions listed per table")
    parser.add_argument("--only", choices=("new", "due"), help="one database only")
    parser.add_argument("--bare", action="store_true", help="profile the bare app's key too")
    parser.add_argument("--cpu-only", action="store_true", help="no profiler: CPU a key only")
    parser.add_argument("--save", type=Path, metavar="DIR", help="keep the .prof files here")
    parser.add_argument(
        "--cards-of",
        choices=("generated", "real"),
        default="generated",
        help="generated short cards, or copies of the bundled deck's real ones",
    )
    args = parser.parse_args()

    import bench_drill
    from gen import write_deck, write_real_deck

    bench_drill.compile_package()
    with tempfile.TemporaryDirectory(prefix="zerodrill-profile-") as tmp:
        folder = Path(tmp)
        cache = folder / "cache"
        os.environ["ZERODRILL_CACHE_DIR"] = str(cache)
        write = write_real_deck if args.cards_of == "real" else write_deck
        deck = write(folder, args.cards)
        from zerodrill.deck.cache import load_paths_cached
        from zerodrill.srs.store import Store

        load_paths_cached([deck])  # warm the parsed-deck cache, as for a learner's second day
        env = {"PYTHONPATH": str(ROOT), "ZERODRILL_CACHE_DIR": str(cache), "TERM": "xterm-256color"}
        runs: list[tuple[str, list[str]]] = []
        if args.bare:
            bare = folder / "bare_app.py"
            bare.write_text(bench_drill.BARE_APP)
            runs.append(("bare", [str(bare)]))
        for name in ("new", "due"):
            if args.only in (None, name):
                db = folder / f"{name}.db"
                if name == "due":
                    bench_drill.seed_all_due(db, deck)
                else:
                    Store.open(db).close()
                runs.append(
                    (f"all {name}", ["-m", "zerodrill", "drill", str(deck), "--db", str(db)])
                )
        # A session that outlives the profiled ones (see bench_drill.tmux).
        keep = [*bench_drill.TMUX, "new-session", "-d", "-s", "keep", "sleep 86400"]
        subprocess.run(keep, check=True)
        try:
            for kind, argv in runs:
                out = folder / kind.replace(" ", "_")
                out.mkdir()
                tag = kind.replace(" ", "_")
                presses = min(args.presses, 17) if kind == "all new" else args.presses
                screen = None if kind == "bare" else bench_drill.DRILL_SCREEN
                walls = profile_app(tag, argv, env, presses, out, args.cpu_only, screen)
                for bucket, seen in walls.items():
                    if not seen:
                        continue
                    print(f"== {kind}, " + report(bucket, out, seen, args.top, args.cpu_only))
                    print()
                    if args.save and not args.cpu_only:
                        args.save.mkdir(parents=True, exist_ok=True)
                        prof = out / f"{bucket}.prof"
                        prof.replace(args.save / f"{tag}-{bucket}.prof")
        finally:
            bench_drill.stop_tmux()


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        out_dir = Path(sys.argv[2])
        rest = sys.argv[3:]
        cpu = rest[:1] == ["--child-cpu-only"]
        rest = rest[1:] if cpu else rest
        _child(out_dir, cpu, rest[1:] if rest[:1] == ["--"] else rest)
    else:
        main()
