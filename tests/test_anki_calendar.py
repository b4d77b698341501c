"""The study day of an answer read from Anki (``Calendar.when``): the wall clock of the
collection's UTC offset, the day turning at its rollover hour, to the millisecond."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from zerodrill.srs.anki_import import Calendar


def _wall_clock_day(rid: int, zone: timezone, rollover: int) -> date:
    at = datetime.fromtimestamp(rid / 1000, tz=zone)
    return (at.replace(tzinfo=None) - timedelta(hours=rollover)).date()


@pytest.mark.parametrize("west", [-840, -570, -60, 0, 210, 300, 720])
@pytest.mark.parametrize("rollover", [0, 4, 23])
def test_the_day_turns_at_the_rollover_hour_of_the_collections_offset(
    west: int, rollover: int
) -> None:
    zone = timezone(timedelta(minutes=-west))
    calendar = Calendar(rollover, zone, 0)
    turn = datetime(2026, 3, 10, rollover, tzinfo=zone)
    ms = int(turn.timestamp() * 1000)
    # The last millisecond of one study day, and the first of the next.
    assert calendar.when(ms - 1) == (
        datetime.fromtimestamp((ms - 1) / 1000, tz=zone),
        date(2026, 3, 9),
    )
    assert calendar.when(ms) == (turn, date(2026, 3, 10))
    rng = random.Random(west * 100 + rollover)
    for rid in (rng.randrange(1, 4_000_000_000_000) for _ in range(500)):
        found = calendar.when(rid)
        assert found is not None
        assert found[0] == datetime.fromtimestamp(rid / 1000, tz=zone)
        assert found[1] == _wall_clock_day(rid, zone, rollover)


def test_a_time_no_calendar_holds_is_none() -> None:
    calendar = Calendar(4, timezone(timedelta(hours=14)), 0)
    assert calendar.when(10**18) is None
    assert calendar.when(int(datetime(2026, 1, 1, tzinfo=UTC).timestamp() * 1000)) is not None
