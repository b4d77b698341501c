"""Loading cost per card as a deck doubles: it should stay flat (the loader is linear).

Run by hand: ``python tests/bench/bench_load_linear.py``. Each card is a cloze with a code
span, an image and a tag, and every other card is retired: the parts of the loader that once
compared every card with every other.
"""

from __future__ import annotations

import gc
import tempfile
import time
from pathlib import Path

from zerodrill.deck.load import parse_bytes
from zerodrill.export.formats import all_rules


def deck_bytes(n: int) -> bytes:
    cards = "".join(
        f"  - id: c{i}\n    kind: cloze\n"
        f'    text: "`s{i}` {{{{c1::x{i}}}}} ![i](a.png)"\n    tags: [t{i % 7}]\n'
        for i in range(n)
    )
    retired = "retired: [" + ", ".join(f"c{i}" for i in range(0, n, 2)) + "]\n"
    return f"deck: d\ntitle: T\ndescription: D\n{retired}cards:\n{cards}".encode()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "a.png").write_bytes(b"\x89PNG")
        path = Path(tmp) / "deck.yaml"
        for n in (2_500, 5_000, 10_000, 20_000):
            data = deck_bytes(n)
            best = float("inf")
            for _ in range(3):
                gc.collect()
                start = time.perf_counter()
                deck, problems = parse_bytes(data, path, all_rules())  # as validate
                best = min(best, time.perf_counter() - start)
                assert deck is not None and not problems
            print(
                f"{n:>6} cards, {len(data) / 1e6:.1f} MB: {best:.2f} s, "
                f"{best / n * 1e6:.0f} us/card"
            )


if __name__ == "__main__":
    main()
