"""A third scheduler that zerodrill does not ship, for the tests: Leitner's boxes.

It is what a contributor adding a scheduler writes, in one module, and nothing else: the state,
the class with its name, title, options, the help on its grades and how a state reads in Anki.
:func:`register_for_test` adds it to the registry (as ``kind_support`` adds a card kind) until
the test ends.

The rule: a card climbs one box per pass (a grade of 3 or more) on a new study day and falls
to the first on a fail; box n is due ``interval * 2 ** (n - 1)`` days on (``interval`` an
option, 1 by default), so 1, 2, 4, 8 and 16 days for five boxes. A second grade on a study day
moves nothing, and a fail brings the card back that day.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import Any

import pytest
from msgspec import Struct

from zerodrill.srs import schedulers
from zerodrill.srs.grades import DEFAULT_LAYOUT, Grade, to_grade
from zerodrill.srs.schedulers.protocol import DEFAULT_EASE_PERMILLE, AnkiCard, Option, Phase, When

NAME = "leitner"
BOXES = 5


def _first_interval(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 7:
        raise ValueError(f"a first interval of 1-7 days, not {value}")
    return value


#: The days box 1 waits; each box after waits twice the one before.
FIRST_INTERVAL = Option(
    "first_interval", "leitner_first_interval", "first interval", _first_interval
)


class LeitnerCard(Struct, frozen=True):
    box: int = 0
    due: date | None = None
    interval: int = 0
    last_day: date | None = None
    last_grade: int | None = None
    last_at: datetime | None = None
    lapses: int = 0
    passes: int = 0

    @property
    def phase(self) -> Phase:
        if self.box == 0:
            return Phase.NEW
        if self.again_on is None:
            return Phase.REVIEW
        return Phase.RELEARNING if self.lapses else Phase.LEARNING

    @property
    def again_on(self) -> date | None:
        failed = self.last_grade is not None and self.last_grade < Grade.HARD
        return self.last_day if failed else None

    @property
    def step_due(self) -> datetime | None:
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "box": self.box,
            "due": self.due.isoformat() if self.due else None,
            "interval": self.interval,
            "last_day": self.last_day.isoformat() if self.last_day else None,
            "last_grade": self.last_grade,
            "last_at": self.last_at.isoformat() if self.last_at else None,
            "lapses": self.lapses,
            "passes": self.passes,
        }


class LeitnerScheduler:
    name = NAME
    title = "Leitner"
    options = (FIRST_INTERVAL,)
    grades_help = (
        "Leitner's boxes: a pass (3-5) moves the card up a box, a fail\nback to the first."
    )

    def __init__(self, first_interval: int = 1) -> None:
        self.first_interval = _first_interval(str(first_interval))

    @property
    def fingerprint(self) -> str:
        return f"leitner boxes={BOXES} first={self.first_interval}"

    def new_state(self) -> LeitnerCard:
        return LeitnerCard()

    def review(
        self, state: LeitnerCard, grade: Grade, when: When, buttons: int = DEFAULT_LAYOUT
    ) -> LeitnerCard:
        grade = to_grade(grade)
        if state.last_day is not None and when.day <= state.last_day:
            # A same-day repeat: logged, the schedule unchanged.
            return LeitnerCard(
                state.box, state.due, state.interval, state.last_day, int(grade), when.at,
                state.lapses, state.passes,
            )  # fmt: skip
        passed = grade.passed
        box = min(BOXES, state.box + 1) if passed else 1
        interval = self.first_interval * 2 ** (box - 1)
        lapses = state.lapses + (not passed and state.box > 0)
        return LeitnerCard(
            box, when.day + timedelta(days=interval), interval, when.day, int(grade), when.at,
            lapses, state.passes + passed,
        )  # fmt: skip

    def next_states(
        self, state: LeitnerCard, when: When, buttons: int = DEFAULT_LAYOUT
    ) -> Mapping[Grade, LeitnerCard]:
        return {grade: self.review(state, grade, when, buttons) for grade in Grade}

    def state_from_dict(self, data: Mapping[str, Any]) -> LeitnerCard:
        try:
            day = data["last_day"]
            return LeitnerCard(
                int(data["box"]),
                date.fromisoformat(data["due"]) if data["due"] else None,
                int(data["interval"]),
                date.fromisoformat(day) if day else None,
                data["last_grade"],
                datetime.fromisoformat(data["last_at"]) if data["last_at"] else None,
                int(data["lapses"]),
                int(data["passes"]),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a Leitner card state: {exc}") from exc

    def anki(self, state: LeitnerCard) -> AnkiCard:
        return AnkiCard(
            state.due, state.interval, DEFAULT_EASE_PERMILLE, state.passes, state.lapses
        )


def register_for_test(monkeypatch: pytest.MonkeyPatch) -> str:
    """Leitner's boxes registered until the test ends; the registry is then as it was."""
    where = f"{__name__}:LeitnerScheduler"
    # The registry is one dict that the modules share: changed in place, and emptied of it at
    # the end (monkeypatch undoes in reverse: the delitem puts it back, the setitem drops it).
    monkeypatch.setitem(schedulers.SCHEDULERS, NAME, where)
    monkeypatch.delitem(schedulers.SCHEDULERS, NAME)
    schedulers.register(NAME, where)
    return NAME
