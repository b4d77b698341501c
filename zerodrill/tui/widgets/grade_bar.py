"""The six SM-2 grades as buttons, each labelled with what it would do to the card."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static

from zerodrill.tui.session import GradeChoice

#: Short names that fit a button at 80 columns; the help screen gives SM-2's full wording.
NAMES = ("blackout", "wrong", "almost", "hard", "good", "perfect")


class GradeKey(Static):
    def __init__(self, grade: int) -> None:
        super().__init__(
            id=f"grade-{grade}", classes=f"grade grade-{'fail' if grade < 3 else 'pass'}"
        )
        self.grade = grade

    def set_choice(self, choice: GradeChoice | None) -> None:
        outcome = "" if choice is None else choice.outcome
        self.update(f"[b]{self.grade}[/b] {NAMES[self.grade]}\n{outcome}")

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

    def set_choices(self, choices: Sequence[GradeChoice], suggested: int | None = None) -> None:
        by_grade = {c.grade: c for c in choices}
        for key in self.query(GradeKey):
            key.set_choice(by_grade.get(key.grade))
            key.set_class(key.grade == suggested, "-suggested")
