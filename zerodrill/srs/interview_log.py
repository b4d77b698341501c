"""The attempts of interviews read back: each one summed up, and which interview to take next.

:func:`choose` picks the one asked for, or else the least recently taken (never taken first),
the weakest (lowest share of its points covered last time) first among those taken on the
same day, deck order after that; an attempt left unfinished today before all, so that running
the command again resumes it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from msgspec import Struct, to_builtins

from zerodrill.deck.model import Deck, Interview
from zerodrill.deck.yaml_nodes import did_you_mean
from zerodrill.errors import UserError
from zerodrill.srs.interview_steps import (
    FinishStep,
    FollowUpStep,
    PointsStep,
    QuestionStep,
    RedFlagsStep,
)
from zerodrill.srs.store import Store
from zerodrill.srs.store.attempts import AttemptRecord


class AttemptSummary(Struct, frozen=True):
    """One attempt of an interview as logged (an unfinished one counts what it got to)."""

    attempt: int
    day: date
    started_at: datetime
    finished: bool
    points_covered: int
    points_total: int
    #: Time answering the opening question; None if it was never answered.
    seconds_used: float | None
    budget_seconds: int
    #: The follow-ups' grades, in the order they were asked.
    follow_up_grades: tuple[int, ...]
    red_flags_said: int

    @property
    def share(self) -> float | None:
        """The share of the points covered; None before the points were ticked."""
        return self.points_covered / self.points_total if self.points_total else None


def shape_of(interview: Interview) -> str:
    """A digest of what the interview asks: an attempt resumes only on the same questions."""
    shape = [
        interview.question,
        interview.minutes,
        [[p.text, list(p.cards)] for p in interview.points],
        list(interview.follow_ups),
        list(interview.red_flags),
    ]
    text = json.dumps(shape, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def summarize(record: AttemptRecord) -> AttemptSummary:
    seconds: float | None = None
    covered = total = said = budget = 0
    grades: list[int] = []
    finished = False
    for step in record.steps:
        match step:
            case QuestionStep():
                seconds, budget = step.seconds, step.budget
            case PointsStep():
                covered, total = len(step.covered), step.total
            case FollowUpStep():
                grades.append(step.grade)
            case RedFlagsStep():
                said = len(step.said)
            case FinishStep():
                finished = True
    return AttemptSummary(
        attempt=record.id,
        day=record.day,
        started_at=record.started_at,
        finished=finished,
        points_covered=covered,
        points_total=total,
        seconds_used=seconds,
        budget_seconds=budget,
        follow_up_grades=tuple(grades),
        red_flags_said=said,
    )


def history(store: Store, deck_id: str, interview_id: str) -> tuple[AttemptSummary, ...]:
    """Every attempt of the interview, finished or not, oldest first."""
    return tuple(summarize(record) for record in store.attempts.attempts(deck_id, interview_id))


def choose(
    store: Store,
    decks: Sequence[Deck],
    *,
    deck_id: str | None = None,
    interview_id: str | None = None,
    today: date | None = None,
) -> tuple[Deck, Interview]:
    """The interview to take (see the module's docstring); a :class:`UserError` line for a
    deck or interview id that is not there, or when no deck has interviews. ``today`` (the
    study day) limits "unfinished, so resumed first" to attempts started that day."""
    if deck_id is not None:
        chosen = [d for d in decks if d.id == deck_id]
        if not chosen:
            known = ", ".join(sorted(d.id for d in decks))
            raise UserError(
                f"no deck with id '{deck_id}'{did_you_mean(deck_id, [d.id for d in decks])} "
                f"(decks: {known})"
            )
        decks = chosen
    candidates = [(d, i) for d in decks for i in d.interviews]
    if not candidates:
        where = f"deck '{deck_id}' has" if deck_id is not None else "the decks have"
        raise UserError(f"{where} no interviews (a deck's interviews: list adds them)")
    if interview_id is not None:
        found = [(d, i) for d, i in candidates if i.id == interview_id]
        if not found:
            ids = [i.id for _, i in candidates]
            raise UserError(
                f"no interview with id '{interview_id}'{did_you_mean(interview_id, ids)} "
                f"(interviews: {', '.join(sorted(set(ids)))})"
            )
        return found[0]
    by_interview = _by_interview(store)

    def order(place: int) -> tuple[int, date, float, int]:
        deck, interview = candidates[place]
        mine = by_interview.get((deck.id, interview.id), [])
        summaries = [summarize(r) for r in mine]
        resumable = (
            bool(mine)
            and not summaries[-1].finished
            and (today is None or mine[-1].day == today)
            and mine[-1].shape == shape_of(interview)
        )
        done = [s for s in summaries if s.finished]
        last_day = done[-1].day if done else date.min
        share = done[-1].share if done else None
        return (0 if resumable else 1, last_day, share if share is not None else -1.0, place)

    best = min(range(len(candidates)), key=order)
    return candidates[best]


#: What the trend of ``stats --json`` leaves out of each attempt.
_NOT_IN_TREND = {"attempt", "started_at", "finished"}


class InterviewStats(Struct, frozen=True):
    """The attempts of one interview, for ``zerodrill stats``."""

    deck: str
    id: str
    #: Finished attempts.
    attempts: int
    #: Attempts left unfinished and no longer resumable (an earlier day's, or one followed by
    #: a later attempt); one from today still open is in progress, not abandoned.
    abandoned: int
    #: Each finished attempt, oldest first.
    trend: tuple[AttemptSummary, ...]

    @property
    def last(self) -> AttemptSummary | None:
        return self.trend[-1] if self.trend else None

    def as_json(self) -> dict[str, Any]:
        last = self.last
        return {
            "deck": self.deck,
            "id": self.id,
            "attempts": self.attempts,
            "abandoned": self.abandoned,
            "last_day": last.day.isoformat() if last is not None else None,
            "last_points_covered": last.points_covered if last is not None else None,
            "points_total": last.points_total if last is not None else None,
            "trend": [
                {k: v for k, v in to_builtins(s).items() if k not in _NOT_IN_TREND}
                for s in self.trend
            ],
        }


def interview_stats(
    decks: Sequence[Deck], store: Store | None, today: date
) -> tuple[InterviewStats, ...]:
    """Each interview of ``decks``, in deck order, with its attempts as of study day
    ``today``; ``store`` None means none was ever taken."""
    by_interview = _by_interview(store) if store is not None else {}
    figures = []
    for deck in decks:
        for interview in deck.interviews:
            mine = by_interview.get((deck.id, interview.id), [])
            summaries = [summarize(r) for r in mine]
            open_now = bool(mine) and not summaries[-1].finished and mine[-1].day == today
            unfinished = sum(not s.finished for s in summaries)
            done = tuple(s for s in summaries if s.finished)
            figures.append(
                InterviewStats(deck.id, interview.id, len(done), unfinished - open_now, done)
            )
    return tuple(figures)


def _by_interview(store: Store) -> dict[tuple[str, str], list[AttemptRecord]]:
    """Every attempt logged, by (deck, interview), oldest first."""
    out: dict[tuple[str, str], list[AttemptRecord]] = {}
    for record in store.attempts.attempts():
        out.setdefault((record.deck, record.interview), []).append(record)
    return out
