"""Card Markdown read into the tree the terminal draws: blocks, holding runs of marked text.

Read by the deck's one parser (:mod:`zerodrill.deck.markdown_syntax`), whose flat stream of
events is gathered with stacks, never recursion, so no field can exhaust Python's stack. Raw
HTML goes through the export's rewrite first, so ``<script>`` reads as the text it is.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

from msgspec import Struct, field

if TYPE_CHECKING:
    from pyromark.event import Event, Range
    from rich.console import JustifyMethod

#: Quotes and lists nested deeper than this give their blocks to the one at this depth: Rich
#: draws nesting by recursion, and a field of ``>`` hundreds deep would exhaust the stack.
MAX_BLOCK_NESTING = 20


Mark = Literal["strong", "em", "link", "code", "image"]


class Run(Struct, frozen=True):
    """Text in one style: ``marks`` are the inline elements around it, outermost first."""

    text: str
    marks: tuple[Mark, ...] = ()
    #: The target of the link among ``marks``.
    href: str = ""


class Paragraph(Struct, frozen=True):
    runs: tuple[Run, ...]
    heading: bool = False


class Quote(Struct, frozen=True):
    blocks: tuple[Block, ...]


class ItemList(Struct, frozen=True):
    items: tuple[tuple[Block, ...], ...]
    #: The first item's number; None for bullets.
    start: int | None
    #: No blank line between items: no item's text is in a paragraph of its own.
    tight: bool


class CodeBlock(Struct, frozen=True):
    code: str
    language: str


class TableBlock(Struct, frozen=True):
    align: tuple[JustifyMethod, ...]
    head: tuple[tuple[Run, ...], ...]
    rows: tuple[tuple[tuple[Run, ...], ...], ...]


class ThematicBreak(Struct, frozen=True):
    pass


Block = Paragraph | Quote | ItemList | CodeBlock | TableBlock | ThematicBreak


class Document(Struct, frozen=True):
    blocks: tuple[Block, ...]


def read(text: str) -> Document:
    from zerodrill.deck.markdown_syntax import parser
    from zerodrill.deck.raw_html import without_raw_html

    if "<" in text:
        text = without_raw_html(text)
    reader = _Reader(text)
    for event, span in parser().events_with_range(text, merge_text=True):
        reader.read(event, span)
    return Document(tuple(reader.frames[0].blocks))


# Unlike the export, a link to a script, a local file or inline data shows as the source its
# author typed, so that whoever reads the card sees what it holds; an image is its alt text.
_SCRIPT_LINK = re.compile(r"\s*(?:javascript|vbscript|file|data):", re.IGNORECASE)
_ALIGN: dict[str, JustifyMethod] = {"Right": "right", "Center": "center"}


class _Frame(Struct):
    blocks: list[Block] = field(default_factory=list)
    items: list[tuple[Block, ...]] = field(default_factory=list)
    start: int | None = None
    #: A paragraph of its own (as a loose list's items have) was read into it.
    loose: bool = False


class _Opaque(Struct):
    """A link or an image whose inside is read as plain text."""

    image: bool
    target: str
    start: int
    end: int
    depth: int = 1
    text: list[str] = field(default_factory=list)


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source
        self.frames = [_Frame()]
        #: Containers opened past MAX_BLOCK_NESTING, read into the innermost frame.
        self.flattened = 0
        #: The text being read as (marks, link target, parts); ``tight`` for a tight list
        #: item's text, in no paragraph.
        self.runs: list[tuple[tuple[Mark, ...], str, list[str]]] | None = None
        self.tight = False
        self.marks: list[tuple[tuple[Mark, ...], str]] = [((), "")]
        self.opaque: _Opaque | None = None
        self.code: list[str] | None = None
        self.language = ""
        self.align: tuple[JustifyMethod, ...] = ()
        self.rows: list[tuple[tuple[Run, ...], ...]] = []
        self.cells: list[tuple[Run, ...]] = []

    def read(self, event: Event, span: Range) -> None:
        if self.opaque is not None:
            self.read_opaque(event)
            return
        match event:
            case {"Text": str(text)} if self.code is not None:
                self.code.append(text)
            # No raw HTML is left after the rewrite; were any, it would be shown as text.
            case {"Text": str(text)} | {"Html": str(text)} | {"InlineHtml": str(text)}:
                self.add(text, *self.marks[-1])
            case {"Code": str(code)}:
                marks, href = self.marks[-1]
                self.add(code, (*marks, "code"), href)
            case "SoftBreak":
                self.add(" ", *self.marks[-1])
            case "HardBreak":
                self.add("\n", (), "")
            case "Rule":
                self.block(ThematicBreak())
            case {"Start": tag}:
                self.open(tag, span)
            case {"End": str(tag)}:
                self.close(tag)
            case {"End": dict(tag)}:  # {"Heading": "H1"}, {"List": True}, ...
                self.close(str(next(iter(tag))))

    def open(self, tag: object, span: Range) -> None:
        marks, href = self.marks[-1]
        match tag:
            case "Emphasis" | "Strong":
                mark: Mark = "em" if tag == "Emphasis" else "strong"
                self.marks.append((marks if mark in marks else (*marks, mark), href))
            case {"Link": {"dest_url": str(target)}} if not _SCRIPT_LINK.match(target):
                self.marks.append((marks if "link" in marks else (*marks, "link"), target))
            case {"Link": {"dest_url": str(target)}} | {"Image": {"dest_url": str(target)}}:
                image = isinstance(tag, dict) and "Image" in tag
                self.opaque = _Opaque(image, target, span["start"], span["end"])
            case "Paragraph" | {"Heading": _} | "HtmlBlock" | "TableCell":
                self.end_tight()
                self.runs = []
            case {"CodeBlock": kind}:
                self.end_tight()
                self.code = []
                info = kind["Fenced"] if isinstance(kind, dict) else ""
                self.language = str(info).strip().split(" ")[0]
            case {"Table": tuple(align)}:
                self.end_tight()
                self.align = tuple(_ALIGN.get(str(a), "left") for a in align)
                self.rows = []
            case "TableHead" | "TableRow":
                self.cells = []
            case {"BlockQuote": _}:
                self.push(list_item=False)
            case "Item":
                self.push(list_item=True)
            case {"List": start}:
                self.push(list_item=False, start=start if isinstance(start, int) else None)
            case _:  # an extension the syntax leaves off: its text as it is
                self.marks.append((marks, href))

    def close(self, tag: str) -> None:
        if tag in ("Paragraph", "Heading", "HtmlBlock"):
            self.frames[-1].loose |= tag == "Paragraph"
            self.block(Paragraph(self.end_runs(), heading=tag == "Heading"))
        elif tag == "TableCell":
            self.cells.append(self.end_runs())
        elif tag in ("TableHead", "TableRow"):
            self.rows.append(tuple(self.cells))
        elif tag == "Table":
            head, *rows = self.rows or [()]
            self.block(TableBlock(self.align, head, tuple(rows)))
        elif tag == "CodeBlock":
            code, self.code = self.code or [], None
            self.block(CodeBlock("".join(code), self.language))
        elif tag in ("BlockQuote", "List", "Item"):
            self.end_tight()
            if self.flattened:
                self.flattened -= 1
                return
            frame = self.frames.pop()
            parent = self.frames[-1]
            if tag == "BlockQuote":
                self.block(Quote(tuple(frame.blocks)))
            elif tag == "List":
                self.block(ItemList(tuple(frame.items), frame.start, tight=not frame.loose))
            else:
                parent.items.append(tuple(frame.blocks))
                parent.loose |= frame.loose
        else:
            self.marks.pop()

    def push(self, *, list_item: bool, start: int | None = None) -> None:
        self.end_tight()
        # A list's items go with it: either has a frame, or neither.
        if self.flattened or (not list_item and len(self.frames) > MAX_BLOCK_NESTING):
            self.flattened += 1
        else:
            self.frames.append(_Frame(start=start))

    def read_opaque(self, event: Event) -> None:
        opaque = self.opaque
        assert opaque is not None
        match event:
            case {"Text": str(text)} | {"Code": str(text)}:
                opaque.text.append(text)
            case "SoftBreak" | "HardBreak":
                opaque.text.append(" ")
            case {"Start": _}:
                opaque.depth += 1
            case {"End": _}:
                opaque.depth -= 1
        if opaque.depth:
            return
        self.opaque = None
        marks, href = self.marks[-1]
        if opaque.image:
            alt = "".join(opaque.text) or opaque.target
            self.add(f"[image: {alt}]", (*marks, "image"), href)
        else:
            # The rewrite of raw HTML wrote its "<" as "&lt;": the source as its author typed it.
            typed = self.source.encode()[opaque.start : opaque.end].decode()
            self.add(typed.replace("&lt;", "<"), marks, href)

    def add(self, text: str, marks: tuple[Mark, ...], href: str) -> None:
        if self.runs is None:
            self.runs = []
            self.tight = True
        if self.runs and self.runs[-1][0] == marks and self.runs[-1][1] == href:
            self.runs[-1][2].append(text)
        else:
            self.runs.append((marks, href, [text]))

    def end_runs(self) -> tuple[Run, ...]:
        runs, self.runs = self.runs or [], None
        self.tight = False
        return tuple(Run("".join(parts), marks, href) for marks, href, parts in runs)

    def end_tight(self) -> None:
        if self.tight:
            self.frames[-1].blocks.append(Paragraph(self.end_runs()))

    def block(self, block: Block) -> None:
        self.end_tight()
        self.frames[-1].blocks.append(block)
