"""Shared pieces of the queue and session tests: small decks built in code, a fixed day."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta
from enum import StrEnum
from fractions import Fraction
from pathlib import Path

from msgspec import structs

from zerodrill.deck.kinds import BASIC, CLOZE
from zerodrill.deck.model import Card, Deck, Item, Pos
from zerodrill.srs import sm2_formula as sm2
from zerodrill.srs.days import study_day
from zerodrill.srs.events import LoggedEvent, ReviewEvent, time_order
from zerodrill.srs.sitting import Session, record_grade
from zerodrill.srs.sm2_formula import Sm2State
from zerodrill.srs.store import Store

DAY = date(2025, 3, 10)
#: Noon on DAY, local time: a sitting started then is on study day DAY wherever the tests run.
NOW = datetime(2025, 3, 10, 12, 0).astimezone()
POS = Pos("t.yaml", 1, 1)


class ReviewKind(StrEnum):
    """What a logged event is, in the words of the log before it held events only."""

    GRADE = "grade"
    REPEAT = "repeat"
    UNDO = "undo"


def kind(logged: LoggedEvent) -> ReviewKind:
    """An undo, a same-day repeat (as the replay says), or a grade (withdrawn ones too)."""
    if logged.event.is_undo:
        return ReviewKind.UNDO
    return ReviewKind.REPEAT if logged.repeat else ReviewKind.GRADE


def card(deck: str, id: str, *, cloze: Sequence[int] = (), retired: bool = False) -> Card:
    if cloze:
        fields = {"text": " ".join(f"{{{{c{n}::x{n}}}}}" for n in cloze)}
        return Card(deck, id, CLOZE, fields, (), (), POS, {}, tuple(cloze), retired=retired)
    return Card(deck, id, BASIC, {"front": "q", "back": "a"}, (), (), POS, {}, retired=retired)


def deck(id: str, *cards: Card) -> Deck:
    return Deck(id, id.title(), "test deck", cards, Path(f"{id}.yaml"), POS)


def keys(items: Sequence[Item]) -> list[str]:
    return [item.key for item in items]


def record(store: Store, key: str, q: int, day: date) -> None:
    record_grade(store, key, q, day=day, at=NOW)


def schedule(store: Store, key: str, due: date) -> None:
    """Give ``key`` one passing grade so that it falls due on ``due``."""
    record(store, key, 4, due - timedelta(days=1))


def drain(session: Session, grade: int = 5) -> list[str]:
    """Grade every card the sitting shows with ``grade``; their keys, in the order shown."""
    shown = []
    while (item := session.current) is not None:
        shown.append(item.key)
        session.grade(grade)
    return shown


def reference_states(events: Iterable[ReviewEvent]) -> dict[str, Sm2State]:
    """Each known card's SM-2 state, by the rules spelled out the plain way: undone grades
    out, the rest in time order, a grade on a day the card moved already moving nothing, and
    Easy on Anki's four buttons (a 5 pressed on them, or imported from Anki) 1.3 times SM-2's
    interval, rounded up, and never under 4 days; an answer given in Anki keeps the interval,
    due day and ease Anki gave it (a learning step: due that day, and the next grade then
    moves the schedule)."""
    events = list(events)
    undone = {e.undoes for e in events if e.undoes is not None}
    by_key: dict[str, list[ReviewEvent]] = {}
    for e in sorted(events, key=time_order):
        if e.grade is not None and e.identity not in undone:
            by_key.setdefault(e.key, []).append(e)
    states = {}
    for key, grades in by_key.items():
        state, last, stepping = Sm2State.new(), None, False
        for e in grades:
            assert e.grade is not None
            if last is None or e.day > last or stepping:
                state, last = sm2.review(state, e.grade, e.day), e.day
                if e.grade == 5 and e.buttons == 4:
                    easy = min(
                        sm2.MAX_INTERVAL, max(4, math.ceil(Fraction(13, 10) * state.interval))
                    )
                    state = structs.replace(state, interval=easy, due=e.day + timedelta(days=easy))
            if e.decided is not None:
                # Given in Anki: Anki's ease, and its interval unless it put the card on a step.
                ef = e.decided.ease_permille // 10
                state = structs.replace(
                    state, ef_hundredths=ef if ef >= 130 else state.ef_hundredths
                )
                days = e.decided.interval
                state = structs.replace(state, interval=days, due=e.day + timedelta(days=days))
                if e.decided.step_seconds is not None:
                    state = structs.replace(state, repetitions=0)
                last = e.day
            # On Anki's learning step the next grade that day moves the schedule too.
            stepping = e.decided is not None and e.decided.step_seconds is not None
        states[key] = state
    return states


def sm2_states(store: Store) -> dict[str, Sm2State]:
    """The store's derived states, as SM-2 states (the store derives with SM-2 unless told)."""
    return {key: state.sm2 for key, state in store.schedule.states().items()}  # type: ignore[attr-defined]


def grade(store: Store, key: str, q: int, at: datetime) -> LoggedEvent:
    """Grade ``key`` at ``at``, on the study day ``at`` falls in (the sync tests' grade)."""
    return record_grade(store, key, q, day=study_day(at), at=at)


def identities(store: Store) -> set[tuple[str, int]]:
    return {review.identity for review in store.log.entries()}
