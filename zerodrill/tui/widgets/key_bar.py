"""The drill's footer: the keys that work right now, redrawn as one line of text.

Keys in the :data:`MORE` group show on a second page behind m, as Anki's reviewer puts the
card's actions in its More menu; every key works whichever page is shown.

Textual's ``Footer`` recomposes a widget per key whenever the bindings change, which on the
drill is every key press; this bar shows the same bindings as one line, and a click on a key
presses it.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.content import Content, Span
from textual.css.styles import RulesMap
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widgets import Static

KEY_STYLE = "bold $footer-key-foreground"

MORE = Binding.Group("More")
#: Anki's key for its More menu.
MORE_KEY = "m"

#: One key on the bar: (the key a click presses, the key as shown, description, enabled).
KeyEntry = tuple[str, str, str, bool]


class KeyBar(Static):
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-description-foreground;
    }
    """

    _shown: tuple[KeyEntry, ...] | None = None
    more = False
    #: Each set of keys shown so far, drawn once: the bar goes back and forth between a few.
    _lines: dict[tuple[KeyEntry, ...], DrawnLine] | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self._show_keys()

    def _theme_changed(self, _theme: object) -> None:
        self._lines = None
        self._shown = None
        self._show_keys()

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen:
            self._show_keys()

    def show_more(self, more: bool) -> None:
        if more != self.more:
            self.more = more
            self._show_keys()

    def _show_keys(self) -> None:
        keys: list[KeyEntry] = []
        more: list[KeyEntry] = []
        seen: set[str] = set()
        palette = self.app.COMMAND_PALETTE_BINDING
        key_label = getattr(self.screen, "key_label", None)
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if not binding.show or binding.action in seen or binding.key == palette:
                continue
            seen.add(binding.action)
            label = key_label(binding) if key_label is not None else None
            display, description = label or (self.app.get_key_display(binding), binding.description)
            entry = (binding.key, display, description, enabled)
            (more if binding.group == MORE else keys).append(entry)
        if self.app.ENABLE_COMMAND_PALETTE:
            (more if more else keys).append((palette, "^p", "palette", True))
        if more:
            page = more if self.more else keys
            switch = (MORE_KEY, MORE_KEY, "Back" if self.more else "More", True)
            shown = (*page, switch)
        else:
            shown = tuple(keys)
        # Bindings are refreshed after many a key press that changes none of them.
        if shown != self._shown:
            self._shown = shown
            if self._lines is None:
                self._lines = {}
            line = self._lines.get(shown)
            if line is None:
                line = self._lines[shown] = DrawnLine(_key_line(shown))
            # Docked, one line: no layout pass of the screen.
            self.update(line, layout=False)


def _key_line(keys: tuple[KeyEntry, ...]) -> Content:
    """The keys as one line; each enabled one presses its key when clicked. Spans, not
    markup: that would be a click style to parse per key."""
    text: list[str] = []
    spans: list[Span] = []
    at = 0
    for key, display, description, enabled in keys:
        part = f" {display} {description} "
        text.append(part)
        if enabled:
            press = Style.from_meta({"@click": f"app.simulate_key({key!r})"})
            spans.append(Span(at, at + len(part), press))
        else:
            spans.append(Span(at, at + len(part), "dim"))
        spans.append(Span(at + 1, at + 1 + len(display), KEY_STYLE))
        at += len(part)
    return Content("".join(text), spans)


class DrawnLine(Visual):
    """A line of keys, its strips kept for the width and style it was drawn at last.

    Kept for the reveal key's goal (issue 34), with the grade bar's kept drawing and the card
    sides' ``auto_links`` off: each key's click style made the line cost as much as the answer.
    """

    def __init__(self, content: Content) -> None:
        self.content = content
        self._strips: tuple[tuple[int, int | None, Style], list[Strip]] | None = None

    def __str__(self) -> str:
        return str(self.content)

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        if options.selection is not None:  # a selection is drawn as it goes
            return self.content.render_strips(width, height, style, options)
        key = (width, height, style)
        if self._strips is None or self._strips[0] != key:
            self._strips = (key, self.content.render_strips(width, height, style, options))
        # A copy: the list is Textual's to change, the strips in it are not.
        return list(self._strips[1])

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.content.get_optimal_width(rules, container_width)

    def get_minimal_width(self, rules: RulesMap) -> int:
        return self.content.get_minimal_width(rules)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return self.content.get_height(rules, width)
