"""Which of zerodrill's cards' rows in Anki no longer show the schedule the store holds
(:mod:`zerodrill.anki_sync.stale_rows`): what a phone shows (new or not, a review's due day and
interval) compared, a learning row's moment not."""

from __future__ import annotations

from datetime import date, timedelta

from zerodrill.anki_sync.note_updates import CardRow
from zerodrill.anki_sync.schedule import Today
from zerodrill.anki_sync.stale_rows import stale
from zerodrill.srs.schedulers import AnkiCard, Phase

TODAY = Today(date(2026, 12, 4), 500)
#: Due in three days at an interval of four, as the store's cache holds it.
REVIEW = (Phase.REVIEW, AnkiCard(TODAY.zerodrill + timedelta(days=3), 4, 2500, 2, 0))
LEARNING = (Phase.LEARNING, AnkiCard(TODAY.zerodrill, 0, 2500, 1, 0))


def row(type_: int, queue: int, due: int, ivl: int, odid: int = 0, odue: int = 0) -> CardRow:
    return CardRow("d/k", 1, type_, queue, due, ivl, 2500, 2, 0, 0, odid, odue)


def test_a_row_put_back_new_by_a_stale_phone_is_found_suspended_or_not() -> None:
    for queue in (0, -1):
        assert stale({"d/k": row(0, queue, 7, 0)}, {"d/k": REVIEW}, TODAY) == {"d/k"}


def test_a_review_row_as_the_cache_has_it_is_not_found_in_a_filtered_deck_either() -> None:
    assert stale({"d/k": row(2, 2, 503, 4)}, {"d/k": REVIEW}, TODAY) == set()
    assert stale({"d/k": row(2, -1, 503, 4)}, {"d/k": REVIEW}, TODAY) == set()
    assert stale({"d/k": row(2, 2, 9, 4, odid=5, odue=503)}, {"d/k": REVIEW}, TODAY) == set()


def test_a_review_row_due_another_day_or_at_another_interval_is_found() -> None:
    for found in (row(2, 2, 502, 4), row(2, 2, 503, 3), row(2, 2, 503, 4, odid=5, odue=9)):
        assert stale({"d/k": found}, {"d/k": REVIEW}, TODAY) == {"d/k"}


def test_a_learning_row_is_found_only_where_the_card_is_a_review() -> None:
    learning = row(1, 1, 1_796_443_626, 0)
    assert stale({"d/k": learning}, {"d/k": LEARNING}, TODAY) == set()
    assert stale({"d/k": learning}, {"d/k": REVIEW}, TODAY) == {"d/k"}


def test_a_row_scheduled_for_a_card_the_store_holds_new_is_found_a_new_one_not() -> None:
    assert stale({"d/k": row(2, 2, 503, 4)}, {}, TODAY) == {"d/k"}
    assert stale({"d/k": row(0, 0, 7, 0)}, {}, TODAY) == set()


def test_a_card_skipped_keeps_its_row() -> None:
    assert stale({"d/k": row(0, 0, 7, 0)}, {"d/k": REVIEW}, TODAY, skip={"d/k"}) == set()
