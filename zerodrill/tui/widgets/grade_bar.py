"""The six SM-2 grades as buttons, each labelled with what it would do to the card."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static

from zerodrill.srs.queue import GradeOutcome
from zerodrill.tui import fmt

#: Short names that fit a button at 80 columns; the help screen gives SM-2's full wording.
NAMES = ("blackout", "wrong", "almost", "hard", "good", "perfect")


class GradeKey(Static):
    def __init__(self, grade: int) -> None:
        super().__init__(
            id=f"grade-{grade}", classes=f"grade grade-{'fail' if grade < 3 else 'pass'}"
        )
        self.grade = grade

    def set_outcome(self, outcome: GradeOutcome | None) -> None:
        self.update(f"[b]{self.grade}[/b] {NAMES[self.grade]}\n{describe(outcome)}")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(GradeBar.Graded(self.grade))


class GradeBar(Horizontal):
    @dataclass
    class Graded(Message):
        """A grade was chosen with the mouse (keys go through the screen's bindings)."""

        grade: int

    def compose(self) -> ComposeResult:
        for grade in range(6):
            yield GradeKey(grade)

    def set_outcomes(self, outcomes: Sequence[GradeOutcome], suggested: int | None = None) -> None:
        by_grade = {int(o.grade): o for o in outcomes}
        for key in self.query(GradeKey):
            key.set_outcome(by_grade.get(key.grade))
            key.set_class(key.grade == suggested, "-suggested")


def describe(outcome: GradeOutcome | None) -> str:
    """ "6d", "1d ↻" (and back later today), or for a same-day repeat "↻ again" / "✔ done"."""
    if outcome is None:
        return ""
    if not outcome.moves_schedule:
        return "↻ again" if outcome.again_today else "✔ done"
    label = fmt.interval(outcome.interval)
    return f"{label} ↻" if outcome.again_today else label
