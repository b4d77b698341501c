"""What the learner did, as one value: :class:`ReviewEvent`, a grade or its undo; the log's other
events are card actions (:class:`~zerodrill.srs.card_actions.CardActionEvent`), one stream
with them (:data:`StreamEvent`).

An event is a grade given to a card (or the withdrawal of one, an *undo*), with when it was
given and who gave it. It holds no scheduler state of zerodrill's: every card's state, due
day, same-day repeat and figure is derived by replaying events in :func:`time_order` through
the scheduler (:mod:`zerodrill.srs.schedulers`). An answer given in Anki carries what Anki
decided (:attr:`ReviewEvent.decided`), which the replay takes as the card's state: whoever
answers a card decides its next interval. The store keeps events, the shared sync folder
carries them (:meth:`ReviewEvent.to_wire`, read back by :mod:`zerodrill.srs.sync.wire`), and an
import from Anki makes them.

Identity: ``(origin, seq)``, the machine that made it (a database's machine id, or ``"anki"``)
and its number there (for Anki, the revlog id). The same event has it on every machine, so a
merge is a set union by identity, and an undo names what it withdraws by identity.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from operator import attrgetter
from typing import Any

import msgspec
from msgspec import Struct
from msgspec.structs import force_setattr

from zerodrill.srs.card_actions import CardActionEvent
from zerodrill.srs.grades import ANKI_LAYOUT, DEFAULT_LAYOUT, Grade, check_layout, to_grade
from zerodrill.srs.schedulers.decision import AnkiDecision
from zerodrill.srs.schedulers.protocol import Effect

#: A review's identity on every machine: (origin, sequence number at that origin).
Identity = tuple[str, int]


#: One encoder for every line: msgspec's writes the bytes json.dumps(ensure_ascii=False,
#: separators=(",", ":")) wrote, in a tenth of its time (bench_anki_sync.py's 10,000 events
#: sent took 45 ms to encode with the standard library's; issue 35 point 7).
_WIRE_JSON = msgspec.json.Encoder()


class ReviewEvent(Struct, frozen=True, gc=False):
    """One entry of the review log: a grade, or an undo of a named event.

    A frozen Struct, as :class:`~zerodrill.srs.card_actions.CardActionEvent` is: a frozen
    dataclass set each field through ``object.__setattr__``, 2.9 µs an event, and a sync
    makes one for every event it reads (bench_anki_sync.py's 30,000; issue 35 point 7).
    Untracked by the garbage collector (``gc=False``), as the states a replay makes are
    (:class:`~zerodrill.srs.schedulers.sm2.Sm2Card`): a value of scalars and other values,
    which no reference cycle can pass through."""

    #: Where it was made: a machine id, or ``"anki"``.
    origin: str
    #: Its number among its origin's events (Anki's revlog id), 1 and up.
    seq: int
    #: The card (study item) key.
    key: str
    #: Wall time, timezone-aware.
    at: datetime
    #: The study day it counts for (for an undo: the day of the event it withdraws).
    day: date
    #: The grade given, 0-5; None for an undo.
    grade: Grade | None
    #: For an undo, the identity of the event it withdraws; None otherwise.
    undoes: Identity | None = None
    #: How long the answer took, in milliseconds.
    answer_ms: int | None = None
    #: What the learner typed; stays on the machine it was typed on (not on the wire).
    typed: str | None = None
    #: The layout the grade was pressed on: 6 (SM-2's six grades), or 4 for Anki's four
    #: buttons (the drill's, or an answer imported from Anki), where Easy means more than
    #: grade 5 (see :mod:`zerodrill.srs.schedulers.sm2`). Logs from before it was kept are 6.
    buttons: int = DEFAULT_LAYOUT
    #: For an answer given in Anki, what Anki decided (:mod:`zerodrill.srs.schedulers.decision`):
    #: every machine's replay takes it as the card's state. None for zerodrill's grades.
    decided: AnkiDecision | None = None

    def __post_init__(self) -> None:
        grade = self.grade
        # A grade as the store and Anki's reader make them, all checks below passed in one
        # test: each of bench_anki_sync.py's 20,000 events is made through here.
        if (
            type(grade) is Grade
            and self.undoes is None
            and self.key
            and self.at.tzinfo is not None
            and (self.answer_ms is None or self.answer_ms >= 0)
            and (self.buttons == DEFAULT_LAYOUT or self.buttons == ANKI_LAYOUT)
            and type(self.buttons) is int
        ):
            return
        if self.at.tzinfo is None:
            raise ValueError(f"an event's time must carry its UTC offset: {self!r}")
        if (self.grade is None) == (self.undoes is None):
            raise ValueError(f"an event is a grade or an undo of a named event: {self!r}")
        if self.grade is not None and not isinstance(self.grade, Grade):
            force_setattr(self, "grade", to_grade(self.grade))
        if not self.key:
            raise ValueError("an event needs a card key")
        if self.answer_ms is not None and self.answer_ms < 0:
            raise ValueError(f"answer time must not be negative, not {self.answer_ms}")
        if self.decided is not None and self.grade is None:
            raise ValueError(f"an undo has no schedule of Anki's: {self!r}")
        if check_layout(self.buttons) != DEFAULT_LAYOUT and self.grade is None:
            raise ValueError(f"an undo is pressed on no buttons: {self!r}")

    @property
    def identity(self) -> Identity:
        return (self.origin, self.seq)

    @property
    def is_undo(self) -> bool:
        return self.undoes is not None

    def to_wire(self) -> dict[str, Any]:
        """The event as one line of a sync file carries it (JSON-safe; ``typed`` stays here).

        ``kind`` is "grade" or "undo"; files written before the log held events also say
        "repeat", which :mod:`~zerodrill.srs.sync.wire` reads as a grade (the replay decides
        what it is).
        ``buttons`` is there only for a grade pressed on Anki's four buttons: a six-grade line
        is as it always was, and a reader that predates the field reads the line's grade.
        ``decided`` is there only for an answer given in Anki: what Anki decided.
        """
        wire = {
            "origin": self.origin,
            "seq": self.seq,
            "key": self.key,
            "kind": "undo" if self.is_undo else "grade",
            "at": self.at.isoformat(),
            "day": self.day.isoformat(),
            "grade": int(self.grade) if self.grade is not None else None,
            "undoes": list(self.undoes) if self.undoes is not None else None,
            "answer_ms": self.answer_ms,
        }
        if self.buttons != DEFAULT_LAYOUT:
            wire["buttons"] = self.buttons
        if self.decided is not None:
            wire["decided"] = self.decided.to_wire()
        return wire

    def to_json(self) -> str:
        """:meth:`to_wire` as one line of JSON (without the newline)."""
        return _WIRE_JSON.encode(self.to_wire()).decode()


class LoggedEvent(Struct, frozen=True, gc=False):
    """An event as this database's log holds it: its place in the log and what the replay
    made of it."""

    #: Its row in this database (the order it was logged here; not the same on other machines).
    id: int
    event: ReviewEvent
    #: What the grade was (first sight, recall, same-day repeat); None for an undo, a grade
    #: withdrawn by one, or a grade not replayed yet.
    effect: Effect | None = None

    @property
    def key(self) -> str:
        return self.event.key

    @property
    def grade(self) -> Grade | None:
        return self.event.grade

    @property
    def at(self) -> datetime:
        return self.event.at

    @property
    def day(self) -> date:
        return self.event.day

    @property
    def identity(self) -> Identity:
        return self.event.identity

    @property
    def undoes(self) -> Identity | None:
        return self.event.undoes

    @property
    def answer_ms(self) -> int | None:
        return self.event.answer_ms

    @property
    def typed(self) -> str | None:
        return self.event.typed

    @property
    def buttons(self) -> int:
        return self.event.buttons

    @property
    def in_effect(self) -> bool:
        return self.effect is not None

    @property
    def introduced(self) -> bool:
        """This grade was the card's first in effect: it turned a new card into a known one."""
        return self.effect is Effect.FIRST

    @property
    def repeat(self) -> bool:
        """Another grade on a study day the card had one already: it moved no day-based
        schedule."""
        return self.effect is Effect.REPEAT


#: Any event of the log: a review (a grade, or an undo), or a card action.
StreamEvent = ReviewEvent | CardActionEvent


#: The one total order events are replayed in: by study day, as a day-based scheduler counts
#: days (a clock set wrong, or a machine in another time zone, cannot put a grade before one of
#: an earlier day), then by the instant given, then by identity, so every machine agrees on
#: ties. An event's (day, at, origin, seq), read in C: a sort calls it once an event.
time_order: Callable[[ReviewEvent | CardActionEvent], tuple[date, datetime, str, int]] = attrgetter(
    "day", "at", "origin", "seq"
)
