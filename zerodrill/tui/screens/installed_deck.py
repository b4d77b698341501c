"""Key e on a card of an installed deck: an edit there is lost at the next install, so offer
to copy the deck to the learner's deck folder and edit the copy (see deck/user_copy.py)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Footer, Label, Static

from zerodrill.deck.control_chars import shown
from zerodrill.tui.screens.dialog import Dialog


class EditChoice(StrEnum):
    COPY = "copy"
    EDIT_COPY = "edit-copy"
    REPLACE = "replace"


class InstalledDeckScreen(Dialog[EditChoice | None]):
    CSS_PATH = "screens.tcss"

    BINDINGS = [
        Binding("y,enter", "choose('copy')", "Copy and edit", key_display="y"),
        Binding("e,enter", "choose('edit-copy')", "Edit my copy", key_display="e"),
        Binding("r", "choose('replace')", "Replace my copy", key_display="r"),
        Binding("escape,n,q", "dismiss", "Cancel", key_display="esc"),
    ]

    def __init__(self, installed: Path, copy: Path, *, copy_exists: bool) -> None:
        super().__init__()
        self.installed = installed
        self.copy = copy
        self.copy_exists = copy_exists

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action != "choose":
            return True
        offered = (
            (EditChoice.EDIT_COPY, EditChoice.REPLACE) if self.copy_exists else (EditChoice.COPY,)
        )
        return parameters[0] in offered

    def compose(self) -> ComposeResult:
        # Paths as text, never markup: a folder's name may hold any character.
        installed, copy = shown(str(self.installed)), shown(str(self.copy))
        if self.copy_exists:
            body = Text.assemble(
                "An edit to it would be lost when zerodrill is installed again. Your deck "
                "folder has a copy of this deck already, which this sitting is not reading:\n",
                (copy, "bold"),
                "\n\ne edits that copy, and this sitting reads it from now on; r replaces it "
                "with the installed deck (your changes in it are lost), then edits it.",
            )
        else:
            body = Text.assemble(
                "An edit to it would be lost when zerodrill is installed again.\n\n"
                "Copy the deck to your deck folder and edit the copy? This sitting, and every "
                "later one (and every command given no path), reads the copy in its place:\n",
                (copy, "bold"),
            )
        with Vertical(id="dialog"):
            yield Label(
                "[b]This card's deck is the one installed with zerodrill[/b]",
                classes="dialog-title",
            )
            yield Static(Text(installed, style="dim"), classes="section")
            yield Static(body, id="offer")
        yield Footer()

    def action_choose(self, choice: str) -> None:
        self.dismiss(EditChoice(choice))
