"""Every benchmark in one go: each figure next to its floor, measured side by side, and the goal.

Run from the repository root: ``python tests/bench/run.py [--quick] [--only NAME] [--json FILE]``.

Each benchmark module's ``run()`` is called in a fresh Python process of its own, one after
another, so that no benchmark's imports, garbage-collector state (the drill freezes its decks)
or environment changes colour the next one, and a crash or a hang in one is reported without
taking the others down. Each child gets a private temporary folder (``TMPDIR``) and a private
deck cache and review database; afterwards the folder must be empty and no tmux session or
process of the child may be left, else it is cleaned up and reported.

The exit status is 0 when every benchmark ran, whether or not its goals were met (this is a
report); 1 when a benchmark crashed or timed out.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for _p in (str(HERE), str(ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

CARDS = 10_000

# Keyword arguments for each module's run(): full and --quick. The drill dominates the run
# (two databases x Pilot and tmux x rounds); the others are fixed-size or cheap.
KWARGS: dict[str, dict[str, dict[str, Any]]] = {
    "validate": {"full": {"cards": CARDS}, "quick": {"cards": CARDS}},
    "export": {"full": {"cards": CARDS}, "quick": {"cards": CARDS}},
    "drill": {
        # Nine rounds: on a shared machine a median of five still swung by a tenth of the
        # ratio from one run to the next.
        "full": {"cards": CARDS, "rounds": 9, "presses": 5},
        # Three rounds at least: the first pays first-time imports on both sides, and a
        # median of three drops it.
        "quick": {"cards": CARDS, "rounds": 3, "presses": 3},
    },
    "queue": {
        "full": {"cards": CARDS, "reviews": 100_000, "rounds": 15},
        "quick": {"cards": CARDS, "reviews": 100_000, "rounds": 5},
    },
    "memory": {"full": {"cards": CARDS}, "quick": {"cards": CARDS}},
    # The bundled deck, with 10,000 reviews waiting on each side (the terminal and the phone).
    # Rounds from nothing, medians: one round's ratio moves by a third with the machine.
    "anki_sync": {
        "full": {"reviews": CARDS, "rounds": 5},
        "quick": {"reviews": CARDS, "rounds": 3},
    },
    # The event stream in Anki's collection: one day's events synced, by carrier.
    "anki_stream": {"full": {"events": 100_000}, "quick": {"events": 10_000}},
    # A long-time Anki user's collection file: a million revlog rows (built once, kept in /tmp).
    "anki_collection": {"full": {"rows": 1_000_000}, "quick": {"rows": 1_000_000}},
    "events": {
        "full": {"events": 100_000, "cards": CARDS, "rounds": 5},
        "quick": {"events": 100_000, "cards": CARDS, "rounds": 3},
    },
    # A folder of a million events: building it (the database's first sync) is most of it.
    "sync": {
        "full": {"events": 1_000_000, "rounds": 5},
        "quick": {"events": 1_000_000, "rounds": 1},
    },
}
NAMES = tuple(KWARGS)
TIMEOUT_S = 600.0  # per benchmark; a hang is a crash
TMUX_PREFIX = "zdbench"  # bench_drill runs its own tmux server, on socket f"zdbench{pid}"


# -- the child: one module's run() -----------------------------------------------------------


def _child(name: str, kwargs_json: str, out: str) -> int:
    import importlib

    module = importlib.import_module(f"bench_{name}")
    result = module.run(**json.loads(kwargs_json))
    Path(out).write_text(json.dumps(result, default=float), encoding="utf-8")
    return 0


# -- the parent: run each in its own process, check the cleanup ------------------------------


@dataclass
class Outcome:
    name: str
    kwargs: dict[str, Any]
    ok: bool = False
    seconds: float = 0.0
    result: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    left_behind: list[str] = field(default_factory=list)


def _bench_servers() -> set[str]:
    """Socket names of the benchmark's tmux servers that are still running."""
    folder = Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}"
    if not shutil.which("tmux") or not folder.is_dir():
        return set()
    return {
        sock.name
        for sock in folder.glob(f"{TMUX_PREFIX}*")
        if subprocess.run(
            ["tmux", "-L", sock.name, "list-sessions"], capture_output=True
        ).returncode
        == 0
    }


