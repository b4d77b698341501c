"""Card Markdown → plain text, for apps whose imports read no markup (Quizlet, Mochi).

The text is read by the deck's one parser (:mod:`zerodrill.deck.markdown_syntax`), after the
rewrite that makes raw HTML text (:mod:`zerodrill.deck.raw_html`), as the export's HTML and the
drill read it; only the text a reader sees is kept:

- emphasis and code spans lose their marks, a link is its text, an image its alt text, and
  raw HTML or an entity reads as typed (``<b>`` stays ``<b>``);
- each block is a line (or lines) of its own: paragraphs and headings, a list item each with a
  ``•`` (or its number), a table row each with `` | `` between cells, a code block's lines as
  they are (tabs as spaces), a quote's lines after ``> ``; blocks are apart by a blank line;
- a cloze item shows its blank as the drill does (``[...]``, or ``[hint]``), the other
  deletions filled in, and its answer side names what the blank hid.

Nothing a deck holds reaches the file as a control character: each is written as U+FFFD
(the loader refuses them anyway; cards built otherwise, as tests build them, are not checked).
The event stream is read with stacks, never recursion, and containers nested past
:data:`MAX_NESTING` add no more indentation, so a line of a field nested thousands deep costs
no more than one nested that deep.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from zerodrill.deck import cloze
from zerodrill.deck.control_chars import CONTROL
from zerodrill.deck.markdown_syntax import parser
from zerodrill.deck.model import Card, Deck, Item
from zerodrill.deck.raw_html import without_raw_html
from zerodrill.deck.source_labels import source

#: Quotes and list items nested deeper than this indent no further.
MAX_NESTING = 20
BULLET = "• "
#: A code block's tab stops.
TAB_SIZE = 4
#: What a spreadsheet reads as the start of a formula (``=``, ``+``, ``-``, ``@``; a tab or a
#: carriage return never starts a cell here). A cell starting so gets a ``'``, which spreadsheets
#: read as "text follows" and hide.
FORMULA_START = ("=", "+", "-", "@")

# A cloze answer is found in the rendered text between these two (private-use characters, so
# no Markdown reads them as punctuation); a deck's own are replaced first.
_MARK_OPEN, _MARK_CLOSE = "\ue000", "\ue001"
_MARKED = re.compile(f"{_MARK_OPEN}(.*?){_MARK_CLOSE}", re.DOTALL)
_MARKS = re.compile(f"[{_MARK_OPEN}{_MARK_CLOSE}]")


class Row(NamedTuple):
    """One study item as plain text: its question side and its answer side."""

    front: str
    back: str


def rows(decks: Sequence[Deck]) -> list[Row]:
    """A row for each study item of the active cards of ``decks``, in deck order: a card of
    one side is one row, a cloze card a row per deletion number."""
    return [item_row(item) for deck in decks for item in deck.items()]


def item_row(item: Item) -> Row:
    """``item``'s two sides as plain text, each side's blocks one line or more."""
    card = item.card
    sides = item.sides()
    if card.kind.cloze_field is not None and item.ordinal is not None:
        front = text(sides.question)
        back = [_answers(card.fields[card.kind.cloze_field], item.ordinal)]
    else:
        front = "\n\n".join(filter(None, (text(sides.question), text(sides.quote))))
        back = [text(sides.answer)]
    back.append(text(sides.extra))
    back.append(sources(card))
    return Row(front, "\n\n".join(filter(None, back)))


def sources(card: Card) -> str:
    """The card's references as the short labels the drill and Anki show, on one line."""
    labels = [" ".join(_clean(source(ref).label).split()) for ref in card.refs]
    return "Sources: " + "; ".join(labels) if labels else ""


def text(markdown: str) -> str:
    return "\n".join(lines(markdown))


def lines(markdown: str) -> list[str]:
    """``markdown`` as plain text, line by line (an empty line between blocks)."""
    if not markdown:
        return []
    source_text = _clean(markdown.replace("\r\n", "\n").replace("\r", "\n"))
    if "<" in source_text:
        source_text = without_raw_html(source_text)
    reader = _Reader()
    for event in parser().events(source_text):
        reader.read(event)
    reader.end_tight()
    while reader.out and not reader.out[-1]:
        reader.out.pop()
    # Again on what the parser gave: a character reference (``&#13;``) is read as the
    # character it names, which the text cleaned above did not yet hold.
    return [_clean(line) for line in reader.out]


def one_line(value: str, separator: str = " / ") -> str:
    return separator.join(line.strip() for line in value.split("\n") if line.strip())


def spreadsheet_safe(cell: str) -> str:
    """``cell`` as a spreadsheet shows it as text: with a ``'`` first if it would start a
    formula (after any leading spaces, which some spreadsheets trim)."""
    return "'" + cell if cell.lstrip(" ").startswith(FORMULA_START) else cell


def _clean(value: str) -> str:
    return CONTROL.sub("\ufffd", value)


