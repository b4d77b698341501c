"""The end of an attempt: how it went, the trend, and which cards were brought due."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widget import Widget

from zerodrill.srs.grades import Grade
from zerodrill.srs.interview_run import AttemptResult, AttemptSummary, InterviewRun
from zerodrill.tui import time_labels
from zerodrill.tui.interview.step_screen import SCROLL_KEYS, Body, InterviewScreen
from zerodrill.tui.widgets.key_bar import KeyBar
from zerodrill.words import plural

TREND_SHOWN = 5


class EndScreen(InterviewScreen):
    step_name = "Done"
    BINDINGS = [Binding("q,enter", "app.finish", "Quit", key_display="q"), *SCROLL_KEYS]

    def __init__(self, run: InterviewRun, result: AttemptResult) -> None:
        super().__init__(run)
        self.result = result

    def compose(self) -> ComposeResult:
        yield self.header
        with Body(id="body"):
            # Text, not markup: missed points and questions are the deck's text.
            yield EndSummary(end_text(self.run, self.result), id="end")
        yield KeyBar()


class EndSummary(Widget):
    DEFAULT_CSS = "EndSummary { height: auto; }"

    def __init__(self, table: Table, *, id: str) -> None:
        super().__init__(id=id)
        self.table = table

    def render(self) -> Table:
        return self.table


def end_text(run: InterviewRun, r: AttemptResult) -> Table:
    # Deck text as Text, never markup.
    cards = {card.id: card for card in run.deck.cards}
    grid = Table.grid(padding=(0, 2, 0, 0), expand=True)
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column(ratio=1)
    grid.add_row(Text("Interview done ✔", "bold"), Text())
    grid.add_row()
    missed = [str(n + 1) for n in range(r.points_total) if n not in r.points_covered]
    points = f"{len(r.points_covered)}/{r.points_total} covered"
    grid.add_row("Points", points + (f"; missed {', '.join(missed)}" if missed else ""))
    grid.add_row("Time", _time(r.seconds_used, r.budget_seconds))
    for n, (card_id, grade) in enumerate(r.follow_up_grades.items()):
        card = cards.get(card_id)
        question = " ".join(card.fields["question"].split()) if card is not None else card_id
        line = Text.assemble((f"{grade} {Grade(grade).label:<8} ", "bold"), (question, "dim"))
        line.no_wrap, line.overflow = True, "ellipsis"
        grid.add_row("Follow-ups" if n == 0 else "", line)
    if run.interview.red_flags:
        said = len(r.red_flags_said)
        flags = f"{said} of {len(run.interview.red_flags)} said"
        grid.add_row("Red flags", flags + (": each is a lapse of its card" if said else ""))
    grid.add_row("Trend", _trend(r))
    if r.missed_cards:
        due = Text(f"{plural(len(r.missed_cards), 'card')} of the missed points, due in the ")
        due.append("drill today: ")
        due.append(", ".join(r.missed_cards), "dim")
    else:
        due = Text("nothing: every point was covered")
    grid.add_row("Brought due", due)
    return grid


def _time(seconds: float, budget: int) -> str:
    # On the countdown's own scale (m:ss), so the end reads as the clock did.
    used = f"{time_labels.clock(seconds)} of {time_labels.clock(budget)}"
    over = seconds - budget
    return f"{used} (+{time_labels.clock(over)} over)" if over > 0 else used


def _trend(r: AttemptResult) -> str:
    earlier = [s for s in r.trend if s.finished][-TREND_SHOWN:]
    now = f"{len(r.points_covered)}/{r.points_total} now"
    if not earlier:
        return f"first attempt: {now}"
    steps = [_summary(s) for s in earlier]
    return " → ".join([*steps, now])


def _summary(s: AttemptSummary) -> str:
    return f"{s.points_covered}/{s.points_total} {time_labels.day_month(s.day)}"
