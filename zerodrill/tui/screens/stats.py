"""Stats: the 30-day forecast, retention and totals, over the whole review history."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, Static

from zerodrill.srs.stats import Stats
from zerodrill.tui.widgets.forecast_chart import ForecastChart


class StatsScreen(ModalScreen[None]):
    CSS_PATH = "screens.tcss"

    BINDINGS = [
        Binding("escape,s,q", "dismiss", "Close", key_display="esc"),
    ]

    def __init__(self, stats: Stats) -> None:
        super().__init__()
        self.stats = stats

    def compose(self) -> ComposeResult:
        s = self.stats
        retention = (
            "[b]–[/b] retention (no reviews in 30 days)"
            if s.retention is None
            else f"[b]{s.retention:.0%}[/b] retention ({s.retention_reviews} reviews, 30 days)"
        )
        with Vertical(id="dialog"):
            yield Label("[b]Statistics[/b]", classes="dialog-title")
            yield Static(
                f"[b]{s.due_today}[/b] due today   [b]{s.due_tomorrow}[/b] tomorrow   "
                f"{retention}\n"
                f"[b]{s.cards}[/b] cards: {s.known} studied, {s.new} new   "
                f"[b]{s.reviews}[/b] {'review' if s.reviews == 1 else 'reviews'} "
                f"({s.reviews_today} today)",
                id="totals",
            )
            yield Label("Due in the next 30 days", classes="chart-title")
            yield ForecastChart(s.forecast, s.today, id="forecast")
        yield Footer()
