"""FSRS behind the scheduler protocol, pinned on fixed instants (no wall clock), and the one
table from the 0-5 grades and Anki's four buttons to FSRS's four ratings."""

from __future__ import annotations

import json
import random
import tempfile
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import fsrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import ANKI_EASE_TO_GRADE, FOUR_BUTTONS, SIX_BUTTONS, Grade
from zerodrill.srs.schedulers import Phase, Rating, rating_of, replay, scheduler_named
from zerodrill.srs.schedulers.fsrs import FsrsCard, FsrsScheduler
from zerodrill.srs.schedulers.protocol import When
from zerodrill.srs.store import Store

#: 08:00 UTC on a Monday: mid-morning of a study day in Europe, far from the rollover.
T0 = datetime(2026, 5, 11, 8, 0, tzinfo=UTC)
DAY0 = date(2026, 5, 11)
MIN, DAY = timedelta(minutes=1), timedelta(days=1)
FSRS = FsrsScheduler()


def when(since: timedelta = timedelta(0)) -> When:
    at = T0 + since
    return When(at, at.date())


# -- the table -------------------------------------------------------------------------------


def test_the_six_grades_map_to_the_four_ratings_on_sm2s_pass_line() -> None:
    assert {int(g): rating_of(g).name for g in Grade} == {
        0: "AGAIN",
        1: "AGAIN",
        2: "AGAIN",
        3: "HARD",
        4: "GOOD",
        5: "EASY",
    }
    # SM-2's pass (3 and up) is FSRS's pass (anything but Again).
    assert all((rating_of(g) is not Rating.AGAIN) == g.passed for g in Grade)


def test_anki_buttons_come_back_as_the_same_rating() -> None:
    # An Anki answer (ease 1-4) is logged as an SM-2 grade; FSRS reads it back as that button.
    assert {ease: int(rating_of(g)) for ease, g in ANKI_EASE_TO_GRADE.items()} == {
        1: 1,
        2: 2,
        3: 3,
        4: 4,
    }
    assert [rating_of(b.grade).name for b in FOUR_BUTTONS] == ["AGAIN", "HARD", "GOOD", "EASY"]
    assert [b.name.upper() for b in FOUR_BUTTONS] == [r.name for r in Rating]
    assert {rating_of(b.grade) for b in SIX_BUTTONS} == set(Rating)


def test_ratings_are_numbered_as_py_fsrs_numbers_them() -> None:
    assert [(r.name.lower(), int(r)) for r in Rating] == [
        (r.name.lower(), int(r)) for r in fsrs.Rating
    ]


@pytest.mark.parametrize("bad", [-1, 6, 2.0, True, "4", None])
def test_a_grade_outside_0_5_has_no_rating(bad: object) -> None:
    with pytest.raises(ValueError):
        rating_of(bad)  # type: ignore[arg-type]


# -- the schedule, on fixed instants ---------------------------------------------------------


def test_fsrs_is_a_scheduler_by_name_with_its_retention() -> None:
    scheduler = scheduler_named("fsrs", desired_retention=0.85)
    assert isinstance(scheduler, FsrsScheduler) and scheduler.desired_retention == 0.85
    assert scheduler.name == "fsrs"
    assert scheduler.fingerprint != FSRS.fingerprint != scheduler_named("sm2").fingerprint


def test_a_new_card_is_new_and_unscheduled() -> None:
    new = FSRS.new_state()
    assert new.phase is Phase.NEW and new.due is None and new.last_day is None
    assert new.again_on is None and new.step_due is None and new.interval == 0
    assert FSRS.retrievability(new, T0) is None


def test_first_answers_take_fsrs6_initial_stability() -> None:
    # FSRS-6's first four weights are the initial stability of Again, Hard, Good, Easy.
    w = fsrs.scheduler.DEFAULT_PARAMETERS
    firsts = FSRS.next_states(FSRS.new_state(), when())
    assert [firsts[g].stability for g in Grade] == [w[0], w[0], w[0], w[1], w[2], w[3]]
    # Again, Hard and Good start the learning steps (1 and 10 minutes): back the same day.
    for grade in (Grade.WRONG, Grade.HARD, Grade.GOOD):
        state = firsts[grade]
        assert (state.phase, state.due, state.interval) == (Phase.LEARNING, DAY0, 0)
        assert state.again_on == DAY0 and state.last_day == DAY0
    assert firsts[Grade.WRONG].step_due == T0 + 1 * MIN
    assert firsts[Grade.HARD].step_due == T0 + 5.5 * MIN
    assert firsts[Grade.GOOD].step_due == T0 + 10 * MIN
    # Easy graduates at once: at 90% retention the interval is the stability, in whole days.
    easy = firsts[Grade.PERFECT]
    assert (easy.phase, easy.interval, easy.due) == (Phase.REVIEW, 8, date(2026, 5, 19))
    assert round(w[3]) == 8 and easy.again_on is None and easy.step_due is None