def _kill_sessions(pid: int) -> list[str]:
    """Stop the tmux server a benchmark process ``pid`` started and left; say what it was."""
    name = f"{TMUX_PREFIX}{pid}"
    if name not in _bench_servers():
        return []
    subprocess.run(["tmux", "-L", name, "kill-server"], capture_output=True)
    return [f"tmux server {name}"]


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _run_one(name: str, kwargs: dict[str, Any], scratch: Path) -> Outcome:
    outcome = Outcome(name, kwargs)
    tmp = scratch / name
    (tmp / "tmp").mkdir(parents=True)
    out = tmp / "result.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(HERE), *filter(None, [env.get("PYTHONPATH")])]
    )
    env["TMPDIR"] = str(tmp / "tmp")
    # Guards: no benchmark may touch the user's review database or deck cache.
    env["ZERODRILL_DB"] = str(tmp / "tmp" / "guard-reviews.db")
    env["ZERODRILL_CACHE_DIR"] = str(tmp / "tmp" / "guard-cache")
    env.pop("ZERODRILL_DEBUG", None)
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        name,
        "--child-kwargs",
        json.dumps(kwargs),
        "--child-out",
        str(out),
    ]
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        outcome.error = f"timed out after {TIMEOUT_S:.0f} s"
    except BaseException:  # Ctrl-C: the child is in a session of its own, so stop it here
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        _kill_sessions(proc.pid)
        raise
    outcome.seconds = time.perf_counter() - start

    if proc.returncode == 0 and out.exists():
        outcome.ok = True
        outcome.result = json.loads(out.read_text(encoding="utf-8"))
        out.unlink()
    elif not outcome.error:
        lines = [ln for ln in output.strip().splitlines() if ln.strip()]
        last = lines[-1] if lines else f"exit status {proc.returncode}"
        outcome.error = last
    if not outcome.ok and output.strip():
        print(f"--- {name} crashed; its output:", file=sys.stderr)
        print(output.rstrip(), file=sys.stderr)
        print("---", file=sys.stderr)

    # Cleanup checks: processes of the child, its tmux sessions, its files.
    if _group_alive(proc.pid):
        outcome.left_behind.append(f"processes in group {proc.pid} (killed)")
        os.killpg(proc.pid, signal.SIGKILL)
    for session in _kill_sessions(proc.pid):
        outcome.left_behind.append(f"tmux session {session} (killed)")
    left = sorted(str(p.relative_to(tmp / "tmp")) for p in (tmp / "tmp").iterdir())
    if left:
        outcome.left_behind.append(
            f"{len(left)} file(s) left in its TMPDIR ({', '.join(left)}; removed)"
        )
    return outcome


# -- the table -------------------------------------------------------------------------------


@dataclass
class Row:
    benchmark: str
    measure: str
    ours: str = ""
    floor: str = ""
    ratio: str = ""
    goal: str = ""
    result: str = ""


def _ms(x: float) -> str:
    return f"{x:,.1f} ms" if x < 100 else f"{x:,.0f} ms"


def _verdict(value: float, goal: float) -> str:
    return "PASS" if value <= goal else "MISS"


def _ratio_row(
    benchmark: str, measure: str, ours_ms: float, floor_ms: float, ratio: float, goal: float
) -> Row:
    return Row(
        benchmark,
        measure,
        _ms(ours_ms),
        _ms(floor_ms),
        f"{ratio:.2f}x",
        f"<= {goal}x",
        _verdict(ratio, goal),
    )


def _rows_validate(r: dict[str, Any]) -> list[Row]:
    measure = f"{r['cards']:,} cards vs yaml.load (CSafeLoader), best"
    return [
        _ratio_row(
            "validate",
            measure,
            1000 * r["validate_s"],
            1000 * r["libyaml_s"],
            r["ratio"],
            r["goal"],
        )
    ]


