"""Short human labels for intervals, durations and moments, as Anki writes them."""

from __future__ import annotations

import math
from datetime import date, datetime


def interval(days: int) -> str:
    """1 → "1d", 45 → "1.5mo", 400 → "1.1y": short enough for a grade button."""
    if days < 30:
        return f"{days}d"
    if days < 365:
        return f"{days / 30:.1f}mo".replace(".0mo", "mo")
    return f"{days / 365:.1f}y".replace(".0y", "y")


def step(seconds: float) -> str:
    """A learning step, as Anki labels its buttons: 60 → "1m", 330 → "6m", 7200 → "2h"."""
    minutes = max(1, math.ceil(seconds / 60))
    return f"{minutes}m" if minutes < 60 else f"{math.ceil(minutes / 60)}h"


def duration(seconds: float) -> str:
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"


def clock(seconds: float) -> str:
    """ "3:59", "12:05": a stopwatch's reading, as the interview's countdown shows it."""
    s = math.ceil(seconds)
    return f"{s // 60}:{s % 60:02d}"


def when(moment: datetime, now: datetime) -> str:
    """ "tomorrow at 04:00 (in 9 h)", "Mon 12 May at 04:00 (in 6 days)"."""
    days = (moment.date() - now.date()).days
    at = moment.strftime("%H:%M")
    if days <= 0:
        day = "today"
    elif days == 1:
        day = "tomorrow"
    else:
        day = f"{moment:%a} {day_month(moment)}"
    hours = (moment - now).total_seconds() / 3600
    if hours < 1:
        rel = f"in {max(1, int(hours * 60))} min"
    elif hours < 36:
        rel = f"in {int(hours)} h"
    else:
        rel = f"in {round(hours / 24)} days"
    return f"{day} at {at} ({rel})"


def day_month(day: date) -> str:
    """ "9 Dec": the day without a leading zero (strftime's %-d does not exist on Windows)."""
    return f"{day.day} {day:%b}"
