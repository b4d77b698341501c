"""What the screens need from a drill session, as one small interface.

The screens never see the store, the queue or SQL: they ask a :class:`DrillSession` for the
card to show and hand it grades. :mod:`zerodrill.tui.srs_session` implements it over
``zerodrill.srs``; tests use that same implementation with a temporary database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Protocol

from zerodrill.deck.model import Item


@dataclass(frozen=True, slots=True)
class Remaining:
    """What is left in the session, split the way Anki shows it."""

    new: int
    repeats: int
    reviews: int

    @property
    def total(self) -> int:
        return self.new + self.repeats + self.reviews


@dataclass(frozen=True, slots=True)
class GradeChoice:
    grade: int
    #: What the grade would do, e.g. "6d", or "↻" for "comes back in this session".
    outcome: str
    #: True when the card comes back later in this session after this grade.
    again: bool


@dataclass(frozen=True, slots=True)
class Summary:
    reviews: int
    cards: int
    grades: Mapping[int, int]
    seconds: float
    due_tomorrow: int


@dataclass(frozen=True, slots=True)
class DeckCount:
    #: None for "all decks together".
    deck_id: str | None
    title: str
    due: int
    new: int


@dataclass(frozen=True, slots=True)
class StatsView:
    cards: int
    known: int
    new: int
    due_today: int
    due_tomorrow: int
    reviews: int
    reviews_today: int
    #: Share of review grades >= 3 over the last 30 days; None without reviews.
    retention: float | None
    #: Cards due on each of the next 30 days, today first (overdue counted today).
    forecast: Sequence[int] = field(default_factory=tuple)
    today: date | None = None


class DrillSession(Protocol):
    #: "DeepSpeed ZeRO", or "All decks" when several are drilled together.
    title: str

    @property
    def current(self) -> Item | None: ...

    @property
    def is_repeat(self) -> bool:
        """The current card was already graded today: its grade moves no schedule."""
        ...

    @property
    def can_undo(self) -> bool: ...

    @property
    def done(self) -> int:
        """Grades given in this session (repeats included)."""
        ...

    def remaining(self) -> Remaining: ...

    def choices(self) -> Sequence[GradeChoice]:
        """The six grades for the current card, with what each would do."""
        ...

    def grade(self, quality: int, *, typed: str | None = None) -> None:
        """Store the grade (committed before this returns) and move to the next card."""
        ...

    def undo(self) -> Item | None:
        """Take back the last grade; that card becomes current again."""
        ...

    def summary(self) -> Summary: ...

    def next_due(self) -> datetime | None:
        """When the next card (review or new) becomes available; None if never."""
        ...

    def stats(self) -> StatsView: ...

    def deck_counts(self) -> Sequence[DeckCount]: ...

    def narrowed(self, deck_id: str | None) -> DrillSession:
        """A session over one deck (or all of them again, for None)."""
        ...
