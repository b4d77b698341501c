"""Stats: the forecast, retention and totals, over the whole review history."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Footer, Label, Static

from zerodrill.srs.interview_plan import plan_text
from zerodrill.srs.recall import Recall
from zerodrill.srs.review_stats import FORECAST_DAYS, RETENTION_DAYS, Stats
from zerodrill.tui.screens.dialog import Dialog
from zerodrill.tui.widgets.forecast_chart import ForecastChart


class StatsScreen(Dialog[None]):
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
            f"[b]–[/b] retention (no reviews of known cards in {RETENTION_DAYS} days)"
            if s.retention is None
            else f"[b]{s.retention:.0%}[/b] retention "
            f"({s.retention_reviews} reviews, {RETENTION_DAYS} days)"
        )
        with Vertical(id="dialog"):
            yield Label("[b]Statistics[/b]", classes="dialog-title")
            again = f" ({s.again} again)" if s.again else ""
            yield Static(
                f"[b]{s.due_today}[/b] due today{again}   [b]{s.due_tomorrow}[/b] tomorrow   "
                f"{retention}\n"
                f"[b]{s.cards}[/b] cards: {s.known} studied, {s.new} new   "
                f"[b]{s.reviews}[/b] {'review' if s.reviews == 1 else 'reviews'} "
                f"({s.reviews_today} today){recall_text(s.recall)}"
                + (
                    f"\n{s.suspended} suspended, {s.buried} buried today"
                    if s.suspended or s.buried
                    else ""
                ),
                id="totals",
            )
            if s.interview is not None:
                yield Static(plan_text(s.interview, s.today, s.plan), id="plan", markup=False)
            if any(s.forecast):
                yield Label(f"Due in the next {FORECAST_DAYS} days", classes="chart-title")
                yield ForecastChart(s.forecast, s.today, id="forecast")
            else:
                # No chart: an axis topped by "1" over no bars reads as a broken chart.
                yield Label(f"Nothing due in the next {FORECAST_DAYS} days", classes="chart-title")
        yield Footer()


def recall_text(recall: Recall | None) -> str:
    """The dialog's line for a scheduler that forecasts recall: the average chance of recall
    now (nothing for one that forecasts none)."""
    if recall is None:
        return ""
    if recall.average is None:
        return f"\n{recall.by}: no studied cards to forecast"
    return (
        f"\n[b]{recall.average:.0%}[/b] average recall now ({recall.by}; {recall.below} of "
        f"{recall.cards} below the desired {recall.desired:.0%})"
    )
