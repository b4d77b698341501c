"""FSRS-6's review written out as one loop, for replaying a card's whole log at once.

py-fsrs's ``Scheduler.review_card`` is the definition (:class:`.fsrs.FsrsScheduler` reviews
through it). Around each review it copies the card, builds a review log and checks its
arguments; replaying 100,000 events that way took most of a sync's write transactions, and a
switch of scheduler several seconds. This is the same computation on plain floats: each
formula is py-fsrs 6.3's own expression, in its own order (so the floats come out bit for bit
the same), and the branches are ``review_card``'s. A Hypothesis test holds :func:`replay` to
py-fsrs over random logs; a py-fsrs release that changed a formula would fail it (pyproject
pins ``fsrs<7``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta

import fsrs

from zerodrill.srs.schedulers.base import Effect, Given

#: py-fsrs's states and ratings, as the plain ints the loop compares.
LEARNING, REVIEW, RELEARNING = (int(s) for s in fsrs.State)
AGAIN, HARD, GOOD, EASY = (int(r) for r in fsrs.Rating)


class Replayed:
    """A card's FSRS state after a replay: what :class:`fsrs.Card` holds, and the lapses."""

    __slots__ = ("state", "step", "stability", "difficulty", "due", "last_review", "lapses")

    def __init__(self) -> None:
        self.state = LEARNING
        self.step: int | None = 0
        self.stability = 0.0
        self.difficulty = 0.0
        self.due = datetime.min
        self.last_review = datetime.min
        self.lapses = 0


def replay(
    scheduler: fsrs.Scheduler, ratings: dict[int, int], grades: Sequence[Given]
) -> tuple[Replayed, list[Effect], date]:
    """Replay ``grades`` (a card's grades in effect, in time order, at least one) through
    ``scheduler``'s parameters, as ``review_card`` one at a time would; ``ratings`` gives each
    grade's rating. Returns the card, what each grade was, and the last study day."""
    p = scheduler.parameters
    decay = -p[20]
    factor = 0.9 ** (1 / decay) - 1
    retention_term = (scheduler.desired_retention ** (1 / decay)) - 1
    max_ivl = scheduler.maximum_interval
    learning, relearning = scheduler.learning_steps, scheduler.relearning_steps
    easy_difficulty: float = p[4] - (math.e ** (p[5] * (EASY - 1))) + 1
    forget_short: float = math.e ** (p[17] * p[18])
    e8: float = math.e ** (p[8])

    def clamp_d(d: float) -> float:
        return min(max(d, 1.0), 10.0)

    def next_difficulty(d: float, rating: int) -> float:
        delta = -(p[6] * (rating - 3))
        arg_2 = d + (10.0 - d) * delta / 9.0
        return clamp_d(p[7] * easy_difficulty + (1 - p[7]) * arg_2)

    def short_term(s: float, rating: int) -> float:
        increase: float = (math.e ** (p[17] * (rating - 3 + p[18]))) * (s ** -p[19])
        if rating != AGAIN:
            increase = max(increase, 1.0)
        return max(s * increase, 0.001)

    def long_term(d: float, s: float, r: float, rating: int) -> float:
        if rating == AGAIN:
            long: float = (
                p[11] * (d ** -p[12]) * (((s + 1) ** (p[13])) - 1) * (math.e ** ((1 - r) * p[14]))
            )
            return max(min(long, s / forget_short), 0.001)
        hard_penalty = p[15] if rating == HARD else 1
        easy_bonus = p[16] if rating == EASY else 1
        recall: float = s * (
            1
            + e8
            * (11 - d)
            * (s ** -p[9])
            * ((math.e ** ((1 - r) * p[10])) - 1)
            * hard_penalty
            * easy_bonus
        )
        return max(recall, 0.001)

    def days(s: float) -> timedelta:
        return timedelta(days=min(max(round((s / factor) * retention_term), 1), max_ivl))

    card = Replayed()
    effects: list[Effect] = []
    last_day = date.min
    first = True
    for given in grades:
        # FSRS reads no layout: its ratings are the four buttons already.
        grade, day, local = given[0], given[1], given[2]
        at = local.astimezone(UTC)
        rating = ratings[grade]
        if first:
            effects.append(Effect.FIRST)
            card.stability = max(p[rating - 1], 0.001)
            card.difficulty = clamp_d(p[4] - (math.e ** (p[5] * (rating - 1))) + 1)
        else:
            effects.append(Effect.REPEAT if day <= last_day else Effect.RECALL)
            elapsed = (at - card.last_review).days
            s, d = card.stability, card.difficulty
            if elapsed < 1:
                card.stability = short_term(s, rating)
            else:
                r = (1 + factor * max(0, elapsed) / s) ** decay
                card.stability = long_term(d, s, r, rating)
            card.difficulty = next_difficulty(d, rating)
        card.lapses += card.state == REVIEW and rating == AGAIN
        card.due = at + _interval(card, rating, learning, relearning, days)
        card.last_review = at
        last_day, first = day, False
    return card, effects, last_day


def _interval(
    card: Replayed,
    rating: int,
    learning: Sequence[timedelta],
    relearning: Sequence[timedelta],
    days: Callable[[float], timedelta],
) -> timedelta:
    """``review_card``'s second half: the card's next state and step, and how long until due
    (``days`` turns a stability into the review interval)."""
    if card.state == REVIEW:
        if rating == AGAIN and relearning:
            card.state, card.step = RELEARNING, 0
            return relearning[0]
        return days(card.stability)
    steps = learning if card.state == LEARNING else relearning
    step = card.step
    assert step is not None
    if (
        not steps
        or (step >= len(steps) and rating != AGAIN)
        or rating == EASY
        or (rating == GOOD and step + 1 == len(steps))
    ):
        card.state, card.step = REVIEW, None
        return days(card.stability)
    if rating == AGAIN:
        card.step = 0
        return steps[0]
    if rating == HARD:
        if step == 0 and len(steps) == 1:
            return steps[0] * 1.5
        if step == 0:
            return (steps[0] + steps[1]) / 2.0
        return steps[step]
    card.step = step + 1  # Good, not the last step
    return steps[card.step]
