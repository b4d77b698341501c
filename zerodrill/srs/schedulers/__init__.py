"""The schedulers, by name: each one behind the protocol of :mod:`.protocol`, declared in its own
module (its title, options, the help on its grades, how its state reads in Anki).

``zerodrill drill --scheduler NAME`` or the palette chooses; the store derives every card's
state with the learner's. A scheduler's module is imported only when something asks for it
(chosen, or listed by the palette), so the first card never waits for one it does not use.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from zerodrill.srs.schedulers.decision import AnkiDecision
from zerodrill.srs.schedulers.protocol import (
    AnkiCard,
    CardState,
    Effect,
    Option,
    Phase,
    Rating,
    Scheduler,
    When,
    answer,
    effect_of,
    rating_of,
    replay,
)

#: Each scheduler's name and where its class is (``module:Class``), in the order the palette
#: lists them; the class is called with the options given to :func:`scheduler_named`.
SCHEDULERS: dict[str, str] = {
    "sm2": "zerodrill.srs.schedulers.sm2:Sm2Scheduler",
    "fsrs": "zerodrill.srs.schedulers.fsrs:FsrsScheduler",
}
DEFAULT_SCHEDULER = "sm2"

__all__ = [
    "DEFAULT_SCHEDULER",
    "SCHEDULERS",
    "AnkiCard",
    "AnkiDecision",
    "CardState",
    "Effect",
    "Option",
    "Phase",
    "Rating",
    "Scheduler",
    "When",
    "answer",
    "effect_of",
    "rating_of",
    "register",
    "replay",
    "scheduler_class",
    "scheduler_named",
    "title_of",
]


def register(name: str, where: str) -> None:
    """Add scheduler ``name``, whose class is at ``where`` (``module:Class``); ``ValueError``
    when the name is taken or the class is not there."""
    if name in SCHEDULERS:
        raise ValueError(f"a scheduler named {name!r} is registered already")
    SCHEDULERS[name] = where
    try:
        scheduler_class(name)
    except BaseException:
        del SCHEDULERS[name]
        raise


def scheduler_class(name: str) -> type[Scheduler[Any]]:
    """The class of scheduler ``name`` (imported now); ``ValueError`` for an unknown one."""
    where = SCHEDULERS.get(name)
    if where is None:
        raise ValueError(f"no scheduler {name!r} (choose from {', '.join(sorted(SCHEDULERS))})")
    module, _, cls = where.partition(":")
    found = getattr(import_module(module), cls, None)
    if found is None or getattr(found, "name", None) != name:
        raise ValueError(f"{where} is no scheduler named {name!r}")
    scheduler: type[Scheduler[Any]] = found
    return scheduler


def scheduler_named(name: str = DEFAULT_SCHEDULER, **options: Any) -> Scheduler[Any]:
    """The scheduler called ``name``, made with ``options``; ``ValueError`` for an unknown one."""
    return scheduler_class(name)(**options)


def title_of(name: str) -> str:
    """Scheduler ``name`` as the learner reads it ("FSRS")."""
    return scheduler_class(name).title
