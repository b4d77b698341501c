"""What the drill shows, folded from the event stream: each a registered
:class:`Projection` with a fingerprint and a pure fold, as card kinds are registered
(:mod:`zerodrill.deck.kinds`) and export formats (:mod:`zerodrill.export.formats`).

A projection names the kinds of event it reads (:attr:`Projection.actions`, and with
:attr:`Projection.grades` the reviews of the cards those name), and folds them, in the order
logged, into its value: the same events give the same value, wherever they were logged.
:meth:`zerodrill.srs.store.stream.EventLog.project` reads them and folds (``store.log.project``).
Its :attr:`Projection.fingerprint` names what the fold means, and changes
with it: what a cache of the value would be checked against.

Adding one takes this module only: declare it with :func:`register` at the bottom.

The schedule is the one projection kept in a cache, and one per scheduler
(:func:`schedule`): its fold is the scheduler's replay of each card's grades in effect
(:func:`zerodrill.srs.schedulers.protocol.replay`), its fingerprint the scheduler's with its
options. The cache (the ``card``, ``effect`` and ``derived`` tables,
:mod:`zerodrill.srs.store.derive`) is that fold, done in SQL's order for speed, and dropped and
rebuilt whenever the fingerprint it was built with is not the store's
(:mod:`zerodrill.srs.store.schedule_cache`). :data:`SCHEDULE`, the one under the default scheduler,
is registered so that what holds for every projection is checked on it too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from functools import partial
from typing import Any, Generic, TypeVar

from msgspec import Struct

from zerodrill.srs.card_actions import SCHEDULE_ACTIONS, Action, CardActionEvent, CardMarks
from zerodrill.srs.card_actions import replay as replay_marks
from zerodrill.srs.events import ReviewEvent, StreamEvent, time_order
from zerodrill.srs.schedulers import Scheduler, scheduler_named
from zerodrill.srs.schedulers.protocol import CardState, Given, Phase, replay

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Projection(Generic[T]):
    """A view of the stream: which events it reads, and how it folds them."""

    name: str
    #: What the fold means; another fingerprint, another meaning (bump it with the fold).
    fingerprint: str
    #: The card actions it reads (undos of them included).
    actions: frozenset[Action]
    #: Also the reviews (grades and their undos) of the cards those actions name.
    grades: bool
    #: The value of the events read, in the order logged. Pure: nothing but them decides it.
    fold: Callable[[Sequence[StreamEvent]], T]
    #: Also every review (grades and their undos), of every card.
    reviews: bool = False


_REGISTRY: dict[str, Projection[Any]] = {}


def register(projection: Projection[T]) -> Projection[T]:
    """Add ``projection``; refused (ValueError) when its name or fingerprint is taken."""
    for other in _REGISTRY.values():
        if projection.name == other.name or projection.fingerprint == other.fingerprint:
            raise ValueError(f"projection '{projection.name}' clashes with '{other.name}'")
    _REGISTRY[projection.name] = projection
    return projection


def named(name: str) -> Projection[Any] | None:
    """The registered projection called ``name``, or None."""
    return _REGISTRY.get(name)


def registered() -> tuple[Projection[Any], ...]:
    """Every registered projection, in the order registered."""
    return tuple(_REGISTRY.values())


# -- the projections zerodrill ships ----------------------------------------------------------


def _marks(events: Sequence[StreamEvent]) -> dict[str, CardMarks]:
    return replay_marks(e for e in events if isinstance(e, CardActionEvent))


#: Each card's marks (suspended, buried, flagged, marked): cards with none absent.
MARKS = register(
    Projection(
        "marks",
        "marks-1",
        frozenset(Action) - {Action.BRING_FORWARD, Action.SETTING, *SCHEDULE_ACTIONS},
        False,
        _marks,
    )
)


class Forwarded(Struct, frozen=True):
    """Each card an interview brought forward, in the order logged: (key, study day, and
    whether a grade in effect was given after it, which settles it)."""

    cards: tuple[tuple[str, date, bool], ...] = ()


class BroughtForward(Struct, frozen=True):
    """What attempts brought forward, as of one study day."""

    #: Keys brought forward on or before the day and not reviewed since, earliest first.
    pending: tuple[str, ...] = ()
    #: Keys brought forward on the day itself (settled or not).
    on_day: frozenset[str] = frozenset()


def as_of(forwarded: Forwarded, day: date) -> BroughtForward:
    """What ``forwarded`` means on study day ``day``."""
    pending = (k for k, on, settled in forwarded.cards if on <= day and not settled)
    on_day = frozenset(k for k, on, _ in forwarded.cards if on == day)
    return BroughtForward(tuple(dict.fromkeys(pending)), on_day)


def _forwarded(events: Sequence[StreamEvent]) -> Forwarded:
    # Settled by a grade given after it (by the time it was given, not the order it reached
    # this log); at the very same instant, by one logged after it.
    withdrawn = {e.undoes for e in events if e.undoes is not None}
    brought: list[tuple[int, CardActionEvent]] = []
    graded: dict[str, list[tuple[datetime, int]]] = {}
    for n, e in enumerate(events):
        if e.identity in withdrawn:
            continue
        if isinstance(e, CardActionEvent) and e.action is Action.BRING_FORWARD:
            brought.append((n, e))
        elif isinstance(e, ReviewEvent) and e.grade is not None:
            graded.setdefault(e.key, []).append((e.at, n))
    return Forwarded(
        tuple(
            (b.key, b.day, any((at, m) > (b.at, n) for at, m in graded.get(b.key, ())))
            for n, b in brought
        )
    )


#: The cards interviews brought forward, and whether each was reviewed since.
BROUGHT_FORWARD = register(
    Projection(
        "brought_forward",
        "brought-forward-1",
        frozenset({Action.BRING_FORWARD}),
        True,
        _forwarded,
    )
)


def _settings(events: Sequence[StreamEvent]) -> dict[str, CardActionEvent]:
    # Newest wins, by the instant each was made (then identity, so that every machine agrees).
    withdrawn = {e.undoes for e in events if e.undoes is not None}
    newest: dict[str, CardActionEvent] = {}
    for e in events:
        if not isinstance(e, CardActionEvent) or e.action is not Action.SETTING:
            continue
        if e.identity in withdrawn:
            continue
        found = newest.get(e.key)
        if found is None or (found.at, found.origin, found.seq) < (e.at, e.origin, e.seq):
            newest[e.key] = e
    return newest


#: The learner's settings that travel with the log, by name: the newest event of each (its
#: value, and when it was made).
SETTINGS = register(
    Projection("settings", "settings-1", frozenset({Action.SETTING}), False, _settings)
)


def _given(e: ReviewEvent | CardActionEvent) -> Given:
    if isinstance(e, CardActionEvent):  # a change made by hand in Anki: no grade
        return (None, e.day, e.at, 6, e.decided)
    return (e.grade, e.day, e.at, e.buttons, e.decided)


def _schedule(scheduler: Scheduler[Any], events: Sequence[StreamEvent]) -> dict[str, CardState]:
    withdrawn = {e.undoes for e in events if e.undoes is not None}
    graded: dict[str, list[ReviewEvent | CardActionEvent]] = {}
    for e in events:
        if e.identity in withdrawn:
            continue
        if (isinstance(e, ReviewEvent) and e.grade is not None) or (
            isinstance(e, CardActionEvent) and e.action in SCHEDULE_ACTIONS
        ):
            graded.setdefault(e.key, []).append(e)
    states: dict[str, CardState] = {}
    for key in sorted(graded):
        given = [_given(e) for e in sorted(graded[key], key=time_order)]
        state, _ = replay(scheduler, given)
        if state.phase is not Phase.NEW:
            states[key] = state
    return states


def schedule(scheduler: Scheduler[Any]) -> Projection[dict[str, CardState]]:
    """The schedule under ``scheduler``: each card with a grade in effect, its state, its
    grades in effect replayed in the one time order (:func:`zerodrill.srs.events.time_order`)
    from new. Its fingerprint is the scheduler's, options and all."""
    return Projection(
        "schedule",
        scheduler.fingerprint,
        SCHEDULE_ACTIONS,
        False,
        partial(_schedule, scheduler),
        True,
    )


#: The schedule under the default scheduler (each learner's is :func:`schedule` of theirs).
SCHEDULE = register(schedule(scheduler_named()))
