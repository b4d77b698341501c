"""The drill's footer: the keys that work right now, redrawn as one line of text.

Textual's ``Footer`` recomposes a widget per key whenever the bindings change, and on the
drill they change with every key press (grade keys appear on reveal, go on the next card).
That recompose was 15-20 ms of each key press in a real terminal, more than a bare app's
whole key-to-screen time. This bar shows the same bindings (``check_action`` hides and
dims them just the same), and a click on a key presses it, as on the Footer.
"""

from __future__ import annotations

from rich.markup import escape
from textual.screen import Screen
from textual.widgets import Static


class KeyBar(Static):
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-description-foreground;
    }
    """

    _markup = ""

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._show_keys()

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen:
            self._show_keys()

    def _show_keys(self) -> None:
        parts: list[str] = []
        seen: set[str] = set()
        palette = self.app.COMMAND_PALETTE_BINDING
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if not binding.show or binding.action in seen or binding.key == palette:
                continue
            seen.add(binding.action)
            key = escape(self.app.get_key_display(binding))
            text = f"[b $footer-key-foreground]{key}[/] {escape(binding.description)}"
            if enabled:
                parts.append(f"[@click=app.simulate_key('{binding.key}')] {text} [/]")
            else:
                parts.append(f"[dim] {text} [/]")
        if self.app.ENABLE_COMMAND_PALETTE:
            key = "[b $footer-key-foreground]^p[/]"
            parts.append(f"[@click=app.simulate_key('{palette}')] {key} palette [/]")
        markup = "".join(parts)
        # Bindings are refreshed after many a key press that changes none of them.
        if markup != self._markup:
            self._markup = markup
            # One line, docked: its size never changes, so no layout pass of the screen.
            self.update(markup, layout=False)
