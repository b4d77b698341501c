"""The learner's profile: every saved choice a command works under, read once, when the store
opens (:meth:`zerodrill.srs.store.Store.open`), so no command can schedule otherwise.

It holds the scheduler made with the learner's options (FSRS's desired retention, say) and
capped before the interview date, the grade layout, and the interview date itself. The
settings (:mod:`zerodrill.srs.settings`) read and save each choice; this is what they add up to.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from msgspec import Struct

from zerodrill.srs.grades import DEFAULT_LAYOUT
from zerodrill.srs.schedulers import Scheduler


class Profile(Struct, frozen=True):
    """The learner's choices, fixed for as long as the store is open (a drill changes them
    through the settings, and the store's profile with them)."""

    #: What derives every card's state: the chosen scheduler with its options (and the
    #: interview's cap, with a date).
    scheduler: Scheduler[Any]
    #: The grade layout: 6 grades, or Anki's 4 buttons.
    buttons: int = DEFAULT_LAYOUT
    #: The interview date planned for; None for none.
    interview: date | None = None

    @property
    def scheduler_name(self) -> str:
        """The scheduler's name ("sm2", "fsrs")."""
        return self.scheduler.name
