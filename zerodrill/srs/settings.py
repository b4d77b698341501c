"""The learner's choices kept in the review database between sittings: the grade layout, the
scheduler and its options (a desired retention), and the interview date; together, the
profile the store opens with (:func:`read_profile`).

Kept in the database, not a config file, so that the choice travels with the grades it goes
with (``--db`` for a second learner keeps their layout apart). A value no zerodrill wrote reads
as the default. A database that refuses the write is no reason to stop drilling: ``save_*``
return the reason, to be said once, and the choice is used all the same. A database that is
gone ends the drill as a grade would.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from typing import Any, Literal

from msgspec import structs

from zerodrill.srs.grades import DEFAULT_LAYOUT, LAYOUTS
from zerodrill.srs.profile import Profile
from zerodrill.srs.schedulers import (
    DEFAULT_SCHEDULER,
    SCHEDULERS,
    Option,
    Scheduler,
    scheduler_class,
    title_of,
)
from zerodrill.srs.schedulers.retention import DESIRED_RETENTION, check_retention
from zerodrill.srs.store import FileGone, Store, StoreError

#: The setting's name in the database; its value is "4" or "6".
BUTTONS = "buttons"
#: The scheduler's name (one of :data:`~zerodrill.srs.schedulers.SCHEDULERS`).
SCHEDULER = "scheduler"
#: The desired retention, as text ("0.9"), for a scheduler that aims at one.
RETENTION = DESIRED_RETENTION.setting
#: The interview date the days before it are planned for, as ISO text ("2026-05-16"); empty
#: once cleared.
INTERVIEW = "interview_date"


def saved_layout(store: Store) -> int:
    """The number of grade buttons last chosen; the default if none was (or it is unknown)."""
    value = store.settings.get(BUTTONS)
    if value is not None and value.isdigit() and int(value) in LAYOUTS:
        return int(value)
    return DEFAULT_LAYOUT


def save_layout(store: Store, buttons: int) -> str | None:
    """Remember ``buttons`` for the next sittings (see the module's docstring)."""
    if buttons not in LAYOUTS:
        raise ValueError(f"no layout with {buttons} buttons")
    store.profile = structs.replace(store.profile, buttons=buttons)
    return _save(store, BUTTONS, str(buttons), f"The {buttons}-button layout")


def saved_scheduler_name(store: Store) -> str:
    """The scheduler last chosen; SM-2 if none was (or the one saved is unknown)."""
    value = store.settings.get(SCHEDULER)
    return value if value in SCHEDULERS else DEFAULT_SCHEDULER


def save_scheduler_name(store: Store, name: str) -> str | None:
    """Remember scheduler ``name`` for the next sittings (see the module's docstring)."""
    if name not in SCHEDULERS:
        raise ValueError(f"no scheduler {name!r}")
    return _save(store, SCHEDULER, name, title_of(name))


def saved_option(store: Store, option: Option) -> Any:
    """The value of a scheduler's ``option`` last chosen; None if none was (or it is
    unusable)."""
    value = store.settings.get(option.setting)
    try:
        return option.read(value) if value is not None else None
    except ValueError:
        return None


def save_option(
    store: Store, option: Option, value: Any, *, at: datetime | None = None
) -> str | None:
    """Remember a scheduler's ``option`` for the next sittings (see the module's docstring);
    ``ValueError`` for a value it does not take. ``at``: when the value was chosen, if not
    now (one that travels: :meth:`zerodrill.srs.store.saved_settings.SavedSettings.save`)."""
    text = option.write(value)
    option.read(text)
    return _save(store, option.setting, text, f"A {option.title} of {text}", at)


def saved_retention(store: Store) -> float | None:
    """The desired retention last chosen; None if none was (or it is unusable)."""
    retention: float | None = saved_option(store, DESIRED_RETENTION)
    return retention


def save_retention(store: Store, retention: float) -> str | None:
    """Remember the desired retention for the next sittings (see the module's docstring)."""
    return save_option(store, DESIRED_RETENTION, check_retention(retention))


def taking(option: Option) -> list[str]:
    """The registered schedulers that take ``option``, by name."""
    return [name for name in SCHEDULERS if option in scheduler_class(name).options]


def saved_interview(store: Store) -> date | None:
    """The interview date last set; None if none is (cleared, or unreadable)."""
    value = store.settings.get(INTERVIEW)
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def save_interview(store: Store, day: date | None) -> str | None:
    """Remember the interview date ``day`` for the next sittings, or forget it (None); see the
    module's docstring."""
    store.profile = structs.replace(store.profile, interview=day)
    if day is None:
        return _save(store, INTERVIEW, "", "Clearing the interview date")
    return _save(store, INTERVIEW, day.isoformat(), f"The interview date {day.isoformat()}")


def chosen_scheduler(
    store: Store,
    name: str | None = None,
    *,
    options: Mapping[str, Any] | None = None,
    interview: date | None | Literal["saved"] = "saved",
) -> Scheduler[Any]:
    """Scheduler ``name`` (default: the one last chosen), made with its options: each one it
    declares is the one in ``options`` (by name), else the one saved, else its default (an
    option it does not declare is left aside). With an ``interview`` date (default: the one
    saved, if any), every card's next due day is capped before it
    (:mod:`zerodrill.srs.schedulers.interview_cap`)."""
    name = saved_scheduler_name(store) if name is None else name
    cls = scheduler_class(name)
    given = options or {}
    chosen = {}
    for option in cls.options:
        value = given.get(option.name)
        value = saved_option(store, option) if value is None else value
        if value is not None:
            chosen[option.name] = value
    scheduler = cls(**chosen)
    interview = saved_interview(store) if interview == "saved" else interview
    if interview is None:
        return scheduler
    # Imported only with a date: a drill without one never loads it.
    from zerodrill.srs.schedulers.interview_cap import InterviewCap

    return InterviewCap(scheduler, interview)


def read_profile(store: Store, scheduler: Scheduler[Any] | None = None) -> Profile:
    """The learner's profile, as saved in ``store``; with ``scheduler``, that one schedules
    (a scratch sitting's, a test's) in place of the learner's."""
    interview = saved_interview(store)
    if scheduler is None:
        scheduler = chosen_scheduler(store, interview=interview)
    return Profile(scheduler, saved_layout(store), interview)


def _save(
    store: Store, setting: str, value: str, what: str, at: datetime | None = None
) -> str | None:
    try:
        store.settings.save(setting, value, at=at)
    except FileGone:
        raise
    except StoreError as exc:
        return f"{what} is used but not remembered: {exc}"
    return None
