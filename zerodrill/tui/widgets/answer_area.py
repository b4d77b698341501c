"""The box an answer is typed in: Enter submits it, as on the cloze's one-line input.

Imported only when a card first needs it: TextArea is a large module. A new line is Ctrl+J,
which every terminal sends as its own key (a line feed, where Enter is a carriage return);
Shift+Enter too, where the terminal reports it.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

#: How the hint and placeholder name the new line's key.
NEW_LINE_NAME = "Ctrl+J"


class AnswerArea(TextArea):
    # Priority bindings come before TextArea's own handling of Enter (a new line).
    BINDINGS = [
        Binding("enter", "submit", show=False, priority=True),
        Binding("ctrl+j,shift+enter", "new_line", show=False, priority=True),
    ]

    @dataclass
    class Submitted(Message):
        area: AnswerArea

    def action_submit(self) -> None:
        self.post_message(self.Submitted(self))

    def action_new_line(self) -> None:
        if not self.read_only:
            self.replace("\n", *self.selection, maintain_selection_offset=False)

    @property
    def answer(self) -> str | None:
        return self.text if self.text.strip() else None
