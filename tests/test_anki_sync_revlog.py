"""zerodrill's answers as Anki revlog rows: the mark, and each answer written once.

Pure (no Anki backend): :func:`rows_to_write` is given what the collection holds and says
what to add, so a run after a run adds nothing, however many answers share a second.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from zerodrill.anki_sync.revlog import MARK, TakenIds, is_marked, rows_to_write
from zerodrill.anki_sync.store_bridge import Answer
from zerodrill.srs.grades import Grade

NOON = datetime(2026, 3, 1, 12, 0, 0, 250_000, tzinfo=UTC)


def answer(at: datetime, grade: Grade = Grade.GOOD, *, first: bool = False) -> Answer:
    return Answer("d/c", grade, at, 4321, False, first, 1, 6, 2500)


def test_a_row_is_marked_in_its_id_and_its_answer_time() -> None:
    (row,) = rows_to_write(7, [answer(NOON, first=True)], [], TakenIds())
    assert is_marked(row.id, row.time)
    assert row.id == int(NOON.timestamp()) * 1000 + MARK
    assert row.time == 4000 + MARK  # the answer time, to the second
    assert (row.cid, row.ease, row.type) == (7, 3, 0)  # Good, a first answer: learning
    # Anki's own rows carry the mark in one place at most, by chance.
    assert not is_marked(row.id, 4321)
    assert not is_marked(row.id + 1, row.time)
    assert not is_marked(row.id, None)


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


def test_an_answer_with_no_free_id_before_the_next_is_not_written() -> None:
    """Two answers a second apart, every id between them taken: the first is left out (its
    schedule is set all the same) rather than written where no run would find it."""
    start = int(NOON.timestamp()) * 1000
    taken = TakenIds({start + MARK})
    rows = rows_to_write(1, [answer(NOON), answer(NOON + timedelta(seconds=1))], [], taken)
    # The first answer's id would be the second's own second: it is left out.
    assert [r.id for r in rows] == [start + 1000 + MARK]
    again = rows_to_write(
        1,
        [answer(NOON), answer(NOON + timedelta(seconds=1))],
        [(r.id, r.ease) for r in rows],
        taken,
    )
    assert again == []
