"""A card side in one widget (see :mod:`zerodrill.tui.markdown` for why not Textual's Markdown).

What the side shows is a function of the theme's colours, called on every render: colours
come from the component classes below, so switching light and dark redraws it right.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

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
        if isinstance(widget, SideHolder):
            if widget._side_styles is None:
                widget._side_styles = cls._read(widget)
            return widget._side_styles
        return cls._read(widget)

    @classmethod
    def _read(cls, widget: Widget) -> SideStyles:
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

# In the order of SideStyles' fields. (msgspec's ``fields()`` resolves every annotation on each
# call: too slow for a render.)
_SIDE_CLASSES = tuple(f"side--{name}" for name in SideStyles.__struct_fields__)
SIDE_COMPONENT_CLASSES = set(_SIDE_CLASSES)


if TYPE_CHECKING:
    _WidgetBase = Widget
else:
    _WidgetBase = object


class SideHolder(_WidgetBase):
    """Mixed into a widget holding card sides, whose component classes colour them: their
    colours are read once each time its styles change (a theme, light or dark), not on every
    render of a side. Textual forgets its own copy of them at every refresh of the widget, and
    a reveal refreshes it."""

    _side_styles: SideStyles | None = None

    def notify_style_update(self) -> None:
        # Called as the stylesheet is applied to the widget: its component styles come next.
        self._side_styles = None
        super().notify_style_update()


class CardSide(Widget):
    """One side of a card, drawn by a :data:`Build` with the colours of the widget above it."""

    DEFAULT_CSS = "CardSide { height: auto; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # Textual's link highlighting is for actions (``@click``) in a widget's text; a side's
        # links are the terminal's own hyperlinks, and that pass rebuilt every line it drew.
        self.auto_links = False
        self._build: Build | None = None
        self._drawn: tuple[tuple[Build | None, SideStyles | None], DrawnOnce] | None = None

    def show(self, build: Build | None) -> None:
        """Show what ``build`` makes from the theme's styles (nothing, for None)."""
        self._build = build
        self.refresh(layout=True)

    def prepare(self, build: Build, widths: Iterable[int]) -> None:
        """Draw what ``build`` makes at each of ``widths`` now, while nothing waits, so that
        showing it (:meth:`show` with this ``build``) draws nothing more at those widths."""
        holder = self.parent
        if not isinstance(holder, Widget):
            return
        drawn = self._drawn_with(build, SideStyles.of(holder))
        for width in widths:
            if width > 0:
                # The lines as Textual will ask for them: in the side's style, all of them.
                drawn.render_strips(width, len(drawn.lines_at(width)), self.visual_style, None)

    def renderable(self) -> RenderableType:
        """What the side shows, as a Rich renderable in the theme's colours now."""
        holder = self.parent
        if self._build is None or not isinstance(holder, Widget):
            return ""
        return self._build(SideStyles.of(holder))

    def render(self) -> Visual:
        # Textual asks again on every layout of the screen (a reveal is one); the side drawn
        # last is kept while neither what it shows nor the theme's colours have changed.
        holder = self.parent
        return self._drawn_with(
            self._build, SideStyles.of(holder) if isinstance(holder, Widget) else None
        )

    def _drawn_with(self, build: Build | None, styles: SideStyles | None) -> DrawnOnce:
        """What ``build`` makes with ``styles``, as drawn last if neither has changed since."""
        key = (build, styles)
        if self._drawn is None or self._drawn[0] != key:
            shown = build(styles) if build is not None and styles is not None else ""
            self._drawn = (key, DrawnOnce(self, shown))
        return self._drawn[1]


class KeptStrips(Visual):
    """A Visual drawn once for each width, height and style it is shown at: Textual asks for
    its strips again on every layout of the screen (a reveal is one), and a subclass says
    only how to draw them (:meth:`_draw`)."""

    def __init__(self) -> None:
        self._strips: dict[tuple[int, int | None, VisualStyle], list[Strip]] = {}

    def _draw(
        self, width: int, height: int | None, style: VisualStyle, options: RenderOptions | None
    ) -> list[Strip]:
        raise NotImplementedError

    def render_strips(
        self, width: int, height: int | None, style: VisualStyle, options: RenderOptions | None
    ) -> list[Strip]:
        if options is not None and options.selection is not None:
            return self._draw(width, height, style, options)  # a selection is drawn as it goes
        key = (width, height, style)
        strips = self._strips.get(key)
        if strips is None:
            if len(self._strips) >= 4:
                # Resized or restyled again and again: keep the latest.
                self._strips.clear()
            strips = self._strips[key] = self._draw(width, height, style, options)
        # A copy: the list is Textual's to change, the strips in it are not.
        return list(strips)


class DrawnOnce(KeptStrips):
    """A Rich renderable drawn once for each width it is laid out at.

    Textual's own wrapper (``RichVisual``) draws a renderable once to learn its height and
    again to paint it, and a card's side (code highlighted, tables measured cell by cell) was
    most of the time from the reveal key to the answer on screen. Here the lines drawn for
    the height are the lines painted; the widget's base style is applied to them as Textual's
    ``post_render`` applies it.
    """

    def __init__(self, widget: Widget, renderable: RenderableType) -> None:
        super().__init__()
        self._widget = widget
        #: What is drawn.
        self.renderable = renderable
        #: The lines drawn, by width: the terminal may be resized between drawing a side
        #: ahead and showing it.
        self._lines: dict[int, list[list[Segment]]] = {}

    def lines_at(self, width: int) -> list[list[Segment]]:
        lines = self._lines.get(width)
        if lines is None:
            if len(self._lines) >= 4:
                # Resized again and again: keep the widths of late.
                self._lines.clear()
                self._strips.clear()
            app = self._widget.app
            options = app.console_options.update(highlight=False).update_width(width)
            lines = self._lines[width] = app.console.render_lines(
                self.renderable, options, pad=False
            )
        return lines

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.lines_at(width))

    def _draw(
        self, width: int, height: int | None, style: VisualStyle, options: RenderOptions | None
    ) -> list[Strip]:
        lines = self.lines_at(width)
        if height is not None:
            lines = lines[:height]
        base = style.rich_style
        if not base:
            return [Strip(line) for line in lines]
        return [
            Strip([Segment(text, base + seg_style, None) for text, seg_style, _ in line])
            for line in lines
        ]
