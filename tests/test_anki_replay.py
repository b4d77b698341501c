"""``anki sync``'s replay of the cards it writes (:func:`zerodrill.anki_sync.store_bridge.
derive`): the store's events and Anki's, a set union by identity, each replayed once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from zerodrill.anki_sync import revlog
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


def test_each_answer_carries_the_revlog_type_anki_would_log_it_with() -> None:
    """Anki types an answer by the card's state before it: learning on its first day, a
    review (passed or failed) when it was due on a later day, relearning for the steps after
    a failed review; Anki's statistics (true retention) read reviews by it. The replay says
    so for each answer, and the rows written to Anki carry it."""

    def at(days: int, minutes: int, grade: Grade, seq: int) -> ReviewEvent:
        when = AT + timedelta(days=days, minutes=minutes)
        return ReviewEvent("m1", seq, KEY, when, when.date(), grade, None, 900, None, 6, None)

    events = [
        at(0, 0, Grade.WRONG, 1),  # new: learning
        at(0, 10, Grade.GOOD, 2),  # its first day again: learning
        at(4, 0, Grade.BLACKOUT, 3),  # due, failed: a review
        at(4, 10, Grade.GOOD, 4),  # the step after it: relearning
        at(9, 0, Grade.GOOD, 5),  # due, passed: a review
    ]
    history = derive(events, [], [KEY], scheduler_named("sm2"))[KEY]
    assert [a.kind for a in history.answers] == [
        revlog.LEARN, revlog.LEARN, revlog.REVIEW, revlog.RELEARN, revlog.REVIEW
    ]  # fmt: skip
    rows = revlog.rows_to_write(7, history.not_from_anki(), [], revlog.TakenIds())
    assert [revlog.unpacked(r).type for r in rows] == [0, 0, 1, 2, 1]
