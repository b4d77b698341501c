"""``zerodrill anki sync --collection`` with nothing new, on a large deck: what the decks' notes
cost a sync that moves nothing.

Run by hand: ``python tests/bench/bench_anki_notes.py [CARDS]`` (default 10,000 cards of the
real deck's shapes, tests/bench/gen.py). A desktop collection is synced once (every note
imported), then ``RUNS`` times more with nothing new. Printed: each run's time, and the part
spent building the package and in Anki's importer; then the same runs with the check that
skips the import turned off (every run imports, as before it).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
for _p in (str(HERE.parents[1]), str(HERE.parent)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import anki.collection  # noqa: E402  (Anki's modules import in this order only)
import gen  # noqa: E402

from zerodrill.anki_sync import note_updates  # noqa: E402
from zerodrill.anki_sync import run as anki_sync  # noqa: E402
from zerodrill.cli.common import load_decks, usable_decks  # noqa: E402
from zerodrill.cli.import_progress import note_keys  # noqa: E402
from zerodrill.srs.store import Store  # noqa: E402

RUNS = 5


def _timed(spent: dict[str, float], name: str) -> None:
    real = getattr(note_updates, name)

    def wrapper(*args: object) -> object:
        start = time.perf_counter()
        try:
            return real(*args)
        finally:
            spent[name] += (time.perf_counter() - start) * 1000

    setattr(note_updates, name, wrapper)


def run(cards: int = 10_000) -> dict[str, list[float]]:
    spent = {"prepare_package": 0.0, "_write_package": 0.0, "import_package": 0.0}
    for name in spent:
        _timed(spent, name)
    out: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="zerodrill-bench-notes-") as tmp:
        root = Path(tmp)
        os.environ["ZERODRILL_CACHE_DIR"] = str(root / "deck-cache")
        (root / "decks").mkdir()
        gen.write_real_deck(root / "decks", cards)
        decks = usable_decks(load_decks([root / "decks"]))
        notes = note_keys(decks)
        path = root / "desktop" / "collection.anki2"
        path.parent.mkdir()
        anki.collection.Collection(str(path)).close()
        target = anki_sync.Target(path)
        with Store.open(root / "reviews.db") as store:
            anki_sync.sync(target, decks, notes, store, root / "decks.manifest.json")
            check = note_updates._anything_newer
            for label, older in (("nothing newer", False), ("every run imports", True)):
                if older:
                    note_updates._anything_newer = lambda *args: True
                for key in spent:
                    out.setdefault(f"{label}: {key}", [])
                out[f"{label}: sync"] = []
                for _ in range(RUNS):
                    for key in spent:
                        spent[key] = 0.0
                    start = time.perf_counter()
                    anki_sync.sync(target, decks, notes, store, root / "decks.manifest.json")
                    out[f"{label}: sync"].append((time.perf_counter() - start) * 1000)
                    for key, ms in spent.items():
                        out[f"{label}: {key}"].append(ms)
            note_updates._anything_newer = check
    return out


def main(cards: int = 10_000) -> None:
    r = run(cards)
    print(f"anki sync --collection, nothing new, {cards:,} generated cards, median of {RUNS}")
    for key, values in r.items():
        print(f"  {key:38} {statistics.median(values):>8,.0f} ms")
    ours, before = (
        statistics.median(r[f"{k}: sync"]) for k in ("nothing newer", "every run imports")
    )
    print(f"  ratio, nothing newer / every run imports {ours / before:>6.2f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
