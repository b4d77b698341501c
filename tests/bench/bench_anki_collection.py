"""``zerodrill anki sync --collection FILE`` over a long-time Anki user's collection: a million
rows in its review log.

Run by hand: ``python tests/bench/bench_anki_collection.py [ROWS]`` (or through ``run.py``).
The collection is made by the ``anki`` package (one note of the user's own, then cloned to
:data:`OWN_NOTES` notes by SQL) and synced once with the repository's decks, so that it holds
zerodrill's notes as after an earlier sync; then ROWS revlog rows go in by SQL: one answer a
day on each of zerodrill's cards for as many past days as :data:`OUR_SHARE` of ROWS takes,
the rest on the user's own cards. It is built once and kept in ``/tmp`` (rebuilt when ROWS or
:data:`VERSION` change): building it takes longer than the sync. Timed, each in a child
process (``zerodrill anki sync`` as the user runs it) with its peak memory (the child's
maximum resident set): the first sync on a fresh review database (every answer Anki has of
zerodrill's cards comes in), then a second with nothing new. Goal (issue 35): within 15 s
and 400 MB.
"""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for _p in (str(ROOT), str(HERE.parent)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

VERSION = 2
OWN_NOTES = 20_000
#: The share of the rows on zerodrill's cards (the rest are the user's own cards').
OUR_SHARE = 0.05
GOAL_S, GOAL_MB = 15.0, 400.0
DECKS = ROOT / "decks"


def _cached(rows: int) -> Path:
    return Path("/tmp") / f"zerodrill-bench-anki-collection-v{VERSION}-{rows}" / "collection.anki2"


def _cli(collection: Path, db: Path, home: Path) -> tuple[float, float, str]:
    """``zerodrill anki sync --collection`` in a child: seconds, peak MB, its output."""
    env = dict(
        os.environ,
        ZERODRILL_CACHE_DIR=str(home / "cache"),
        ZERODRILL_CONFIG_DIR=str(home / "config"),
        PYTHONPATH=str(ROOT),
    )
    args = [sys.executable, "-m", "zerodrill", "anki", "sync", "--collection", str(collection)]
    args += ["--db", str(db), str(DECKS)]
    start = time.perf_counter()
    child = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert child.stdout is not None
    out = child.stdout.read().decode()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.returncode == 0, out
    return seconds, usage.ru_maxrss * 1024 / 1e6, out  # ru_maxrss: KiB on Linux


def _build(path: Path, rows: int) -> None:
    import anki.collection  # noqa: F401  (Anki's modules import in this order only)
    from anki.collection import Collection

    shutil.rmtree(path.parent, ignore_errors=True)
    path.parent.mkdir(parents=True)
    col = Collection(str(path))
    note = col.new_note(col.models.by_name("Basic"))
    note["Front"], note["Back"] = "a question of my own", "an answer of mine"
    col.add_note(note, col.decks.id("My own deck"))
    nid, cid = int(note.id), int(col.card_ids_of_note(note.id)[0])
    col.close()
    with tempfile.TemporaryDirectory(prefix="zerodrill-bench-build-") as tmp:
        _cli(path, Path(tmp) / "reviews.db", Path(tmp))  # zerodrill's notes, as synced before
    rng = random.Random(2026)
    now_ms = int(time.time() * 1000)
    with closing(sqlite3.connect(path)) as db, db:
        ours = [c for (c,) in db.execute("SELECT id FROM cards WHERE id != ?", (cid,))]
        base = now_ms - 10**9  # ids below any the sync or Anki give
        db.execute(
            "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?) "
            "INSERT INTO notes SELECT ? + i, guid || i, mid, mod, usn, tags, flds || i, "
            "sfld || i, csum, flags, data FROM notes, k WHERE notes.id = ?",
            (OWN_NOTES - 1, base, nid),
        )
        db.execute(
            "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?) "
            "INSERT INTO cards SELECT ? + i, ? + i, did, ord, mod, usn, 2, 2, 100, 30, 2500, "
            "reps, lapses, left, odue, odid, flags, data FROM cards, k WHERE cards.id = ?",
            (OWN_NOTES - 1, base, base, cid),
        )
        own = [cid, *(base + i for i in range(1, OWN_NOTES))]
        days = max(1, int(rows * OUR_SHARE) // max(len(ours), 1))
        revlog: dict[int, tuple[int, int, int]] = {}  # by id: an id drawn twice is drawn again
        for c in ours:
            for day in range(days, 0, -1):
                rid = now_ms - day * 86_400_000 - rng.randint(1, 8) * 3_600_000
                rid += rng.randint(0, 999)
                revlog[rid] = (rid, c, rng.choice([1, 3, 3, 4]))
        while len(revlog) < rows:
            rid = now_ms - rng.randint(2, 3650) * 86_400_000 - rng.randint(0, 86_399_999)
            revlog[rid] = (rid, rng.choice(own), rng.choice([1, 3, 3, 3, 4]))
        db.executemany(
            "INSERT INTO revlog VALUES (?, ?, -1, ?, 3, 1, 2500, 6000, 1)", revlog.values()
        )
        db.execute("UPDATE col SET mod = ?", (now_ms,))


def run(rows: int = 1_000_000) -> dict[str, float]:
    cached = _cached(rows)
    build_s = 0.0
    if not cached.is_file():
        start = time.perf_counter()
        _build(cached, rows)
        build_s = time.perf_counter() - start
    with tempfile.TemporaryDirectory(prefix="zerodrill-bench-anki-collection-") as tmp:
        home = Path(tmp)
        collection = home / "collection.anki2"
        shutil.copyfile(cached, collection)
        with closing(sqlite3.connect(collection)) as db:
            (revlog,) = db.execute("SELECT COUNT(*) FROM revlog").fetchone()
        first_s, first_mb, out = _cli(collection, home / "reviews.db", home)
        again_s, again_mb, again_out = _cli(collection, home / "reviews.db", home)
    came = next((x for x in out.splitlines() if x.startswith("Anki → zerodrill")), "")
    return {
        "rows": revlog,
        "build_s": build_s,
        "first_s": first_s,
        "first_mb": first_mb,
        "again_s": again_s,
        "again_mb": again_mb,
        "goal_s": GOAL_S,
        "goal_mb": GOAL_MB,
        "first_line": came,
    }


def main(rows: int = 1_000_000) -> None:
    r = run(rows)
    if r["build_s"]:
        print(f"collection built in {r['build_s']:.1f} s (kept in {_cached(rows).parent})")
    print(f"anki sync --collection, {r['rows']:,} revlog rows ({r['first_line']})")
    for label, s, mb in (
        ("first sync, a fresh review database", r["first_s"], r["first_mb"]),
        ("again, nothing new", r["again_s"], r["again_mb"]),
    ):
        print(
            f"{label:<38} {s:>6.1f} s ({s / GOAL_S:.2f}x the {GOAL_S:.0f} s goal)  "
            f"{mb:>5.0f} MB ({mb / GOAL_MB:.2f}x the {GOAL_MB:.0f} MB goal)"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