def _rows_export(r: dict[str, Any]) -> list[Row]:
    measure = f"{r['cards']:,} cards vs genanki alone, median"
    return [
        _ratio_row(
            "export", measure, 1000 * r["export_s"], 1000 * r["genanki_s"], r["ratio"], r["goal"]
        )
    ]


_DRILL_PARTS = (
    ("pilot_all_new", "drill, Pilot, all new"),
    ("pilot_all_due", "drill, Pilot, all due"),
    ("tmux_all_new", "drill, tmux, all new"),
    ("tmux_all_due", "drill, tmux, all due"),
    # Copies of the bundled deck's real cards (code blocks, tables, long answers).
    ("real_pilot_all_new", "drill, Pilot, all new, real cards"),
    ("real_pilot_all_due", "drill, Pilot, all due, real cards"),
    ("real_tmux_all_new", "drill, tmux, all new, real cards"),
    ("real_tmux_all_due", "drill, tmux, all due, real cards"),
)
#: Measures of the drill against the bare app: (measure, drill's key, bare app's key, ratio).
_AGAINST_BARE = (
    ("first card vs first paint", "drill_first_ms", "bare_first_ms", "first_ratio"),
    ("reveal key to screen vs key", "drill_reveal_ms", "bare_key_ms", "reveal_ratio"),
    ("grade key to next card vs key", "drill_grade_ms", "bare_key_ms", "grade_ratio"),
)
#: The same three against Clanki's, each with the key of its goal (None: no goal).
_AGAINST_CLANKI = (
    ("first card vs Clanki's", "first", None),
    ("reveal key to screen vs Clanki's", "reveal", "clanki_reveal"),
    ("grade key to next card vs Clanki's", "grade", None),
)


def _rows_drill(r: dict[str, Any], tmux_skipped: str = "") -> list[Row]:
    goals = {"first_ratio": r["goals"]["first"]}
    goals["grade_ratio"] = r["goals"]["key"]
    # Runs saved before issue 24's goal for the reveal held it to the key goal.
    goals["reveal_ratio"] = r["goals"].get("reveal", r["goals"]["key"])
    rows = []
    for key, label in _DRILL_PARTS:
        m = r.get(key)
        if m is None:
            why = tmux_skipped or "skipped: not measured"
            rows.append(Row(label, "first card; reveal key; grade key", result=why))
            continue
        for measure, ours, floor, ratio in _AGAINST_BARE:
            if ratio == "first_ratio" and "pilot" in key:
                # The screen's frame alone: the first card's goal is the tmux row's, from the
                # process's start (see bench_drill's docstring).
                rows.append(
                    Row(
                        label,
                        f"{measure} (the frame alone), median",
                        _ms(m[ours]),
                        _ms(m[floor]),
                        f"{m[ratio]:.2f}x",
                        "(none)",
                        "(no goal)",
                    )
                )
                continue
            rows.append(
                _ratio_row(label, f"{measure}, median", m[ours], m[floor], m[ratio], goals[ratio])
            )
        if "skeleton_first_ms" in m:
            # Textual's own cost for the drill's tree of widgets, empty: no goal, for scale.
            rows.append(
                Row(
                    label,
                    "first paint of the drill's widgets, empty, vs first paint, median",
                    _ms(m["skeleton_first_ms"]),
                    _ms(m["bare_first_ms"]),
                    f"{m['skeleton_ratio']:.2f}x",
                    "(none)",
                    "(no goal)",
                )
            )
        if "drill_setup_ms" in m:
            # With Pilot the screen is timed alone; this is the loading before it.
            rows.append(
                Row(label, "deck load + session, before the app runs", _ms(m["drill_setup_ms"]))
            )
        if "tmux_" in key:
            rows.extend(_rows_clanki(r, m, label.replace("drill,", "drill vs Clanki,")))
    return rows


