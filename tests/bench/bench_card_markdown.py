"""How long the drill takes to read and draw card Markdown (``zerodrill.tui.markdown``).

Run by hand: ``python tests/bench/bench_card_markdown.py [ROUNDS]``. Prints, for every text
field of the bundled deck (``decks/deepspeed-zero.yaml``), the median and best of ROUNDS rounds
of: parsing alone, parsing and building the renderable, and that plus drawing it at 100
columns; then the time to draw a few fields made to nest deeply (which validate accepts), where
the cost must not grow as a power of the depth. The time to import the parser and read a first
field is measured in a fresh interpreter, the way the drill meets it.
"""

from __future__ import annotations

import io
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from rich.console import Console

from zerodrill.deck.load import load_paths
from zerodrill.tui.markdown import MarkdownStyles, parse, parse_markdown, render, warm_up

DECK = Path(__file__).resolve().parents[2] / "decks" / "deepspeed-zero.yaml"
DEEP = {
    "quotes 500 deep, 100 lines": "> " * 500 + "x\n" * 100,
    "bullets 500 deep": "- " * 500 + "x",
    "numbers 300 deep, 50 lines": "1. " * 300 + "x\n" * 50,
    "numbers 9 deep, 50 lines": "1. " * 9 + "x\n" * 50,
    "200 indented levels": "".join("  " * i + f"- l{i}\n" for i in range(200)),
}
FIRST = (
    "import time; t = time.perf_counter(); import zerodrill.tui.markdown as m; "
    "i = time.perf_counter(); m.parse('**x**'); p = time.perf_counter(); "
    "print(1000 * (i - t), 1000 * (p - i))"
)


def draw(markdown: str) -> int:
    """The number of lines ``markdown`` takes at 100 columns."""
    console = Console(width=100, file=io.StringIO(), color_system="truecolor")
    rendered = render(parse(markdown), MarkdownStyles())
    return len(console.render_lines(rendered, console.options, pad=False))


def timed(rounds: int, run: Callable[[], object]) -> tuple[float, float]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(1000 * (time.perf_counter() - start))
    return statistics.median(times), min(times)


def main(rounds: int) -> None:
    first = [
        [float(x) for x in subprocess.check_output([sys.executable, "-c", FIRST]).split()]
        for _ in range(rounds)
    ]
    print(
        f"import the module: median {statistics.median(f[0] for f in first):.1f} ms; "
        f"first parse (the parser's import included): median "
        f"{statistics.median(f[1] for f in first):.1f} ms"
    )
    deck = load_paths([DECK]).decks[0]
    texts = [
        text
        for card in deck.cards
        for text in (*card.fields.values(), card.extra)
        if isinstance(text, str) and text.strip()
    ]
    warm_up()
    styles = MarkdownStyles()
    print(f"{len(texts)} fields of {DECK.name}, {sum(map(len, texts)):,} characters:")
    for name, run in (
        ("parse", lambda: [parse_markdown(t) for t in texts]),
        ("parse + render", lambda: [render(parse(t), styles) for t in texts]),
        ("parse + render + draw", lambda: [draw(t) for t in texts]),
    ):
        median, best = timed(rounds, run)
        print(f"  {name:22} median {median:7.1f} ms, best {best:7.1f} ms")
    print("deeply nested fields, parse + render + draw:")
    for name, text in DEEP.items():
        median, _best = timed(rounds, partial(draw, text))
        print(f"  {name:28} {len(text):>6} chars  median {median:7.1f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 9)
