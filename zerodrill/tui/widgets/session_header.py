"""The top line of the drill: which decks, what is left, progress, and the interview date.
One widget drawing one line: a row of widgets (a ProgressBar) would restyle on every grade."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget

from zerodrill.srs.queue import Counts

BAR_WIDTH = 20
TITLE_WIDTH = 30


class SessionHeader(Widget):
    def __init__(self, mark: str = "") -> None:
        super().__init__()
        #: Before the title, for the whole sitting ("SCRATCH").
        self.mark = mark
        self.deck_title = ""
        self.remaining = Counts(0, 0, 0)
        self.done = 0
        self.interview = ""

    def set_state(self, title: str, remaining: Counts, done: int, interview: str = "") -> None:
        self.deck_title, self.remaining, self.done = title, remaining, done
        self.interview = interview
        self.refresh()

    def render(self) -> Content:
        left = Content.assemble(
            (f"{self.mark} " if self.mark else "", "bold $text-warning"),
            (shorten(self.deck_title, TITLE_WIDTH), "bold"),
            "  ",
            (f"{self.remaining.new} new", "$text-primary"),
            " · ",
            (f"{self.remaining.repeats} again", "$text-error"),
            " · ",
            (f"{self.remaining.reviews} due", "$text-success"),
        )
        total = self.done + self.remaining.total
        filled = round(BAR_WIDTH * self.done / max(total, 1))
        count = f"{self.done}/{total}".rjust(7)
        right = Content.assemble(
            ("━" * filled, "$primary"),
            ("━" * (BAR_WIDTH - filled), "$foreground 10%"),
            " ",
            count,
        )
        width = self.content_size.width
        # What is left matters most, then the interview, then the bar.
        note = Content.assemble((self.interview, "$text-warning"), "  ") if self.interview else None
        short = Content(count.strip())
        tries = [right, short] if note is None else [note + right, note + short, short]
        for right in tries:
            if width - left.cell_length - right.cell_length >= 2:
                break
        return spread(left, right, width)


def spread(left: Content, right: Content, width: int) -> Content:
    gap = max(width - left.cell_length - right.cell_length, 1)
    return left + Content(" " * gap) + right


def shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
