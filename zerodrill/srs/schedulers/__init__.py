"""The schedulers, by name: each one behind the protocol of :mod:`.base`.

``zerodrill drill --scheduler NAME`` chooses; the store derives every card's state with the
one in use. A scheduler's module is imported only when it is chosen, so the first card never
waits for a scheduler it does not use.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from zerodrill.srs.schedulers.base import (
    CardState,
    Effect,
    Phase,
    Rating,
    Scheduler,
    When,
    effect_of,
    rating_of,
    replay,
)

#: Each scheduler's name and where its class is (``module:Class``); the class is called with
#: the options given to :func:`scheduler_named`.
SCHEDULERS: dict[str, str] = {
    "sm2": "zerodrill.srs.schedulers.sm2:Sm2Scheduler",
    "fsrs": "zerodrill.srs.schedulers.fsrs:FsrsScheduler",
}
DEFAULT_SCHEDULER = "sm2"

__all__ = [
    "DEFAULT_SCHEDULER",
    "SCHEDULERS",
    "CardState",
    "Effect",
    "Phase",
    "Rating",
    "Scheduler",
    "When",
    "effect_of",
    "rating_of",
    "replay",
    "scheduler_named",
]


def scheduler_named(name: str = DEFAULT_SCHEDULER, **options: Any) -> Scheduler[Any]:
    """The scheduler called ``name``, made with ``options``; ``ValueError`` for an unknown one."""
    where = SCHEDULERS.get(name)
    if where is None:
        raise ValueError(f"no scheduler {name!r} (choose from {', '.join(sorted(SCHEDULERS))})")
    module, _, cls = where.partition(":")
    scheduler: Scheduler[Any] = getattr(import_module(module), cls)(**options)
    return scheduler
