"""The learner's choices kept in the review database between sittings: the grade layout, the
scheduler, FSRS's desired retention and the interview date.

Kept in the database, not a config file, so that the choice travels with the grades it goes
with (``--db`` for a second learner keeps their layout apart). A value no zerodrill wrote reads
as the default. A database that refuses the write is no reason to stop drilling: ``save_*``
return the reason, to be said once, and the choice is used all the same. A database that is
gone ends the drill as a grade would.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from zerodrill.srs.grades import DEFAULT_LAYOUT, LAYOUTS
from zerodrill.srs.schedulers import DEFAULT_SCHEDULER, SCHEDULERS, Scheduler, scheduler_named
from zerodrill.srs.schedulers.retention import DEFAULT_RETENTION, check_retention
from zerodrill.srs.store import FileGone, Store, StoreError

#: The setting's name in the database; its value is "4" or "6".
BUTTONS = "buttons"
#: The scheduler's name ("sm2" or "fsrs": :data:`~zerodrill.srs.schedulers.SCHEDULERS`).
SCHEDULER = "scheduler"
#: FSRS's desired retention, as text ("0.9").
RETENTION = "fsrs_retention"
#: The interview date the days before it are planned for, as ISO text ("2026-05-16"); empty
#: once cleared.
INTERVIEW = "interview_date"

#: The schedulers' names as the learner reads them.
SCHEDULER_TITLES = {"sm2": "SM-2", "fsrs": "FSRS"}


def saved_layout(store: Store) -> int:
    """The number of grade buttons last chosen; the default if none was (or it is unknown)."""
    value = store.setting(BUTTONS)
    if value is not None and value.isdigit() and int(value) in LAYOUTS:
        return int(value)
    return DEFAULT_LAYOUT


def save_layout(store: Store, buttons: int) -> str | None:
    """Remember ``buttons`` for the next sittings (see the module's docstring)."""
    if buttons not in LAYOUTS:
        raise ValueError(f"no layout with {buttons} buttons")
    return _save(store, BUTTONS, str(buttons), f"The {buttons}-button layout")


def saved_scheduler_name(store: Store) -> str:
    """The scheduler last chosen; SM-2 if none was (or the one saved is unknown)."""
    value = store.setting(SCHEDULER)
    return value if value in SCHEDULERS else DEFAULT_SCHEDULER


def save_scheduler_name(store: Store, name: str) -> str | None:
    """Remember scheduler ``name`` for the next sittings (see the module's docstring)."""
    if name not in SCHEDULERS:
        raise ValueError(f"no scheduler {name!r}")
    return _save(store, SCHEDULER, name, SCHEDULER_TITLES.get(name, name))


def saved_retention(store: Store) -> float | None:
    """FSRS's desired retention last chosen; None if none was (or it is unusable)."""
    value = store.setting(RETENTION)
    try:
        return check_retention(float(value)) if value is not None else None
    except ValueError:
        return None


def save_retention(store: Store, retention: float) -> str | None:
    """Remember FSRS's desired retention for the next sittings (see the module's docstring)."""
    text = repr(check_retention(retention))
    return _save(store, RETENTION, text, f"A desired retention of {text}")


def saved_interview(store: Store) -> date | None:
    """The interview date last set; None if none is (cleared, or unreadable)."""
    value = store.setting(INTERVIEW)
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def save_interview(store: Store, day: date | None) -> str | None:
    """Remember the interview date ``day`` for the next sittings, or forget it (None); see the
    module's docstring."""
    if day is None:
        return _save(store, INTERVIEW, "", "Clearing the interview date")
    return _save(store, INTERVIEW, day.isoformat(), f"The interview date {day.isoformat()}")


def chosen_scheduler(
    store: Store,
    name: str | None = None,
    *,
    retention: float | None = None,
    interview: date | None | Literal["saved"] = "saved",
) -> Scheduler[Any]:
    """Scheduler ``name`` (default: the one last chosen), made with its options: FSRS's
    desired retention is ``retention``, else the one saved, else FSRS's default. With an
    ``interview`` date (default: the one saved, if any), every card's next due day is capped
    before it (:mod:`zerodrill.srs.schedulers.interview_cap`)."""
    name = saved_scheduler_name(store) if name is None else name
    if name != "fsrs":
        scheduler = scheduler_named(name)
    else:
        retention = saved_retention(store) if retention is None else retention
        scheduler = scheduler_named(name, desired_retention=retention or DEFAULT_RETENTION)
    interview = saved_interview(store) if interview == "saved" else interview
    if interview is None:
        return scheduler
    # Imported only with a date: a drill without one never loads it.
    from zerodrill.srs.schedulers.interview_cap import InterviewCap

    return InterviewCap(scheduler, interview)


def _save(store: Store, setting: str, value: str, what: str) -> str | None:
    try:
        store.save_setting(setting, value)
    except FileGone:
        raise
    except StoreError as exc:
        return f"{what} is used but not remembered: {exc}"
    return None
