"""The drill's footer: the keys that work right now, redrawn as one line of text.

Textual's ``Footer`` recomposes a widget per key whenever the bindings change, and on the
drill they change with every key press (grade keys appear on reveal, go on the next card):
mounting and styling those widgets would be a large part of every key press. This bar
shows the same bindings (``check_action`` hides and dims them just the same), and a click
on a key presses it, as on the Footer.
"""

from __future__ import annotations

from textual.content import Content, Span
from textual.screen import Screen
from textual.style import Style
from textual.widgets import Static

#: A key's own style; a disabled key's whole entry is dimmed as well.
KEY_STYLE = "bold $footer-key-foreground"


class KeyBar(Static):
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-description-foreground;
    }
    """

    _shown: tuple[tuple[str, str, str, bool], ...] | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._show_keys()

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen:
            self._show_keys()

    def _show_keys(self) -> None:
        keys: list[tuple[str, str, str, bool]] = []
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
            keys.append((binding.key, display, description, enabled))
        if self.app.ENABLE_COMMAND_PALETTE:
            keys.append((palette, "^p", "palette", True))
        shown = tuple(keys)
        # Bindings are refreshed after many a key press that changes none of them.
        if shown != self._shown:
            self._shown = shown
            # One line, docked: its size never changes, so no layout pass of the screen.
            self.update(_key_line(shown), layout=False)


def _key_line(keys: tuple[tuple[str, str, str, bool], ...]) -> Content:
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
