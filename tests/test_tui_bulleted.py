"""Bulleted lines draw exactly as the two-column table they replace would."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console, Group
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text

from zerodrill.tui.bulleted import Bulleted

WORDS = st.sampled_from(
    ["ZeRO", "a", "stage-3", "arXiv:1910.02054", "§5.2", "漢字", "é", "x" * 30, "—", " "]
)
STYLES = st.sampled_from([None, Style(color="blue", link="https://example.org"), Style(bold=True)])


@st.composite
def labels(draw: st.DrawFn) -> list[Text]:
    out = []
    for _ in range(draw(st.integers(1, 4))):
        label = Text(overflow="ellipsis")
        label.append(" ".join(draw(st.lists(WORDS, min_size=1, max_size=6))), draw(STYLES))
        out.append(label)
    return out


def _as_table(bullet: Text, lines: list[Text]) -> Table:
    grid = Table.grid(padding=(0, 1, 0, 0))
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1, overflow="ellipsis")
    for line in lines:
        grid.add_row(bullet, line)
    return grid


def _cells(lines: list[list[Segment]]) -> list[list[tuple[str, str]]]:
    """Each character with the style it is drawn in (no style and the null one alike)."""
    return [
        [(ch, str(seg.style or Style.null)) for seg in line for ch in seg.text] for line in lines
    ]


@settings(max_examples=150, deadline=None)
@given(labels(), st.integers(1, 120))
def test_drawn_and_measured_as_the_table_would_be(lines: list[Text], width: int) -> None:
    console = Console(width=width, color_system="truecolor", force_terminal=True)
    bullet = Text("•", Style(color="grey50"))
    for wrap in (lambda r: r, lambda r: Group(Text("Sources"), r)):
        table = console.render_lines(wrap(_as_table(bullet, lines)), console.options, pad=False)
        ours = console.render_lines(wrap(Bulleted(bullet, lines)), console.options, pad=False)
        assert _cells(ours) == _cells(table)
    assert Measurement.get(console, console.options, Bulleted(bullet, lines)) == Measurement.get(
        console, console.options, _as_table(bullet, lines)
    )
