"""zerodrill's answers as rows of Anki's review log (``revlog``), marked as zerodrill's.

A revlog row has no field to say where it came from, and it must not come back from Anki as a
new review (on this machine, or on another that has the same answer by the shared folder).
So the mark is in the row's numbers: its id (the answer's time in ms) and its ``time`` (the
answer time in ms) both end in :data:`MARK` ms. Anki's own rows end in any three digits, so
one of them carries both by chance once in a million answers; the cost is under a second of
precision in each. The mark is the same on every machine, so is the check that an answer is
in Anki already: a marked row of the card with the answer's button, stamped in the same
second or later, before the card's next answer or within a minute (a second taken by another
answer moves a row on by a second), each answer in turn claiming the first such row left.
The mark is read where every revlog is read (:mod:`zerodrill.srs.anki_import`, which leaves
these rows out for ``import-progress`` as for the sync).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from zerodrill.srs.anki_import import MARK as MARK
from zerodrill.srs.anki_import import is_marked as is_marked
from zerodrill.srs.grades import FOUR_BUTTONS, Grade, nearest_button

if TYPE_CHECKING:
    from zerodrill.anki_sync.store_bridge import Answer

#: Anki keeps an answer time of at most a minute (the deck option's ceiling, by default).
_MAX_TAKEN_MS = 59_000
#: How far (ms) a row may move on from its answer's second to find a free revlog id (at most
#: to the card's next answer, but at least :data:`_MIN_SLACK_MS`).
_SLACK_MS = 86_400_000
#: A row may move on this far (ms) even past the card's next answer: the id of an answer's
#: second can be taken by another card's row of that second, and a next answer a second
#: later then left it no free id at all (two terminals grading one card a second apart: its
#: first answer never reached Anki). Rows then claim in the answers' order, each the first
#: of its button from its own second on, so a moved row is still found, and its own.
_MIN_SLACK_MS = 60_000
#: After every answer: the last answer's row may be :data:`_SLACK_MS` on.
_NEVER = 2**63
# Anki's revlog types.
LEARN, REVIEW, RELEARN = 0, 1, 2
_MAX_FACTOR, _MAX_IVL = 2**16 - 1, 2**31 - 1


class TakenIds(set[int]):
    """The revlog ids ending in :data:`MARK` that the collection's rows hold or that were
    given out (a set, only ever added to), and for each second where the search for a free
    one goes on: the answers of many cards in one second (another machine's bulk of events;
    bench_anki_sync.py's) each searched from that second's first id again, quadratic in
    their number (283,000 steps for its 10,000)."""

    def __init__(self, ids: Iterable[int] = ()) -> None:
        super().__init__(ids)
        self._searched: dict[int, int] = {}

    def first_free(self, first: int) -> int:
        """The first id from ``first`` on, in steps of a second, that is not taken; the
        caller takes it (``add``) if it uses it."""
        rid = self._searched.get(first, first)
        while rid in self:
            rid += 1000
        # Every id from first to rid is taken, and ids are never given back.
        self._searched[first] = rid
        return rid


class RevlogRow(NamedTuple):
    """One row of Anki's ``revlog`` as zerodrill writes it (usn -1: to be sent), in the
    table's column order, as the row reads back (:func:`unpacked`)."""

    id: int
    cid: int
    usn: int
    ease: int
    ivl: int
    last_ivl: int
    factor: int
    time: int
    type: int


#: A row as :func:`rows_to_write` makes it and :data:`INSERT` takes it: id, card id, then
#: ease (1-4, three bits), type (0-2, two bits), the answer's whole seconds (at most 59, six
#: bits) and factor (at most :data:`_MAX_FACTOR`, sixteen bits) in one number, then ivl and
#: lastIvl. Every row here carries :data:`MARK` in its time and usn -1. One tuple a row,
#: made once (bench_anki_sync.py's 10,000 rows were each made as a row, then packed).
Packed = tuple[int, int, int, int, int]

#: Anki's ``revlog`` given :data:`Packed` rows (``insert_rows``'s ``column1`` and on): a
#: row's small numbers travel as one, unpacked here. Each value read out of a row of JSON
#: costs SQLite a call (3 ms for 10,000 rows; bench_anki_sync.py's 10,000 rows took 33 ms,
#: of which 4 the insert itself, as nine values each): five a row, not nine.
INSERT = (
    "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
    "SELECT column1, column2, -1, column3 & 7, column4, column5, column3 >> 11, "
    f"(column3 >> 5 & 63) * 1000 + {MARK}, column3 >> 3 & 3 FROM ({{values}})"
)


def unpacked(row: Packed) -> RevlogRow:
    """``row`` as :data:`INSERT` writes it (to read a row as it reads back)."""
    rid, cid, bits, ivl, last_ivl = row
    return RevlogRow(
        rid, cid, -1, bits & 7, ivl, last_ivl, bits >> 11, (bits >> 5 & 63) * 1000 + MARK,
        bits >> 3 & 3,
    )  # fmt: skip


#: The Anki button (1-4) of each zerodrill grade: the four-button layout's nearest. A table,
#: not a call per answer: bench_anki_sync.py's 20,000 answers spent 150 ms finding them (the
#: goal: a two-way sync within 3x Anki's own syncs).
_EASE = {grade: nearest_button(FOUR_BUTTONS, grade).key for grade in Grade}
#: Each answer's button and revlog type (its :attr:`.Answer.kind`) as :data:`Packed` holds
#: them, by kind and grade.
_BITS = {kind: {g: _EASE[g] | kind << 3 for g in Grade} for kind in (LEARN, REVIEW, RELEARN)}


def _starts(answers: Iterable[Answer]) -> list[int]:
    """Each answer's second, in ms: where its row is looked for and written."""
    return [int(a.at.timestamp()) * 1000 for a in answers]


def _ends(starts: Sequence[int]) -> list[int]:
    """Where the row of each answer (at ``starts``, in order) may be: to the card's next
    answer, a day at most, a minute at least. (Conditions, not min() and max(): one list for
    every answer bench_anki_sync.py writes.)"""
    if not starts:
        return []
    return [
        start + _MIN_SLACK_MS
        if after < start + _MIN_SLACK_MS
        else after
        if after < start + _SLACK_MS
        else start + _SLACK_MS
        for start, after in zip(starts, [*starts[1:], _NEVER], strict=True)
    ]


def _compare(
    starts: Sequence[int],
    ends: Sequence[int],
    grades: Sequence[Grade],
    written: Iterable[tuple[int, int]],
) -> tuple[list[int], list[tuple[int, int]]]:
    """The answers (by index; from ``starts`` to ``ends``, with ``grades``) without a marked
    row of their button there, and the marked rows no answer claims."""
    # Each answer takes the first row of its button at or after its second, if it is before
    # its window's end: found by bisection in the button's ids, not by a scan of every row
    # (a card's long history made the scan quadratic: bench_anki_stream.py's 100,000 events).
    ids: dict[int, list[int]] = {}
    for rid, ease in sorted(written):
        ids.setdefault(ease, []).append(rid)
    if not ids:  # none written yet (a card's first sync): every answer is missing
        return list(range(len(starts))), []
    missing = []
    for n, grade in enumerate(grades):
        of_button = ids.get(_EASE[grade], [])
        at = bisect_left(of_button, starts[n])
        if at < len(of_button) and of_button[at] < ends[n]:
            del of_button[at]
        else:
            missing.append(n)
    left = sorted((rid, ease) for ease, rids in ids.items() for rid in rids)
    return missing, left


def all_written(
    answers: Sequence[tuple[datetime, Grade]], written: Iterable[tuple[int, int]]
) -> bool:
    """Whether Anki's marked rows of a card are exactly its zerodrill answers in effect (at,
    grade; in time order): no answer missing, and none withdrawn since it was written."""
    starts = [int(at.timestamp()) * 1000 for at, _ in answers]
    missing, left = _compare(starts, _ends(starts), [grade for _, grade in answers], written)
    return not missing and not left


def reviews_since(rows: Sequence[Packed], since_ms: int) -> int:
    """How many of ``rows`` (one card's, from :func:`rows_to_write`, in order) are scheduled
    reviews, passed or failed, given at ``since_ms`` or later: what Anki counts against its
    daily limit of reviews."""
    count = 0
    for row in reversed(rows):
        if row[0] < since_ms:
            break
        count += row[2] >> 3 & 3 == REVIEW
    return count


def rows_to_write(
    cid: int,
    answers: Sequence[Answer],
    written: Iterable[tuple[int, int]],
    taken_ids: TakenIds,
) -> list[Packed]:
    """The rows for those of ``answers`` (one card's, zerodrill's, replayed) Anki lacks.

    ``written`` holds (id, ease) of the card's marked rows; ``taken_ids`` every revlog id in
    the collection that ends in :data:`MARK` ms (the only ones a row here can take), and
    gains the ids given here.
    """
    starts = _starts(answers)
    ends = _ends(starts)
    missing, _ = _compare(starts, ends, [a.grade for a in answers], written)
    rows: list[Packed] = []
    first_free, take = taken_ids.first_free, taken_ids.add
    for n in missing:
        answer = answers[n]
        rid = starts[n] + MARK
        if rid in taken_ids:  # most are free: no search
            rid = first_free(rid)
        if rid >= ends[n]:
            # No free id where the next run would look for it: written, it would be written
            # again each run. The card's schedule is set all the same.
            continue
        take(rid)
        grade = answer.grade
        taken_ms = answer.answer_ms or 0
        taken_ms = 0 if taken_ms < 0 else _MAX_TAKEN_MS if taken_ms > _MAX_TAKEN_MS else taken_ms
        # The bounds written out, not min() and max() called five times a row.
        ivl, last_ivl, factor = answer.ivl, answer.last_ivl, answer.factor
        rows.append(
            (
                rid,
                cid,
                _BITS[answer.kind][grade]
                | taken_ms // 1000 << 5
                | (_MAX_FACTOR if factor > _MAX_FACTOR else factor) << 11,
                1 if ivl < 1 else _MAX_IVL if ivl > _MAX_IVL else ivl,
                _MAX_IVL if last_ivl > _MAX_IVL else last_ivl,
            )
        )
    return rows


def marked_ids(written: Iterable[int], taken_ids: TakenIds) -> list[tuple[int, int]]:
    """(new id, old id) for revlog rows Anki wrote for zerodrill (``written``: the Forget of
    a card whose every grade was undone): each moved to the next id of its second that ends
    in :data:`MARK` and is free (``taken_ids``, which gains them), so that with its answer
    time set to the mark it reads as zerodrill's (:func:`is_marked`), never as a Forget made
    in Anki."""
    moved = []
    for rid in sorted(written):
        new = taken_ids.first_free(rid // 1000 * 1000 + MARK)
        taken_ids.add(new)
        moved.append((new, rid))
    return moved