def _rows_clanki(r: dict[str, Any], m: dict[str, Any], label: str) -> list[Row]:
    """The drill against Clanki in the same tmux rounds; the floor column holds Clanki's."""
    if "clanki_first_ms" not in m:
        why = r.get("clanki_skipped", "skipped: not measured")
        return [Row(label, "first card; reveal key; grade key", result=why)]
    rows = []
    for measure, which, goal_key in _AGAINST_CLANKI:
        ours, theirs = m[f"drill_{which}_ms"], m[f"clanki_{which}_ms"]
        ratio = m[f"clanki_{which}_ratio"]
        if goal_key is None:
            row = Row(label, f"{measure}, median", _ms(ours), _ms(theirs), f"{ratio:.2f}x")
            row.goal, row.result = "(none)", "(no goal)"
        else:
            goal = r["goals"][goal_key]
            row = _ratio_row(label, f"{measure}, median", ours, theirs, ratio, goal)
        rows.append(row)
    return rows


def _rows_queue(r: dict[str, Any]) -> list[Row]:
    goal = r["goal_ms"]
    where = f"{r['cards']:,} cards, {r['log_entries']:,} reviews"
    return [
        Row(
            "queue",
            f"build_queue, {where}, median",
            _ms(r["build_ms_median"]),
            "",
            "",
            f"<= {goal:.0f} ms",
            _verdict(r["build_ms_median"], goal),
        ),
        Row(
            "queue",
            "build_queue, best",
            _ms(r["build_ms_best"]),
            "",
            "",
            f"<= {goal:.0f} ms",
            _verdict(r["build_ms_best"], goal),
        ),
        Row(
            "queue",
            "Session start + next(), median",
            _ms(r["session_start_ms_median"]),
            result="(no goal)",
        ),
        Row("queue", "one grade (fsynced transaction)", _ms(r["grade_ms"]), result="(no goal)"),
    ]


def _rows_memory(r: dict[str, Any]) -> list[Row]:
    return [
        Row(
            "memory",
            f"peak RSS, drill on {r['cards']:,} cards vs bare app",
            f"{r['drill_mib']:.0f} MiB",
            f"{r['bare_mib']:.0f} MiB",
            f"{r['ratio']:.2f}x",
            "(none)",
            "(no goal)",
        )
    ]


def _rows_anki_sync(r: dict[str, Any]) -> list[Row]:
    # Issue 35 point 7's goal: within 3x Anki's own syncs of the same answers (the floor:
    # Anki moving them, without zerodrill's work of reading both logs and replaying cards).
    measure = (
        f"two-way, {r['reviews']:,} reviews each side vs Anki's own syncs, median of "
        f"{len(r['rounds'])} rounds ({r['ratio_min']:.2f}x to {r['ratio_max']:.2f}x)"
    )
    return [
        _ratio_row("anki sync", measure, r["sync_ms"], r["anki_floor_ms"], r["ratio"], 3.0),
        Row("anki sync", "again, nothing new", _ms(r["again_ms"]), result="(no goal)"),
    ]


def _rows_anki_stream(r: dict[str, Any]) -> list[Row]:
    # No goal: media files send only the new events, whatever the log's size; the wired path
    # (``anki sync``) does all its other work too. The floor is Anki's own sync of as many
    # answers as revlog rows.
    floor = r["revlog_ms"]
    rows = []
    for label, slug in (("anki sync", "wired"), ("media files", "media")):
        measure = f"{r['new']:.0f} new of {r['events']:,.0f} events, {label}, up and down"
        ms, kb = r[f"{slug}_ms"], (r[f"{slug}_up"] + r[f"{slug}_down"]) / 1000
        rows.append(Row("anki stream", measure, _ms(ms), _ms(floor), f"{ms / floor:.2f}x"))
        rows.append(Row("anki stream", f"{label}: bytes on the wire", f"{kb:,.0f} kB"))
    return rows


