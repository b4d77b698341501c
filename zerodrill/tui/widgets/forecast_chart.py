"""A bar chart of the cards due on each of the coming days, drawn with block characters."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

from rich.text import Text
from textual.widget import Widget

from zerodrill.srs.review_stats import bars
from zerodrill.tui.time_labels import day_month


class ForecastChart(Widget):
    DEFAULT_CSS = """
    ForecastChart {
        height: 8;
        width: auto;
        color: $primary;
    }
    """

    def __init__(
        self, counts: Sequence[int], today: date | None = None, *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.counts = list(counts)
        self.today = today

    def render(self) -> Text:
        counts = self.counts or [0]
        # Two cells per day when there is room: bars a single cell wide are hard to read.
        width = 2 if self.size.width >= 2 * len(counts) + 6 else 1
        rows = max(1, self.size.height - 2)
        top = max(counts)
        label_w = len(str(top))
        lines: list[Text] = []
        for row, cells in enumerate(bars(counts, rows)):
            # No peak, no scale: a "0" or "1" over empty columns would read as a count.
            label = f"{top:>{label_w}} " if row == 0 and top else " " * (label_w + 1)
            line = Text(label, style="dim")
            line.append(cells if width == 1 else "".join(cell + " " for cell in cells))
            lines.append(line)
        axis = Text(" " * (label_w + 1), style="dim")
        axis.append("─" * (len(counts) * width))
        lines.append(axis)
        lines.append(self._labels(label_w, width, len(counts)))
        return Text("\n").join(lines)

    def _labels(self, label_w: int, width: int, days: int) -> Text:
        labels = " " * (label_w + 1)
        marks = {0: "today"}
        if self.today is not None:
            for offset in (7, 14, 21, 28):
                if offset < days:
                    marks[offset] = day_month(self.today + timedelta(days=offset))
        cells = [" "] * (days * width + 12)
        for offset, mark in marks.items():
            at = offset * width
            for i, ch in enumerate(mark):
                if at + i < len(cells):
                    cells[at + i] = ch
        return Text(labels + "".join(cells).rstrip(), style="dim")
