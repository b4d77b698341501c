"""A card's marks (suspended, buried, flagged, marked) as Anki has them: the one mapping that
``export --with-progress`` writes into a package and ``zerodrill anki sync`` writes into a
collection and reads back from it.

- *suspended*: Anki's suspended queue (-1);
- *buried* (today): Anki's queue of cards the user buried (-3), which Anki empties at its next
  day as zerodrill's bury lasts its study day; -2, a sibling buried by Anki's scheduler, is not
  the user's and not a mark;
- a *flag*: the card's own flag, 1-7 (Anki's flags column, its low three bits);
- *marked*: the note's ``marked`` tag, Anki's "Mark Note" (a note with several cards, a cloze
  note, is marked while any of its cards is).
"""

from __future__ import annotations

from datetime import date

from msgspec import Struct

from zerodrill.srs.card_actions import CardMarks

#: Anki's card queues the marks put a card in.
SUSPENDED_QUEUE, BURIED_QUEUE = -1, -3
#: Anki's queue of siblings its scheduler buried until its next day: no mark, but where a
#: card the drill holds for another day as a sibling goes (:mod:`zerodrill.srs.queue`).
SIBLING_BURIED_QUEUE = -2
#: The note tag Anki's "Mark Note" sets.
MARKED_TAG = "marked"
#: The bits of Anki's flags column that hold the user's flag.
FLAG_BITS = 0b111


class AnkiMarks(Struct, frozen=True):
    """A card's marks on one day, as Anki holds them."""

    suspended: bool = False
    #: Buried today (in Anki's user-buried queue until its next day).
    buried: bool = False
    flag: int = 0
    marked: bool = False

    @classmethod
    def of(cls, marks: CardMarks, today: date) -> AnkiMarks:
        """zerodrill's marks of a card on study day ``today``: suspended outranks buried, as
        a card has one queue."""
        return cls(
            marks.suspended,
            marks.hidden_on(today) and not marks.suspended,
            marks.flag,
            marks.marked,
        )

    @classmethod
    def read(cls, queue: int, flags: int, tags: str) -> AnkiMarks:
        """The marks of a card in Anki's ``queue`` with its ``flags`` column, its note's
        ``tags`` (Anki's space-separated text; tags are matched without regard to case)."""
        return cls(
            queue == SUSPENDED_QUEUE,
            queue == BURIED_QUEUE,
            flags & FLAG_BITS,
            MARKED_TAG in tags.lower().split(),
        )

    def queue(self, queue: int) -> int:
        """The queue a card bound for ``queue`` is put in with these marks (one suspended
        already, a retired card's, stays so)."""
        if queue == SUSPENDED_QUEUE or self.suspended:
            return SUSPENDED_QUEUE
        return BURIED_QUEUE if self.buried else queue


NO_ANKI_MARKS = AnkiMarks()