def _rows_anki_collection(r: dict[str, Any]) -> list[Row]:
    where = f"--collection, {r['rows']:,} revlog rows"
    rows = []
    for label, s, mb in (
        (f"{where}, first sync", r["first_s"], r["first_mb"]),
        ("again, nothing new", r["again_s"], r["again_mb"]),
    ):
        goal_s, goal_mb = r["goal_s"], r["goal_mb"]
        rows.append(
            Row(
                "anki sync",
                label,
                _ms(s * 1000),
                goal=f"<= {goal_s:.0f} s",
                result=_verdict(s, goal_s),
            )
        )
        rows.append(
            Row(
                "anki sync",
                f"{label}: peak memory",
                f"{mb:.0f} MB",
                goal=f"<= {goal_mb:.0f} MB",
                result=_verdict(mb, goal_mb),
            )
        )
    return rows


def _rows_events(r: dict[str, Any]) -> list[Row]:
    where = f"{r['events']:,} events, {r['cards']:,} cards"
    lock_goal, derive_goal = r["lock_goal_ms"], r["derive_goal_ms"]
    fsrs_goal = r["derive_fsrs_goal_ms"]
    return [
        Row(
            "events",
            f"receive by sync, {where}: longest write transaction",
            _ms(r["lock_ms_max"]),
            goal=f"<= {lock_goal:.0f} ms",
            result=_verdict(r["lock_ms_max"], lock_goal),
        ),
        Row(
            "events",
            f"derive every card from {r['events']:,} events, median",
            _ms(r["derive_ms_median"]),
            goal=f"< {derive_goal:.0f} ms",
            result=_verdict(r["derive_ms_median"], derive_goal),
        ),
        Row(
            "events",
            "derive every card, best",
            _ms(r["derive_ms_best"]),
            goal=f"< {derive_goal:.0f} ms",
            result=_verdict(r["derive_ms_best"], derive_goal),
        ),
        Row(
            "events",
            f"derive every card from {r['events']:,} events under FSRS, median",
            _ms(r["derive_fsrs_ms_median"]),
            goal=f"< {fsrs_goal:.0f} ms",
            result=_verdict(r["derive_fsrs_ms_median"], fsrs_goal),
        ),
        Row(
            "events",
            "derive every card under FSRS, best",
            _ms(r["derive_fsrs_ms_best"]),
            goal=f"< {fsrs_goal:.0f} ms",
            result=_verdict(r["derive_fsrs_ms_best"], fsrs_goal),
        ),
    ]


def _rows_sync(r: dict[str, Any]) -> list[Row]:
    where = f"{r['events']:,} events from 3 machines in the folder"
    new = f"{r['new']:,} new events brought in, median"
    goal_bytes = r["nothing_new_goal_mib"] * 1e6  # the goal is in MB
    return [
        Row(
            "sync",
            f"nothing new, {where}, median",
            _ms(r["nothing_new_ms"]),
            goal=f"<= {r['nothing_new_goal_ms']:.0f} ms",
            result=_verdict(r["nothing_new_ms"], r["nothing_new_goal_ms"]),
        ),
        Row(
            "sync",
            "nothing new, peak memory vs a process that only opens the database",
            f"{r['nothing_new_mib']:.0f} MiB",
            f"{r['floor_mib']:.0f} MiB",
            goal=f"<= {r['nothing_new_goal_mib']:.0f} MB",
            result=_verdict(r["nothing_new_mib"] * 2**20, goal_bytes),
        ),
        Row(
            "sync",
            new,
            _ms(r["new_events_ms"]),
            goal=f"<= {r['new_events_goal_ms']:.0f} ms",
            result=_verdict(r["new_events_ms"], r["new_events_goal_ms"]),
        ),
        Row("sync", "new events brought in, peak memory", f"{r['new_events_mib']:.0f} MiB"),
    ]


ROWS: dict[str, Callable[..., list[Row]]] = {
    "validate": _rows_validate,
    "export": _rows_export,
    "drill": _rows_drill,
    "queue": _rows_queue,
    "memory": _rows_memory,
    "anki_sync": _rows_anki_sync,
    "anki_stream": _rows_anki_stream,
    "anki_collection": _rows_anki_collection,
    "events": _rows_events,
    "sync": _rows_sync,
}

