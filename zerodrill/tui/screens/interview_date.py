"""Ask for the interview date (the palette's "Interview date"): the days before it are planned
for (:mod:`zerodrill.srs.interview_plan`)."""

from __future__ import annotations

from datetime import date

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Footer, Input, Label, Static

from zerodrill.srs.interview_plan import InterviewChoice, day_text, parse_interview
from zerodrill.tui.screens.dialog import Dialog


class InterviewDateScreen(Dialog[InterviewChoice | None]):
    """Enter sets the date typed (nothing, or 'none', clears it); Esc leaves it as it was."""

    CSS_PATH = "screens.tcss"

    BINDINGS = [Binding("escape", "dismiss", "Cancel", key_display="esc")]

    def __init__(self, current: date | None, today: date) -> None:
        super().__init__()
        self.current = current
        self.today = today

    def compose(self) -> ComposeResult:
        now = f"now {day_text(self.current)}" if self.current is not None else "none now"
        with Vertical(id="dialog"):
            yield Label("[b]Interview date[/b]", classes="dialog-title")
            yield Static(
                "Until then: enough new cards a day to see every card twice before it, and "
                f"every card back by the day before. ({now})"
            )
            yield Input(
                self.current.isoformat() if self.current is not None else "",
                placeholder="YYYY-MM-DD",
                id="interview-date",
            )
            yield Label("", id="interview-problem")
            yield Label("[dim]Enter sets it (empty: no date), Esc keeps it as it is[/dim]")
        yield Footer()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        try:
            day = parse_interview(event.value, self.today)
        except ValueError as exc:
            # Said where the date is typed; the dialog stays for another try.
            self.query_one("#interview-problem", Label).update(f"[b]{exc}[/b]")
            return
        self.dismiss(InterviewChoice(day))
