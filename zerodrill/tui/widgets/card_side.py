"""A card side: one widget drawing one Rich renderable in the theme's colours.

What the side shows is a function of the theme's colours (a :data:`Build`), called on every
render: colours come from the component classes below, so switching light and dark redraws it
right. Textual draws the renderable (its ``RichVisual``) and keeps what it drew until the
side is shown anew.
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec import Struct
from rich.console import RenderableType
from rich.style import Style
from textual.widget import Widget

from zerodrill.tui.markdown import MarkdownStyles


class SideStyles(Struct, frozen=True):
    """The theme's colours for one render of a card side, one per component class
    ``side--<name>`` of the widget holding both sides (see :data:`SIDE_CSS`)."""

    code: Style
    accent: Style
    fence: Style
    muted: Style
    string: Style
    number: Style
    error: Style
    right: Style
    wrong: Style
    typed: Style

    @classmethod
    def of(cls, widget: Widget) -> SideStyles:
        """The styles ``widget`` (the one with :data:`SIDE_COMPONENT_CLASSES`) has now."""
        # Full styles, not partial ones: Rich has no transparency, and the full style has the
        # theme's translucent backgrounds ($boost, "$warning 10%") already blended.
        return cls(*map(widget.get_component_rich_style, _SIDE_CLASSES))

    def markdown(self) -> MarkdownStyles:
        return MarkdownStyles(
            code=self.code,
            link=self.accent + Style(underline=True),
            heading=self.accent + Style(bold=True),
            bullet=self.accent,
            quote_bar=self.accent,
            fence=self.fence,
            muted=self.muted,
            table_border=self.muted,
            table_header=self.accent + Style(bold=True),
            # Pygments token types, most specific first, and their colours.
            syntax=(
                ("Token.Keyword.Constant", self.number),
                ("Token.Keyword", self.accent),
                ("Token.Name.Builtin", self.accent),
                ("Token.Name.Tag", self.accent),
                ("Token.Name", self.accent),
                ("Token.Literal.String", self.string),
                ("Token.Literal.Number", self.number),
                ("Token.Comment", self.muted),
            ),
        )


Build = Callable[[SideStyles], RenderableType]

#: The colours a side draws with, as component classes of the widget holding both sides: on
#: one widget instead of two, as Textual styles each component class of each widget.
SIDE_CSS = """
    CardView {
        & > .side--code { color: $text-warning; background: $warning 10%; }
        &:light > .side--code { color: $text-error; background: $error 5%; }
        & > .side--accent { color: $text-primary; }
        & > .side--fence { background: black 15%; }
        &:light > .side--fence { background: $foreground 5%; }
        & > .side--muted { color: $text-muted; }
        & > .side--string { color: $text-success; }
        & > .side--number { color: $text-warning; }
        & > .side--error { color: $text-error; }
        & > .side--right { color: $text-success; background: $success-muted; }
        & > .side--wrong { color: $text-error; background: $error-muted; text-style: strike; }
        & > .side--typed { color: $text-secondary; }
    }
    """

# In the order of SideStyles' fields.
_SIDE_CLASSES = tuple(f"side--{name}" for name in SideStyles.__struct_fields__)
SIDE_COMPONENT_CLASSES = set(_SIDE_CLASSES)


class CardSide(Widget):
    """One side of a card, drawn by a :data:`Build` with the colours of the widget above it."""

    DEFAULT_CSS = "CardSide { height: auto; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._build: Build | None = None

    def show(self, build: Build | None) -> None:
        """Show what ``build`` makes from the theme's styles (nothing, for None)."""
        self._build = build
        self.refresh(layout=True)

    def render(self) -> RenderableType:
        """What the side shows, as a Rich renderable in the theme's colours now."""
        holder = self.parent
        if self._build is None or not isinstance(holder, Widget):
            return ""
        return self._build(SideStyles.of(holder))
