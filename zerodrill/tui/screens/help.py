"""Every key, and what the six SM-2 grades mean."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Label, Static

from zerodrill.srs.sm2 import Grade
from zerodrill.tui.screens.dialog import Dialog

KEYS = """\
[b]Enter[/b]      show the answer (and check what you typed)
[b]0-5[/b]        grade the card, once the answer shows
[b]u[/b]          undo the last grade: that card comes back
[b]a[/b], [b]Tab[/b]     type your answer first; [b]Esc[/b] stops typing
[b]d[/b]          choose a deck     [b]s[/b] statistics
[b]?[/b]          this help         [b]q[/b] quit (every grade is saved)
[b]Ctrl+P[/b]     command palette (theme, light/dark)"""

GRADES = "\n".join(
    [
        *(f"[b]{int(g)}[/b] {g.label:<9} {g.description}" for g in reversed(Grade)),
        "Each button shows the interval the grade gives. Below 4, the card also",
        "comes back later in this session ([b]↻[/b]) until you grade it 4 or 5:",
        "after a fail (0-2), once 3 other cards or 10 minutes have passed;",
        "after a 3, once the rest of today's cards are done.",
    ]
)


class HelpScreen(Dialog[None]):
    CSS_PATH = "screens.tcss"

    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close", key_display="esc")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Label("[b]Keys[/b]", classes="dialog-title")
            yield Static(KEYS, classes="section")
            yield Label("[b]Grades (SM-2)[/b]", classes="dialog-title")
            yield Static(GRADES, classes="section")
        yield Footer()
