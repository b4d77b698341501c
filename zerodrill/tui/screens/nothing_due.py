"""Nothing to study now: a calm note of when the next card is due. Never an error."""

from __future__ import annotations

from datetime import datetime

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Middle
from textual.content import Content
from textual.widgets import Footer, Static

from zerodrill.tui import time_labels
from zerodrill.tui.screens.dialog import ClickGuard
from zerodrill.tui.widgets.note_panel import NotePanel


class NothingDueScreen(ClickGuard):
    BINDINGS = [
        Binding("u", "app.undo_last", "Undo last grade"),
        Binding("u", "app.nothing_to_undo", show=False),
        Binding("d", "app.pick_deck", "Decks"),
        Binding("s", "app.stats", "Stats"),
        Binding("question_mark", "app.help", "Help", key_display="?"),
        # Not Enter: an Enter too many after the last card must not end the sitting.
        Binding("q", "app.finish", "Quit"),
    ]

    def __init__(self, title: str, next_due: datetime | None, now: datetime) -> None:
        super().__init__()
        self.deck_title = title
        self.next_due = next_due
        self.now = now

    def compose(self) -> ComposeResult:
        if self.next_due is None:
            when = "There are no cards to study in these decks."
        else:
            when = f"The next card is due {time_labels.when(self.next_due, self.now)}."
        with Middle(), Center(), NotePanel():
            # The title is the deck's own text, never markup: built from parts, not a string.
            title = Content.assemble(("All caught up", "bold"), "  ☕  ", (self.deck_title, "dim"))
            yield Static(title, classes="panel-title")
            yield Static(
                f"Nothing is due right now.\n\n{when}\n\n"
                "[dim]Reviewing before a card is due does not help SM-2; come back then.[/dim]",
                id="nothing-due-body",
            )
        yield Footer()
