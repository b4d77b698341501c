"""Exporting a 10,000-card deck vs genanki alone writing the same notes' raw text (goal: <= 2x).

Run by hand: ``python tests/bench/bench_export.py [CARDS] [ROUNDS]``. Both sides are timed in
one process, in alternating rounds (genanki, ours, genanki, ours, ...) so that a busy machine
slows both alike, each round after a ``gc.collect()``. It reports the best and the median
round of each side; the goal is judged on the medians.

The deck is loaded once beforehand (loading is ``validate``'s benchmark). "ours" is everything
``zerodrill export`` does after that: Markdown → HTML with Pygments, note types, the manifest,
the collection, the zip, and writing both files. Every round of ours is a cold build: a new
output path (so no manifest from an earlier round) and zerodrill's in-process memos (the
Markdown parser, Pygments lexers, note types and their CSS) emptied first, as in a fresh
process.
"genanki" writes the same number of notes, each card's raw field text joined into a basic note,
with ``Package.write_to_file``.

It also times Markdown → HTML alone, rendering every Markdown field (cards and deck
descriptions) of the shipped ZeRO deck and of a generated deck of :data:`PARSER_CARDS` cards:
the export's whole renderer (``export.html.render``: pyromark, raw HTML escaped, links and
images vetted, code highlighted, braces defused), pyromark's bare HTML with the same syntax
(CommonMark and tables), and markdown-it-py (CommonMark and tables, raw HTML off), which the
export and the drill used before.

``--hostile`` (alone, or after CARDS and ROUNDS) times the export's renderer on fields made
to be costly, each at two sizes so that the growth shows (linear: the time grows as the size):
a field of ``<``, of ``[<``, of raw HTML that unfolds one tag a parse, and a large Markdown
field with code fences.
"""

from __future__ import annotations

import gc
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import genanki

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import write_deck  # noqa: E402

from zerodrill.deck import lexers  # noqa: E402
from zerodrill.deck.load import load_paths  # noqa: E402
from zerodrill.deck.model import Deck  # noqa: E402
from zerodrill.export import apkg, html, notes, notetypes  # noqa: E402

GOAL = 2.0
PARSER_CARDS = 4_000
ZERO_DECK = Path(__file__).resolve().parents[2] / "decks" / "deepspeed-zero.yaml"
_MODEL = genanki.Model(
    1607392319,
    "bench basic",
    fields=[{"name": "Front"}, {"name": "Back"}],
    templates=[{"name": "Card 1", "qfmt": "{{Front}}", "afmt": "{{FrontSide}}<hr>{{Back}}"}],
)
#: What zerodrill memoises within a process; emptied before each of our rounds.
_MEMOS = (
    lexers.lexer_for,
    html._markdown,
    notetypes.css,
    notetypes.note_type,
    notes._source_item,
)


def _time(fn: Callable[[int], None], i: int, before: Callable[[], None] = lambda: None) -> float:
    before()
    gc.collect()
    start = time.perf_counter()
    fn(i)
    return time.perf_counter() - start


def _cold() -> None:
    for memo in _MEMOS:
        memo.cache_clear()


def _markdown_fields(decks: list[Deck]) -> list[str]:
    fields = [deck.description for deck in decks]
    fields += [text for deck in decks for card in deck.cards for text in card.fields.values()]
    return fields


#: The renderers timed on every Markdown field, and how the report names them.
PARSERS = {
    "export_render": "export render",
    "pyromark": "pyromark",
    "markdown_it_py": "markdown-it-py",
}


def _parsers() -> dict[str, Callable[[str], object]]:
    """Each renderer, with the export's syntax: CommonMark and tables."""
    import pyromark
    from markdown_it import MarkdownIt

    return {
        "export_render": html.render,
        "pyromark": pyromark.Markdown(options=pyromark.Options.ENABLE_TABLES).html,
        "markdown_it_py": MarkdownIt("commonmark", {"html": False}).enable("table").render,
    }


