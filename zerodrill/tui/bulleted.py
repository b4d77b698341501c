"""Lines of text each behind a bullet, wrapped under themselves (a hanging indent).

Drawn as a two-column ``Table.grid`` would draw them (the bullet and a blank, then the text
wrapped between words, a word too long for its line cut short with an ellipsis), line for
line and style for style. A table measures each of its cells and wraps each in padding
objects before drawing it: for the few short lines under a card's answer (its sources), that
was a large share of the time the whole answer took to draw.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

#: The bullet's column: the bullet and one blank.
_INDENT = 2


class Bulleted:
    """``lines``, each behind ``bullet`` (one cell wide), as a Rich renderable."""

    def __init__(self, bullet: Text, lines: Sequence[Text]) -> None:
        self.bullet = bullet
        self.lines = tuple(lines)
        self._longest = max((line.cell_len for line in self.lines), default=0)

    def _simple(self, max_width: int) -> bool:
        # Below these, Rich shares out too little room between the columns by rules of its
        # own (never met in a terminal a drill runs in): the table itself draws them.
        return self.bullet.cell_len == 1 and self._longest > 0 and max_width > _INDENT

    def _as_table(self) -> Table:
        grid = Table.grid(padding=(0, 1, 0, 0))
        grid.add_column(no_wrap=True)
        grid.add_column(ratio=1, overflow="ellipsis")
        for line in self.lines:
            grid.add_row(self.bullet, line)
        return grid

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        if not self._simple(options.max_width):
            return Measurement.get(console, options, self._as_table())
        words = max(
            (Measurement.get(console, options, line).minimum for line in self.lines), default=0
        )
        return Measurement(_INDENT + words, _INDENT + self._longest)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if not self._simple(options.max_width):
            yield self._as_table()
            return
        width = min(self._longest, options.max_width - _INDENT)
        text_options = options.update(
            width=width,
            justify="left",
            no_wrap=False,
            overflow="ellipsis",
            highlight=False,
            height=None,
        )
        bullet_options = text_options.update(width=1, no_wrap=True)
        bullet = [*console.render_lines(self.bullet, bullet_options)[0], Segment(" ")]
        blank = [Segment(" " * _INDENT)]
        new_line = Segment.line()
        for line in self.lines:
            for n, wrapped in enumerate(console.render_lines(line, text_options, pad=True)):
                yield from bullet if n == 0 else blank
                yield from wrapped
                yield new_line
