"""Card Markdown as one Rich renderable, for a single widget to show.

Textual's ``Markdown`` widget mounts a widget per block (and per table cell) and styles each
one: on the drill that was most of the time to the first card and between a key press and the
next card. Cards are short, so one renderable per side does the same work in a fraction of the
time. Raw HTML is never interpreted: the parser runs with ``html=False``, so ``<script>`` is
shown as the text it is. Links follow the export's rule (``zerodrill.deck.links``).

Colours come in as :class:`MarkdownStyles`, resolved by the widget from the app's theme, so
this module needs no Textual. Text with nothing Markdown could read as markup (a third of the
ZeRO deck's questions) skips the parser, whose import alone costs more than drawing a card.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from rich import box
from rich.console import (
    Console,
    ConsoleOptions,
    Group,
    JustifyMethod,
    RenderableType,
    RenderResult,
)
from rich.padding import Padding
from rich.rule import Rule
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text

from zerodrill.deck.lexers import lexer_for
from zerodrill.deck.links import safe_link

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
    from markdown_it.tree import SyntaxTreeNode

#: Anything CommonMark (with tables) might read as markup: inline markup
#: characters, entities and escapes; block starts (quotes, lists, headings, setext and
#: thematic-break lines, indented code); hard breaks (two trailing spaces); and whitespace
#: other than spaces and newlines, which the parser treats in ways of its own.
_MAYBE_MARKUP = re.compile(
    r"[*_`\[\]<>#|~!&\\]|[^\S \n]|^ *(?:[-+=>]|\d{1,9}[.)])|^ {4}| {2,}$", re.M
)
_BLANK_LINES = re.compile(r"\n[ \n]*\n")


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


@cache
def _parser() -> MarkdownIt:
    # Where the terminal differs from the deck's one syntax (zerodrill.deck.markdown_syntax,
    # which validate, the export, the preview and the sheet parse with), and why: it parses
    # with markdown-it-py, not pulldown-cmark, because this renderer walks markdown-it's syntax
    # tree into Rich (pulldown-cmark gives a flat stream of events and HTML); and raw HTML is
    # turned off here (html=False) where the export rewrites it as text first (raw_html.py),
    # to the same result. The extensions are the same: CommonMark with tables, nothing more
    # (no strikethrough, which Anki would show as typed).
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(["table"])


def warm_up() -> None:
    """Import and build the parser now (when nothing waits), not on the first card needing it;
    likewise Pygments with its JSON lexer, the language of DeepSpeed's configs."""
    _parser()
    lexer_for("json")


def parse(text: str) -> SyntaxTreeNode | tuple[str, ...]:
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


#: Inline markup (emphasis, links) nested deeper than this is shown as its text alone. The
#: parser caps block nesting itself, but not emphasis, and its tree (and this renderer) walk
#: nesting by recursion: a field of emphasis nested hundreds deep, which validate accepts and
#: Anki's renderer copes with, would exhaust Python's stack.
MAX_INLINE_NESTING = 32


def parse_markdown(text: str) -> SyntaxTreeNode:
    """``text`` through the Markdown parser, plain or not."""
    from markdown_it.tree import SyntaxTreeNode

    tokens = _parser().parse(text)
    for token in tokens:
        if token.children:
            token.children = _capped(token.children)
    return SyntaxTreeNode(tokens)


def _capped(tokens: list[Token]) -> list[Token]:
    """Inline ``tokens`` without the opening and closing marks beyond the nesting limit."""
    kept: list[Token] = []
    opened: list[bool] = []
    for token in tokens:
        if token.nesting == 1:
            opened.append(len(opened) < MAX_INLINE_NESTING)
            if opened[-1]:
                kept.append(token)
        elif token.nesting == -1:
            if not opened or opened.pop():
                kept.append(token)
        else:
            kept.append(token)
    return kept


def render(parsed: SyntaxTreeNode | tuple[str, ...], styles: MarkdownStyles) -> RenderableType:
    """``parsed`` (from :func:`parse`) as one renderable: blocks apart by a blank line."""
    if isinstance(parsed, tuple):
        return _apart([Text(paragraph) for paragraph in parsed])
    return _Renderer(styles).blocks(parsed.children)


