"""What the learner did to a card besides grading it: suspend, bury, flag, mark (Anki's own), a
due date set or a Forget in Anki (:data:`SCHEDULE_ACTIONS`), and the undo of one of those.
Events, like the review log's: nothing but what was done, when and by whom; a card's marks
(suspended, buried today, its flag, marked) are derived by replaying its events in time order
(:func:`replay`), and the changes to its schedule with its grades, by the scheduler.

They are events of the review log (:mod:`zerodrill.srs.store.actions`), and so is the
interview's bringing a card forward (:attr:`Action.BRING_FORWARD`): identity ``(origin, seq)``
numbered with the machine's reviews, one undo rule (an undo names the event it withdraws by
identity, whatever its kind), one merge, one line in a sync file (:meth:`CardActionEvent.to_wire`,
:mod:`zerodrill.srs.sync.wire`). Actions logged before they joined the log were numbered apart
from reviews: they keep their numbers moved by :func:`legacy_seq`. ``zerodrill anki sync``
gives them to Anki and brings back those made in Anki, of origin ``anki``
(:mod:`zerodrill.anki_sync.marks`); the export's ``--with-progress`` writes them into the
package. All three map them to Anki by :mod:`zerodrill.export.anki_marks`.

Anki's meanings: *suspend* keeps a card out of every queue until unsuspended; *bury* keeps it
out until the next study day (Anki's "bury until tomorrow"); a *flag* is one of seven colours
(0 is none) and a card has one at a time; *mark* is Anki's "marked" note tag, on or off.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import date, datetime
from enum import StrEnum
from typing import Any

from msgspec import Struct
from msgspec.structs import replace

from zerodrill.srs.schedulers.decision import AnkiDecision

#: An event's identity on every machine: (origin, sequence number at that origin).
Identity = tuple[str, int]

#: Anki's flag colours, by number (Ctrl+1..7 in Anki's reviewer and in the drill).
FLAGS = {
    1: "red",
    2: "orange",
    3: "green",
    4: "blue",
    5: "pink",
    6: "turquoise",
    7: "purple",
}


class Action(StrEnum):
    SUSPEND = "suspend"
    UNSUSPEND = "unsuspend"
    BURY = "bury"  #: until the next study day
    FLAG = "flag"  #: set the card's flag to :attr:`CardActionEvent.flag` (0: none)
    MARK = "mark"
    UNMARK = "unmark"
    UNDO = "undo"  #: withdraws the event :attr:`CardActionEvent.undoes` names
    #: An interview missed the card's point: due in the drill until graded after it.
    BRING_FORWARD = "bring_forward"
    #: Not a card's: the learner's setting :attr:`CardActionEvent.key` names is
    #: :attr:`CardActionEvent.value` (:mod:`zerodrill.srs.store.saved_settings`).
    SETTING = "setting"
    #: Anki's Set Due Date (or FSRS's reschedule) made there: the card due on the day, with
    #: the interval and ease, :attr:`CardActionEvent.decided` says; no grade.
    SET_DUE = "set_due"
    #: Anki's Forget (Reset) made there: the card new again; its next grade is its first.
    FORGET = "forget"


#: The actions that change a card's schedule: replayed with its grades, in their time order
#: (:func:`zerodrill.srs.schedulers.protocol.replay`), and no mark.
SCHEDULE_ACTIONS = frozenset({Action.SET_DUE, Action.FORGET})


class CardActionEvent(Struct, frozen=True):
    """One thing done to a card (not a grade), or the undo of one."""

    origin: str
    seq: int
    #: The card (study item) key.
    key: str
    #: Wall time, timezone-aware.
    at: datetime
    #: The study day it counts for (a bury lasts to the end of it).
    day: date
    action: Action
    #: For :attr:`Action.FLAG`: the flag set, 0-7 (0 clears it); 0 otherwise.
    flag: int = 0
    #: For :attr:`Action.UNDO`: the identity of the event withdrawn; None otherwise.
    undoes: Identity | None = None
    #: For :attr:`Action.SETTING`: the setting's value, as text; None otherwise.
    value: str | None = None
    #: For :attr:`Action.SET_DUE`: what Anki set; None otherwise.
    decided: AnkiDecision | None = None

    def __post_init__(self) -> None:
        if self.at.tzinfo is None:
            raise ValueError(f"an event's time must carry its UTC offset: {self!r}")
        if not self.key:
            raise ValueError("an event needs a card key")
        if (self.action is Action.UNDO) != (self.undoes is not None):
            raise ValueError(f"an undo, and only an undo, names what it undoes: {self!r}")
        if not (0 <= self.flag <= 7) or (self.flag and self.action is not Action.FLAG):
            raise ValueError(f"a flag is 0-7, on a flag event only: {self!r}")
        if (self.action is Action.SET_DUE) != (self.decided is not None):
            raise ValueError(f"a due date set, and only that, says what was set: {self!r}")
        if (self.action is Action.SETTING) != (self.value is not None):
            raise ValueError(f"a setting event, and only one, has a value: {self!r}")

    @property
    def identity(self) -> Identity:
        return (self.origin, self.seq)

    def to_wire(self) -> dict[str, Any]:
        """The event as one line of a sync file carries it (JSON-safe): ``kind`` the action;
        an undo's line is a review undo's (see :mod:`zerodrill.srs.sync.wire`)."""
        wire: dict[str, Any] = {
            "origin": self.origin,
            "seq": self.seq,
            "key": self.key,
            "kind": self.action.value,
            "at": self.at.isoformat(),
            "day": self.day.isoformat(),
        }
        if self.action is Action.FLAG:
            wire["flag"] = self.flag
        if self.decided is not None:
            wire["decided"] = self.decided.to_wire()
        if self.value is not None:
            wire["value"] = self.value
        if self.undoes is not None:
            wire |= {"grade": None, "undoes": list(self.undoes), "answer_ms": None}
        return wire

    def to_json(self) -> str:
        """:meth:`to_wire` as one line of JSON (without the newline)."""
        return json.dumps(self.to_wire(), ensure_ascii=False, separators=(",", ":"))


#: The ``kind`` of a card action's line in a sync file before actions joined the log.
LEGACY_WIRE_KIND = "action"
#: Numbers from half of this up are those of actions logged before they joined the log (see
#: :func:`legacy_seq`); a machine numbers its events below.
LEGACY_SEQ_TOP = 2**63


def legacy_seq(seq: int) -> int:
    """The number an action numbered ``seq`` apart from reviews (before actions joined the log:
    1 to ``2**62``) has now, the same on every machine: ``2**63 - seq``. ValueError for a
    number no zerodrill gave an action."""
    if not 1 <= seq <= LEGACY_SEQ_TOP // 2:
        raise ValueError(f"no card action was numbered {seq}")
    return LEGACY_SEQ_TOP - seq


class CardMarks(Struct, frozen=True):
    """A card's marks, as its events leave them."""

    suspended: bool = False
    #: The study day it was last buried on: out of the queue for that day only.
    buried_on: date | None = None
    flag: int = 0
    marked: bool = False

    def hidden_on(self, day: date) -> bool:
        """Kept out of the drill's queue on study day ``day``."""
        return self.suspended or self.buried_on == day


