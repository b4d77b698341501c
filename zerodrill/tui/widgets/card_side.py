"""A card side: one widget drawing one Rich renderable in the theme's colours.

What the side shows is a function of the theme's colours (a :data:`Build`), called on every
render: colours come from the component classes below, so switching light and dark redraws it
right.
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
            # Pygments token types and their colours.
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
    """One side of a card, drawn by a :data:`Build` with the colours of the widget above it.

    Drawn through :class:`DrawnOnce`, not Textual's own wrapper of a Rich renderable, and the
    answer drawn while the question is read (:meth:`prepare`): without both, the reveal key
    missed its goals on the bench (issue 34, tmux, medians of 3 runs per deck and queue: 1.67-
    2.14x the bare app's key, goal 1.5x; 0.93-1.14x Clanki's reveal, goal 1.0x; with them,
    1.00-1.39x and 0.74-0.91x in the same runs).
    """

    DEFAULT_CSS = "CardSide { height: auto; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # Kept for the reveal key (see KeyBar.DrawnLine for the figures): Textual's link
        # highlighting is for actions (``@click``) in a widget's text, and that pass rebuilt
        # every line a side drew; a side's links are the terminal's own hyperlinks.
        self.auto_links = False
        self._build: Build | None = None
        self._drawn: DrawnOnce | None = None

    def show(self, build: Build | None) -> None:
        """Show what ``build`` makes from the theme's styles (nothing, for None)."""
        self._build = build
        self.refresh(layout=True)

    def prepare(self, build: Build, width: int) -> None:
        """Draw what ``build`` makes at ``width`` now, while nothing waits, so that showing it
        (:meth:`show` with this ``build``) draws nothing more at that width."""
        holder = self.parent
        if isinstance(holder, Widget) and width > 0:
            self._drawn_with(build, SideStyles.of(holder)).lines_at(width)

    def renderable(self) -> RenderableType:
        """What the side shows, as a Rich renderable in the theme's colours now."""
        return self.render().renderable

    def render(self) -> DrawnOnce:
        # Textual asks again on every layout of the screen (a reveal is one): the side drawn
        # last is kept while neither what it shows nor the theme's colours have changed.
        holder = self.parent
        styles = SideStyles.of(holder) if isinstance(holder, Widget) else None
        return self._drawn_with(self._build, styles)

    def _drawn_with(self, build: Build | None, styles: SideStyles | None) -> DrawnOnce:
        """What ``build`` makes with ``styles``, as drawn last if neither has changed since."""
        drawn = self._drawn
        if drawn is None or drawn.build != build or drawn.styles != styles:
            shown = build(styles) if build is not None and styles is not None else ""
            drawn = self._drawn = DrawnOnce(self, build, styles, shown)
        return drawn


class DrawnOnce(Visual):
    """A Rich renderable drawn once at the width it is laid out at.

    Textual's own wrapper (``RichVisual``) draws a renderable once to learn its height and
    again to paint it; here the lines drawn for the height are the lines painted, the
    widget's base style applied to them as Textual's ``post_render`` applies it.
    """

    def __init__(
        self, widget: Widget, build: Build | None, styles: SideStyles | None, shown: RenderableType
    ) -> None:
        self._widget = widget
        #: What drew it.
        self.build = build
        self.styles = styles
        #: What is drawn.
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
