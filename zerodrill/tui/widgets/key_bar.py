"""The drill's footer: the keys that work right now, redrawn as one line of text.

A screen with more keys than 80 columns hold puts some in the :data:`MORE` group, as Anki's
reviewer puts the card's actions (bury, suspend, flag...) in its More menu: the bar then shows
the others and "m More", and m (or a click on it) switches to the group's keys and back (the
screen binds :data:`MORE_KEY` to :meth:`KeyBar.show_more`). Every key works whichever page is
shown; the page only says which are there.

Textual's ``Footer`` recomposes a widget per key whenever the bindings change, and on the
drill they change with every key press (grade keys appear on reveal, go on the next card):
mounting and styling those widgets would be a large part of every key press. This bar
shows the same bindings (``check_action`` hides and dims them just the same), and a click
on a key presses it, as on the Footer.
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

#: A key's own style; a disabled key's whole entry is dimmed as well.
KEY_STYLE = "bold $footer-key-foreground"

#: The group of keys shown on the bar's second page (see the module's docstring).
MORE = Binding.Group("More")
#: The key that switches pages: Anki's key for its More menu.
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
    #: Whether the keys of the MORE group are shown (on a screen that has some).
    more = False
    #: Each set of keys shown so far, drawn once: the bar goes back and forth between a few.
    _lines: dict[tuple[KeyEntry, ...], DrawnLine] | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self._show_keys()

    def _theme_changed(self, _theme: object) -> None:
        # The keys' colours are the theme's: the lines drawn in the last one are of no use.
        self._lines = None
        self._shown = None
        self._show_keys()

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen:
            self._show_keys()

    def show_more(self, more: bool) -> None:
        """Show the keys of the MORE group (True) or the others (False)."""
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
            # A screen may word a key by its state (the drill's highlighted grade).
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
            # One line, docked: its size never changes, so no layout pass of the screen.
            self.update(line, layout=False)


def _key_line(keys: tuple[KeyEntry, ...]) -> Content:
    """The keys as one line; each enabled one presses its key when clicked.

    Built from spans rather than markup, which every app would parse anew: with a click
    action in each key's style, that is a style to parse per key.
    """
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

    Textual draws a line anew each time it is shown, and its keys carry the click that
    presses them in each character's style: on every reveal and grade the bar changed, and
    its one line cost about as much to draw as the card's answer. Kept for the reveal key,
    with the grade bar's kept drawing and the card sides' ``auto_links`` off (issue 34):
    without the three, the reveal missed its goal of 1.5x the bare app's key in tmux (medians
    of 3 runs, all new: 1.82x on real cards, 1.53x on generated ones), and its CPU a key
    (tests/bench/profile_keys.py --cpu-only, real cards, medians of 4 runs) was 9.9-10.5 ms
    against 8.5-8.6 ms with them.
    """

    def __init__(self, content: Content) -> None:
        #: The line, as the keys and their styles make it.
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
