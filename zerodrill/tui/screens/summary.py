"""The end of a session: what was done, how long it took, what comes tomorrow."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Center, Middle
from textual.widgets import Footer, Static

from zerodrill.srs.grades import SIX_BUTTONS, Button, nearest_button
from zerodrill.tui import time_labels
from zerodrill.tui.drill_session import Summary
from zerodrill.tui.screens.undo_keys import AFTER_CARDS_BINDINGS
from zerodrill.tui.textual_internals import ClickGuard
from zerodrill.tui.widgets.note_panel import NotePanel
from zerodrill.words import plural


class SummaryScreen(ClickGuard):
    BINDINGS = AFTER_CARDS_BINDINGS

    def __init__(self, summary: Summary, buttons: tuple[Button, ...] = SIX_BUTTONS) -> None:
        super().__init__()
        self.summary = summary
        self.buttons = buttons

    def compose(self) -> ComposeResult:
        s = self.summary
        grades = grade_lines(s, self.buttons)
        with Middle(), Center(), NotePanel():
            yield Static("[b]Session done[/b]  ✔", classes="panel-title")
            yield Static(
                f"{plural(s.cards, 'card')} seen, {plural(s.reviews, 'grade')} given, "
                f"in {time_labels.duration(s.seconds)}.\n\n"
                f"{grades or '[dim]No grades given.[/dim]'}\n\n"
                f"Due tomorrow: [b]{s.due_tomorrow}[/b]",
                id="summary-body",
            )
        yield Footer()


def grade_lines(summary: Summary, buttons: tuple[Button, ...]) -> str:
    """The grades given, one button a line ("3 Good ×2"); a grade the layout has no button
    for (a 0 before switching to Anki's four) counts for the nearest."""
    counts: dict[Button, int] = {}
    for grade, n in summary.grades.items():
        if n:
            button = nearest_button(buttons, grade)
            counts[button] = counts.get(button, 0) + n
    # One grade a line, in columns: a run of them on one line wrapped mid-item at 80.
    given = sorted(counts, key=lambda b: b.key, reverse=True)
    return "\n".join(f"[b]{b.key}[/b] {b.name:<9} ×{counts[b]}" for b in given)
