"""How long one large card field takes to parse and draw on the drill (issue 13, item 16).

Run by hand: ``python tests/bench/bench_big_field.py``. Prints, for mixed Markdown fields of
growing size (code fences, tables, long lines, emphasis, code spans, lists), the time to
parse, to draw at 100 columns, and the time per thousand characters: linear means the last
column stays flat as the size grows.
"""

from __future__ import annotations

import io
import time

from rich.console import Console

from zerodrill.tui.markdown import MarkdownStyles, parse, render

BLOCK = """\
Some *emphasis*, **strong**, `code span`, ~~gone~~ and a [link](https://example.com/x).

```python
def f(x):
    return {"a": [x, x * 2]}  # a comment
```

| a | b | c |
|---|:-:|--:|
| `1` | two | 3.0 |
| four | *five* | 6 |

- item one with `code`
- item two
  1. nested

> a quote with **bold**

"""
LONG_LINE = "word " * 400 + "\n\n"


def field(chars: int) -> str:
    unit = BLOCK + LONG_LINE
    return (unit * (chars // len(unit) + 1))[:chars]


def main() -> None:
    styles = MarkdownStyles()
    print(f"{'chars':>8} {'parse s':>8} {'draw s':>8} {'ms/1k':>7} {'lines':>7}")
    for chars in (10_000, 25_000, 50_000, 100_000, 200_000):
        text = field(chars)
        start = time.perf_counter()
        parsed = parse(text)
        parsed_at = time.perf_counter()
        console = Console(width=100, file=io.StringIO(), color_system="truecolor")
        lines = console.render_lines(render(parsed, styles), console.options, pad=False)
        done = time.perf_counter()
        total = done - start
        print(
            f"{chars:>8} {parsed_at - start:>8.3f} {done - parsed_at:>8.3f} "
            f"{1000 * total / (chars / 1000):>7.2f} {len(lines):>7}"
        )


def cloze_sides() -> None:
    """A cloze field of many deletions and code spans: both sides' Markdown (the cloze kind's
    reading, ``deck/kinds.py``)."""
    from zerodrill.deck.kinds import CLOZE
    from zerodrill.deck.model import Card, Item, Pos

    print(f"{'deletions':>9} {'sides s':>8} {'ms/1k del':>9}")
    for n in (1_000, 2_000, 4_000, 8_000):
        text = " ".join(f"`c{i}` {{{{c1::a{i}}}}} `x {{{{c1::b{i}}}}}`" for i in range(n))
        pos = Pos("big.yaml", 1, 1)
        card = Card("big", "big", CLOZE, {"text": text}, (), (), pos, {})
        item = Item("big/big#c1", card, 1)
        start = time.perf_counter()
        item.sides()
        took = time.perf_counter() - start
        print(f"{2 * n:>9} {took:>8.3f} {1000 * took / (2 * n / 1000):>9.2f}")


def drill(chars: int = 100_000) -> None:
    """The real drill (Pilot, headless): a card whose answer is a ``chars`` field, revealed,
    then q: how long each key takes to be done with."""
    import asyncio
    import tempfile
    from pathlib import Path

    from zerodrill.deck.load import load_paths
    from zerodrill.srs.store import Store
    from zerodrill.tui.drill_app import create_app

    async def run(folder: Path) -> None:
        deck = folder / "big.yaml"
        back = field(chars).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        deck.write_text(
            "deck: big\ntitle: Big\ndescription: One big card.\ncards:\n"
            f'  - id: big\n    kind: basic\n    front: Big?\n    back: "{back}"\n'
        )
        result = load_paths([deck])
        assert result.ok, result.problems
        with Store.open(folder / "r.db") as store:
            app = create_app(result.decks, store)
            async with app.run_test(size=(100, 30)) as pilot:
                await pilot.pause()
                for key in ("enter", "pagedown", "q"):
                    start = time.perf_counter()
                    await pilot.press(key)
                    await pilot.pause()
                    print(
                        f"drill, {chars} chars: {key} done in {time.perf_counter() - start:.3f} s"
                    )

    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(run(Path(folder)))


if __name__ == "__main__":
    main()
    cloze_sides()
    drill()
