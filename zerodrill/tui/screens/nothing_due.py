"""Nothing to study now: a calm note of why, and when (or how) there is more. Never an error."""

from __future__ import annotations

from datetime import datetime

from textual.app import ComposeResult
from textual.containers import Center, Middle
from textual.content import Content
from textual.widgets import Footer, Static

from zerodrill.srs.queue import DEFAULT_NEW_LIMIT
from zerodrill.tui import time_labels
from zerodrill.tui.drill_session import Outlook
from zerodrill.tui.screens.undo_keys import AFTER_CARDS_BINDINGS
from zerodrill.tui.textual_internals import ClickGuard
from zerodrill.tui.widgets.note_panel import NotePanel
from zerodrill.words import plural


class NothingDueScreen(ClickGuard):
    BINDINGS = AFTER_CARDS_BINDINGS

    def __init__(self, title: str, outlook: Outlook, now: datetime) -> None:
        super().__init__()
        self.deck_title = title
        self.outlook = outlook
        self.now = now

    def compose(self) -> ComposeResult:
        with Middle(), Center(), NotePanel():
            # The title is the deck's own text, never markup.
            title = Content.assemble(("All caught up", "bold"), "  ☕  ", (self.deck_title, "dim"))
            yield Static(title, classes="panel-title")
            yield Static("\n\n".join(explain(self.outlook, self.now)), id="nothing-due-body")
        yield Footer()


def explain(o: Outlook, now: datetime) -> list[str]:
    """The paragraphs of the note, as markup (none of it comes from a deck)."""
    if not o.cards:
        return ["There are no cards in these decks."]
    paragraphs = ["Nothing is due right now."]
    waiting = plural(o.new_waiting, "new card")
    tomorrow = time_labels.when(o.next_day, now)
    if not o.new_waiting:
        pass
    elif o.new_limit == 0:
        paragraphs.append(
            f"New cards are off for this sitting ([b]--new 0[/b]); {waiting} waiting. "
            f"To study them, start the drill with [b]zerodrill drill --new N[/b] "
            f"(without --new: up to {DEFAULT_NEW_LIMIT} a day)."
        )
    elif o.introduced >= o.new_limit:
        more = o.new_limit + min(o.new_waiting, DEFAULT_NEW_LIMIT)
        paragraphs.append(
            f"Today's {plural(o.new_limit, 'new card')} {'is' if o.new_limit == 1 else 'are'} "
            "done: that is the daily limit, over "
            f"all decks. {waiting} still waiting; up to {o.new_limit} more come {tomorrow}. "
            f"For more today, start the drill with a higher limit: "
            f"[b]zerodrill drill --new {more}[/b]."
        )
    else:
        # Below the limit with new cards left: each one is another blank of a cloze card
        # studied today, and blanks of one card never come on the same day.
        one = o.new_waiting == 1
        paragraphs.append(
            f"{waiting} left: {'another blank' if one else 'other blanks'} of cloze cards "
            f"studied today. One blank of a card comes a day, so "
            f"{'it comes' if one else 'they start'} {tomorrow}."
        )
    if o.next_review is not None:
        paragraphs.append(f"The next review is due {time_labels.when(o.next_review, now)}.")
        # Said of every scheduler: each one times a review for when it helps most.
        paragraphs.append(
            "[dim]Each card is due when reviewing it helps most; come back then.[/dim]"
        )
    return paragraphs
