"""Card Markdown as one Rich renderable, for a single widget to show.

Textual's ``Markdown`` widget mounts a widget per block (and per table cell) and styles each
one: on the drill that was most of the time to the first card and between a key press and the
next card. Cards are short, so one renderable per side does the same work in a fraction of the
time.

The text is read as the deck's one syntax, by the parser validate and the export read it with
(:mod:`zerodrill.deck.markdown_syntax`). Its flat stream of events is gathered here into a small
tree: blocks, holding runs of text with the inline marks around them. Raw HTML is never
interpreted: the text goes through the export's own rewrite first
(:mod:`zerodrill.deck.raw_html`), so ``<script>`` is shown as the text it is, as in Anki.
Links follow the export's rule (:mod:`zerodrill.deck.links`).

Colours come in as :class:`MarkdownStyles`, resolved by the widget from the app's theme, so
this module needs no Textual. Text with nothing Markdown could read as markup (a third of the
ZeRO deck's questions) skips the parser.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from rich import box
from rich.console import (
    Console,
    ConsoleOptions,
    Group,
    JustifyMethod,
    RenderableType,
    RenderResult,
)
from rich.measure import Measurement
from rich.padding import Padding
from rich.rule import Rule
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text

from zerodrill.deck.lexers import lexer_for
from zerodrill.deck.links import safe_link

if TYPE_CHECKING:
    from pyromark.event import Event, Range

#: Anything CommonMark (with tables) might read as markup: inline markup
#: characters, entities and escapes; block starts (quotes, lists, headings, setext and
#: thematic-break lines, indented code); hard breaks (two trailing spaces); and whitespace
#: other than spaces and newlines, which the parser treats in ways of its own.
_MAYBE_MARKUP = re.compile(
    r"[*_`\[\]<>#|~!&\\]|[^\S \n]|^ *(?:[-+=>]|\d{1,9}[.)])|^ {4}| {2,}$", re.M
)
_BLANK_LINES = re.compile(r"\n[ \n]*\n")

#: Quotes, lists and list items nested deeper than this give their blocks to the one at this
#: depth: Rich draws nesting by recursion, and a field of ``>`` or ``- `` hundreds deep, which
#: validate accepts, would exhaust Python's stack. (Inline marks nest as deep as they like:
#: they are drawn as one flat list of runs.)
MAX_BLOCK_NESTING = 20


@dataclass(frozen=True)
class MarkdownStyles:
    code: Style = field(default_factory=lambda: Style(bold=True))
    link: Style = field(default_factory=lambda: Style(underline=True))
    heading: Style = field(default_factory=lambda: Style(bold=True))
    bullet: Style = field(default_factory=Style)
    quote_bar: Style = field(default_factory=Style)
    quote: Style = field(default_factory=Style)
    fence: Style = field(default_factory=Style)
    muted: Style = field(default_factory=lambda: Style(dim=True))
    table_border: Style = field(default_factory=lambda: Style(dim=True))
    table_header: Style = field(default_factory=lambda: Style(bold=True))
    #: Pygments token type (as in ``Token.Literal.String``'s ``str``) prefix -> style.
    syntax: tuple[tuple[str, Style], ...] = ()


Mark = Literal["strong", "em", "link", "code", "image"]


@dataclass(frozen=True)
class Run:
    """Text in one style: ``marks`` are the inline elements around it, outermost first."""

    text: str
    marks: tuple[Mark, ...] = ()
    #: The target of the link among ``marks``.
    href: str = ""


@dataclass(frozen=True)
class Paragraph:
    runs: tuple[Run, ...]
    heading: bool = False


@dataclass(frozen=True)
class Quote:
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class ItemList:
    items: tuple[tuple[Block, ...], ...]
    #: The first item's number; None for bullets.
    start: int | None
    #: No blank line between items: no item's text is in a paragraph of its own.
    tight: bool


@dataclass(frozen=True)
class CodeBlock:
    code: str
    language: str


@dataclass(frozen=True)
class TableBlock:
    align: tuple[JustifyMethod, ...]
    head: tuple[tuple[Run, ...], ...]
    rows: tuple[tuple[tuple[Run, ...], ...], ...]


@dataclass(frozen=True)
class ThematicBreak:
    pass


Block = Paragraph | Quote | ItemList | CodeBlock | TableBlock | ThematicBreak


@dataclass(frozen=True)
class Document:
    blocks: tuple[Block, ...]


def warm_up() -> None:
    """Import and build the parser now (when nothing waits), not on the first card needing it;
    likewise Pygments with its JSON lexer, the language of DeepSpeed's configs."""
    parse_markdown("*x*")
    lexer_for("json")


