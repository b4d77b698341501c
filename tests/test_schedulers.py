"""The scheduler protocol and SM-2 behind it: the same schedule as :mod:`zerodrill.srs.sm2`,
the same-day rules written once, states that survive their dict, one grade-to-rating map."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zerodrill.srs import sm2
from zerodrill.srs.schedulers import (
    DEFAULT_SCHEDULER,
    Effect,
    Phase,
    Rating,
    When,
    rating_of,
    replay,
    scheduler_named,
)
from zerodrill.srs.schedulers.base import replay_by_review
from zerodrill.srs.schedulers.sm2 import LEARNING_STEP, Sm2Card, Sm2Scheduler
from zerodrill.srs.sm2 import Grade, Sm2State

START = date(2025, 1, 1)
NOON = datetime(2025, 1, 1, 12, tzinfo=UTC)


def when(day: date, minutes: int = 0) -> When:
    return When(datetime.combine(day, NOON.timetz()) + timedelta(minutes=minutes), day)


def test_the_default_is_sm2_and_unknown_names_are_refused() -> None:
    assert isinstance(scheduler_named(DEFAULT_SCHEDULER), Sm2Scheduler)
    with pytest.raises(ValueError, match="no scheduler 'sm3'"):
        scheduler_named("sm3")


def test_grades_map_to_anki_ratings_in_one_place() -> None:
    assert [rating_of(g) for g in Grade] == [
        Rating.AGAIN, Rating.AGAIN, Rating.AGAIN, Rating.HARD, Rating.GOOD, Rating.EASY,
    ]  # fmt: skip
    # Anki's four buttons, read as grades, come back to the same rating.
    assert [rating_of(b.grade) for b in sm2.FOUR_BUTTONS] == list(Rating)
    with pytest.raises(ValueError):
        rating_of(6)


def test_a_naive_time_is_refused() -> None:
    with pytest.raises(ValueError, match="UTC offset"):
        When(datetime(2025, 1, 1, 12), START)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=12), st.lists(st.integers(1, 40)))
def test_sm2_behind_the_protocol_is_sm2_exactly(grades: list[int], gaps: list[int]) -> None:
    scheduler = Sm2Scheduler()
    state, plain, day = scheduler.new_state(), Sm2State.new(), START
    for n, q in enumerate(grades):
        state = scheduler.review(state, Grade(q), when(day))
        plain = sm2.review(plain, q, day)
        assert state.sm2 == plain and state.due == plain.due and state.interval == plain.interval
        day += timedelta(days=gaps[n] if n < len(gaps) else 1)


def test_same_day_grades_are_repeats_that_move_nothing() -> None:
    scheduler = Sm2Scheduler()
    first = scheduler.review(scheduler.new_state(), Grade.ALMOST, when(START))
    assert first.phase is Phase.LEARNING and first.again_on == START
    assert first.step_due == when(START).at + LEARNING_STEP
    again = scheduler.review(first, Grade.HARD, when(START, 5))
    assert again.sm2 == first.sm2  # the schedule stays
    assert again.again_on == START and again.step_due is None  # a pass below 4: comes back last
    done = scheduler.review(again, Grade.GOOD, when(START, 9))
    assert done.sm2 == first.sm2 and done.again_on is None and done.phase is Phase.REVIEW
    # The next day, a fail of a known card: relearning.
    lapse = scheduler.review(done, Grade.WRONG, when(START + timedelta(days=1)))
    assert lapse.phase is Phase.RELEARNING and lapse.sm2.repetitions == 0


def test_effects_of_a_first_sight_a_repeat_and_a_recall() -> None:
    scheduler = Sm2Scheduler()
    grades = [(Grade.GOOD, START, when(START).at), (Grade.PERFECT, START, when(START, 3).at)]
    grades.append((Grade.GOOD, START + timedelta(days=1), when(START + timedelta(days=1)).at))
    state, effects = replay(scheduler, grades)
    assert effects == [Effect.FIRST, Effect.REPEAT, Effect.RECALL]
    assert state.sm2 == sm2.review(sm2.review(Sm2State(), 4, START), 4, START + timedelta(1))


def test_next_states_are_what_each_grade_would_give() -> None:
    scheduler = Sm2Scheduler()
    state = scheduler.review(scheduler.new_state(), Grade.PERFECT, when(START))
    later = when(START + timedelta(days=1))
    choices = scheduler.next_states(state, later)
    assert list(choices) == list(Grade)
    assert [choices[g].interval for g in Grade] == [1, 1, 1, 6, 6, 6]
    # On the same day, every grade is a repeat: the schedule shown stays.
    assert {c.sm2 for c in scheduler.next_states(state, when(START, 1)).values()} == {state.sm2}


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3)), max_size=10))
def test_states_survive_their_dict_as_json(grades: list[tuple[int, int]]) -> None:
    scheduler = Sm2Scheduler()
    state, day = scheduler.new_state(), START
    for q, gap in grades:
        day += timedelta(days=gap)
        state = scheduler.review(state, Grade(q), when(day, q))
        text = json.dumps(state.to_dict())
        assert scheduler.state_from_dict(json.loads(text)) == state


@pytest.mark.parametrize("bad", [{}, {"reps": 1}, {**Sm2Card().to_dict(), "ef": 100}])
def test_a_state_dict_that_is_not_one_is_a_value_error(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        Sm2Scheduler().state_from_dict(bad)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3), st.integers(0, 600))))
def test_sm2s_fast_replay_is_the_replay_one_review_at_a_time(
    grades: list[tuple[int, int, int]],
) -> None:
    day, given = START, []
    for q, gap, minutes in grades:
        day += timedelta(days=gap)
        given.append((Grade(q), day, when(day, minutes).at))
    assert replay(Sm2Scheduler(), given) == replay_by_review(Sm2Scheduler(), given)