def quoted(parsed: SyntaxTreeNode | tuple[str, ...], styles: MarkdownStyles) -> RenderableType:
    """``parsed`` as a block quote."""
    return _Quote(render(parsed, styles), styles.quote_bar, styles.quote)


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

    # -- blocks ------------------------------------------------------------------------

    def blocks(self, nodes: list[SyntaxTreeNode], *, tight: bool = False) -> RenderableType:
        blocks = (self.block(node) for node in nodes)
        return _apart([b for b in blocks if b is not None], tight=tight)

    def block(self, node: SyntaxTreeNode) -> RenderableType | None:
        kind = node.type
        if kind == "paragraph" or kind == "inline":
            return self.inline(node)
        if kind == "heading":
            text = self.inline(node)
            text.stylize(self.s.heading)
            return text
        if kind in ("bullet_list", "ordered_list"):
            return self.list(node)
        if kind == "blockquote":
            return _Quote(self.blocks(node.children), self.s.quote_bar, self.s.quote)
        if kind in ("fence", "code_block"):
            return self.code(node.content, node.info.strip().split(" ")[0] if node.info else "")
        if kind == "table":
            return self.table(node)
        if kind == "hr":
            return Rule(style=self.s.muted)
        return Text(node.content) if node.content else None

    def list(self, node: SyntaxTreeNode) -> RenderableType:
        ordered = node.type == "ordered_list"
        start = int(node.attrs.get("start", 1)) if ordered else 1
        tight = all(p.hidden for i in node.children for p in i.children if p.type == "paragraph")
        grid = Table.grid(padding=(0, 1, 0 if tight else 1, 0))
        grid.add_column(no_wrap=True, justify="right" if ordered else "left")
        grid.add_column(ratio=1)
        for n, item in enumerate(node.children):
            marker = f"{start + n}." if ordered else "•"
            grid.add_row(Text(marker, self.s.bullet), self.blocks(item.children, tight=tight))
        return grid

    def code(self, code: str, language: str) -> RenderableType:
        text = _highlight(code.rstrip("\n"), language, self.s.syntax)
        text.no_wrap = False
        return Padding(text, (0, 1), style=self.s.fence, expand=True)

    def table(self, node: SyntaxTreeNode) -> RenderableType:
        table = Table(
            box=box.ROUNDED,
            border_style=self.s.table_border,
            header_style=self.s.table_header,
            show_edge=True,
            expand=False,
        )
        head = [c for c in node.children if c.type == "thead"]
        body = [c for c in node.children if c.type == "tbody"]
        for row in (head[0].children if head else [])[:1]:
            for cell in row.children:
                table.add_column(self.inline(cell), justify=_align(cell))
        for section in body:
            for row in section.children:
                table.add_row(*(self.inline(cell) for cell in row.children))
        return table

    # -- inline ------------------------------------------------------------------------

    def inline(self, node: SyntaxTreeNode) -> Text:
        text = Text()
        for child in node.children:
            self._inline(child, text, Style())
        return text

    def _inline(self, node: SyntaxTreeNode, out: Text, style: Style) -> None:
        kind = node.type
        if kind == "inline":
            for child in node.children:
                self._inline(child, out, style)
        elif kind == "text":
            out.append(node.content, style or None)
        elif kind == "softbreak":
            out.append(" ", style or None)
        elif kind == "hardbreak":
            out.append("\n")
        elif kind == "code_inline":
            out.append(node.content, style + self.s.code)
        elif kind in ("strong", "em"):
            extra = {"strong": Style(bold=True), "em": Style(italic=True)}
            for child in node.children:
                self._inline(child, out, style + extra[kind])
        elif kind == "link":
            href = str(node.attrs.get("href", ""))
            link = self.s.link + Style(link=href) if safe_link(href) else self.s.link
            for child in node.children:
                self._inline(child, out, style + link)
        elif kind == "image":
            alt = "".join(c.content for c in node.children) or str(node.attrs.get("src", ""))
            out.append(f"[image: {alt}]", style + self.s.muted)
        else:
            for child in node.children:
                self._inline(child, out, style)
            if not node.children and node.content:
                out.append(node.content, style or None)


def _align(cell: SyntaxTreeNode) -> JustifyMethod:
    css = str(cell.attrs.get("style", ""))
    if "text-align:right" in css:
        return "right"
    if "text-align:center" in css:
        return "center"
    return "left"


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