def parse(text: str) -> Document | tuple[str, ...]:
    """``text`` parsed once, to render as often as the theme changes."""
    if _MAYBE_MARKUP.search(text):
        return parse_markdown(text)
    # What CommonMark makes of plain text: paragraphs at blank lines, each line's outer
    # spaces dropped, and the lines of a paragraph joined by a space.
    paragraphs = (
        " ".join(line.strip(" ") for line in p.split("\n")).strip(" ")
        for p in _BLANK_LINES.split(text)
    )
    return tuple(p for p in paragraphs if p)


def parse_markdown(text: str) -> Document:
    """``text`` through the Markdown parser, plain or not."""
    from zerodrill.deck.markdown_syntax import parser
    from zerodrill.deck.raw_html import without_raw_html

    if "<" in text:
        text = without_raw_html(text)
    reader = _Reader(text)
    for event, span in parser().events_with_range(text, merge_text=True):
        reader.read(event, span)
    return Document(tuple(reader.frames[0].blocks))


def render(parsed: Document | tuple[str, ...], styles: MarkdownStyles) -> RenderableType:
    """``parsed`` (from :func:`parse`) as one renderable: blocks apart by a blank line."""
    if isinstance(parsed, tuple):
        return _apart([Text(paragraph) for paragraph in parsed])
    return _Renderer(styles).blocks(parsed.blocks)


def quoted(parsed: Document | tuple[str, ...], styles: MarkdownStyles) -> RenderableType:
    """``parsed`` as a block quote."""
    return _Quote(render(parsed, styles), styles.quote_bar, styles.quote)


# Where the drill differs from the export, and why: a link to a script (or to a local file or
# inline data) is shown as the source its author typed, where the export shows its text alone,
# so that whoever reads the card sees what it holds; other links the one rule refuses are
# drawn as links that lead nowhere; an image, which a terminal cannot show, is its alt text.
_SCRIPT_LINK = re.compile(r"\s*(?:javascript|vbscript|file|data):", re.IGNORECASE)
_ALIGN: dict[str, JustifyMethod] = {"Right": "right", "Center": "center"}


@dataclass
class _Frame:
    """A block container being read: the document, a quote, a list or a list item."""

    blocks: list[Block] = field(default_factory=list)
    items: list[tuple[Block, ...]] = field(default_factory=list)
    start: int | None = None
    #: Whether a paragraph of its own (as a loose list's items have) was read into it.
    loose: bool = False


@dataclass
class _Opaque:
    """A link or an image whose inside is read as plain text."""

    image: bool
    target: str
    start: int
    end: int
    depth: int = 1
    text: list[str] = field(default_factory=list)


