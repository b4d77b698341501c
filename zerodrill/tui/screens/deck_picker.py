"""Choose what to drill: one deck, or all of them together, with due and new counts."""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Footer, Label, OptionList
from textual.widgets.option_list import Option

from zerodrill.tui.drill_session import DeckCount
from zerodrill.tui.screens.dialog import Dialog
from zerodrill.tui.textual_internals import PagedOptionList


class DeckPick(Struct, frozen=True):
    #: None for all decks together.
    deck_id: str | None


class DeckList(PagedOptionList):
    """The decks."""


class DeckPickerScreen(Dialog[DeckPick | None]):
    CSS_PATH = "screens.tcss"

    BINDINGS = [
        Binding("escape,d,q", "dismiss", "Cancel", key_display="esc"),
        Binding("enter", "select", "Drill this", show=True),
    ]

    def __init__(self, counts: Sequence[DeckCount], current: str | None) -> None:
        super().__init__()
        self.counts = list(counts)
        self.current = current

    def compose(self) -> ComposeResult:
        width = max(len(c.title) for c in self.counts) if self.counts else 10
        options = [
            Option(
                # From parts, not markup: a title is the deck's own text, and its padding
                # must count the characters drawn, not those of an escaped string.
                Content.assemble(
                    f"{c.title:<{width}}  ",
                    (f"{c.due:>5} due", "$text-success"),
                    "  ",
                    (f"{c.new:>5} new", "$text-primary"),
                    (f"  {c.put_aside} put aside" if c.put_aside else "", "$text-muted"),
                ),
                id=c.deck_id or "",
            )
            for c in self.counts
        ]
        with Vertical(id="dialog"):
            yield Label("[b]Drill which deck?[/b]", classes="dialog-title")
            yield DeckList(*options, id="decks")
            yield Label("[dim]↑↓ choose, Enter drills it, Esc keeps the current one[/dim]")
        yield Footer()

    def on_mount(self) -> None:
        ids = [c.deck_id for c in self.counts]
        # Each match, not query_one: a quick Esc can close the picker before it is mounted.
        for decks in self.query(DeckList).results(DeckList):
            decks.highlighted = ids.index(self.current) if self.current in ids else 0

    def action_select(self) -> None:
        for decks in self.query(DeckList).results(DeckList):
            if decks.highlighted is not None:
                decks.action_select()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(DeckPick(event.option.id or None))
