"""Review figures per deck, as ``zerodrill stats`` shows them, counted in SQL over the log and
what the replay made of each grade."""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta

from msgspec import Struct

from zerodrill.srs.store.rows import IN_EFFECT


class ReviewCounts(Struct, frozen=True):
    """Review figures for one deck (reviews in effect: undone ones are left out)."""

    reviews: int = 0
    reviews_today: int = 0
    #: Scheduled reviews of known cards in the window (no first sights, no repeats) ...
    recall_graded: int = 0
    #: ... and how many of them got 3 or more.
    recall_passed: int = 0


def review_counts(conn: sqlite3.Connection, day: date, window_days: int) -> dict[str, ReviewCounts]:
    """Per deck id (the part of a key before '/'): the figures as of study day ``day``."""
    since = (day - timedelta(days=window_days)).isoformat()
    # A grade in effect with no effect row is a recall (see zerodrill.srs.store.derive).
    recall = "f.effect IS NULL AND e.day > :since AND e.day <= :day"
    rows = conn.execute(
        f"""
        SELECT substr(e.key, 1, instr(e.key, '/') - 1),
               count(*),
               coalesce(sum(e.day = :day), 0),
               coalesce(sum({recall}), 0),
               coalesce(sum({recall} AND e.grade >= 3), 0)
        FROM event e LEFT JOIN effect f ON f.id = e.id WHERE {IN_EFFECT}
        GROUP BY 1
        """,
        {"day": day.isoformat(), "since": since},
    )
    return {deck: ReviewCounts(*figures) for deck, *figures in rows}
