"""zerodrill's answers as Anki revlog rows: the mark, and each answer written once.

Pure (no Anki backend): :func:`rows_to_write` is given what the collection holds and says
what to add, so a run after a run adds nothing, however many answers share a second.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta

from zerodrill.anki_sync import revlog
from zerodrill.anki_sync.revlog import MARK, RevlogRow, TakenIds, is_marked, unpacked
from zerodrill.anki_sync.store_bridge import Answer
from zerodrill.srs.grades import Grade

NOON = datetime(2026, 3, 1, 12, 0, 0, 250_000, tzinfo=UTC)
NOON_ID = int(NOON.timestamp()) * 1000 + MARK


def rows_to_write(
    cid: int, answers: Sequence[Answer], written: Iterable[tuple[int, int]], taken: TakenIds
) -> list[RevlogRow]:
    """:func:`revlog.rows_to_write`'s rows as they read back."""
    return [unpacked(row) for row in revlog.rows_to_write(cid, answers, written, taken)]


def answer(at: datetime, grade: Grade = Grade.GOOD, *, kind: int = revlog.REVIEW) -> Answer:
    return Answer("d/c", grade, at, 4321, False, kind, 1, 6, 2500)


def test_a_row_is_marked_in_its_id_and_its_answer_time() -> None:
    (row,) = rows_to_write(7, [answer(NOON, kind=revlog.LEARN)], [], TakenIds())
    assert is_marked(row.id, row.time)
    assert row.id == int(NOON.timestamp()) * 1000 + MARK
    assert row.time == 4000 + MARK  # the answer time, to the second
    assert (row.cid, row.ease, row.type) == (7, 3, 0)  # Good, a first answer: learning
    # Anki's own rows carry the mark in one place at most, by chance.
    assert not is_marked(row.id, 4321)
    assert not is_marked(row.id + 1, row.time)
    assert not is_marked(row.id, None)


def test_a_card_without_answers_of_zerodrills_has_no_rows() -> None:
    assert rows_to_write(7, [], [], TakenIds()) == []
    assert revlog.all_written([], [])
    assert not revlog.all_written([], [(NOON_ID, 3)])


def test_answers_sharing_a_second_are_written_once_over_any_number_of_runs() -> None:
    """Many cards answered in one second (a bulk of events from another machine): each row
    moves on a second from the one before; the next run finds every one of them."""
    taken = TakenIds()
    written: dict[int, list[tuple[int, int]]] = {}
    for cid in range(100):
        rows = rows_to_write(cid, [answer(NOON), answer(NOON + timedelta(days=3))], [], taken)
        assert len(rows) == 2
        written[cid] = [(r.id, r.ease) for r in rows]
    assert len(taken) == 200
    for cid in range(100):
        again = rows_to_write(
            cid, [answer(NOON), answer(NOON + timedelta(days=3))], written[cid], TakenIds(taken)
        )
        assert again == []


def test_an_answer_whose_second_is_taken_moves_past_the_next_answer_and_is_found() -> None:
    """Two answers of a card a second apart, the first one's id taken by another card's row
    of that second: its row moves on past the second answer's second (it used to be left
    out, and never reached Anki), and a next run finds both rows, each its own."""
    start = int(NOON.timestamp()) * 1000
    answers = [answer(NOON), answer(NOON + timedelta(seconds=1), Grade.PERFECT)]
    taken = TakenIds({start + MARK})
    rows = rows_to_write(1, answers, [], taken)
    assert [(r.id, r.ease) for r in rows] == [(start + 1000 + MARK, 3), (start + 2000 + MARK, 4)]
    assert rows_to_write(1, answers, [(r.id, r.ease) for r in rows], TakenIds(taken)) == []
    # The second answer's row written first (by a machine that lacked the first answer):
    # the first answer's row goes after it, and each is found as its own.
    second = rows_to_write(1, answers[1:], [], TakenIds({start + MARK}))
    assert [r.id for r in second] == [start + 1000 + MARK]
    kept = TakenIds({start + MARK, second[0].id})
    first = rows_to_write(1, answers, [(second[0].id, 4)], kept)
    assert [(r.id, r.ease) for r in first] == [(start + 2000 + MARK, 3)]
    both = [(second[0].id, 4), (first[0].id, 3)]
    assert rows_to_write(1, answers, both, TakenIds(kept)) == []
