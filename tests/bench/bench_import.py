"""Importing an Anki collection with 100,000 reviews: ``zerodrill import-progress``'s work.

Run by hand: ``python tests/bench/bench_import.py [--reviews N]``. It generates a 10,000-card
deck, exports it, takes the package's collection and gives its cards N revlog rows (ten per
card over the past year, every button), then times, best and median of a few rounds:

- reading the reviews: from the collection file, and from a ``.colpkg`` holding it
  zstd-compressed as Anki 2.1.50+ exports it (copy, decompress, query, map to keys);
- the first merge into an empty review database (every card derived by replay, in short
  transactions), and a second merge of the same reviews (all present, nothing added);
- the whole command, in-process, as a user runs it the first time.

No figure is asserted; they go in the commit message and tests/bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import sqlite3
import statistics
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import zstandard  # noqa: E402
from gen import write_deck  # noqa: E402

from zerodrill.cli import main  # noqa: E402
from zerodrill.cli.import_progress import note_keys  # noqa: E402
from zerodrill.deck.load import load_paths  # noqa: E402
from zerodrill.export import apkg  # noqa: E402
from zerodrill.srs.anki_import import read_reviews  # noqa: E402
from zerodrill.srs.store import Store  # noqa: E402

CARDS = 10_000
DAY_MS = 86_400_000


def collection_with_reviews(folder: Path, package: Path, reviews: int) -> Path:
    """The package's collection, its cards given ``reviews`` revlog rows."""
    out = folder / "collection.anki2"
    with zipfile.ZipFile(package) as z:
        out.write_bytes(z.read("collection.anki2"))
    conn = sqlite3.connect(out)
    rng = random.Random(16)
    cids = [cid for (cid,) in conn.execute("SELECT id FROM cards ORDER BY id")]
    start = int(time.time() * 1000) - 365 * DAY_MS
    step = 365 * DAY_MS // max(1, reviews)
    rows = []
    for n in range(reviews):
        ease = rng.choice((1, 2, 3, 3, 3, 4))
        rows.append((start + n * step, rng.choice(cids), -1, ease, 1, 1, 2500, 8000, 1))
    with conn:
        conn.executemany("INSERT INTO revlog VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.close()
    return out


def colpkg_of(collection: Path, out: Path) -> Path:
    """``collection`` as Anki 2.1.50+ exports it: zstd-compressed, with its stub beside it."""
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.writestr("meta", b"\x08\x03")
        z.writestr(
            "collection.anki21b", zstandard.ZstdCompressor().compress(collection.read_bytes())
        )
        z.writestr("collection.anki2", b"")
        z.writestr("media", zstandard.ZstdCompressor().compress(b""))
    return out


def timed(fn: Callable[[], object], rounds: int) -> tuple[float, float]:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return min(times), statistics.median(times)


def main_bench(reviews: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory(prefix="zerodrill-bench-import-") as tmp:
        folder = Path(tmp)
        deck_path = write_deck(folder, CARDS)
        decks = list(load_paths([deck_path]).decks)
        apkg.export(decks, folder / "bench.apkg")
        collection = collection_with_reviews(folder, folder / "bench.apkg", reviews)
        colpkg = colpkg_of(collection, folder / "bench.colpkg")
        notes = note_keys(decks)
        found = read_reviews(collection, notes)
        raw, packed = collection.stat().st_size / 2**20, colpkg.stat().st_size / 2**20
        print(f"{len(found.reviews):,} reviews of {CARDS:,} cards", end="; ")
        print(f"collection {raw:.1f} MiB, .colpkg {packed:.1f} MiB")

        def fresh_merge() -> None:
            db = folder / f"fresh-{time.perf_counter_ns()}.db"
            with Store.open(db) as store:
                store.log.add_events(found.reviews)

        with Store.open(folder / "again.db") as store:
            merged = store.log.add_events(found.reviews)
            print(f"first merge: {merged.added:,} added, {len(merged.keys):,} cards rebuilt")

            def again() -> None:
                assert store.log.add_events(found.reviews).added == 0

            figures = {
                "read reviews, collection.anki2": timed(
                    lambda: read_reviews(collection, notes), rounds
                ),
                "read reviews, .colpkg (zstd)": timed(lambda: read_reviews(colpkg, notes), rounds),
                "first merge into an empty database": timed(fresh_merge, rounds),
                "merge again (all present)": timed(again, rounds),
            }

        def command() -> None:
            db = folder / f"cli-{time.perf_counter_ns()}.db"
            args = ["import-progress", str(colpkg), str(deck_path), "--db", str(db)]
            with contextlib.redirect_stdout(io.StringIO()):
                main(args)

        figures["import-progress .colpkg, first time (in-process)"] = timed(command, rounds)
        for label, (best, median) in figures.items():
            print(f"{label:<52} best {best:8.0f} ms   median {median:8.0f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reviews", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    main_bench(args.reviews, args.rounds)
