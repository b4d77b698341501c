"""Study days: the local calendar, with a rollover hour so a late session counts for its day."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from functools import lru_cache

#: Anki's default: a review at 1 am belongs to the day before.
DEFAULT_ROLLOVER_HOUR = 4


@lru_cache(maxsize=1 << 16)
def whole_days(count: int) -> timedelta:
    """``timedelta(days=count)``, made once for each count: a replay adds an interval to a
    day for every grade, and making the timedelta cost twice the addition (issue 35 point 7:
    bench_anki_sync.py's 20,000 grades)."""
    return timedelta(days=count)


def local_now() -> datetime:
    """Now, as an aware datetime in the local time zone (the store keeps the offset)."""
    return datetime.now().astimezone()


def study_day(now: datetime, rollover_hour: int = DEFAULT_ROLLOVER_HOUR) -> date:
    """The study day ``now`` belongs to, on the local calendar.

    An aware ``now`` is first converted to local time; a naive one is taken as local already.
    """
    if not 0 <= rollover_hour <= 23:
        raise ValueError(f"rollover hour must be 0-23, not {rollover_hour}")
    local = now.astimezone() if now.tzinfo is not None else now
    # Wall-clock arithmetic on purpose: the day turns at 4:00 on the clock, even on DST days.
    return (local.replace(tzinfo=None) - timedelta(hours=rollover_hour)).date()
