"""Everything ``zerodrill anki sync`` reads from or writes to the review store.

Three questions, answered on today's store API (:class:`~zerodrill.srs.store.Store` with its
log of :class:`~zerodrill.srs.scheduler.Review` values and ``merge``); when the log becomes
one of events, only this module changes:

- the events, zerodrill's and Anki's: :func:`log_events`;
- Anki's reviews added as events, idempotently: :func:`add_anki_reviews`;
- each card's schedule derived from all events, and the answers in effect with the state
  before and after each, for Anki's revlog: :func:`derive`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from zerodrill.srs.anki_import import ORIGIN as ANKI_ORIGIN
from zerodrill.srs.scheduler import Review, ReviewKind, rebuild_card
from zerodrill.srs.sm2 import Sm2State
from zerodrill.srs.store import Store

__all__ = ["ANKI_ORIGIN", "CardHistory", "add_anki_reviews", "derive", "log_events"]


@dataclass(frozen=True, slots=True)
class CardHistory:
    """One card as all its events make it."""

    key: str
    #: The state the scheduler derives: its due day, interval and ease.
    state: Sm2State
    #: The grades and repeats in effect, oldest first, each with the state before and after
    #: it as the replay placed it.
    answers: tuple[Review, ...]

    def not_from_anki(self) -> list[Review]:
        """The answers given in zerodrill (on any machine), not in Anki."""
        return [a for a in self.answers if a.origin != ANKI_ORIGIN]


def log_events(store: Store) -> list[Review]:
    """Every event in the store, undos included."""
    return list(store.log())


def add_anki_reviews(store: Store, reviews: Iterable[Review]) -> int:
    """Log the reviews given in Anki that the store lacks; how many were new. Idempotent:
    a review is known by its revlog id."""
    return store.merge(reviews).added


def derive(
    events: Iterable[Review], anki: Sequence[Review], keys: Iterable[str]
) -> dict[str, CardHistory]:
    """Each of ``keys`` with an event, as the store's events and Anki's reviews (which may
    not be in the store yet) make it together: a set union by identity, then a replay."""
    wanted = set(keys)
    by_key: dict[str, dict[tuple[str, int], Review]] = {}
    for event in (*events, *anki):
        if event.key in wanted:
            by_key.setdefault(event.key, {}).setdefault(event.identity, event)
    out: dict[str, CardHistory] = {}
    for key, entries in by_key.items():
        state, replayed = rebuild_card(entries.values())
        answers = tuple(r for r in replayed if r.kind is not ReviewKind.UNDO)
        out[key] = CardHistory(key, state, answers)
    return out


def new_to_zerodrill(store_events: Iterable[Review], anki: Sequence[Review]) -> int:
    """How many of Anki's reviews the store does not hold yet."""
    known = {e.identity for e in store_events if e.origin == ANKI_ORIGIN}
    return sum(1 for r in anki if r.identity not in known)


def by_key(histories: Mapping[str, CardHistory]) -> dict[str, Sm2State]:
    return {key: h.state for key, h in histories.items()}
