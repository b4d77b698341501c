"""The plan for the days before an interview date: how many new cards a day, so that every
card is met at least twice before the day.

**The days.** The interview is on study day T. The study days left are today up to T - 1, the
last one (L): every card graded before L comes back on L at the latest
(:mod:`zerodrill.srs.schedulers.interview_cap`), and never the day it was graded. So a card
first seen by T - 2 is met again, on a later day, by L: twice before the interview. New cards
are planned over the days from today to T - 2.

**New cards a day.** The cards never seen at the start of today (suspended ones left out),
shared evenly over those days, rounded up, and never fewer than the drill's ``--new``. They
come in study order (foundations first: :mod:`zerodrill.deck.study_order`). The figure is
worked out afresh each study day from what is left, so a day skipped raises the next days'
share, and a day's figure does not move while its cards are seen. On L, too late for two looks,
every card still unseen comes once. From T on there is no plan: the drill's ``--new`` as ever.

**A cloze card's deletions share a day.** They wait a day for each other in the usual queue
(:mod:`zerodrill.srs.queue`): a card of four deletions would then need a week and a half to be
met twice, and the plan could not hold. While a plan is in force they do not wait, and cards
the deck says teach the same thing are only introduced on different days, until the last day
new cards are planned for, when nothing waits (:func:`queue_apart`).

No clock and no I/O: the store and the day are given.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from zerodrill.srs.card_actions import NO_MARKS, CardMarks
from zerodrill.srs.queue import Apart
from zerodrill.words import plural

if TYPE_CHECKING:
    from zerodrill.srs.store import Store


class Plan(Struct, frozen=True):
    """The plan on study day :attr:`today` for the interview on :attr:`interview`."""

    interview: date
    today: date
    #: Cards never seen at the start of today (suspended ones left out).
    unseen: int
    #: New cards today, the drill's daily limit: enough, and never fewer than ``--new``.
    new_per_day: int

    @property
    def days_left(self) -> int:
        """Study days before the interview, today included."""
        return (self.interview - self.today).days

    @property
    def new_days(self) -> int:
        """The days new cards are planned over: today up to the day before the last (none on
        the last day itself)."""
        return max(0, self.days_left - 1)

    @property
    def new_by_day(self) -> tuple[int, ...]:
        """New cards on each study day left at this pace, today first, the last day's last."""
        left, counts = self.unseen, []
        for n in range(self.days_left):
            count = left if n >= self.new_days else min(left, self.new_per_day)
            counts.append(count)
            left -= count
        return tuple(counts)

    @property
    def seen_by(self) -> date | None:
        """The day the last unseen card is first seen at this pace; None if none is left."""
        days = [n for n, count in enumerate(self.new_by_day) if count]
        return self.today + timedelta(days=days[-1]) if days else None

    @property
    def once(self) -> int:
        """Cards met only once before the interview: the ones first seen on the last day."""
        return self.new_by_day[-1] if self.new_days < self.days_left else 0

    @property
    def holds(self) -> bool:
        """Every card is met at least twice before the interview."""
        return not self.once

    def as_json(self) -> dict[str, Any]:
        seen_by = self.seen_by
        return {
            "interview": self.interview.isoformat(),
            "days_left": self.days_left,
            "unseen": self.unseen,
            "new_per_day": self.new_per_day,
            "new_by_day": list(self.new_by_day),
            "seen_by": seen_by.isoformat() if seen_by is not None else None,
            "once": self.once,
            "holds": self.holds,
        }


def plan_for(
    keys: Iterable[str],
    store: Store,
    today: date,
    interview: date,
    *,
    new_limit: int,
    marks: Mapping[str, CardMarks] | None = None,
) -> Plan | None:
    """The plan on ``today`` for the study items ``keys``, as ``store`` has them; None from
    the interview day on. Cards suspended in ``marks`` are left out."""
    if today >= interview:
        return None
    marks = marks or {}
    with store.snapshot():
        schedule = store.schedule.due_dates()
        introduced = {r.key for r in store.log.reviews_on(today) if r.introduced}
    # Unseen at the start of today: the figure stays the same while today's cards are seen.
    unseen = sum(
        1
        for key in keys
        if (key not in schedule or key in introduced) and not marks.get(key, NO_MARKS).suspended
    )
    days = (interview - today).days - 1  # today up to T - 2
    share = -(-unseen // days) if days > 0 else unseen
    return Plan(interview, today, unseen, max(new_limit, share))


class InterviewChoice(Struct, frozen=True):
    """An interview date chosen (``--interview``, the palette): a day, or None for none."""

    day: date | None


#: What clears the date, typed where a date is asked for (an empty answer does too).
CLEAR_WORDS = ("none", "off", "clear")
_ISO_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)


def parse_interview(text: str, today: date) -> date | None:
    """The interview date ``text`` names, as YYYY-MM-DD; None for none (a word of
    :data:`CLEAR_WORDS`, or nothing). ``ValueError``, saying why, for anything else and for a
    date before ``today``."""
    text = text.strip()
    if text.lower() in ("", *CLEAR_WORDS):
        return None
    try:
        if not _ISO_DAY.fullmatch(text):
            raise ValueError(text)
        day = date.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"{text!r} is not a date as YYYY-MM-DD (or 'none' to have no interview date)"
        ) from None
    if day < today:
        raise ValueError(f"{day.isoformat()} is past (today is {today.isoformat()})")
    return day


# -- in words ----------------------------------------------------------------------------------

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def day_text(day: date) -> str:
    """ "Sat May 16": the same in every locale."""
    return f"{_WEEKDAYS[day.weekday()]} {_MONTHS[day.month - 1]} {day.day}"


def when_text(interview: date, today: date) -> str:
    """How far off the interview is: "in 5 days", "tomorrow", "today", "3 days ago"."""
    days = (interview - today).days
    if days == 0:
        return "today"
    if days == 1:
        return "tomorrow"
    if days > 1:
        return f"in {days} days"
    return "yesterday" if days == -1 else f"{-days} days ago"


def plan_text(interview: date, today: date, plan: Plan | None) -> str:
    """The plan in one sentence, as ``stats`` says it, and whether it holds."""
    head = f"Interview on {day_text(interview)}, {when_text(interview, today)}"
    if plan is None:
        if interview < today:
            return f"{head}: every grade since is scheduled as usual."
        return f"{head}: good luck."
    last = day_text(interview - timedelta(days=1))
    seen_by = plan.seen_by
    if seen_by is None:
        return f"{head}: every card seen already; each comes back by {last} at the latest."
    if not plan.holds:
        return (
            f"{head}: {plural(plan.new_per_day, 'new card')} today, the last day, each seen "
            "once only: too late to see every card twice."
        )
    pace = (
        f"{plural(plan.new_by_day[0], 'new card')} today"
        if seen_by == today
        else f"{plural(plan.new_per_day, 'new card')} a day"
    )
    return (
        f"{head}: {pace}; at this pace every card is seen by {day_text(seen_by)}, and again "
        f"by {last}."
    )


def queue_apart(plan: Plan | None) -> Apart:
    """Which siblings the day's queue keeps apart under ``plan`` (None: no interview date)."""
    if plan is None:
        return Apart.ALL
    return Apart.NEW_SIBLINGS if plan.new_days > 1 else Apart.NONE
