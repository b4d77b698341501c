"""The steps of an interview attempt: one frozen value per kind, each kind with one name.

:class:`Step` names them, as the attempt log's ``step`` column holds them, as
:attr:`zerodrill.srs.interview.InterviewRun.step` says which comes next, and as the interview's
screens are chosen: ``question``, ``points``, ``follow_up`` (one per follow-up card),
``red_flags`` and ``finish``. Each value's fields are the JSON object of the log's ``data``
column, under the same names (:func:`step_data`, :func:`step_from`); fields added since the
first release have defaults, so every attempt ever logged still reads.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, ClassVar

from msgspec import Struct, structs


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
    seconds: float
    budget: int
    #: What the learner typed, if anything.
    typed: str | None = None


class PointsStep(Struct, frozen=True):
    """The points the learner covered: indexes into the interview's points, ascending."""

    kind: ClassVar[Step] = Step.POINTS
    covered: tuple[int, ...]
    total: int


class FollowUpStep(Struct, frozen=True):
    """One follow-up card graded 0-5: that card's review."""

    kind: ClassVar[Step] = Step.FOLLOW_UP
    card: str
    grade: int
    typed: str | None = None
    seconds: float = 0.0
    #: The review's id in the review log.
    review: int | None = None


class RedFlagsStep(Struct, frozen=True):
    """The red flags said (card ids, in the interview's order), each that card's lapse."""

    kind: ClassVar[Step] = Step.RED_FLAGS
    said: tuple[str, ...]
    #: The lapses' ids in the review log.
    reviews: tuple[int, ...] = ()


class FinishStep(Struct, frozen=True):
    """The attempt ended: the cards of the points missed were brought due."""

    kind: ClassVar[Step] = Step.FINISH
    missed: tuple[str, ...]


AttemptStepData = QuestionStep | PointsStep | FollowUpStep | RedFlagsStep | FinishStep

_TYPES: Mapping[Step, type[AttemptStepData]] = {
    t.kind: t for t in (QuestionStep, PointsStep, FollowUpStep, RedFlagsStep, FinishStep)
}


def step_data(step: AttemptStepData) -> dict[str, Any]:
    """``step`` as the JSON object the log keeps (tuples as lists)."""
    return {
        f.name: list(value) if isinstance(value, tuple) else value
        for f in _fields(type(step))
        for value in (getattr(step, f.name),)
    }


# msgspec works a class's fields out again, annotations and all, on every call.
_fields = functools.cache(structs.fields)


def _count(value: object) -> bool:
    return type(value) is int and value >= 0


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


def _text(value: object) -> bool:
    return isinstance(value, str)


def _maybe_text(value: object) -> bool:
    return value is None or isinstance(value, str)


def _counts(value: object) -> bool:
    return isinstance(value, list) and all(_count(v) for v in value)


def _texts(value: object) -> bool:
    return isinstance(value, list) and all(_text(v) for v in value)


#: Each field's check, as zerodrill writes it: anything else is damage.
_CHECKS: Mapping[str, Any] = {
    "seconds": _number,
    "budget": _number,
    "typed": _maybe_text,
    "covered": _counts,
    "total": _count,
    "card": _text,
    "grade": lambda v: type(v) is int and 0 <= v <= 5,
    "review": lambda v: v is None or _count(v),
    "said": _texts,
    "reviews": _counts,
    "missed": _texts,
}


def step_from(kind: str, data: object) -> AttemptStepData:
    """The step of kind ``kind`` with ``data`` (the log's JSON, parsed); ValueError if the
    kind is unknown or the data is not what zerodrill writes for it."""
    try:
        cls = _TYPES[Step(kind)]
    except ValueError:
        raise ValueError(f"unknown attempt step {kind!r}") from None
    if not isinstance(data, dict):
        raise ValueError(f"bad {kind} step data")
    values: dict[str, Any] = {}
    for f in _fields(cls):
        if f.name not in data:
            if f.required:
                raise ValueError(f"bad {kind} step data: no {f.name}")
            continue
        value = data[f.name]
        if not _CHECKS[f.name](value):
            raise ValueError(f"bad {kind} step data: {f.name} {value!r}")
        if f.name == "seconds":
            value = float(value)
        elif f.name == "budget":
            value = int(value)
        values[f.name] = tuple(value) if isinstance(value, list) else value
    return cls(**values)
