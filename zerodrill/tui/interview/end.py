"""The end of an attempt: points covered, time against the budget, follow-up grades, red flags,
the trend over earlier attempts, and which cards were brought due in the drill."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from zerodrill.srs.interview import AttemptResult, AttemptSummary, InterviewRun
from zerodrill.srs.sm2 import Grade
from zerodrill.tui import time_labels
from zerodrill.tui.interview.base import InterviewScreen
from zerodrill.tui.widgets.key_bar import KeyBar
from zerodrill.words import plural

#: Earlier attempts shown in the trend, the latest ones.
TREND_SHOWN = 5
#: Characters of a follow-up's question or a missed point shown on the end screen.
SHORT = 60


class EndScreen(InterviewScreen):
    step_name = "Done"
    BINDINGS = [Binding("q,enter", "app.finish", "Quit", key_display="q")]

    def __init__(self, run: InterviewRun, result: AttemptResult) -> None:
        super().__init__(run)
        self.result = result

    def compose(self) -> ComposeResult:
        yield self.header
        with VerticalScroll(id="body"):
            # Text, not markup: missed points and questions are the deck's text.
            yield Static(end_text(self.run, self.result), id="end")
        yield KeyBar()


def end_text(run: InterviewRun, r: AttemptResult) -> Text:
    points = run.interview.points
    cards = {card.id: card for card in run.deck.cards}
    out = Text()

    def head(label: str) -> None:
        out.append(f"{label:<14}", "bold")

    out.append("Interview done ✔\n\n", "bold")
    head("Points")
    out.append(f"{len(r.points_covered)}/{r.points_total} covered\n")
    for n, point in enumerate(points):
        if n not in r.points_covered:
            out.append(f"{'':<14}missed {n + 1}. {_short(point.text)}\n", "dim")
    head("Time")
    out.append(_time(r.seconds_used, r.budget_seconds) + "\n")
    if r.follow_up_grades:
        head("Follow-ups")
        first = True
        for card_id, grade in r.follow_up_grades.items():
            card = cards.get(card_id)
            question = _short(card.fields["question"]) if card is not None else card_id
            indent = "" if first else " " * 14
            first = False
            out.append(f"{indent}{grade} {Grade(grade).label:<8} ")
            out.append(question + "\n", "dim")
    if run.interview.red_flags:
        head("Red flags")
        said = len(r.red_flags_said)
        out.append(
            f"{said} of {len(run.interview.red_flags)} said"
            + (" (each is a lapse of its card)" if said else "")
            + "\n"
        )
    head("Trend")
    out.append(_trend(r) + "\n")
    head("Brought due")
    if r.missed_cards:
        out.append(
            f"{plural(len(r.missed_cards), 'card')} of the missed points, due in the drill "
            "today: "
        )
        out.append(", ".join(r.missed_cards) + "\n", "dim")
    else:
        out.append("nothing: every point covered\n")
    return out


def _time(seconds: float, budget: int) -> str:
    used = f"{time_labels.duration(seconds)} of {time_labels.duration(budget)}"
    over = seconds - budget
    return f"{used} ({time_labels.duration(over)} over)" if over >= 1 else used


def _trend(r: AttemptResult) -> str:
    earlier = [s for s in r.trend if s.finished][-TREND_SHOWN:]
    now = f"{len(r.points_covered)}/{r.points_total} now"
    if not earlier:
        return f"first attempt: {now}"
    steps = [_summary(s) for s in earlier]
    return " → ".join([*steps, now])


def _summary(s: AttemptSummary) -> str:
    return f"{s.points_covered}/{s.points_total} {time_labels.day_month(s.day)}"


def _short(markdown: str) -> str:
    line = " ".join(markdown.split())
    return line if len(line) <= SHORT else line[: SHORT - 1] + "…"
