"""The flag menu (key f): Anki's seven flags by number and colour, for terminals that never
pass Ctrl+1-7 on to a program (tmux, and most without kitty's keyboard protocol).

A digit picks a flag, as Ctrl+digit does in Anki: the card's own flag again, or 0, clears it.
↑↓ and Enter, or a click, pick one too; Esc (or f again) closes the menu, nothing changed.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from zerodrill.srs.card_actions import FLAGS
from zerodrill.tui import flags
from zerodrill.tui.screens.dialog import Dialog


class FlagList(OptionList):
    """The flags, and no flag."""


class FlagMenu(Dialog[int | None]):
    """Dismissed with the flag picked (0: none), or None when closed."""

    CSS_PATH = "screens.tcss"

    BINDINGS = [
        Binding("escape,f,q", "dismiss", "Close", key_display="esc"),
        *(Binding(str(n), f"dismiss({n})", show=False) for n in range(8)),
    ]

    def __init__(self, flag: int) -> None:
        super().__init__()
        #: The card's flag now (0: none).
        self.flag = flag

    def compose(self) -> ComposeResult:
        options = [Option(self._entry(n), id=str(n)) for n in (*FLAGS, 0)]
        with Vertical(id="dialog"):
            yield Label("[b]Flag this card[/b]", classes="dialog-title")
            yield FlagList(*options, id="flags")
            # One line at the menu's width: its own flag again clearing it is the help's.
            yield Label("[dim]1-7 flags it, 0 clears it; Esc closes[/dim]")

    def _entry(self, flag: int) -> Content:
        colour = flags.COLOURS.get(flag)
        glyph = f"{flags.GLYPH} " if colour else "  "
        now = "  (this card's)" if flag and flag == self.flag else ""
        return Content.assemble(
            (f"{flag}  ", "bold"),
            (glyph, colour or ""),
            flags.flag_name(flag),
            (now, "$text-muted"),
        )

    def on_mount(self) -> None:
        # (Dialog's on_mount runs too: Textual calls each class's own.) Each match, not
        # query_one: a quick Esc can close the menu before it is mounted.
        for found in self.query(FlagList).results(FlagList):
            found.highlighted = list(FLAGS).index(self.flag) if self.flag in FLAGS else 0

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id or 0))
