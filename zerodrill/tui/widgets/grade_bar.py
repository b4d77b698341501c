"""The six SM-2 grades as buttons, each labelled with what it would do to the card.

One widget draws all six (six widgets cost a restyle each on every reveal); a click is
mapped back to the button under the pointer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from zerodrill.srs.scheduler import GradeOutcome
from zerodrill.srs.sm2 import Grade
from zerodrill.tui import time_labels

GRADES = tuple(Grade)
#: Columns between two buttons.
GAP = 1


class GradeBar(Widget):
    DEFAULT_CSS = """
    GradeBar {
        & > .grade--fail { background: $error 15%; }
        & > .grade--pass { background: $success 15%; }
        & > .grade--suggested { background: $accent 60%; color: $text; text-style: bold; }
        & > .grade--hover { background: $accent 30%; }
    }
    """
    COMPONENT_CLASSES = {"grade--fail", "grade--pass", "grade--suggested", "grade--hover"}

    @dataclass
    class Graded(Message):
        """A grade was chosen with the mouse (keys go through the screen's bindings)."""

        grade: int

    def __init__(self) -> None:
        super().__init__()
        self.outcomes: dict[int, GradeOutcome] = {}
        #: The grade the typed-answer check suggests, drawn highlighted.
        self.suggested: int | None = None
        self._hover: int | None = None

    def set_outcomes(self, outcomes: Sequence[GradeOutcome], suggested: int | None = None) -> None:
        self.outcomes = {int(o.grade): o for o in outcomes}
        self.suggested = suggested
        self.refresh()

    def label(self, grade: int) -> str:
        """What the button for ``grade`` says: its name, and what it does to the card."""
        return f"{grade} {Grade(grade).label}\n{describe(self.outcomes.get(grade))}"

    def _spans(self, width: int) -> list[tuple[int, int]]:
        """(start, width) of each button: equal shares, each followed by a gap."""
        share = max(width - GAP * len(GRADES), len(GRADES))
        bounds = [share * n // len(GRADES) for n in range(len(GRADES) + 1)]
        return [(bounds[n] + GAP * n, bounds[n + 1] - bounds[n]) for n in range(len(GRADES))]

    def render(self) -> Text:
        lines = [Text(), Text()]
        for grade, (_, width) in zip(GRADES, self._spans(self.content_size.width), strict=True):
            style = self._style(grade)
            head = Text.assemble((str(int(grade)), Style(bold=True)), f" {grade.label}")
            effect = Text(describe(self.outcomes.get(grade)))
            for line, text in zip(lines, (head, effect), strict=True):
                text.truncate(width)
                text.pad_left((width - text.cell_len) // 2)
                text.pad_right(width - text.cell_len)
                text.stylize(style)
                line.append_text(text)
                line.append(" " * GAP)
        return Text("\n").join(lines)

    def _style(self, grade: int) -> Style:
        if grade == self.suggested:
            return self.get_component_rich_style("grade--suggested")
        if grade == self._hover:
            return self.get_component_rich_style("grade--hover")
        return self.get_component_rich_style(
            "grade--pass" if Grade(grade).passed else "grade--fail"
        )

    def _grade_at(self, x: int) -> int | None:
        x -= self.styles.padding.left
        for grade, (start, width) in zip(GRADES, self._spans(self.content_size.width), strict=True):
            if start <= x < start + width:
                return grade
        return None

    def on_click(self, event: events.Click) -> None:
        grade = self._grade_at(event.x)
        if grade is not None:
            event.stop()
            self.post_message(self.Graded(grade))

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self._grade_at(event.x))

    def on_leave(self, event: events.Leave) -> None:
        self._set_hover(None)

    def _set_hover(self, grade: int | None) -> None:
        if grade != self._hover:
            self._hover = grade
            self.refresh()


def describe(outcome: GradeOutcome | None) -> str:
    """ "6d", "1d ↻" (and back later today), or for a same-day repeat "↻ again" / "✔ done"."""
    if outcome is None:
        return ""
    if not outcome.moves_schedule:
        return "↻ again" if outcome.again_today else "✔ done"
    label = time_labels.interval(outcome.interval)
    return f"{label} ↻" if outcome.again_today else label
