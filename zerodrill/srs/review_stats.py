"""Review statistics for some decks, computed from the store: no I/O of its own, no clock."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

from msgspec import Struct

from zerodrill.deck.model import Deck
from zerodrill.srs.interview_log import InterviewStats, interview_stats
from zerodrill.srs.interview_plan import Plan, plan_for, plan_text, queue_apart
from zerodrill.srs.queue import DEFAULT_NEW_LIMIT, build_queue, items_of
from zerodrill.srs.recall import Recall, recall_of
from zerodrill.srs.schedulers import DEFAULT_SCHEDULER
from zerodrill.srs.store import ReviewCounts, Store
from zerodrill.words import plural

FORECAST_DAYS = 30
RETENTION_DAYS = 30


class Stats(Struct, frozen=True):
    """Figures for the active cards of some decks, as of study day ``today``.

    Cards are study items: each cloze deletion counts as one. Review figures cover every key of
    the decks (retired cards and ones since deleted from a deck file included), since the log
    keeps them all.
    """

    today: date
    cards: int
    known: int
    new: int
    #: Cards the drill shows today: reviews due (overdue ones included) and the cards graded
    #: below 4 today that come back ("again"), as the drill's header and deck picker count.
    due_today: int
    #: Of ``due_today``, the cards graded below 4 today that come back today.
    again: int
    due_tomorrow: int
    #: Grades and same-day repeats in effect (undone ones left out).
    reviews: int
    reviews_today: int
    #: Share of scheduled reviews of known cards graded 3 or more in the last 30 days (first
    #: sights and same-day repeats left out); None when there were none.
    retention: float | None
    #: How many reviews the retention is over.
    retention_reviews: int
    #: Cards due on each of the next 30 days, today first (``due_today``: overdue ones, and ones
    #: an interview brought forward). A due cloze deletion waiting because its card has another
    #: deletion today is counted tomorrow.
    forecast: tuple[int, ...]
    #: Each interview of the decks, with its attempts.
    interviews: tuple[InterviewStats, ...] = ()
    #: The scheduler in use, by name.
    scheduler: str = DEFAULT_SCHEDULER
    #: FSRS's retrievability of the studied cards; None under SM-2, which forecasts none.
    recall: Recall | None = None
    #: Cards suspended (out of the drill until unsuspended), and buried today (back tomorrow):
    #: neither is in ``due_today`` nor in the forecast's first day, and a suspended card is
    #: in no day of it.
    suspended: int = 0
    buried: int = 0
    #: The interview date planned for, if one is set (past ones too).
    interview: date | None = None
    #: The plan for it on ``today``; None without a date, or from the interview day on.
    plan: Plan | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "today": self.today.isoformat(),
            "cards": self.cards,
            "known": self.known,
            "new": self.new,
            "due_today": self.due_today,
            "again": self.again,
            "due_tomorrow": self.due_tomorrow,
            "reviews": self.reviews,
            "reviews_today": self.reviews_today,
            "retention": self.retention,
            "retention_reviews": self.retention_reviews,
            "forecast": list(self.forecast),
            "interviews": [figures.as_json() for figures in self.interviews],
            "scheduler": self.scheduler,
            "recall": self.recall.as_json() if self.recall is not None else None,
            "suspended": self.suspended,
            "buried": self.buried,
            "interview": self.interview.isoformat() if self.interview is not None else None,
            "plan": self.plan.as_json() if self.plan is not None else None,
        }


def compute_stats(
    decks: Sequence[Deck],
    store: Store | None,
    today: date,
    *,
    at: datetime | None = None,
    interview: date | None = None,
    new_limit: int = DEFAULT_NEW_LIMIT,
) -> Stats:
    """Stats for ``decks``; ``store`` None means nothing was ever reviewed. ``at``, the
    moment, is what FSRS's recall forecast is for (none without it, or under SM-2). With an
    ``interview`` date (the store's scheduler capped for it), the plan for it, at no fewer
    new cards a day than ``new_limit``."""
    keys = {item.key: item for item in items_of(decks)}
    forecast = [0] * FORECAST_DAYS
    known = again = 0
    totals = ReviewCounts()
    suspended = buried = 0
    recall = None
    plan = None
    if store is not None and at is not None:
        recall = recall_of(store.scheduler, store.schedule.states(keys).values(), at)
    if store is not None:
        marks = store.actions.marks()
        suspended = sum(1 for k, m in marks.items() if k in keys and m.suspended)
        buried = sum(
            1 for k, m in marks.items() if k in keys and not m.suspended and m.hidden_on(today)
        )
        # Today's figure is the drill's queue: one deletion of a cloze card a day, and the
        # cards failed today that come back; suspended and buried cards are not in it.
        shown = {k: i for k, i in keys.items() if not (k in marks and marks[k].hidden_on(today))}
        if interview is not None:
            plan = plan_for(keys, store, today, interview, new_limit=new_limit, marks=marks)
        queue = build_queue(shown, store, today, new_limit=0, apart=queue_apart(plan))
        shown_today = set(queue.review_keys)
        again = len(queue.repeats)
        forecast[0] = len(shown_today) + again
        horizon = today + timedelta(days=FORECAST_DAYS - 1)
        schedule = store.schedule.due_dates()
        for key, due in schedule.items():
            if key in keys:
                known += 1
                if key in marks and marks[key].suspended:
                    continue  # due on no day until unsuspended
                if due <= today:
                    if key not in shown_today:
                        forecast[1] += 1
                elif due <= horizon and key not in shown_today:
                    forecast[(due - today).days] += 1
        per_deck = store.schedule.review_counts(today, window_days=RETENTION_DAYS)
        for deck_id in {deck.id for deck in decks}:
            counts = per_deck.get(deck_id)
            if counts is not None:
                totals = ReviewCounts(
                    totals.reviews + counts.reviews,
                    totals.reviews_today + counts.reviews_today,
                    totals.recall_graded + counts.recall_graded,
                    totals.recall_passed + counts.recall_passed,
                )
    retention = totals.recall_passed / totals.recall_graded if totals.recall_graded else None
    return Stats(
        today=today,
        cards=len(keys),
        known=known,
        new=len(keys) - known,
        due_today=forecast[0],
        again=again,
        due_tomorrow=forecast[1],
        reviews=totals.reviews,
        reviews_today=totals.reviews_today,
        retention=retention,
        retention_reviews=totals.recall_graded,
        forecast=tuple(forecast),
        interviews=interview_stats(decks, store, today),
        scheduler=store.scheduler.name if store is not None else DEFAULT_SCHEDULER,
        recall=recall,
        suspended=suspended,
        buried=buried,
        interview=interview,
        plan=plan,
    )


#: Eighth blocks, empty to full: a bar's height in eighths of a row indexes this.
BLOCKS = " ▁▂▃▄▅▆▇█"


def bar_eighths(count: int, peak: int, rows: int) -> int:
    """How many eighths of a row ``count`` fills in a chart ``rows`` high topped by ``peak``.

    Rounded up, so a day with any card due shows at least a sliver beside a tall peak.
    """
    return -(-count * rows * 8 // peak) if peak else 0


def bars(counts: Sequence[int], rows: int) -> list[str]:
    """The bars of a chart ``rows`` high, top row first: one block character per count, the
    largest count filling its column. The stats command and the drill's stats screen both
    draw these."""
    peak = max(counts, default=0)
    heights = [bar_eighths(count, peak, rows) for count in counts]
    return [
        "".join(BLOCKS[max(0, min(8, eighths - (row - 1) * 8))] for eighths in heights)
        for row in range(rows, 0, -1)
    ]


def forecast_chart(forecast: Sequence[int], *, height: int = 4) -> list[str]:
    """A bar chart, one column per day, ``height`` rows of eighth blocks, with a y label."""
    peak = max(forecast, default=0)
    label_width = len(str(peak))
    rows = []
    for row, line in zip(range(height, 0, -1), bars(forecast, height), strict=True):
        label = str(peak) if row == height else ""
        rows.append(f"{label:>{label_width}} │{line.rstrip()}")
    axis = "└" + "─" * len(forecast)
    span = len(forecast) - 1
    rows.append(" " * label_width + " " + axis)
    rows.append(
        " " * label_width + "  " + "today".ljust(len(forecast) - len(f"+{span}d")) + f"+{span}d"
    )
    return rows


def render_text(stats: Stats) -> str:
    # Every figure ends in the same column, the retention's percent sign too.
    retention = (
        f"{stats.retention:>6.0%}  ({plural(stats.retention_reviews, 'review')}, "
        f"last {RETENTION_DAYS} days)"
        if stats.retention is not None
        else f"{'–':>6}  (no reviews of known cards in the last {RETENTION_DAYS} days)"
    )
    again = f"  (again {stats.again})" if stats.again else ""
    lines = [
        f"cards         {stats.cards:>6}  (known {stats.known}, new {stats.new})",
        f"due today     {stats.due_today:>6}{again}",
        f"due tomorrow  {stats.due_tomorrow:>6}",
        f"reviews       {stats.reviews:>6}  (today {stats.reviews_today})",
        *(
            [
                f"put aside     {stats.suspended + stats.buried:>6}  (suspended {stats.suspended}, "
                f"buried today {stats.buried}; zerodrill unsuspend lists them)"
            ]
            if stats.suspended or stats.buried
            else []
        ),
        f"retention     {retention}",
        *recall_lines(stats.recall),
        "",
    ]
    if stats.interview is not None:
        # The learner's first question before an interview: first after the figures.
        lines.extend(textwrap.wrap(plan_text(stats.interview, stats.today, stats.plan), 79))
        lines.append("")
    if any(stats.forecast):
        lines.append(f"due in the next {FORECAST_DAYS} days (cards per day):")
        lines.extend(forecast_chart(stats.forecast))
    else:
        lines.append(f"nothing due in the next {FORECAST_DAYS} days")
    if stats.interviews:
        lines.append("")
        lines.extend(interview_lines(stats.interviews))
    return "\n".join(lines)


def recall_lines(recall: Recall | None) -> list[str]:
    """The line of the stats for a scheduler that forecasts recall: the studied cards' average
    chance of recall now, and how many have fallen below the desired retention."""
    if recall is None:
        return []
    if recall.average is None:
        return [f"recall now    {'–':>6}  ({recall.by}; no studied cards)"]
    return [
        f"recall now    {recall.average:>6.0%}  ({recall.by}, average of "
        f"{plural(recall.cards, 'card')}; "
        f"{recall.below} below the desired {recall.desired:.0%})"
    ]


#: The most attempts a trend line shows (the latest ones).
TREND_SHOWN = 12


def interview_lines(interviews: Sequence[InterviewStats]) -> list[str]:
    """A table of the interviews: attempts, last taken, points covered then, and the trend of
    the share of points covered, one eighth-block bar per attempt, oldest first."""
    names = [f"{figures.deck}/{figures.id}" for figures in interviews]
    width = max(len("interview"), *(len(name) for name in names))
    lines = [f"{'interview':<{width}}  attempts  last taken  points  trend"]
    for name, figures in zip(names, interviews, strict=True):
        last = figures.last
        taken = last.day.isoformat() if last is not None else "never"
        points = f"{last.points_covered}/{last.points_total}" if last is not None else "–"
        shares = [s.share or 0.0 for s in figures.trend[-TREND_SHOWN:]]
        trend = "".join(BLOCKS[max(1, round(share * 8))] for share in shares)
        abandoned = f"  ({figures.abandoned} left unfinished)" if figures.abandoned else ""
        row = f"{name:<{width}}  {figures.attempts:>8}  {taken:<10}  {points:<6}  {trend}"
        lines.append(f"{row}{abandoned}".rstrip())
    return lines