class _Reader:
    """pulldown-cmark's events gathered into blocks and runs, with stacks, never recursion."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.frames = [_Frame()]
        #: Containers opened past MAX_BLOCK_NESTING, read into the innermost frame.
        self.flattened = 0
        #: The text of the paragraph, heading or table cell being read: runs as marks, link
        #: target and parts. ``tight`` when it is a tight list item's text, in no paragraph.
        self.runs: list[tuple[tuple[Mark, ...], str, list[str]]] | None = None
        self.tight = False
        #: The marks around the text being read, with the target of the link among them.
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
        """``text`` at the end of the text being read (a tight list item's, if none is)."""
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
        """End a tight list item's text, at the start or end of a block."""
        if self.tight:
            self.frames[-1].blocks.append(Paragraph(self.end_runs()))

    def block(self, block: Block) -> None:
        self.end_tight()
        self.frames[-1].blocks.append(block)


def _apart(blocks: list[RenderableType], *, tight: bool = False) -> RenderableType:
    """``blocks`` one under another, a blank line apart unless ``tight``."""
    if len(blocks) <= 1:
        return blocks[0] if blocks else Text()
    parts = blocks[:1]
    for block in blocks[1:]:
        if not tight:
            parts.append(Text())
        parts.append(block)
    return Group(*parts)


class _Renderer:
    def __init__(self, styles: MarkdownStyles) -> None:
        self.s = styles
        self.marks: dict[Mark, Style] = {
            "strong": Style(bold=True),
            "em": Style(italic=True),
            "code": styles.code,
            "image": styles.muted,
        }
        self.styles: dict[tuple[tuple[Mark, ...], str], Style | None] = {}

    # -- blocks ------------------------------------------------------------------------

    def blocks(self, blocks: tuple[Block, ...], *, tight: bool = False) -> RenderableType:
        return _apart([self.block(block) for block in blocks], tight=tight)

    def block(self, block: Block) -> RenderableType:
        match block:
            case Paragraph(runs, heading):
                text = self.inline(runs)
                if heading:
                    text.stylize(self.s.heading)
                return text
            case ItemList():
                return self.list(block)
            case Quote(blocks):
                return _Quote(self.blocks(blocks), self.s.quote_bar, self.s.quote)
            case CodeBlock(code, language):
                return self.code(code, language)
            case TableBlock():
                return self.table(block)
            case ThematicBreak():
                return Rule(style=self.s.muted)

    def list(self, block: ItemList) -> RenderableType:
        ordered = block.start is not None
        start = block.start or 0
        grid = Table.grid(padding=(0, 1, 0 if block.tight else 1, 0))
        grid.add_column(no_wrap=True, justify="right" if ordered else "left")
        grid.add_column(ratio=1)
        for n, item in enumerate(block.items):
            marker = f"{start + n}." if ordered else "•"
            grid.add_row(Text(marker, self.s.bullet), self.blocks(item, tight=block.tight))
        return _Measured(grid)

    def code(self, code: str, language: str) -> RenderableType:
        text = _highlight(code.rstrip("\n"), language, self.s.syntax)
        text.no_wrap = False
        return Padding(text, (0, 1), style=self.s.fence, expand=True)

    def table(self, block: TableBlock) -> RenderableType:
        table = Table(
            box=box.ROUNDED,
            border_style=self.s.table_border,
            header_style=self.s.table_header,
            show_edge=True,
            expand=False,
        )
        for cell, align in zip(block.head, block.align, strict=False):
            table.add_column(self.inline(cell), justify=align)
        for row in block.rows:
            table.add_row(*(self.inline(cell) for cell in row[: len(block.head)]))
        return table

    # -- inline ------------------------------------------------------------------------

    def inline(self, runs: tuple[Run, ...]) -> Text:
        text = Text()
        for run in runs:
            text.append(run.text, self.style(run.marks, run.href))
        return text

    def style(self, marks: tuple[Mark, ...], href: str) -> Style | None:
        key = (marks, href)
        if key not in self.styles:
            style = Style()
            for mark in marks:
                if mark == "link":
                    style += self.s.link + Style(link=href) if safe_link(href) else self.s.link
                else:
                    style += self.marks[mark]
            self.styles[key] = style or None
        return self.styles[key]


def _highlight(code: str, language: str, styles: tuple[tuple[str, Style], ...]) -> Text:
    """Code coloured by Pygments' tokens; unknown languages stay plain."""
    text = Text(end="")
    if not language or not styles:
        text.append(code)
        return text
    lexer = lexer_for(language)
    if lexer is None:
        text.append(code)
        return text
    for token_type, value in lexer.get_tokens(code):
        name = str(token_type)
        style = next((s for prefix, s in styles if name.startswith(prefix)), None)
        text.append(value, style)
    return text


class _Measured:
    """A renderable that Rich measures once per width: a table measures its cells afresh each
    time it is measured or drawn, which grew as a power of the depth for nested lists."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable
        self.measured: dict[int, Measurement] = {}

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        width = options.max_width
        if width not in self.measured:
            self.measured[width] = Measurement.get(console, options, self.renderable)
        return self.measured[width]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.renderable


class _Quote:
    """A block quote: its content indented behind a bar, the way Markdown readers draw it."""

    def __init__(self, content: RenderableType, bar: Style, style: Style) -> None:
        self.content = content
        self.bar = bar
        self.style = style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(options.max_width - 2, 1)
        lines = console.render_lines(self.content, options.update(width=width), style=self.style)
        yield from _prefixed(lines, Segment("▌ ", self.bar))


def _prefixed(lines: list[list[Segment]], prefix: Segment) -> Iterator[Segment]:
    new_line = Segment.line()
    for line in lines:
        yield prefix
        yield from line
        yield new_line
