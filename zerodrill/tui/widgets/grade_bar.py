"""The grade buttons (SM-2's six, or Anki's four), each labelled with what it would do to the
card; the one Space and Enter give is highlighted. One widget draws them all (a widget each
would cost a restyle each on every reveal).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from zerodrill.srs.grades import SIX_BUTTONS, Button, Grade, nearest_button
from zerodrill.srs.schedulers.protocol import GradeOutcome
from zerodrill.tui import time_labels
from zerodrill.tui.widgets.card_side import DrawnOnce

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
        grade: int

    def __init__(self, buttons: Sequence[Button] = SIX_BUTTONS) -> None:
        super().__init__()
        self.buttons = tuple(buttons)
        self.outcomes: dict[int, GradeOutcome] = {}
        self.suggested: int | None = None
        self._hover: int | None = None
        self._drawn: tuple[tuple[object, ...], DrawnOnce] | None = None

    @property
    def highlighted(self) -> Button:
        """The button Space and Enter press: the suggested grade's nearest, else Good (4)."""
        return nearest_button(
            self.buttons, Grade.GOOD if self.suggested is None else self.suggested
        )

    def set_buttons(self, buttons: Sequence[Button]) -> None:
        self.buttons = tuple(buttons)
        self.refresh()

    def set_outcomes(self, outcomes: Sequence[GradeOutcome], suggested: int | None = None) -> None:
        self.outcomes = {int(o.grade): o for o in outcomes}
        self.suggested = suggested
        self.refresh()

    def label(self, grade: int) -> str:
        button = next(b for b in self.buttons if b.grade == grade)
        return f"{button.key} {button.name}\n{describe(self.outcomes.get(grade))}"

    def _spans(self, width: int) -> list[tuple[int, int]]:
        count = len(self.buttons)
        share = max(width - GAP * count, count)
        bounds = [share * n // count for n in range(count + 1)]
        return [(bounds[n] + GAP * n, bounds[n + 1] - bounds[n]) for n in range(count)]

    def render(self) -> DrawnOnce:
        # Kept while the same, for the reveal key (see KeyBar.DrawnLine): Textual asks again on
        # every layout of the screen.
        width = self.content_size.width
        styles = tuple(self._style(int(b.grade)) for b in self.buttons)
        labels = tuple(describe(self.outcomes.get(int(b.grade))) for b in self.buttons)
        key = (width, self.buttons, labels, styles)
        if self._drawn is None or self._drawn[0] != key:
            self._drawn = (key, DrawnOnce(self, None, None, self._text(width, styles, labels)))
        return self._drawn[1]

    def _text(self, width: int, styles: tuple[Style, ...], labels: tuple[str, ...]) -> Text:
        lines = [Text(), Text()]
        spans = self._spans(width)
        for button, (_, share), style, label in zip(
            self.buttons, spans, styles, labels, strict=True
        ):
            head = Text.assemble((str(button.key), Style(bold=True)), f" {button.name}")
            effect = Text(label)
            for line, text in zip(lines, (head, effect), strict=True):
                text.truncate(share)
                text.pad_left((share - text.cell_len) // 2)
                text.pad_right(share - text.cell_len)
                text.stylize(style)
                line.append_text(text)
                line.append(" " * GAP)
        return Text("\n").join(lines)

    def _style(self, grade: int) -> Style:
        if grade == self.highlighted.grade:
            return self.get_component_rich_style("grade--suggested")
        if grade == self._hover:
            return self.get_component_rich_style("grade--hover")
        return self.get_component_rich_style(
            "grade--pass" if Grade(grade).passed else "grade--fail"
        )

    def _grade_at(self, x: int) -> int | None:
        x -= self.styles.padding.left
        spans = self._spans(self.content_size.width)
        for button, (start, width) in zip(self.buttons, spans, strict=True):
            if start <= x < start + width:
                return int(button.grade)
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
    """ "6d", "1d ↻" (and back later today), "10m" (a learning step: back in ten minutes), or
    for a same-day repeat "↻ again" / "✔ done"."""
    if outcome is None:
        return ""
    if outcome.step is not None:
        return time_labels.step(outcome.step.total_seconds())
    if not outcome.moves_schedule:
        return "↻ again" if outcome.again_today else "✔ done"
    label = time_labels.interval(outcome.interval)
    return f"{label} ↻" if outcome.again_today else label