# Figures the table does not show, printed beneath it: (benchmark, key, label, format).
DETAILS: dict[str, list[tuple[str, str, str]]] = {
    "drill": [
        ("cold_parse_ms", "deck parse, cold", "{:,.0f} ms"),
        ("warm_load_ms", "deck load from the cache", "{:,.0f} ms"),
        ("warm_load_nogc_ms", "deck load from the cache without GC passes", "{:,.0f} ms"),
        ("clanki_version", "Clanki", "{}"),
        ("clanki_anki", "its collection built by Anki", "{}"),
        ("clanki_queue_all_new", "Anki's queue, all new", "{}"),
        ("clanki_queue_all_due", "Anki's queue, all due", "{}"),
        ("clanki_vs_bare_all_new", "Clanki's keys vs the bare app's, tmux, all new", "{}"),
        ("clanki_vs_bare_all_due", "all due", "{}"),
    ],
    "anki_sync": [
        ("cards", "cards", "{:,}"),
        ("to_zerodrill", "Anki -> zerodrill", "{:,}"),
        ("to_anki", "zerodrill -> Anki", "{:,}"),
        ("rescheduled", "cards rescheduled", "{:,}"),
        ("again_moved", "moved by the second sync", "{:,}"),
        ("due_mismatches", "due dates the phone and the terminal disagree on", "{:,}"),
    ],
    "anki_collection": [
        ("build_s", "collection built in (0: kept from an earlier run)", "{:.1f} s"),
        ("first_line", "the first sync said", "{}"),
    ],
    "events": [
        ("receive_s", "receive by sync, whole", "{:.1f} s"),
        ("transactions", "its write transactions", "{:,}"),
        ("lock_ms_median", "its median write transaction", "{:,.0f} ms"),
    ],
    "sync": [
        ("cards", "cards", "{:,}"),
        ("folder_mib", "files", "{:.0f} MiB"),
        ("own_added_s", "its own events added", "{:.1f} s"),
        ("first_sync_s", "the database's first sync", "{:.1f} s"),
    ],
    "queue": [
        ("items", "items", "{:,}"),
        ("log_entries", "log entries", "{:,}"),
        ("days", "days simulated", "{:,}"),
        ("fill_s", "database written in", "{:.1f} s"),
        ("due", "due today", "{:,}"),
        ("new", "new today", "{:,}"),
        ("repeats", "repeats today", "{:,}"),
    ],
}


def _table(rows: list[Row]) -> str:
    head = Row("benchmark", "measure", "zerodrill", "floor", "ratio", "goal", "result")
    cols = list(asdict(head))
    width = {c: max(len(getattr(r, c)) for r in [head, *rows]) for c in cols}
    right = {"ours", "floor", "ratio"}

    def line(r: Row) -> str:
        cells = []
        for c in cols:
            v = getattr(r, c)
            cells.append(v.rjust(width[c]) if c in right else v.ljust(width[c]))
        return "  ".join(cells).rstrip()

    rule = "  ".join("-" * width[c] for c in cols)
    return "\n".join([line(head), rule, *map(line, rows)])


