"""The top line of the drill: which decks, what is left (Anki's new / repeat / review), progress."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import ProgressBar, Static

from zerodrill.srs.queue import Counts


class SessionHeader(Horizontal):
    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield Static(id="left")
        yield ProgressBar(id="progress", show_eta=False, show_percentage=False)
        yield Static(id="count")

    def set_state(self, title: str, remaining: Counts, done: int) -> None:
        self.query_one("#title", Static).update(f"[b]{escape(title)}[/b]")
        self.query_one("#left", Static).update(
            f"[$text-primary]{remaining.new} new[/] · "
            f"[$text-error]{remaining.repeats} again[/] · "
            f"[$text-success]{remaining.reviews} due[/]"
        )
        total = done + remaining.total
        self.query_one("#progress", ProgressBar).update(total=max(total, 1), progress=done)
        self.query_one("#count", Static).update(f"{done}/{total}")
