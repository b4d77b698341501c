"""Validating a 10,000-card deck vs libyaml alone loading it (goal: at most 1.5x); and one
cloze card as long as a field may be, dense with code spans and deletions or with nested
emphases, whose checks must stay linear (half as much text: about half the time).

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
from zerodrill.deck.model import MAX_FIELD_CHARS  # noqa: E402
from zerodrill.export.formats import all_rules  # noqa: E402

#: What validate checks: the deck format and every export format's rules.
RULES = all_rules()

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
            result = load_paths([path], RULES)
            assert result.ok and result.cards == cards, result.problems[:3]

        floor_s, ours_s = _best(floor), _best(ours)
    return {
        "cards": cards,
        "libyaml_s": floor_s,
        "validate_s": ours_s,
        "ratio": ours_s / floor_s,
        "goal": GOAL,
    }


def write_dense_cloze(folder: Path, pairs: int) -> Path:
    """One cloze card holding ``pairs`` code spans, each followed by a deletion."""
    text = "".join(f"`k{i % 10}` {{{{c{i % 1000 + 1}::v}}}} " for i in range(pairs))
    path = folder / "dense.yaml"
    path.write_text(
        "deck: dense\ntitle: Dense\ndescription: D\ncards:\n"
        f"  - id: a\n    kind: cloze\n    text: '{text}'\n",
        encoding="utf-8",
    )
    return path


def write_nested_cloze(folder: Path, depth: int) -> Path:
    """One cloze card with ``depth`` deletions inside as many nested emphases."""
    text = "*a " * depth + " ".join(["{{c1::x}}"] * depth) + " b*" * depth
    path = folder / "nested.yaml"
    path.write_text(
        "deck: nested\ntitle: Nested\ndescription: D\ncards:\n"
        f"  - id: a\n    kind: cloze\n    text: '{text}'\n",
        encoding="utf-8",
    )
    return path


def _load_one(path: Path) -> None:
    result = load_paths([path], RULES)
    assert result.ok and result.cards == 1, result.problems[:3]


# The longest of each shape a field holds (a longer one is refused before any check runs).
NESTED_DEPTH = MAX_FIELD_CHARS // len("*a {{c1::x}}  b*")
DENSE_PAIRS = MAX_FIELD_CHARS // len("`k0` {{c1000::v}} ")


def run_nested(depth: int = NESTED_DEPTH) -> dict[str, float]:
    times = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (depth // 2, depth):
            path = write_nested_cloze(Path(tmp), n)
            times[n] = _best(lambda path=path: _load_one(path), rounds=3)
    return {"depth": depth, "nested_s": times[depth], "half_s": times[depth // 2]}


def run_dense(pairs: int = DENSE_PAIRS) -> dict[str, float]:
    """Validating the dense card, and a deck of the same size in ordinary cards."""
    with tempfile.TemporaryDirectory() as tmp:
        dense = write_dense_cloze(Path(tmp), pairs)
        size = dense.stat().st_size

        dense_s = _best(lambda: _load_one(dense), rounds=3)
        half = write_dense_cloze(Path(tmp), pairs // 2)
        half_s = _best(lambda: _load_one(half), rounds=3)
    return {"pairs": pairs, "bytes": size, "dense_s": dense_s, "half_s": half_s}


if __name__ == "__main__":
    d = run_dense()
    print(
        f"validate one cloze card of {d['pairs']:,} code spans and deletions "
        f"({d['bytes'] / 1000:.0f} KB): {d['dense_s'] * 1000:.0f} ms; half as many: "
        f"{d['half_s'] * 1000:.0f} ms (linear: about 2x)"
    )
    n = run_nested()
    print(
        f"validate one cloze card of {n['depth']:,} deletions in as many nested emphases: "
        f"{n['nested_s'] * 1000:.0f} ms; half as deep: {n['half_s'] * 1000:.0f} ms"
    )
    r = run()
    print(
        f"validate {r['cards']:,} cards: {r['validate_s'] * 1000:.0f} ms; "
        f"yaml.load(CSafeLoader): {r['libyaml_s'] * 1000:.0f} ms; "
        f"ratio {r['ratio']:.2f}x (goal <= {GOAL}x)"
    )
