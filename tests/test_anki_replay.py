"""``anki sync``'s replay of the cards it writes (:func:`zerodrill.anki_sync.store_bridge.
derive`): the store's events and Anki's, a set union by identity, each replayed once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from zerodrill.anki_sync.store_bridge import derive
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import ANKI_LAYOUT, Grade
from zerodrill.srs.schedulers import AnkiDecision, scheduler_named

KEY = "deck/card"
AT = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def grade(origin: str, seq: int, days: int, decided: AnkiDecision | None = None) -> ReviewEvent:
    at = AT + timedelta(days=days)
    buttons = ANKI_LAYOUT if decided is not None else 6
    return ReviewEvent(
        origin, seq, KEY, at, at.date(), Grade.GOOD, None, 900, None, buttons, decided
    )


def test_events_sharing_a_number_are_each_replayed_once() -> None:
    """Three origins number an event of the card 1, and some come twice (the store's and
    Anki's copies): each identity is replayed once, whatever the order they come in."""
    m1, m2 = grade("m1", 1, 0), grade("m2", 1, 1)
    phone = grade("anki", 1, 3, AnkiDecision(9, 2500))
    sm2 = scheduler_named("sm2")
    once = derive([m1, m2], [phone], [KEY], sm2)[KEY]
    assert [a.at for a in once.answers] == [m1.at, m2.at, phone.at]
    assert once.replayed is not None
    assert once.replayed.identities == (("m1", 1), ("m2", 1), ("anki", 1))
    for store, anki in (
        ([m1, m2, phone, m2], [phone, m1]),
        ([phone, m2, m1], [m2, m1, phone]),
        ([], [m2, phone, m1, phone]),
    ):
        assert derive(store, anki, [KEY], sm2)[KEY] == once
