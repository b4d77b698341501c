"""Soak the review store: random grades and undos from several processes, some SIGKILLed.

Afterwards the state table must equal the log replayed, and every grade and undo a process
acknowledged (printed after ``record_grade``/``Store.log.undo`` returned) must be in the log. Each
process undoes only its own grades, last first, as a drill sitting does.
The suite runs a light variant; ZERODRILL_HEAVY=1 runs ten times more.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
from datetime import date
from pathlib import Path

from srs_support import ReviewKind, kind, reference_states, sm2_states

from zerodrill.srs.events import LoggedEvent, time_order
from zerodrill.srs.store import Store

SCALE = 10 if os.environ.get("ZERODRILL_HEAVY") else 1
WORKERS = 4
OPS = 400 * SCALE

WORKER = textwrap.dedent(
    """
    import random, sys
    from datetime import date, datetime, timedelta, timezone
    from zerodrill.srs.sitting import record_grade
    from zerodrill.srs.store import Store, UndoConflict

    db, seed, ops = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    given = []
    with Store.open(db) as s:
        i = 0
        while ops < 0 or i < ops:
            i += 1
            day = date(2026, 1, 1) + timedelta(days=i // 20)
            now = datetime.now(timezone.utc)
            if rng.random() < 0.2:
                if not given:
                    continue
                try:
                    u = s.log.undo(given.pop(), at=now)
                except UndoConflict:
                    print("refused", flush=True)  # graded since by another process
                    continue
                print("U", u.id, u.undoes[1], flush=True)
            else:
                key = f"soak/card-{rng.randrange(40)}"
                r = record_grade(s, key, rng.randrange(6), day=day, at=now,
                                 typed=f"{seed}-{i}")
                given.append(r.id)
                print("G", r.id, key, flush=True)
    """
)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


def assert_one_grade_a_day(log: list[LoggedEvent]) -> None:
    """However the processes interleaved, a card's schedule moved at most once a study day:
    in the replay's order, each grade in effect is on a later day than every review in effect
    before it."""
    undone = {r.undoes for r in log if kind(r) is ReviewKind.UNDO}
    last_day: dict[str, date] = {}
    for r in sorted(log, key=lambda r: time_order(r.event)):
        if kind(r) is ReviewKind.UNDO or r.identity in undone:
            continue
        if kind(r) is ReviewKind.GRADE and r.key in last_day:
            assert r.day > last_day[r.key], f"{r.key} graded twice by {r.day}"
        last_day[r.key] = max(r.day, last_day.get(r.key, r.day))


def test_random_grades_undos_and_kills_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "soak.db"
    Store.open(db).close()
    rng = random.Random(7)
    # Half of the workers write until they are killed, at a random point of their work.
    victims_n = WORKERS // 2
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WORKER,
                str(db),
                str(seed),
                "-1" if seed < victims_n else str(OPS),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        for seed in range(WORKERS)
    ]
    victims = procs[:victims_n]
    early: dict[subprocess.Popen[str], list[str]] = {}
    for proc in victims:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(rng.randrange(OPS // 4, OPS))]
        proc.send_signal(signal.SIGKILL)
        early[proc] = lines
    outputs: list[tuple[subprocess.Popen[str], str, str]] = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)  # every pipe is drained and closed
        outputs.append((proc, "".join(early.get(proc, [])) + out, err))
    grades: dict[int, str] = {}
    undos: dict[int, int] = {}
    for proc, out, err in outputs:
        if proc in victims:
            assert proc.returncode == -signal.SIGKILL, err
        else:
            assert proc.returncode == 0, err
        for line in out.splitlines(keepends=True):
            # A line cut short by SIGKILL was never acknowledged.
            parts = line.split() if line.endswith("\n") else []
            if not parts:
                continue
            if parts[0] == "G":
                grades[int(parts[1])] = parts[2]
            elif parts[0] == "U":
                undos[int(parts[1])] = int(parts[2])
    assert len(grades) > WORKERS * OPS // 4, "the workers barely ran; the test proved nothing"

    with Store.open(db) as s:
        log = {r.id: r for r in s.log.entries()}
        for review_id, key in grades.items():
            assert review_id in log and log[review_id].key == key
        for undo_id, target in undos.items():
            # Every worker's grades are this machine's: its number is its identity's.
            assert kind(log[undo_id]) is ReviewKind.UNDO and log[undo_id].undoes == (
                s.machine.id,
                target,
            )
        assert reference_states(s.log.events()) == sm2_states(s)
        assert_one_grade_a_day(list(s.log.entries()))
    assert (
        subprocess.run(
            [
                sys.executable,
                "-c",
                f"import sqlite3; c = sqlite3.connect({str(db)!r}); "
                "print(c.execute('pragma integrity_check').fetchone()[0]); c.close()",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        == "ok"
    )
