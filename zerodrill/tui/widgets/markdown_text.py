"""Markdown in one widget (see :mod:`zerodrill.tui.markdown` for why not Textual's)."""

from __future__ import annotations

from markdown_it.tree import SyntaxTreeNode
from rich.console import RenderableType
from textual.widget import Widget

from zerodrill.tui.markdown import MarkdownStyles, parse, render

#: Pygments token types (most specific first) and the component class that colours them.
_SYNTAX = (
    ("Token.Keyword.Constant", "md--syntax-constant"),
    ("Token.Keyword", "md--syntax-keyword"),
    ("Token.Name.Builtin", "md--syntax-keyword"),
    ("Token.Name.Tag", "md--syntax-key"),
    ("Token.Name.Attribute", "md--syntax-key"),
    ("Token.Name.Function", "md--syntax-key"),
    ("Token.Name.Class", "md--syntax-key"),
    ("Token.Literal.String", "md--syntax-string"),
    ("Token.Literal.Number", "md--syntax-constant"),
    ("Token.Comment", "md--syntax-comment"),
)


class MarkdownText(Widget):
    """A card side. Colours follow the theme: they are looked up again on every render."""

    DEFAULT_CSS = """
    MarkdownText {
        height: auto;
        & > .md--code { color: $text-warning; background: $warning 10%; }
        &:light > .md--code { color: $text-error; background: $error 5%; }
        & > .md--link { color: $text-primary; text-style: underline; }
        & > .md--heading { color: $text-primary; text-style: bold; }
        & > .md--bullet { color: $text-primary; }
        & > .md--quote-bar { color: $text-primary 50%; }
        &:light > .md--quote-bar { color: $text-secondary; }
        & > .md--quote { background: $boost; }
        & > .md--fence { background: black 15%; }
        &:light > .md--fence { background: $foreground 5%; }
        & > .md--muted { color: $text-muted; }
        & > .md--table-border { color: $foreground 25%; }
        & > .md--table-header { color: $text-primary; text-style: bold; }
        & > .md--syntax-key { color: $text-primary; }
        & > .md--syntax-string { color: $text-success; }
        & > .md--syntax-constant { color: $text-warning; }
        & > .md--syntax-keyword { color: $text-accent; }
        & > .md--syntax-comment { color: $text-muted; text-style: italic; }
    }
    """

    COMPONENT_CLASSES = {
        "md--code",
        "md--link",
        "md--heading",
        "md--bullet",
        "md--quote-bar",
        "md--quote",
        "md--fence",
        "md--muted",
        "md--table-border",
        "md--table-header",
        *(name for _, name in _SYNTAX),
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        #: The Markdown on show.
        self.source = ""
        self._tree: SyntaxTreeNode | None = None

    def update(self, markdown: str) -> None:
        self.source = markdown
        self._tree = parse(markdown) if markdown.strip() else None
        self.refresh(layout=True)

    def render(self) -> RenderableType:
        if self._tree is None:
            return ""
        return render(self._tree, self._styles())

    def _styles(self) -> MarkdownStyles:
        # Full styles, not partial ones: Rich has no transparency, and the full style has the
        # theme's translucent backgrounds ($boost, "$warning 10%") already blended.
        style = self.get_component_rich_style
        return MarkdownStyles(
            code=style("md--code"),
            link=style("md--link"),
            heading=style("md--heading"),
            bullet=style("md--bullet"),
            quote_bar=style("md--quote-bar"),
            quote=style("md--quote"),
            fence=style("md--fence"),
            muted=style("md--muted"),
            table_border=style("md--table-border"),
            table_header=style("md--table-header"),
            syntax=tuple((prefix, style(name)) for prefix, name in _SYNTAX),
        )
