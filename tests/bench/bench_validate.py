"""Validating a 10,000-card deck vs libyaml alone loading it (goal: at most 1.5x).

Run by hand: ``python tests/bench/bench_validate.py``. Both are timed side by side, best of
several rounds, in one process.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import write_deck  # noqa: E402

from zerodrill.deck.load import load_paths  # noqa: E402

GOAL = 1.5


def _best(fn, rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def run(cards: int = 10_000) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = write_deck(Path(tmp), cards)

        def floor() -> None:
            with path.open("rb") as f:
                yaml.load(f, Loader=yaml.CSafeLoader)

        def ours() -> None:
            result = load_paths([path])
            assert result.ok and result.cards == cards, result.problems[:3]

        floor_s, ours_s = _best(floor), _best(ours)
    return {
        "cards": cards,
        "libyaml_s": floor_s,
        "validate_s": ours_s,
        "ratio": ours_s / floor_s,
        "goal": GOAL,
    }


if __name__ == "__main__":
    r = run()
    print(
        f"validate {r['cards']:,} cards: {r['validate_s'] * 1000:.0f} ms; "
        f"yaml.load(CSafeLoader): {r['libyaml_s'] * 1000:.0f} ms; "
        f"ratio {r['ratio']:.2f}x (goal <= {GOAL}x)"
    )
