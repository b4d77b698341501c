"""Exporting a 10,000-card deck vs genanki alone writing the same notes' raw text (goal: <= 2x).

Run by hand: ``python tests/bench/bench_export.py``. Both sides are timed in one process, best
of several rounds. The deck is loaded once beforehand (loading is ``validate``'s benchmark);
"ours" is everything ``zerodrill export`` does after that: Markdown → HTML with Pygments, note
types, the manifest, the collection, the zip, and writing both files. "genanki" writes the
same number of notes, each card's raw field text joined into a basic note, with
``Package.write_to_file``.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import genanki

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import write_deck  # noqa: E402

from zerodrill.deck.load import load_paths  # noqa: E402
from zerodrill.export import apkg  # noqa: E402

GOAL = 2.0
_MODEL = genanki.Model(
    1607392319,
    "bench basic",
    fields=[{"name": "Front"}, {"name": "Back"}],
    templates=[{"name": "Card 1", "qfmt": "{{Front}}", "afmt": "{{FrontSide}}<hr>{{Back}}"}],
)


def _best(fn: Callable[[int], None], rounds: int = 3) -> float:
    times = []
    for i in range(rounds):
        start = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - start)
    return min(times)


def run(cards: int = 10_000) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        result = load_paths([write_deck(folder, cards)])
        assert result.ok and result.cards == cards, result.problems[:3]
        (deck,) = result.decks
        raw = [list(card.fields.values()) for card in deck.cards]

        def genanki_alone(i: int) -> None:
            g = genanki.Deck(2059400110, "bench")
            for fields in raw:
                g.add_note(genanki.Note(_MODEL, [fields[0], "\n".join(fields[1:])]))
            genanki.Package(g).write_to_file(str(folder / f"genanki-{i}.apkg"), timestamp=1.7e9)

        def ours(i: int) -> None:
            stats = apkg.export([deck], folder / f"ours-{i}.apkg", clock=lambda: 1.7e9)
            assert stats.notes == cards

        floor_s, ours_s = _best(genanki_alone), _best(ours)
    return {
        "cards": cards,
        "genanki_s": floor_s,
        "export_s": ours_s,
        "ratio": ours_s / floor_s,
        "goal": GOAL,
    }


if __name__ == "__main__":
    r = run(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
    print(
        f"{r['cards']:.0f} cards: genanki alone {r['genanki_s']:.3f}s, "
        f"zerodrill export {r['export_s']:.3f}s, ratio {r['ratio']:.2f}x (goal <= {GOAL}x)"
    )
