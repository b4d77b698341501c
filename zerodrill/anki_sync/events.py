"""Everything ``zerodrill anki sync`` reads from or writes to the review store.

The rest of the package sees only the values defined here (:class:`Answer`,
:class:`CardHistory`), never the store's own types, so a change of the store's API is a
change of this module alone:

- the events, zerodrill's and Anki's: :func:`log_events`;
- Anki's reviews, without the rows zerodrill wrote: :func:`from_anki`;
- Anki's reviews added as events, idempotently: :func:`add_anki_reviews`;
- each card's schedule derived from all events, with the answers in effect and what each
  did, for Anki's revlog and card columns: :func:`derive`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from zerodrill.anki_sync import revlog
from zerodrill.srs.anki_import import ORIGIN as ANKI_ORIGIN
from zerodrill.srs.anki_import import AnkiReviews
from zerodrill.srs.scheduler import Review, ReviewKind, rebuild_card
from zerodrill.srs.sm2 import Grade, Sm2State
from zerodrill.srs.store import Store

#: An event as the store gives it (its type is the store's business).
Event = Review


@dataclass(frozen=True, slots=True)
class Answer:
    """One grade in effect, as Anki's revlog records an answer."""

    key: str
    grade: Grade
    at: datetime
    answer_ms: int | None
    #: Given in Anki (True) or in zerodrill on any machine (False).
    from_anki: bool
    #: The card's first grade: it was new.
    first: bool
    #: The interval (days) before and after it, and the ease after it (Anki's permille).
    last_ivl: int
    ivl: int
    factor: int


@dataclass(frozen=True, slots=True)
class CardHistory:
    """One card as all its events make it."""

    key: str
    #: What the scheduler derives: None while the card is new.
    due: date | None
    interval: int
    factor: int
    lapses: int
    #: The grades in effect, oldest first.
    answers: tuple[Answer, ...]

    def not_from_anki(self) -> list[Answer]:
        """The answers given in zerodrill (on any machine), not in Anki."""
        return [a for a in self.answers if not a.from_anki]


def log_events(store: Store) -> list[Event]:
    """Every event in the store, undos included."""
    return list(store.log())


def from_anki(found: AnkiReviews) -> list[Event]:
    """Anki's reviews of zerodrill's cards, less the rows zerodrill wrote (:mod:`.revlog`)."""
    return [r for r in found.reviews if not revlog.is_marked(r.origin_seq, r.answer_ms)]


def add_anki_reviews(store: Store, reviews: Iterable[Event]) -> int:
    """Log the reviews given in Anki that the store lacks; how many were new. Idempotent:
    a review is known by its revlog id."""
    return store.merge(reviews).added


def new_to_zerodrill(store_events: Iterable[Event], anki: Sequence[Event]) -> int:
    """How many of Anki's reviews the store does not hold yet."""
    known = {e.identity for e in store_events if e.origin == ANKI_ORIGIN}
    return sum(1 for r in anki if r.identity not in known)


def derive(
    store_events: Iterable[Event], anki: Sequence[Event], keys: Iterable[str]
) -> dict[str, CardHistory]:
    """Each of ``keys`` with an event, as the store's events and Anki's reviews (which may
    not be in the store yet) make it together: a set union by identity, then a replay."""
    wanted = set(keys)
    by_key: dict[str, dict[tuple[str, int], Event]] = {}
    for event in (*store_events, *anki):
        if event.key in wanted:
            by_key.setdefault(event.key, {}).setdefault(event.identity, event)
    out: dict[str, CardHistory] = {}
    for key, entries in by_key.items():
        state, replayed = rebuild_card(entries.values())
        answers = tuple(_answer(r) for r in replayed if r.kind is not ReviewKind.UNDO)
        out[key] = _history(key, state, answers)
    return out


def _answer(review: Review) -> Answer:
    assert review.grade is not None
    return Answer(
        key=review.key,
        grade=review.grade,
        at=review.at,
        answer_ms=review.answer_ms,
        from_anki=review.origin == ANKI_ORIGIN,
        first=review.before.is_new,
        last_ivl=review.before.interval,
        ivl=review.after.interval,
        factor=review.after.ease_permille,
    )


def _history(key: str, state: Sm2State, answers: tuple[Answer, ...]) -> CardHistory:
    return CardHistory(key, state.due, state.interval, state.ease_permille, state.lapses, answers)