def answer(steps: list[tuple[int, timedelta]], scheduler: FsrsScheduler = FSRS) -> list[FsrsCard]:
    """Grade a new card with each (grade, time since T0) in turn; the states after each."""
    state, states = scheduler.new_state(), []
    for grade, since in steps:
        state = scheduler.review(state, Grade(grade), when(since))
        states.append(state)
    return states


LEARNED_FORGOTTEN_RELEARNED = [
    (4, 0 * DAY),  # Good: learning step 2 of 2, in 10 minutes
    (4, 10 * MIN),  # Good: graduates
    (4, 2 * DAY + 10 * MIN),  # on its due day
    (1, 13 * DAY + 10 * MIN),  # Again: a lapse, relearning in 10 minutes
    (4, 13 * DAY + 20 * MIN),  # Good: back in review
    (5, 15 * DAY + 20 * MIN),  # Easy
]


def test_a_card_learned_forgotten_and_relearned_on_fixed_instants() -> None:
    states = answer(LEARNED_FORGOTTEN_RELEARNED)
    assert [s.phase for s in states] == [
        Phase.LEARNING,
        Phase.REVIEW,
        Phase.REVIEW,
        Phase.RELEARNING,
        Phase.REVIEW,
        Phase.REVIEW,
    ]
    assert [s.interval for s in states] == [0, 2, 11, 0, 2, 8]
    assert [s.due for s in states] == [
        date(2026, 5, 11),
        date(2026, 5, 13),
        date(2026, 5, 24),
        date(2026, 5, 24),
        date(2026, 5, 26),
        date(2026, 6, 3),
    ]
    assert [s.again_on for s in states] == [DAY0, None, None, date(2026, 5, 24), None, None]
    assert [s.lapses for s in states] == [0, 0, 0, 1, 1, 1]
    assert [round(s.stability or 0, 4) for s in states] == [
        2.3065,
        2.3065,
        10.971,
        1.539,
        1.5718,
        7.8703,
    ]
    assert [round(s.difficulty or 0, 4) for s in states] == [
        2.1181,
        2.1112,
        2.1043,
        7.39,
        7.3778,
        6.4868,
    ]


def test_replay_gives_the_same_schedule_every_time() -> None:
    # Fuzz is off: a replay on another machine, or after a switch of scheduler, agrees exactly.
    grades = [
        (Grade(g), when(since).day, when(since).at) for g, since in LEARNED_FORGOTTEN_RELEARNED
    ]
    first, effects = replay(FSRS, grades)
    assert [replay(FsrsScheduler(), grades)[0] for _ in range(3)] == [first] * 3
    assert first == answer(LEARNED_FORGOTTEN_RELEARNED)[-1]
    # The second Good ten minutes after the first is a same-day repeat by the protocol's rule.
    assert [e.value for e in effects] == ["first", "repeat", "recall", "recall", "repeat", "recall"]


def test_a_higher_desired_retention_gives_shorter_intervals() -> None:
    steps = [(5, 0 * DAY), (4, 8 * DAY), (4, 40 * DAY)]
    ninety = [s.interval for s in answer(steps)]
    ninety_five = [s.interval for s in answer(steps, FsrsScheduler(0.95))]
    assert all(a < b for a, b in zip(ninety_five, ninety, strict=True)), (ninety_five, ninety)


@pytest.mark.parametrize("bad", [0.5, 0.995, 1.0, True, "0.9"])
def test_a_desired_retention_out_of_range_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="desired retention"):
        FsrsScheduler(bad)


def test_retrievability_falls_from_one_to_the_desired_retention_on_the_due_day() -> None:
    state = FSRS.review(FSRS.new_state(), Grade.PERFECT, when())  # Easy: due in 8 days
    assert FSRS.retrievability(state, T0) == 1.0
    on_due = FSRS.retrievability(state, T0 + state.interval * DAY)
    assert on_due is not None and on_due == pytest.approx(0.9, abs=0.01)
    later = FSRS.retrievability(state, T0 + 60 * DAY)
    assert later is not None and later < on_due


def test_a_local_time_is_the_same_instant_as_utc() -> None:
    tokyo = T0.astimezone(timezone(timedelta(hours=9)))
    assert FSRS.review(FSRS.new_state(), Grade.GOOD, When(tokyo, DAY0)) == FSRS.review(
        FSRS.new_state(), Grade.GOOD, When(T0, DAY0)
    )


def test_the_interval_counts_from_the_study_day_not_the_calendar_day() -> None:
    # 02:30 local on the 12th belongs to study day the 11th (rollover at 4): 8 days from the 11th.
    late = datetime(2026, 5, 12, 2, 30, tzinfo=timezone(timedelta(hours=2)))
    state = FSRS.review(FSRS.new_state(), Grade.PERFECT, When(late, DAY0))
    assert (state.due, state.last_day) == (date(2026, 5, 19), DAY0)


def test_a_state_survives_its_dict_and_json_exactly() -> None:
    for state in [FSRS.new_state(), *answer(LEARNED_FORGOTTEN_RELEARNED)]:
        text = json.dumps(state.to_dict())
        assert FSRS.state_from_dict(json.loads(text)) == state