NO_MARKS = CardMarks()


def time_order(event: CardActionEvent) -> tuple[datetime, str, int]:
    """The order a card's events are replayed in: by instant, then identity (ties agree)."""
    return (event.at, event.origin, event.seq)


def replay(events: Iterable[CardActionEvent]) -> dict[str, CardMarks]:
    """Each card's marks after ``events`` (any order); cards with none left are absent."""
    events = list(events)
    withdrawn = {e.undoes for e in events if e.action is Action.UNDO}
    marks: dict[str, CardMarks] = {}
    for e in sorted(events, key=time_order):
        if e.action in _NOT_MARKS or e.identity in withdrawn:
            continue
        before = marks.get(e.key, NO_MARKS)
        marks[e.key] = _applied(before, e)
    return {key: m for key, m in marks.items() if m != NO_MARKS}


_NOT_MARKS = (Action.UNDO, Action.BRING_FORWARD, Action.SETTING, *SCHEDULE_ACTIONS)


def _applied(marks: CardMarks, e: CardActionEvent) -> CardMarks:
    if e.action is Action.SUSPEND:
        return replace(marks, suspended=True)
    if e.action is Action.UNSUSPEND:
        return replace(marks, suspended=False)
    if e.action is Action.BURY:
        return replace(marks, buried_on=e.day)
    if e.action is Action.FLAG:
        return replace(marks, flag=e.flag)
    if e.action is Action.MARK:
        return replace(marks, marked=True)
    if e.action is Action.UNMARK:
        return replace(marks, marked=False)
    raise AssertionError(e.action)
