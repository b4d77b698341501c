"""zerodrill's answers as rows of Anki's review log (``revlog``), marked as zerodrill's.

A revlog row has no field to say where it came from, and it must not come back from Anki as a
new review (on this machine, or on another that has the same answer by the shared folder).
So the mark is in the row's numbers: its id (the answer's time in ms) and its ``time`` (the
answer time in ms) both end in :data:`MARK` ms. Anki's own rows end in any three digits, so
one of them carries both by chance once in a million answers; the cost is under a second of
precision in each. The mark is the same on every machine, so is the check that an answer is
in Anki already: a marked row of the card with the answer's button, stamped in the same
second or later, before the card's next answer (a second taken by another answer moves a row
on by a second).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from msgspec import Struct

from zerodrill.srs.grades import FOUR_BUTTONS, Grade, nearest_button

if TYPE_CHECKING:
    from zerodrill.anki_sync.events import Answer

MARK = 419
#: Anki keeps an answer time of at most a minute (the deck option's ceiling, by default).
_MAX_TAKEN_MS = 59_000
#: How far (ms) a row may move on from its answer's second to find a free revlog id (at most
#: to the card's next answer).
_SLACK_MS = 86_400_000
# Anki's revlog types.
_LEARN, _REVIEW, _RELEARN = 0, 1, 2
_MAX_FACTOR, _MAX_IVL = 2**16 - 1, 2**31 - 1


class RevlogRow(Struct, frozen=True):
    """One row of Anki's ``revlog`` as zerodrill writes it (usn -1: to be sent)."""

    id: int
    cid: int
    ease: int
    ivl: int
    last_ivl: int
    factor: int
    time: int
    type: int

    def values(self) -> tuple[int, ...]:
        """In the table's column order: id cid usn ease ivl lastIvl factor time type."""
        f = self
        return (f.id, f.cid, -1, f.ease, f.ivl, f.last_ivl, f.factor, f.time, f.type)


def is_marked(rid: int, taken_ms: int | None) -> bool:
    """A row zerodrill wrote: its id and answer time both end in :data:`MARK` ms."""
    return rid % 1000 == MARK and taken_ms is not None and taken_ms % 1000 == MARK


def anki_ease(answer: Answer) -> int:
    """The Anki button (1-4) of a zerodrill grade: the four-button layout's nearest."""
    return nearest_button(FOUR_BUTTONS, answer.grade).key


def _marked_time(answer_ms: int | None) -> int:
    taken = min(max(answer_ms or 0, 0), _MAX_TAKEN_MS)
    return taken // 1000 * 1000 + MARK


def _second_ms(answer: Answer) -> int:
    return int(answer.at.timestamp()) * 1000


def _windows(starts: Sequence[int]) -> list[tuple[int, int]]:
    """Where each answer's row may be: from its second to the card's next answer (a row
    moved on from its second stays before that), a day at most, a second at least."""
    out = []
    for n, start in enumerate(starts):
        end = start + _SLACK_MS
        if n + 1 < len(starts):
            end = max(min(end, starts[n + 1]), start + 1000)
        out.append((start, end))
    return out


def _match(
    windows: Sequence[tuple[int, int]], eases: Sequence[int], written: Iterable[tuple[int, int]]
) -> tuple[list[int], list[tuple[int, int]]]:
    """The answers (by index) without a marked row, and the marked rows no answer claims."""
    left = sorted(written)
    missing = []
    for n, ((start, end), ease) in enumerate(zip(windows, eases, strict=True)):
        match = next((w for w in left if w[1] == ease and start <= w[0] < end), None)
        if match is None:
            missing.append(n)
        else:
            left.remove(match)
    return missing, left


def all_written(
    answers: Sequence[tuple[datetime, Grade]], written: Iterable[tuple[int, int]]
) -> bool:
    """Whether Anki's marked rows of a card are exactly its zerodrill answers in effect (at,
    grade; in time order): no answer missing, and none withdrawn since it was written."""
    starts = [int(at.timestamp()) * 1000 for at, _ in answers]
    eases = [nearest_button(FOUR_BUTTONS, grade).key for _, grade in answers]
    missing, left = _match(_windows(starts), eases, written)
    return not missing and not left


def rows_to_write(
    cid: int,
    answers: Sequence[Answer],
    written: Iterable[tuple[int, int]],
    taken_ids: set[int],
) -> list[RevlogRow]:
    """The rows for those of ``answers`` (one card's, zerodrill's, replayed) Anki lacks.

    ``written`` holds (id, ease) of the card's marked rows; ``taken_ids`` every revlog id in
    the collection, and gains the ids given here.
    """
    windows = _windows([_second_ms(answer) for answer in answers])
    missing, _ = _match(windows, [anki_ease(a) for a in answers], written)
    rows = []
    for n in missing:
        answer, (start, end) = answers[n], windows[n]
        rid = start + MARK
        while rid in taken_ids:
            rid += 1000
        if rid >= end:
            # No free id where the next run would look for it: written, it would be written
            # again each run. The card's schedule is set all the same.
            continue
        taken_ids.add(rid)
        if answer.first:
            kind = _LEARN
        elif not answer.grade.passed:
            kind = _RELEARN
        else:
            kind = _REVIEW
        rows.append(
            RevlogRow(
                id=rid,
                cid=cid,
                ease=anki_ease(answer),
                ivl=min(max(answer.ivl, 1), _MAX_IVL),
                last_ivl=min(answer.last_ivl, _MAX_IVL),
                factor=min(answer.factor, _MAX_FACTOR),
                time=_marked_time(answer.answer_ms),
                type=kind,
            )
        )
    return rows