@pytest.mark.parametrize(
    "broken",
    [
        {},
        {"phase": "review"},
        dict(FsrsCard().to_dict(), phase="limbo"),
        dict(FsrsCard().to_dict(), stability=2.0),  # new, yet graded
        dict(FsrsCard().to_dict(), phase="review"),  # reviewed, yet never graded
        dict(FsrsCard().to_dict(), interval="x"),
    ],
)
def test_a_damaged_state_is_a_value_error(broken: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="not an FSRS card state"):
        FSRS.state_from_dict(broken)


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 60 * 24 * 30)), max_size=30))
def test_any_answers_keep_the_state_sound(steps: list[tuple[int, int]]) -> None:
    state, at = FSRS.new_state(), T0
    for grade, minutes in steps:
        at += timedelta(minutes=minutes)
        state = FSRS.review(state, Grade(grade), When(at, at.date()))
        assert state.stability is not None and state.stability > 0
        assert state.difficulty is not None and 1 <= state.difficulty <= 10
        assert state.due is not None and state.due >= at.date() == state.last_day
        assert state.due_at is not None and state.due_at > at
        assert (state.phase is Phase.REVIEW) == (state.interval >= 1) == (state.again_on is None)
        # Again always sends a card back to its (re)learning steps.
        if grade < 3:
            assert state.phase in (Phase.LEARNING, Phase.RELEARNING)


# -- merges under FSRS: the same events, in any order, give the same states -------------------

Event = st.tuples(
    st.sampled_from(["a", "b"]),  # origin
    st.sampled_from(["d/x", "d/y", "d/z"]),  # card
    st.integers(0, 5),  # grade, or an undo of the event before it from that origin
    st.integers(0, 3 * 24 * 60),  # minutes since the previous event
    st.booleans(),  # an undo instead of a grade
)


@given(st.lists(Event, min_size=1, max_size=25), st.randoms(use_true_random=False))
@settings(max_examples=40, deadline=None)
def test_the_same_events_in_any_order_give_the_same_fsrs_states(
    steps: list[tuple[str, str, int, int, bool]], rng: random.Random
) -> None:
    events, at, seqs = [], T0, {"a": 0, "b": 0}
    last: dict[str, ReviewEvent] = {}
    for origin, key, grade, minutes, undo in steps:
        at += timedelta(minutes=minutes)
        seqs[origin] += 1
        target = last.get(origin)
        if undo and target is not None and target.grade is not None:
            event = ReviewEvent(
                origin, seqs[origin], target.key, at, target.day, None, target.identity
            )
        else:
            event = ReviewEvent(origin, seqs[origin], key, at, at.date(), Grade(grade))
        events.append(event)
        last[origin] = event
    shuffled = events[:]
    rng.shuffle(shuffled)
    with tempfile.TemporaryDirectory() as tmp:
        states = []
        for n, order in enumerate((events, shuffled)):
            with Store.open(Path(tmp) / f"{n}.db", scheduler=FsrsScheduler()) as store:
                store.log.add_events(order, now=at, batch=3)
                states.append(store.schedule.states())
                assert states[-1] == store.schedule.states_by(FsrsScheduler())
    assert states[0] == states[1]


GAPS = st.one_of(
    st.integers(0, 30),  # seconds: a card graded twice at once
    st.integers(0, 60 * 60 * 3),  # within a sitting: learning steps
    st.integers(0, 60 * 60 * 24 * 400),  # up to a year and more between reviews
)


@given(
    st.lists(st.tuples(st.integers(0, 5), GAPS), min_size=1, max_size=60),
    st.sampled_from([0.7, 0.85, 0.9, 0.97, 0.99]),
)
@settings(max_examples=400, deadline=None)
def test_a_replay_is_py_fsrss_own_rescheduling(
    steps: list[tuple[int, int]], retention: float
) -> None:
    # Each review goes through an FsrsCard and back to py-fsrs's Card: nothing may be lost on
    # the way. py-fsrs's reschedule_card replays the same answers on its own Card throughout;
    # the states must agree as floats, not approximately.
    scheduler = FsrsScheduler(retention)
    own = fsrs.Scheduler(desired_retention=retention, enable_fuzzing=False)
    at, given_, logs = T0, [], []
    for grade, seconds in steps:
        at += timedelta(seconds=seconds)
        local = at.astimezone(timezone(timedelta(hours=-7)))
        given_.append((Grade(grade), (local - timedelta(hours=4)).date(), local))
        rating = fsrs.Rating(rating_of(grade))
        logs.append(
            fsrs.ReviewLog(card_id=0, rating=rating, review_datetime=at, review_duration=None)
        )
    state, _ = replay(scheduler, given_)
    card = own.reschedule_card(fsrs.Card(card_id=0, due=T0), logs)
    ours = (state.stability, state.difficulty, state.step, state.due_at, state.last_review)
    assert ours == (card.stability, card.difficulty, card.step, card.due, card.last_review)
    assert state.phase.value == card.state.name.lower()