def _parser_times(rounds: int) -> dict[str, float]:
    """Median seconds for each parser to render every Markdown field of each deck."""
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        sets = {
            "zero": load_paths([ZERO_DECK]),
            "generated": load_paths([write_deck(Path(tmp), PARSER_CARDS)]),
        }
        for deck_name, result in sets.items():
            assert result.ok, result.problems[:3]
            fields = _markdown_fields(list(result.decks))
            out[f"{deck_name}_fields"] = len(fields)
            for parser, render in _parsers().items():

                def render_all(
                    _i: int, render: Callable[[str], object] = render, fields: list[str] = fields
                ) -> None:
                    for text in fields:
                        render(text)

                times = [_time(render_all, i) for i in range(rounds)]
                out[f"{parser}_{deck_name}_s"] = statistics.median(times)
    return out


def run(cards: int = 10_000, rounds: int = 7) -> dict[str, float]:
    parsers = _parser_times(rounds)
    with tempfile.TemporaryDirectory() as tmp:
        # genanki's write_to_file leaves a temporary collection file behind; keep it in here.
        saved_tempdir, tempfile.tempdir = tempfile.tempdir, tmp
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

        floor: list[float] = []
        export: list[float] = []
        try:
            for i in range(rounds):
                floor.append(_time(genanki_alone, i))
                export.append(_time(ours, i, before=_cold))
        finally:
            tempfile.tempdir = saved_tempdir
    genanki_s, export_s = statistics.median(floor), statistics.median(export)
    return {
        "cards": cards,
        "rounds": rounds,
        "genanki_s": genanki_s,
        "export_s": export_s,
        "ratio": export_s / genanki_s,
        "genanki_best_s": min(floor),
        "export_best_s": min(export),
        "best_ratio": min(export) / min(floor),
        "goal": GOAL,
        **parsers,
    }


#: Fields made to be costly: name -> text of about n characters.
HOSTILE: dict[str, Callable[[int], str]] = {
    "'<'": lambda n: "<" * n,
    "'[<'": lambda n: "[<" * (n // 2),
    "unfolding raw HTML": lambda n: "<a href='`'>`" * (n // 13),
    "Markdown with code fences": lambda n: (
        (
            "Some *text* with `code` and a [link](https://x.y/).\n\n```python\n"
            + "x = {'a': [1, 2]}\n" * 40
            + "```\n\n"
        )
        * (n // 800)
    ),
    # Rendered as a cloze field: deletions inside highlighted code (up to the size at which
    # code is no longer highlighted, then beyond it).
    "cloze deletions in a code fence": lambda n: (
        "```python\n" + "x = {{c1::1::h}}; y = 'a{{c2::b}}'\n" * (n // 31) + "```\n"
    ),
}


def hostile(sizes: tuple[int, ...] = (100_000, 190_000, 1_000_000, 10_000_000)) -> dict[str, float]:
    """Seconds to render each hostile field at each size (one round: these are slow)."""
    out: dict[str, float] = {}
    for name, make in HOSTILE.items():
        for size in sizes:
            text = make(size)
            cloze = name.startswith("cloze")
            out[f"{name} {len(text) / 1e6:.1f} MB"] = _time(
                lambda _i, t=text, c=cloze: html.render(t, cloze_field=c), 0
            )
    return out


if __name__ == "__main__":
    if "--hostile" in sys.argv:
        sys.argv.remove("--hostile")
        for label, seconds in hostile().items():
            print(f"render a field of {label}: {seconds:.2f} s")
        if len(sys.argv) == 1:
            raise SystemExit
    r = run(*(int(a) for a in sys.argv[1:3]))
    print(
        f"{r['cards']:.0f} cards, {r['rounds']:.0f} rounds each, interleaved: "
        f"genanki alone {r['genanki_s']:.3f}s median ({r['genanki_best_s']:.3f}s best), "
        f"zerodrill export {r['export_s']:.3f}s median ({r['export_best_s']:.3f}s best); "
        f"ratio {r['ratio']:.2f}x median, {r['best_ratio']:.2f}x best (goal <= {GOAL}x)"
    )
    for deck_name, label in (("zero", "the ZeRO deck"), ("generated", f"{PARSER_CARDS:,} cards")):
        parts = [
            f"{label} {1000 * r[f'{parser}_{deck_name}_s']:.1f} ms"
            for parser, label in PARSERS.items()
        ]
        print(
            f"Markdown of {label} ({r[f'{deck_name}_fields']:.0f} fields), median: "
            + ", ".join(parts)
        )
