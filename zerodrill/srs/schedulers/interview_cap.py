"""The interview date's cap on every interval: a card graded before the last study day before
the interview comes back on that day at the latest.

:class:`InterviewCap` wraps the scheduler in use (SM-2 or FSRS) behind the same protocol. It
leaves the scheduler's own state whole (SM-2's interval and ease, FSRS's stability: what the
next grade is computed from) and caps only the due day the queue reads, and the interval the
grade buttons show:

- **The rule.** Let L be the last study day before the interview (the day before it). A grade
  given on a study day before L gives a due day no later than L; a grade given on L or later
  keeps the scheduler's own due (the card has had its look before the interview, and the
  interview day itself is left free).
- **SM-2** has no model of recall: a first Good on day 1 would come back six days later, after
  the interview; the cap brings it back on L.
- **FSRS** gives the day its predicted recall falls to the desired retention: where that day
  comes before L, time allows and it stands (the card is met at the desired retention, as
  FSRS aims); where it falls after, the card comes back on L, close to the day, when the
  predicted recall is still above it, so that on the day it is higher still.

An answer given in Anki is not capped: whoever answers a card decides its next interval, and the
phone, which knows no interview date, shows the day Anki gave it; capped in the drill only, the
two would disagree. The next grade given in zerodrill is capped again.

The cap is a projection over the log, never stored as an event: the cache derived with it
carries its fingerprint (the inner one and the date), so setting, moving or clearing the date
derives every card again from its grades, and clearing it gives the scheduler's own schedule
exactly. After the interview the grades given are capped no more: the schedule goes on as the
scheduler has it, every grade counted.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from msgspec import Struct, structs

from zerodrill.srs.grades import DEFAULT_LAYOUT, Grade
from zerodrill.srs.schedulers.decision import AnkiDecision
from zerodrill.srs.schedulers.protocol import (
    AnkiCard,
    CardState,
    Phase,
    Scheduler,
    StateDict,
    When,
    answerer,
)

#: The key :meth:`CappedCard.to_dict` adds for a state Anki decided.
_ANKI_DECIDED = "anki_decided"


def last_study_day(interview: date) -> date:
    """The last study day before ``interview``: the day every card comes back by."""
    return interview - timedelta(days=1)


def capped(due: date | None, last_day: date | None, interview: date) -> date | None:
    """The due day a card graded last on ``last_day``, due on ``due`` by its scheduler, gets
    with ``interview`` ahead (see the module's docstring)."""
    cap = last_study_day(interview)
    if due is None or last_day is None or last_day >= cap or due <= cap:
        return due
    return cap


class CappedCard(Struct, frozen=True):
    """A card's state: the scheduler's own (``inner``) with its due day capped."""

    inner: Any
    due: date | None
    #: Days from the card's last grade to :attr:`due`: what its grade button shows.
    interval: int
    #: Its last answer was given in Anki and keeps Anki's due, uncapped.
    anki_decided: bool = False

    @property
    def phase(self) -> Phase:
        phase: Phase = self.inner.phase
        return phase

    @property
    def last_day(self) -> date | None:
        day: date | None = self.inner.last_day
        return day

    @property
    def again_on(self) -> date | None:
        day: date | None = self.inner.again_on
        return day

    @property
    def step_due(self) -> datetime | None:
        at: datetime | None = self.inner.step_due
        return at

    def to_dict(self) -> StateDict:
        # The scheduler's own: the cap follows from it and the date (in the fingerprint),
        # but for an answer Anki decided, which no state tells from the drill's own.
        data: StateDict = self.inner.to_dict()
        return {**data, _ANKI_DECIDED: True} if self.anki_decided else data

    def __getattr__(self, name: str) -> Any:
        # What a scheduler's state has beyond the protocol (SM-2's numbers) is the inner
        # state's, as an uncapped state would have it.
        return getattr(self.inner, name)


class InterviewCap:
    """``inner`` with every due day capped before ``interview`` (see the module's docstring)."""

    def __init__(self, inner: Scheduler[Any], interview: date) -> None:
        self.inner = inner
        self.interview = interview
        self.name = inner.name
        self.title = inner.title
        self.options = inner.options
        self.grades_help = inner.grades_help
        # The inner scheduler's step for an answer given in Anki, looked up once: a replay
        # takes one for each such answer.
        self._answer = answerer(inner)
        self._adopts = getattr(inner, "from_anki", None) is not None

    @property
    def fingerprint(self) -> str:
        return f"{self.inner.fingerprint} interview={self.interview.isoformat()}"

    def cap(self, state: CardState) -> CappedCard:
        due = capped(state.due, state.last_day, self.interview)
        if due == state.due or state.last_day is None or due is None:
            return CappedCard(state, state.due, state.interval)
        return CappedCard(state, due, (due - state.last_day).days)

    def new_state(self) -> CappedCard:
        return self.cap(self.inner.new_state())

    def review(
        self, state: CappedCard, grade: Grade, when: When, buttons: int = DEFAULT_LAYOUT
    ) -> CappedCard:
        return self.cap(self.inner.review(state.inner, grade, when, buttons))

    def from_anki(
        self, state: CappedCard, grade: Grade, when: When, buttons: int, decided: AnkiDecision
    ) -> CappedCard:
        inner = self._answer(state.inner, grade, when, buttons, decided)
        if not self._adopts:
            return self.cap(inner)  # scheduled as the drill's own answer: capped as one
        return CappedCard(inner, inner.due, inner.interval, anki_decided=True)

    def next_states(
        self, state: CappedCard, when: When, buttons: int = DEFAULT_LAYOUT
    ) -> Mapping[Grade, CappedCard]:
        after = self.inner.next_states(state.inner, when, buttons)
        return {grade: self.cap(inner) for grade, inner in after.items()}

    def state_from_dict(self, data: Mapping[str, Any]) -> CappedCard:
        own = {k: v for k, v in data.items() if k != _ANKI_DECIDED}
        inner = self.inner.state_from_dict(own)
        if data.get(_ANKI_DECIDED) is True:
            return CappedCard(inner, inner.due, inner.interval, anki_decided=True)
        return self.cap(inner)

    def anki(self, state: CappedCard) -> AnkiCard:
        # The scheduler's own numbers, due on the capped day.
        own = self.inner.anki(state.inner)
        return structs.replace(own, due=state.due, interval=state.interval)

    # FSRS's forecast of recall (zerodrill.srs.recall), where the inner scheduler makes one:
    # without it these raise AttributeError, so the scheduler reads as forecasting none.

    @property
    def desired_retention(self) -> float:
        retention: float = getattr(self.inner, "desired_retention")  # noqa: B009
        return retention

    def retrievability(self, state: CappedCard, at: datetime) -> float | None:
        forecast = getattr(self.inner, "retrievability")  # noqa: B009
        chance: float | None = forecast(state.inner, at)
        return chance


if TYPE_CHECKING:

    def _check(inner: Scheduler[Any]) -> Scheduler[CappedCard]:
        # mypy holds the class to the protocol here.
        return InterviewCap(inner, date.min)
