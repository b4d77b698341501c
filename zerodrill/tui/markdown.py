"""Card Markdown as one Rich renderable, for a single widget to show.

Textual's ``Markdown`` widget mounts and styles a widget per block (and per table cell): on
the drill that was most of the time to the first card and between key presses. Kept for the
first card's goal (issue 34), as is the shortcut for text with nothing Markdown could read
as markup, which skips the parser.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from msgspec import Struct, field
from rich import box
from rich.console import (
    Console,
    ConsoleOptions,
    Group,
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
    from zerodrill.tui.markdown_tree import Block, Document, ItemList, Mark, Run, TableBlock

#: Anything CommonMark (with tables) might read as markup: inline markup characters, entities
#: and escapes, block starts, hard breaks, and whitespace other than spaces and newlines.
_MAYBE_MARKUP = re.compile(
    r"[*_`\[\]<>#|~!&\\]|[^\S \n]|^ *(?:[-+=>]|\d{1,9}[.)])|^ {4}| {2,}$", re.M
)
_BLANK_LINES = re.compile(r"\n[ \n]*\n")


class MarkdownStyles(Struct, frozen=True):
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
    #: Pygments token type (``str(Token.Literal.String)``) -> style; a type not here takes its
    #: nearest parent's.
    syntax: tuple[tuple[str, Style], ...] = ()


def warm_up() -> None:
    """Import the parser and Pygments' JSON lexer (DeepSpeed's configs') while nothing waits."""
    parse_markdown("*x*")
    lexer_for("json")


def parse(text: str) -> Document | tuple[str, ...]:
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
    # Imported here: text with no markup, as many a question is, is drawn without it.
    from zerodrill.tui.markdown_tree import read

    return read(text)


def render(parsed: Document | tuple[str, ...], styles: MarkdownStyles) -> RenderableType:
    if isinstance(parsed, tuple):
        return _apart([Text(paragraph) for paragraph in parsed])
    return _Renderer(styles).blocks(parsed.blocks)


def quoted(parsed: Document | tuple[str, ...], styles: MarkdownStyles) -> RenderableType:
    return _Quote(render(parsed, styles), styles.quote_bar, styles.quote)


def _apart(blocks: list[RenderableType], *, tight: bool = False) -> RenderableType:
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

    def blocks(self, blocks: tuple[Block, ...], *, tight: bool = False) -> RenderableType:
        return _apart([self.block(block) for block in blocks], tight=tight)

    def block(self, block: Block) -> RenderableType:
        from zerodrill.tui.markdown_tree import (
            CodeBlock,
            ItemList,
            Paragraph,
            Quote,
            TableBlock,
            ThematicBreak,
        )

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
        return grid

    def code(self, code: str, language: str) -> RenderableType:
        code = code.rstrip("\n")
        lexer = lexer_for(language) if language and self.s.syntax else None
        if lexer is None:  # unknown languages stay plain
            text = Text(code, end="")
        else:
            from pygments.token import string_to_tokentype
            from rich.syntax import ANSISyntaxTheme, Syntax

            theme = ANSISyntaxTheme({string_to_tokentype(t): s for t, s in self.s.syntax})
            text = Syntax(code, lexer, theme=theme, tab_size=8, word_wrap=True).highlight(code)
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

    def inline(self, runs: tuple[Run, ...]) -> Text:
        text = Text()
        for run in runs:
            text.append(run.text, self.style(run.marks, run.href))
        return text

    def style(self, marks: tuple[Mark, ...], href: str) -> Style | None:
        style = Style()
        for mark in marks:
            if mark == "link":
                style += self.s.link + Style(link=href) if safe_link(href) else self.s.link
            else:
                style += self.marks[mark]
        return style or None


class _Quote:
    """A block quote: its content indented behind a bar."""

    def __init__(self, content: RenderableType, bar: Style, style: Style) -> None:
        self.content = content
        self.bar = bar
        self.style = style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(options.max_width - 2, 1)
        lines = console.render_lines(self.content, options.update(width=width), style=self.style)
        bar, new_line = Segment("▌ ", self.bar), Segment.line()
        for line in lines:
            yield bar
            yield from line
            yield new_line
