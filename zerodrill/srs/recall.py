"""FSRS's forecast of recall for some cards, at one moment, for ``stats`` (SM-2 makes none).

The average chance of recall is what Anki's statistics call "average retrievability"; the
cards below the desired retention are the ones FSRS holds overdue.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from msgspec import Struct


@runtime_checkable
class ForecastsRecall(Protocol):
    desired_retention: float
    title: str

    def retrievability(self, state: Any, at: datetime) -> float | None: ...


class Recall(Struct, frozen=True):
    at: datetime
    #: The retention FSRS schedules for.
    desired: float
    #: Cards studied (new ones have no retrievability).
    cards: int
    #: The mean chance of recall over them; None when there are none.
    average: float | None
    #: How many of them are below the desired retention: FSRS's overdue cards.
    below: int
    #: The scheduler's title, which the figure is from.
    by: str

    def as_json(self) -> dict[str, Any]:
        return {
            "at": self.at.isoformat(),
            "desired": self.desired,
            "cards": self.cards,
            "average": self.average,
            "below": self.below,
        }


def recall_of(scheduler: object, states: Iterable[Any], at: datetime) -> Recall | None:
    """The retrievability of cards in ``states`` under ``scheduler`` at ``at``, if it has one."""
    if not isinstance(scheduler, ForecastsRecall):
        return None
    chances = [r for s in states if (r := scheduler.retrievability(s, at)) is not None]
    desired = scheduler.desired_retention
    return Recall(
        at=at,
        desired=desired,
        cards=len(chances),
        average=sum(chances) / len(chances) if chances else None,
        below=sum(1 for r in chances if r < desired),
        by=scheduler.title,
    )
