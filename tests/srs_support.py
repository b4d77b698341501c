"""Shared pieces of the queue and session tests: small decks built in code, a fixed day."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from enum import StrEnum
from pathlib import Path

from zerodrill.deck.model import Card, Deck, Item, Kind, Pos
from zerodrill.srs.events import LoggedEvent
from zerodrill.srs.session import Session, record_grade
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
        return Card(deck, id, Kind.CLOZE, fields, (), (), POS, {}, tuple(cloze), retired=retired)
    return Card(deck, id, Kind.BASIC, {"front": "q", "back": "a"}, (), (), POS, {}, retired=retired)


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