def _report(outcomes: list[Outcome], tmux_skipped: str) -> tuple[str, list[Row]]:
    rows: list[Row] = []
    details: list[str] = []
    for o in outcomes:
        if not o.ok:
            rows.append(Row(o.name, "", result=f"CRASHED: {o.error}"))
            details.append(f"  {o.name:<9} {o.seconds:6.1f} s  crashed: {o.error}")
            continue
        try:
            if o.name == "drill":
                rows.extend(_rows_drill(o.result, tmux_skipped))
            else:
                rows.extend(ROWS[o.name](o.result))
        except (KeyError, TypeError, ZeroDivisionError) as e:
            rows.append(Row(o.name, "", result=f"CRASHED: unexpected result ({e!r})"))
            o.ok, o.error = False, f"unexpected result: {e!r}"
            continue
        figures = [
            f"{label} {fmt.format(o.result[key])}"
            for key, label, fmt in DETAILS.get(o.name, [])
            if key in o.result
        ]
        args = ", ".join(
            f"{k}={v:,}" if type(v) is int else f"{k}={v}" for k, v in o.kwargs.items()
        )
        line = f"{o.name:<9} {o.seconds:6.1f} s  run({args})" + "".join(f"; {f}" for f in figures)
        details.append(textwrap.fill(line, 100, initial_indent="  ", subsequent_indent=" " * 22))
    text = _table(rows) + "\n\nPer benchmark (wall time, arguments, other figures):\n"
    text += "\n".join(details) if details else "  (none ran)"
    return text, rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (drill, queue)")
    parser.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help=f"run only this benchmark (repeatable, or comma-separated): {', '.join(NAMES)}",
    )
    parser.add_argument("--json", metavar="FILE", type=Path, help="save every figure as JSON")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-kwargs", help=argparse.SUPPRESS)
    parser.add_argument("--child-out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        return _child(args.child, args.child_kwargs, args.child_out)

    names = list(NAMES)
    if args.only:
        wanted = [n.strip() for spec in args.only for n in spec.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in NAMES]
        if unknown:
            parser.error(f"unknown benchmark {', '.join(unknown)}; choose from {', '.join(NAMES)}")
        names = [n for n in NAMES if n in wanted]

    mode = "quick" if args.quick else "full"
    has_tmux = shutil.which("tmux") is not None
    tmux_skipped = "" if has_tmux else "skipped: tmux not installed"
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"zerodrill benchmarks ({mode}): Python {platform.python_version()}, "
        f"{os.cpu_count()} cores, load average {load}, "
        f"tmux {'yes' if has_tmux else 'not installed'}; {datetime.now():%Y-%m-%d %H:%M}",
        flush=True,
    )

    outcomes: list[Outcome] = []
    before = _bench_servers()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="zerodrill-bench-") as scratch:
        for name in names:
            kwargs = dict(KWARGS[name][mode])
            if name == "drill" and not has_tmux:
                kwargs["use_tmux"] = False
            print(f"  running {name} ...", end=" ", flush=True)
            o = _run_one(name, kwargs, Path(scratch))
            print(f"{o.seconds:.1f} s" + ("" if o.ok else f" CRASHED: {o.error}"), flush=True)
            outcomes.append(o)
    total = time.perf_counter() - start
    stray = sorted(_bench_servers() - before)

    text, rows = _report(outcomes, tmux_skipped)
    print()
    print(text)
    cleanup = [f"{o.name}: {what}" for o in outcomes for what in o.left_behind]
    cleanup += [f"tmux server {s} was left running" for s in stray]
    print(
        "\nCleanup: "
        + (
            "; ".join(cleanup)
            if cleanup
            else "nothing left behind (temporary files, tmux sessions, processes)"
        )
    )
    crashed = [o.name for o in outcomes if not o.ok]
    missed = sorted({r.benchmark for r in rows if r.result == "MISS"})
    print(
        f"Total wall time: {total:.1f} s"
        + (" (over the 5-minute budget)" if total > 300 else "")
        + f". Goals missed: {'; '.join(missed) or 'none'}."
        + (f" Crashed: {', '.join(crashed)}." if crashed else "")
    )

    if args.json:
        data = {
            "date": datetime.now().isoformat(timespec="seconds"),
            "mode": mode,
            "python": platform.python_version(),
            "cores": os.cpu_count(),
            "load_average": os.getloadavg(),
            "tmux": has_tmux,
            "total_s": total,
            "benchmarks": {
                o.name: {
                    "ok": o.ok,
                    "seconds": o.seconds,
                    "kwargs": o.kwargs,
                    "result": o.result,
                    "error": o.error,
                    "left_behind": o.left_behind,
                }
                for o in outcomes
            },
            "table": [asdict(r) for r in rows],
            "cleanup": cleanup,
        }
        args.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(f"Figures saved to {args.json}")
    return 1 if crashed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception:
        traceback.print_exc()
        sys.exit(1)
