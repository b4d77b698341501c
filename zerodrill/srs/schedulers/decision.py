"""What Anki decided when it was answered there: :class:`AnkiDecision`, carried by the event.

Whoever answers a card decides its next interval. An answer given in Anki keeps what Anki gave
it (its revlog row's interval and ease, the learning step it put the card on, and the memory
state in the card's data where that answer was the card's latest and its row is as the answer
left it: Anki's sync may keep a newer row of the drill's instead), fixed when the answer is
read from the collection and carried with the event to every machine, so each replays it the
same way: a scheduler meeting such an event takes Anki's decision as the card's state
(:func:`zerodrill.srs.schedulers.protocol.answer`), and the next grade in a terminal goes on from
there with zerodrill's scheduler.
"""

from __future__ import annotations

import math
from datetime import date, datetime, timedelta
from typing import Any

import msgspec
from msgspec import Struct

from zerodrill.srs.days import whole_days

#: Anki's ceiling on an interval, in days, and on a learning step, in seconds (a day).
MAX_DAYS = 36_500
MAX_STEP_SECONDS = 86_400


class AnkiDecision(Struct, frozen=True):
    """Anki's schedule for a card right after one answer given there."""

    #: Days until the card is due (its revlog ``ivl``); 0 while on a learning step.
    interval: int
    #: Anki's ease after the answer (permille, its revlog ``factor``); 0 where Anki keeps none
    #: (a card still learning, or under FSRS).
    ease_permille: int = 0
    #: Seconds until the card comes back the same day (a learning or relearning step, the
    #: revlog's negative ``ivl``); None for a whole-day interval.
    step_seconds: int | None = None
    #: The step was a relearning one: a known card failed.
    relearning: bool = False
    #: FSRS's memory state Anki kept after the answer, where it kept one.
    stability: float | None = None
    difficulty: float | None = None
    #: For a change made by hand in Anki (Set Due Date, FSRS's reschedule): the days from
    #: that change's study day to the day Anki set the card due, where the collection showed
    #: it (the change was the card's latest); None: :attr:`interval` days on.
    due_days: int | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.interval <= MAX_DAYS or not 0 <= self.ease_permille <= 65_535:
            raise ValueError(f"not Anki's schedule: {self!r}")
        if self.due_days is not None and not 0 <= self.due_days <= MAX_DAYS:
            raise ValueError(f"not Anki's due day: {self!r}")
        if self.step_seconds is not None and not 0 < self.step_seconds <= MAX_STEP_SECONDS:
            raise ValueError(f"not Anki's learning step: {self!r}")
        if (self.step_seconds is None) == (self.interval == 0):
            raise ValueError(f"Anki gives a step or days, one of them: {self!r}")
        for value in (self.stability, self.difficulty):
            if value is not None and not (math.isfinite(value) and value > 0):
                raise ValueError(f"not a memory state: {self!r}")

    def step_due(self, at: datetime) -> datetime | None:
        """When the card comes back after an answer at ``at``; None for a day interval."""
        return at + timedelta(seconds=self.step_seconds) if self.step_seconds else None

    def due_on(self, day: date) -> date:
        """The day a change by hand made on study day ``day`` set the card due."""
        return day + whole_days(self.interval if self.due_days is None else self.due_days)

    def to_wire(self) -> dict[str, Any]:
        """As a sync line carries it (only the fields set)."""
        wire: dict[str, Any] = {"ivl": self.interval}
        if self.ease_permille:
            wire["factor"] = self.ease_permille
        if self.step_seconds is not None:
            wire["step"] = self.step_seconds
        if self.relearning:
            wire["relearning"] = True
        if self.stability is not None and self.difficulty is not None:
            wire["s"], wire["d"] = self.stability, self.difficulty
        if self.due_days is not None:
            wire["due"] = self.due_days
        return wire

    @classmethod
    def from_wire(cls, record: Any) -> AnkiDecision:
        """What :meth:`to_wire` wrote; ``ValueError`` for anything else (a sync file is
        untrusted)."""
        return cls._of(msgspec.convert(record, _Wire))

    @classmethod
    def from_text(cls, text: str) -> AnkiDecision:
        """:meth:`to_wire`'s record as JSON text (the store's column), read in one step by
        msgspec: a sync reads 10,000 (bench_anki_sync.py, the goal of 3x Anki's own
        syncs); ``ValueError`` for anything else."""
        return cls._of(_TEXT.decode(text))

    @classmethod
    def _of(cls, wire: _Wire) -> AnkiDecision:
        if (wire.s is None) != (wire.d is None):
            raise ValueError("Anki's decision: a memory state has both s and d")
        return cls(wire.ivl, wire.factor or 0, wire.step, wire.relearning, wire.s, wire.d, wire.due)


class _Wire(Struct, forbid_unknown_fields=True, gc=False):
    """:meth:`AnkiDecision.to_wire`'s record, its types checked as it is read (a whole number
    is no ``true``, a number no text)."""

    ivl: int
    factor: int | None = 0
    step: int | None = None
    relearning: bool = False
    s: float | None = None
    d: float | None = None
    due: int | None = None


_TEXT = msgspec.json.Decoder(_Wire)


def from_revlog(
    ivl: object, factor: object, kind: object, memory: tuple[float, float] | None
) -> AnkiDecision | None:
    """The decision of a revlog row (its ``ivl``, ``factor`` and ``type``), with the memory
    state of the card's data when the row is the card's latest and the card is as it left it
    (:func:`zerodrill.srs.anki_import.left_as`); None for values no Anki writes (the answer
    then replays as zerodrill schedules it)."""
    if not isinstance(ivl, int) or not isinstance(factor, int) or ivl == 0:
        return None
    # Anki's learn type is 0; a step after a review or relearning answer relearns.
    step, relearning = (-ivl, kind != 0) if ivl < 0 else (None, False)
    days = max(ivl, 0)
    for stability, difficulty in (memory or (None, None), (None, None)):
        try:
            return AnkiDecision(days, max(factor, 0), step, relearning, stability, difficulty)
        except ValueError:
            continue  # a memory state out of bounds is left to FSRS's own review
    return None


def from_manual(
    ivl: object, factor: object, memory: tuple[float, float] | None, due_days: int | None
) -> AnkiDecision | None:
    """What a Set Due Date or an FSRS reschedule in Anki set (its revlog row's ``ivl`` and
    ``factor``, and where the row is the card's latest, the memory state in the card's data
    and the days from the row's study day to the card's due day); None for values no Anki
    writes."""
    if not isinstance(ivl, int) or not isinstance(factor, int) or isinstance(due_days, bool):
        return None
    for stability, difficulty in (memory or (None, None), (None, None)):
        try:
            days = min(max(ivl, 1), MAX_DAYS)
            return AnkiDecision(
                days, min(max(factor, 0), 65_535), None, False, stability, difficulty, due_days
            )
        except ValueError:
            continue  # a memory state out of bounds is left as the card had it
    return None
