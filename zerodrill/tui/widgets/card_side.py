"""A card side: one widget drawing one Rich renderable in the theme's colours.

What it shows is a function of the theme's colours (a :data:`Build`), so that switching
light and dark redraws it right.
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec import Struct
from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import RenderOptions, Visual
from textual.widget import Widget

from zerodrill.tui.markdown import MarkdownStyles


class SideStyles(Struct, frozen=True):
    """The theme's colours for a card side: component classes ``side--<name>`` (SIDE_CSS)."""

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
        # Full styles: Rich has no transparency, and these have the translucent backgrounds
        # ("$warning 10%") blended.
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

#: On the widget holding both sides: Textual styles each component class of each widget.
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
    """One side of a card, drawn by a :data:`Build` with the colours of the widget above it.

    :class:`DrawnOnce` and :meth:`prepare` are kept for the reveal key's goals (issue 34).
    """

    DEFAULT_CSS = "CardSide { height: auto; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # Kept for the reveal key: the pass for ``@click`` links rebuilt every line drawn, and
        # a side's links are the terminal's own hyperlinks.
        self.auto_links = False
        self._build: Build | None = None
        self._drawn: DrawnOnce | None = None

    def show(self, build: Build | None) -> None:
        self._build = build
        self.refresh(layout=True)

    def prepare(self, build: Build, width: int) -> None:
        """Draw ``build`` at ``width`` now, while nothing waits, for :meth:`show` to reuse."""
        holder = self.parent
        if isinstance(holder, Widget) and width > 0:
            self._drawn_with(build, SideStyles.of(holder)).lines_at(width)

    def renderable(self) -> RenderableType:
        return self.render().renderable

    def render(self) -> DrawnOnce:
        # Textual asks on every layout of the screen (a reveal is one): kept while the same.
        holder = self.parent
        styles = SideStyles.of(holder) if isinstance(holder, Widget) else None
        return self._drawn_with(self._build, styles)

    def _drawn_with(self, build: Build | None, styles: SideStyles | None) -> DrawnOnce:
        drawn = self._drawn
        if drawn is None or drawn.build != build or drawn.styles != styles:
            shown = build(styles) if build is not None and styles is not None else ""
            drawn = self._drawn = DrawnOnce(self, build, styles, shown)
        return drawn


class DrawnOnce(Visual):
    """A Rich renderable drawn once at the width it is laid out at: Textual's ``RichVisual``
    draws it once to learn its height and again to paint it."""

    def __init__(
        self, widget: Widget, build: Build | None, styles: SideStyles | None, shown: RenderableType
    ) -> None:
        self._widget = widget
        self.build = build
        self.styles = styles
        self.renderable = shown
        self._lines: tuple[int, list[list[Segment]]] | None = None

    def lines_at(self, width: int) -> list[list[Segment]]:
        if self._lines is None or self._lines[0] != width:
            app = self._widget.app
            options = app.console_options.update(highlight=False).update_width(width)
            self._lines = (width, app.console.render_lines(self.renderable, options, pad=False))
        return self._lines[1]

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.lines_at(width))

    def render_strips(
        self, width: int, height: int | None, style: VisualStyle, options: RenderOptions
    ) -> list[Strip]:
        lines = self.lines_at(width)[:height]
        base = style.rich_style
        if not base:
            return [Strip(line) for line in lines]
        return [
            Strip([Segment(text, base + seg_style, None) for text, seg_style, _ in line])
            for line in lines
        ]