def _answers(field: str, ordinal: int) -> str:
    """What deletion ``ordinal`` hides, as plain text: each of its answers, in order."""
    # One for one, so the deletions stay where they were.
    field = _MARKS.sub("\ufffd", field)
    marked = cloze.render(
        field,
        ordinal,
        reveal=True,
        shown=lambda d: f"{_MARK_OPEN}{d.answer}{_MARK_CLOSE}",
    )
    found = [" ".join(answer.split()) for answer in _MARKED.findall(text(marked))]
    expected = cloze.answers(field, ordinal)
    if len(found) != len(expected):  # an answer the plain text does not show (a link's URL)
        found = [" ".join(_clean(answer).split()) for answer in expected]
    return "; ".join(found)


class _Reader:
    """pulldown-cmark's events as lines of text, with stacks, never recursion."""

    def __init__(self) -> None:
        self.out: list[str] = []
        #: Open quotes and list items, outermost first: (marker, whether its first line is out).
        #: A quote's marker is "> " on every line; an item's is its bullet on its first line,
        #: then as many spaces.
        self.containers: list[list[str | bool]] = []
        #: The next number of each open list (None: bullets), innermost last.
        self.lists: list[int | None] = []
        self.items = 0
        self.runs: list[str] | None = None
        self.tight = False
        self.code: list[str] | None = None
        self.cells: list[str] = []
        self.table: list[str] = []
        self.gap = False

    def read(self, event: object) -> None:
        match event:
            case {"Text": str(value)} if self.code is not None:
                self.code.append(value)
            case {"Text": str(value)} | {"Code": str(value)}:
                self.add(value)
            case {"Html": str(value)} | {"InlineHtml": str(value)}:
                self.add(value)  # none is left after the rewrite; were any, it is text
            case "SoftBreak":
                self.add(" ")
            case "HardBreak":
                self.add("\n")
            case {"Start": tag}:
                self.open(tag)
            case {"End": str(tag)}:
                self.close(tag)
            case {"End": dict(tag)}:  # {"List": True}, {"BlockQuote": None}, ...
                self.close(str(next(iter(tag))))

    def open(self, tag: object) -> None:
        match tag:
            case "Paragraph" | {"Heading": _} | "HtmlBlock" | "TableCell":
                self.end_tight()
                self.runs = []
            case {"CodeBlock": _}:
                self.end_tight()
                self.code = []
            case {"Table": _}:
                self.end_tight()
                self.table = []
            case "TableHead" | "TableRow":
                self.cells = []
            case {"BlockQuote": _}:
                self.end_tight()
                self.containers.append(["> ", False])
            case {"List": start}:
                self.end_tight()
                self.lists.append(start if isinstance(start, int) else None)
            case "Item":
                self.end_tight()
                number = self.lists[-1] if self.lists else None
                if number is None:
                    marker = BULLET
                else:
                    marker = f"{number}. "
                    self.lists[-1] = number + 1
                self.containers.append([marker, False])
                self.items += 1
            # Emphasis, strong, links, images: their text is read, their marks are not.

    def close(self, tag: str) -> None:
        if tag in ("Paragraph", "Heading", "HtmlBlock"):
            self.block(self.end_runs().split("\n"))
        elif tag == "TableCell":
            self.cells.append(" ".join(self.end_runs().split()))
        elif tag in ("TableHead", "TableRow"):
            self.table.append(" | ".join(self.cells))
        elif tag == "Table":
            self.block(self.table)
        elif tag == "CodeBlock":
            code, self.code = "".join(self.code or []), None
            self.block([line.expandtabs(TAB_SIZE) for line in code.removesuffix("\n").split("\n")])
        elif tag in ("BlockQuote", "Item"):
            self.end_tight()
            if self.containers:
                self.containers.pop()
            if tag == "Item":
                self.items -= 1
        elif tag == "List":
            self.end_tight()
            if self.lists:
                self.lists.pop()
            self.gap = self.items == 0

    def add(self, value: str) -> None:
        """``value`` at the end of the text being read (a tight list item's, if none is)."""
        if self.runs is None:
            self.runs = []
            self.tight = True
        self.runs.append(value)

    def end_runs(self) -> str:
        runs, self.runs = self.runs or [], None
        self.tight = False
        return "".join(runs).replace("\t", " ")

    def end_tight(self) -> None:
        """End a tight list item's text, at the start or end of a block."""
        if self.tight:
            self.block(self.end_runs().split("\n"))

    def block(self, block_lines: Sequence[str]) -> None:
        """One block's lines, after a blank line unless it is in a list (items are close)."""
        if self.items == 0 and not any(line.strip() for line in block_lines):
            return  # an image without alt text, say: nothing to read
        if self.gap and self.out:
            self.out.append("")
        for line in block_lines:
            self.out.append(self.prefix() + line.rstrip())
        self.gap = self.items == 0

    def prefix(self) -> str:
        """The markers and indentation of the containers a line is in (the first
        :data:`MAX_NESTING` of them): an item's bullet on its first line only."""
        parts: list[str] = []
        for container in self.containers[:MAX_NESTING]:
            marker = str(container[0])
            if marker == "> " or not container[1]:
                parts.append(marker)
                container[1] = True
            else:
                parts.append(" " * len(marker))
        return "".join(parts)
