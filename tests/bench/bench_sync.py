"""``zerodrill sync`` over logs of 100,000 reviews.

Run by hand: ``python tests/bench/bench_sync.py [REVIEWS]``. Machine A's database gets a
learner's year of reviews (10,000 cards, :func:`bench_queue.fill`); then it times, each once
(every sync after the first changes what the next one does):

- A's first sync: its whole log written to its file in the folder;
- B's first sync: that file read and merged into an empty database, every card rebuilt;
- a sync with nothing new (A again): both files and the local log read, nothing written;
- A grades 100 more cards and syncs, then B syncs: what a sitting adds.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_queue import NOW, TODAY, fill, items_of, make_decks  # noqa: E402

from zerodrill.srs.session import record_grade  # noqa: E402
from zerodrill.srs.store import Store  # noqa: E402
from zerodrill.srs.sync.folder import SyncReport, sync_folder  # noqa: E402


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
            logged = sum(1 for _ in a.log())
            print(f"machine A: {logged:,} reviews logged in {time.perf_counter() - start:.1f} s")
            line("A sends its whole log", *timed(a, folder))
            size = (folder / f"zerodrill-{a.machine}.jsonl").stat().st_size
            print(f"{'  its file':<44} {size / 2**20:>9.1f} MiB")
            line("B receives it all (empty database)", *timed(b, folder))
            line("A again, nothing new", *timed(a, folder))
            later = NOW + timedelta(days=1)
            for key in rng.sample(keys, 100):
                record_grade(a, key, 4, day=TODAY + timedelta(days=1), at=later)
            line("A sends a sitting's 100 grades", *timed(a, folder))
            line("B receives them", *timed(b, folder))
            assert a.states() == b.states()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
