"""The steps of an interview attempt: one frozen value per kind, each kind with one name.

:class:`Step` names them, as the attempt log's ``step`` column holds them, as
:attr:`zerodrill.srs.interview_run.InterviewRun.step` says which comes next, and as the interview's
screens are chosen: ``question``, ``points``, ``follow_up`` (one per follow-up card),
``red_flags`` and ``finish``. Each value's fields are the JSON object of the log's ``data``
column, under the same names (:func:`step_data`, :func:`step_from`); fields added since the
first release have defaults, so every attempt ever logged still reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any, ClassVar

from msgspec import Meta, Struct, ValidationError, convert, to_builtins

#: As zerodrill writes them: anything else read back is damage.
Count = Annotated[int, Meta(ge=0)]
Seconds = Annotated[float, Meta(ge=0)]


class Step(StrEnum):
    QUESTION = "question"
    POINTS = "points"
    FOLLOW_UP = "follow_up"
    RED_FLAGS = "red_flags"
    FINISH = "finish"


class QuestionStep(Struct, frozen=True):
    """The opening question answered."""

    kind: ClassVar[Step] = Step.QUESTION
    #: Time answering, and the time the interview gave (its minutes).
    seconds: Seconds
    budget: Count
    #: What the learner typed, if anything.
    typed: str | None = None


class PointsStep(Struct, frozen=True):
    """The points the learner covered: indexes into the interview's points, ascending."""

    kind: ClassVar[Step] = Step.POINTS
    covered: tuple[Count, ...]
    total: Count


class FollowUpStep(Struct, frozen=True):
    """One follow-up card graded 0-5: that card's review."""

    kind: ClassVar[Step] = Step.FOLLOW_UP
    card: str
    grade: Annotated[int, Meta(ge=0, le=5)]
    typed: str | None = None
    seconds: Seconds = 0.0
    #: The review's id in the review log.
    review: Count | None = None


class RedFlagsStep(Struct, frozen=True):
    """The red flags said (card ids, in the interview's order), each that card's lapse."""

    kind: ClassVar[Step] = Step.RED_FLAGS
    said: tuple[str, ...]
    #: The lapses' ids in the review log.
    reviews: tuple[Count, ...] = ()


class FinishStep(Struct, frozen=True):
    """The attempt ended: the cards of the points missed were brought due."""

    kind: ClassVar[Step] = Step.FINISH
    missed: tuple[str, ...]


AttemptStepData = QuestionStep | PointsStep | FollowUpStep | RedFlagsStep | FinishStep

_TYPES: Mapping[Step, type[AttemptStepData]] = {
    t.kind: t for t in (QuestionStep, PointsStep, FollowUpStep, RedFlagsStep, FinishStep)
}


def step_data(step: AttemptStepData) -> dict[str, Any]:
    """``step`` as the JSON object the log keeps."""
    data: dict[str, Any] = to_builtins(step)
    return data


def step_from(kind: str, data: object) -> AttemptStepData:
    """The step of kind ``kind`` with ``data`` (the log's JSON, parsed); ValueError if the
    kind is unknown or the data is not what zerodrill writes for it."""
    try:
        cls = _TYPES[Step(kind)]
    except ValueError:
        raise ValueError(f"unknown attempt step {kind!r}") from None
    try:
        return convert(data, cls)
    except ValidationError as exc:
        raise ValueError(f"bad {kind} step data: {exc}") from None
