"""Every key, what the six grades mean (and what the scheduler in use makes of them), and
Anki's four buttons as grades."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Label, Static

from zerodrill.srs.grades import FOUR_BUTTONS, SIX_BUTTONS, Button, Grade, nearest_button
from zerodrill.srs.schedulers import DEFAULT_SCHEDULER, scheduler_class, title_of
from zerodrill.tui.screens.dialog import Dialog
from zerodrill.tui.widgets.cued_scroll import CuedScroll

KEYS = """\
[b]Space[/b]/[b]Enter[/b] show the answer (and check what you typed); then
            give the highlighted grade: the suggestion, else {usual}
[b]0-5[/b]         grade the card ([b]1-4[/b] with four buttons; [b]b[/b] switches)
[b]u[/b]           undo the last grade or card action: that card comes back
[b]-[/b]           bury the card until tomorrow
[b]@[/b]           suspend it; [b]Ctrl+P[/b] Unsuspend brings suspended cards back
[b]*[/b]           mark it (★ on the card's header)
[b]f[/b]           flag it: Anki's 7 colours, from a menu (or [b]Ctrl+1[/b]-[b]7[/b]
            where the terminal sends them); its flag again: none
[b]o[/b]           unfold the answer's sources, one a line (again: fold)
[b]e[/b]           edit the card's YAML in $VISUAL or $EDITOR
[b]m[/b]           the key bar's other keys (Anki's More); [b]Esc[/b] goes back
[b]a[/b], [b]Tab[/b]      type your answer first ([b]Ctrl+J[/b] new line); [b]Esc[/b] stops
[b]j[/b]/[b]k[/b], [b]End[/b]    scroll a long card (also ↑/↓, PgUp/PgDn, Home)
[b]d[/b]           choose a deck     [b]s[/b] statistics
[b]?[/b]           this help         [b]q[/b], [b]Ctrl+C[/b] quit (grades are saved)
[b]Ctrl+P[/b]      commands (theme, buttons, scheduler, unsuspend, flags)"""

_SIX = [f"[b]{int(g)}[/b] {g.label:<9} {g.description}" for g in reversed(Grade)]
_ANKI = "Anki's four: " + "   ".join(
    f"[b]{b.key}[/b] {b.name} → {int(b.grade)}" for b in FOUR_BUTTONS
)


def grades_text(scheduler: str) -> str:
    """The six grades, what scheduler ``scheduler`` makes of them (its module says), and
    Anki's four buttons as grades."""
    return "\n".join([*_SIX, scheduler_class(scheduler).grades_help, _ANKI])


def keys_text(buttons: tuple[Button, ...]) -> str:
    """The keys section for the layout in use: Enter's grade is named as its button is."""
    usual = nearest_button(buttons, Grade.GOOD)
    return KEYS.format(usual=f"{usual.key} {usual.name}")


class HelpScreen(Dialog[None]):
    CSS_PATH = "screens.tcss"

    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close", key_display="esc")]

    def __init__(
        self, scheduler: str = DEFAULT_SCHEDULER, buttons: tuple[Button, ...] = SIX_BUTTONS
    ) -> None:
        super().__init__()
        #: The scheduler in use: its grades are explained.
        self.scheduler = scheduler
        #: The grade layout in use: Enter's grade is named by its button.
        self.buttons = buttons

    def compose(self) -> ComposeResult:
        with CuedScroll(id="dialog"):
            yield Label("[b]Keys[/b]", classes="dialog-title")
            yield Static(keys_text(self.buttons), classes="section")
            title = title_of(self.scheduler)
            yield Label(f"[b]Grades ({title})[/b]", classes="dialog-title")
            yield Static(grades_text(self.scheduler), classes="section", id="grades")
        yield Footer()
