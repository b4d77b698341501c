"""What the screens need from a drill session, as one small interface.

The screens never see the store or SQL: they ask a :class:`DrillSession` for the card to show
and hand it grades. :class:`zerodrill.srs.sitting.Session` implements it; the tests drive that
same class with a temporary database. Values that ``zerodrill.srs`` already defines (what is
left, what a grade would do, the sitting's summary, the statistics) are used as they are, and
named here too, so the screens find their whole vocabulary in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING, Protocol

from zerodrill.deck.model import Deck, Item
from zerodrill.srs.card_actions import Action, CardActionEvent, CardMarks
from zerodrill.srs.grades import DEFAULT_LAYOUT
from zerodrill.srs.queue import Counts
from zerodrill.srs.schedulers.protocol import GradeOutcome
from zerodrill.srs.sitting import DeckCount, Outlook, Summary

if TYPE_CHECKING:
    from zerodrill.srs.interview_plan import Plan
    from zerodrill.srs.review_stats import Stats

__all__ = ["Counts", "DeckCount", "DrillSession", "GradeOutcome", "Outlook", "Summary"]


class DrillSession(Protocol):
    #: The deck's title, or "All decks" when several are drilled together.
    title: str
    #: The deck drilled, or None for all of them.
    deck_id: str | None
    #: The sitting's study day.
    day: date
    #: The interview date planned for, or None.
    interview: date | None

    @property
    def plan(self) -> Plan | None:
        """The plan for the interview date today; None without one ahead."""
        ...

    @property
    def current(self) -> Item | None: ...

    @property
    def is_repeat(self) -> bool:
        """The current card was already graded today: it is back for another go."""
        ...

    @property
    def can_undo(self) -> bool: ...

    @property
    def done(self) -> int:
        """Grades given in this sitting (repeats included, undone ones not)."""
        ...

    def remaining(self) -> Counts: ...

    def choices(self, buttons: int = DEFAULT_LAYOUT) -> Sequence[GradeOutcome]:
        """What each grade 0-5 would do to the current card, pressed on the layout of
        ``buttons`` (6, or 4 for Anki's: the grade bar's)."""
        ...

    def grade(
        self, quality: int, *, typed: str | None = None, buttons: int = DEFAULT_LAYOUT
    ) -> None:
        """Store the grade, pressed on the layout of ``buttons`` (committed before this
        returns), and move to the next card."""
        ...

    def undo(self) -> Item | None:
        """Take back the last grade; that card becomes current again."""
        ...

    def summary(self) -> Summary: ...

    def outlook(self) -> Outlook:
        """Why no card is on show, and what comes next (the "nothing due" screen's facts)."""
        ...

    def stats(self) -> Stats: ...

    def deck_counts(self) -> Sequence[DeckCount]: ...

    def select_deck(self, deck_id: str | None) -> None:
        """Drill one deck from now on (or all of them again, for None), in the same sitting."""
        ...

    def replace_decks(self, decks: Sequence[Deck]) -> None:
        """Drill ``decks`` in place of the ones given (a deck file edited meanwhile), keeping
        the sitting's grades and, if it is still in them, the card on show."""
        ...

    def act(self, action: Action, *, flag: int = 0) -> CardActionEvent:
        """Suspend, bury, flag or mark the current card (an event in the log; undo takes it
        back). Suspend and bury move on to the next card."""
        ...

    def marks(self) -> CardMarks:
        """The current card's marks (its flag, marked or not)."""
        ...

    def unsuspend_all(self) -> int:
        """Unsuspend every suspended card of the decks drilled; how many."""
        ...

    @property
    def next_undo(self) -> str | None:
        """What :meth:`undo` would take back: "grade", a card action's name, or None."""
        ...
