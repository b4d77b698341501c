"""The box a follow-up answer, or an interview's, is typed in: Enter submits it, as on the
cloze's one-line input.

Imported only when a card first needs it: TextArea is a large module.

A new line is Ctrl+J, which every terminal sends as its own key (a line feed, where Enter is
a carriage return); Shift+Enter too, where the terminal reports it (kitty's keyboard
protocol). Pasted text keeps its new lines: a paste is not a key press.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

#: The keys that make a new line, and how the hint and placeholder name them.
NEW_LINE_KEYS = ("ctrl+j", "shift+enter")
NEW_LINE_NAME = "Ctrl+J"


class AnswerArea(TextArea):
    """Where the learner types an answer: Enter hands it in, Ctrl+J starts a new line."""

    # Priority bindings come before TextArea's own handling of the key, which would make
    # Enter a new line.
    BINDINGS = [
        Binding("enter", "submit", show=False, priority=True),
        Binding(",".join(NEW_LINE_KEYS), "new_line", show=False, priority=True),
    ]

    @dataclass
    class Submitted(Message):
        """Enter was pressed: the answer is done."""

        area: AnswerArea

        @property
        def control(self) -> AnswerArea:
            return self.area

    def action_submit(self) -> None:
        self.post_message(self.Submitted(self))

    def action_new_line(self) -> None:
        if not self.read_only:
            self.replace("\n", *self.selection, maintain_selection_offset=False)

    @property
    def answer(self) -> str | None:
        """What was typed, or None if nothing."""
        return self.text if self.text.strip() else None
