"""The interview's own widgets: its header with the clock, a checklist, prose. Deck text
reaches the screen as ``Text``/``Content`` or Markdown, never as markup: a deck is untrusted."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta

from msgspec import Struct
from rich.console import RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widget import Widget

from zerodrill.tui import time_labels
from zerodrill.tui.markdown import parse, render
from zerodrill.tui.widgets.card_side import (
    SIDE_COMPONENT_CLASSES,
    SIDE_CSS,
    CardSide,
    SideStyles,
)
from zerodrill.tui.widgets.session_header import shorten, spread

TITLE_WIDTH = 40
MIN_TITLE_WIDTH = 12


def clock_label(elapsed: timedelta, budget: timedelta) -> str:
    """ "3:59 left", then "+0:42 over"; both round up, so it is never "+0:00 over"."""
    left = (budget - elapsed).total_seconds()
    if left >= 0:
        return f"{time_labels.clock(left)} left"
    return f"+{time_labels.clock(-left)} over"


class InterviewHeader(Widget):
    DEFAULT_CSS = "InterviewHeader { dock: top; height: 1; background: $panel; padding: 0 1; }"

    def __init__(self, title: str, step: str) -> None:
        super().__init__()
        self.interview_title = title
        self.step = step
        self.clock = ""
        self.over = False

    def set_clock(self, elapsed: timedelta | None, budget: timedelta | None) -> None:
        if elapsed is None or budget is None:
            label, over = "", False
        else:
            label, over = clock_label(elapsed, budget), elapsed > budget
        if (label, over) != (self.clock, self.over):
            self.clock, self.over = label, over
            self.refresh()

    def render(self) -> Content:
        right = Content.assemble(
            ("⏱ ", "$text-muted"),
            (self.clock, "bold $text-error" if self.over else "bold"),
        )
        if not self.clock:
            right = Content("")
        # The title takes the room the step and the clock leave, the clock's kept for it.
        width = self.content_size.width
        clock_room = max(right.cell_length, len("⏱ +00:00 over"))
        room = width - len(self.step) - 2 - clock_room - 1 if width else TITLE_WIDTH
        title = shorten(self.interview_title, max(room, MIN_TITLE_WIDTH))
        # Plain Content pieces: the title is the deck's text, never read as markup.
        left = Content.assemble((title, "bold"), "  ", (self.step, "$text-primary"))
        return spread(left, right, width)


class Prose(Vertical):
    """Holds :class:`CardSide` widgets and the component classes they draw with."""

    DEFAULT_CSS = SIDE_CSS.replace("CardView", "Prose") + "Prose { height: auto; }"
    COMPONENT_CLASSES = SIDE_COMPONENT_CLASSES


def markdown_side(markdown: str, *, id: str | None = None) -> CardSide:
    parsed = parse(markdown)
    return built_side(lambda styles: render(parsed, styles.markdown()), id=id)


def built_side(build: Callable[[SideStyles], RenderableType], *, id: str | None = None) -> CardSide:
    side = CardSide(id=id)
    side.show(build)
    return side


class Entry(Struct, frozen=True):
    markdown: str


class CheckItem(Widget):
    DEFAULT_CSS = """
    CheckItem { height: auto; padding: 0 1; }
    CheckItem.-cursor { background: $boost; }
    CheckItem.-cursor:focus-within { background: $boost; }
    """

    @dataclass
    class Clicked(Message):
        index: int

    def __init__(self, index: int, entry: Entry) -> None:
        super().__init__()
        self.index = index
        self.checked = False
        self._parsed = parse(entry.markdown)

    def render(self) -> RenderableType:
        holder = self.parent
        styles = SideStyles.of(holder) if isinstance(holder, Widget) else None
        markdown = styles.markdown() if styles is not None else None
        box = Text.assemble(
            ("[x]" if self.checked else "[ ]", Style(bold=True) if self.checked else Style()),
            " ",
            (str(self.index + 1).rjust(2), styles.accent if styles else Style()),
        )
        grid = Table.grid(expand=True, padding=(0, 1, 0, 0))
        grid.add_column(width=7, no_wrap=True)
        grid.add_column(ratio=1)
        body = render(self._parsed, markdown) if markdown is not None else Text()
        grid.add_row(box, body)
        return grid

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.index))


class Checklist(Prose):
    """Entries to tick (by the screen's keys, or a click); each tick posts :class:`Changed`
    for the screen to save the ticks as they are given."""

    DEFAULT_CSS = (
        SIDE_CSS.replace("CardView", "Checklist") + "Checklist { height: auto; margin: 1 0; }"
    )

    class Changed(Message):
        """An entry was ticked or unticked."""

    def __init__(
        self, entries: Sequence[Entry], *, checked: Sequence[int] = (), id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.cursor = 0
        self._items = [CheckItem(n, entry) for n, entry in enumerate(entries)]
        for item in self._items:
            item.checked = item.index in checked

    def compose(self) -> ComposeResult:
        yield from self._items

    def on_mount(self) -> None:
        self._show_cursor()

    @property
    def checked(self) -> tuple[int, ...]:
        return tuple(item.index for item in self._items if item.checked)

    def toggle(self, index: int | None = None) -> None:
        index = self.cursor if index is None else index
        if not 0 <= index < len(self._items):
            return
        item = self._items[index]
        item.checked = not item.checked
        item.refresh(layout=False)
        self.cursor = index
        self._show_cursor()
        self.post_message(self.Changed())

    def move(self, step: int) -> None:
        if self._items:
            self.cursor = max(0, min(len(self._items) - 1, self.cursor + step))
            self._show_cursor()

    def _show_cursor(self) -> None:
        for item in self._items:
            item.set_class(item.index == self.cursor, "-cursor")
        if self._items and self.is_mounted:
            self._items[self.cursor].scroll_visible(animate=False)

    def on_check_item_clicked(self, event: CheckItem.Clicked) -> None:
        event.stop()
        self.toggle(event.index)
