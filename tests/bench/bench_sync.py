"""``zerodrill sync`` over logs of 100,000 reviews, and over a folder of a million events.

Run by hand: ``python tests/bench/bench_sync.py [REVIEWS]``. Machine A's database gets a
learner's year of reviews (10,000 cards, :func:`bench_queue.fill`); then it times, each once
(every sync after the first changes what the next one does):

- A's first sync: its whole log written to its file in the folder;
- B's first sync: that file read and merged into an empty database, every card rebuilt;
- a sync with nothing new (A again);
- A grades 100 more cards and syncs, then B syncs: what a sitting adds.

``python tests/bench/bench_sync.py --folder [EVENTS]``, or ``run.py --only sync``
(:func:`run`): a folder holding ``EVENTS`` (1,000,000) events from 3 machines, about a third each,
of 50,000 cards (20 reviews each, spread over 2.9 years, in time order: a learner's long
history, as SM-2's growing intervals give it). Machine M, one of the three, holds them all
(its own added to its database, the others' taken in by its first sync). Then, each sync in a
fresh process whose peak resident set (``VmHWM``) is its peak memory:

- a sync with nothing new, ``rounds`` times. Goals: within 1 s, and 200 MB of peak memory;
- the other two machines add 10,000 events to their files (the next review of 10,000 cards,
  each with its history), and a copy of M's database as it was syncs, ``rounds`` times, each
  from that copy. Goal: within 2 s.

The floor is a process that opens the database and syncs nothing: Python, the imports and
SQLite's pages, which no sync can do without.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_queue import NOW, TODAY, fill, items_of, make_decks  # noqa: E402

from zerodrill.srs.events import ReviewEvent  # noqa: E402
from zerodrill.srs.grades import Grade  # noqa: E402
from zerodrill.srs.sitting import record_grade  # noqa: E402
from zerodrill.srs.store import Store  # noqa: E402
from zerodrill.srs.sync.folder import SyncReport, sync_folder  # noqa: E402
from zerodrill.srs.sync.logfile import file_name, write_log  # noqa: E402

NOTHING_NEW_GOAL_MS = 1000.0
NOTHING_NEW_GOAL_MIB = 200.0
NEW_EVENTS_GOAL_MS = 2000.0
#: The other two machines of the folder (the third is the database's own).
OTHERS = ("b0b0b0b0b0b0b0b0", "c0c0c0c0c0c0c0c0")
#: The folder's first event; one every 90 seconds after it.
FIRST = datetime(2023, 1, 2, 8, 0, tzinfo=UTC)
#: One sync in a process of its own: its time, what it did, and the process's peak memory.
CHILD = textwrap.dedent(
    """
    import json, resource, sys, time
    from pathlib import Path
    from zerodrill.srs.store import Store
    from zerodrill.srs.sync.folder import sync_folder

    with Store.open(Path(sys.argv[1])) as store:
        start = time.perf_counter()
        report = sync_folder(store, Path(sys.argv[2])) if sys.argv[3] == "sync" else None
        ms = (time.perf_counter() - start) * 1000
        assert report is None or not report.warnings, report.warnings
    # The high-water mark of this program's memory: ru_maxrss would count the parent's,
    # which a child started by fork has until it runs this.
    try:
        status = Path("/proc/self/status").read_text().splitlines()
        peak = next(int(s.split()[1]) for s in status if s.startswith("VmHWM:"))
    except (OSError, StopIteration):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({
        "ms": ms,
        "sent": report.sent if report else 0,
        "received": report.received if report else 0,
        "peak_mib": peak / 1024,
    }))
    """
)


def timed(store: Store, folder: Path) -> tuple[float, SyncReport]:
    start = time.perf_counter()
    report = sync_folder(store, folder)
    return (time.perf_counter() - start) * 1000, report


def line(what: str, ms: float, report: SyncReport) -> None:
    print(
        f"{what:<44} {ms:>9,.0f} ms   sent {report.sent:>7,}  received {report.received:>7,}"
        f"  cards {report.cards:>6,}"
    )


def main(reviews: int = 100_000) -> None:
    rng = random.Random(2025)
    keys = [item.key for item in items_of(make_decks(10_000))]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "shared"
        folder.mkdir()
        with Store.open(root / "a.db") as a, Store.open(root / "b.db") as b:
            start = time.perf_counter()
            fill(a, keys, reviews, rng)
            logged = sum(1 for _ in a.log.entries())
            print(f"machine A: {logged:,} reviews logged in {time.perf_counter() - start:.1f} s")
            line("A sends its whole log", *timed(a, folder))
            size = (folder / f"zerodrill-{a.machine.id}.jsonl").stat().st_size
            print(f"{'  its file':<44} {size / 2**20:>9.1f} MiB")
            line("B receives it all (empty database)", *timed(b, folder))
            line("A again, nothing new", *timed(a, folder))
            later = NOW + timedelta(days=1)
            for key in rng.sample(keys, 100):
                record_grade(a, key, 4, day=TODAY + timedelta(days=1), at=later)
            line("A sends a sitting's 100 grades", *timed(a, folder))
            line("B receives them", *timed(b, folder))
            assert a.schedule.states() == b.schedule.states()


def history(
    machines: list[str], seqs: dict[str, int], first: int, count: int, cards: int
) -> dict[str, list[ReviewEvent]]:
    """Events ``first`` to ``first + count`` of the folder, by machine: event ``n`` is the
    ``n // cards``-th review of card ``n % cards``, 90 seconds after event ``n - 1``, made on
    a machine drawn at random (numbered on from ``seqs``)."""
    rng = random.Random(first)
    made: dict[str, list[ReviewEvent]] = {m: [] for m in machines}
    for n in range(first, first + count):
        machine = rng.choice(machines)
        seqs[machine] = seqs.get(machine, 0) + 1
        at = FIRST + timedelta(seconds=90 * n)
        grade = Grade(rng.choice((2, 3, 4, 4, 5, 5)))
        key = f"bench/card-{n % cards}"
        made[machine].append(
            ReviewEvent(machine, seqs[machine], key, at, at.date(), grade, None, 4000)
        )
    return made


def _child(db: Path, folder: Path, what: str = "sync") -> dict[str, float]:
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(db), str(folder), what],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"benchmark child failed: {done.stderr.strip()[-2000:]}")
    result: dict[str, float] = json.loads(done.stdout)
    return result


def run(
    events: int = 1_000_000, cards: int = 50_000, new: int = 10_000, rounds: int = 3
) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder, db, before = root / "shared", root / "m.db", root / "before.db"
        folder.mkdir()
        with Store.open(db) as store:
            machines = [store.machine.id, *OTHERS]
            seqs: dict[str, int] = {}
            made = history(machines, seqs, 0, events, cards)
            for machine, log in made.items():
                write_log(folder / file_name(machine), machine, "", log)
            start = time.perf_counter()
            store.log.add_events(made[store.machine.id])
            own_s = time.perf_counter() - start
            start = time.perf_counter()
            first = sync_folder(store, folder)
            first_s = time.perf_counter() - start
            assert first.received == events - len(made[store.machine.id]), first
            del made
        floor = _child(db, folder, "open")
        nothing = [_child(db, folder) for _ in range(rounds)]
        assert all(r["received"] == r["sent"] == 0 for r in nothing), nothing
        shutil.copyfile(db, before)
        for machine, log in history(list(OTHERS), seqs, events, new, cards).items():
            with open(folder / file_name(machine), "a", encoding="utf-8") as out:
                out.write("".join(event.to_json() + "\n" for event in log))
        brought = []
        for _ in range(rounds):
            shutil.copyfile(before, db)
            brought.append(_child(db, folder))
            assert brought[-1]["received"] == new, brought[-1]
        size = sum(path.stat().st_size for path in folder.iterdir())
    return {
        "events": events,
        "cards": cards,
        "new": new,
        "folder_mib": size / 2**20,
        "own_added_s": own_s,
        "first_sync_s": first_s,
        "floor_ms": floor["ms"],
        "floor_mib": floor["peak_mib"],
        "nothing_new_ms": statistics.median(r["ms"] for r in nothing),
        "nothing_new_mib": max(r["peak_mib"] for r in nothing),
        "new_events_ms": statistics.median(r["ms"] for r in brought),
        "new_events_mib": max(r["peak_mib"] for r in brought),
        "nothing_new_goal_ms": NOTHING_NEW_GOAL_MS,
        "nothing_new_goal_mib": NOTHING_NEW_GOAL_MIB,
        "new_events_goal_ms": NEW_EVENTS_GOAL_MS,
    }


def folder_main(events: int) -> None:
    r = run(events)
    print(
        f"{r['events']:,} events of {r['cards']:,} cards from 3 machines "
        f"({r['folder_mib']:.0f} MiB of files): own added in {r['own_added_s']:.1f} s, "
        f"first sync {r['first_sync_s']:.1f} s"
    )
    print(
        f"nothing new: {r['nothing_new_ms']:,.0f} ms, peak {r['nothing_new_mib']:.0f} MiB "
        f"(goals {NOTHING_NEW_GOAL_MS:.0f} ms, {NOTHING_NEW_GOAL_MIB:.0f} MB); "
        f"{r['new']:,} new: {r['new_events_ms']:,.0f} ms, peak {r['new_events_mib']:.0f} MiB "
        f"(goal {NEW_EVENTS_GOAL_MS:.0f} ms); a process that only opens the database: "
        f"{r['floor_mib']:.0f} MiB"
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--folder"]:
        folder_main(int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000)
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
