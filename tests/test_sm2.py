"""SM-2 pinned to exact sequences on fixed dates, and properties over any grade sequence.
(SM-2 behind the scheduler protocol: test_schedulers.py; the event a grade is logged as:
test_events.py.)"""

from __future__ import annotations

import math
from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zerodrill.srs.grades import Grade
from zerodrill.srs.sm2_formula import MAX_INTERVAL, Sm2State, review

START = date(2025, 1, 1)


def run(grades: list[int], start: date = START) -> list[Sm2State]:
    """Grade a new card on each due day in turn; the states after each grade."""
    state, day, states = Sm2State.new(), start, []
    for q in grades:
        state = review(state, q, day)
        states.append(state)
        assert state.due is not None
        day = state.due
    return states


def test_new_card() -> None:
    new = Sm2State.new()
    assert (new.repetitions, new.interval, new.due, new.lapses) == (0, 0, None, 0)
    assert new.easiness == 2.5 and new.ease_permille == 2500 and new.ef_hundredths == 250
    assert new.is_new


def test_all_perfect_on_fixed_dates() -> None:
    states = run([5, 5, 5, 5, 5])
    assert [s.interval for s in states] == [1, 6, 17, 48, 140]  # 6×2.7=16.2, 17×2.8=47.6, 48×2.9
    assert [s.easiness for s in states] == [Fraction(x) for x in ("2.6", "2.7", "2.8", "2.9", "3")]
    assert [s.due for s in states] == [
        date(2025, 1, 2),
        date(2025, 1, 8),
        date(2025, 1, 25),
        date(2025, 3, 14),
        date(2025, 8, 1),
    ]
    assert [s.repetitions for s in states] == [1, 2, 3, 4, 5]


def test_all_good_keeps_easiness() -> None:
    states = run([4, 4, 4, 4, 4])
    assert [s.interval for s in states] == [1, 6, 15, 38, 95]  # 15 × 2.5 = 37.5 → 38
    assert {s.easiness for s in states} == {Fraction(5, 2)}


def test_all_hard_lowers_easiness_by_014() -> None:
    states = run([3, 3, 3, 3, 3])
    assert [s.ef_hundredths for s in states] == [236, 222, 208, 194, 180]
    # 6 × 2.22 = 13.32 → 14; 14 × 2.08 = 29.12 → 30; 30 × 1.94 = 58.2 → 59
    assert [s.interval for s in states] == [1, 6, 14, 30, 59]


def test_lapse_resets_and_counts() -> None:
    states = run([5, 5, 5, 1, 4, 4, 4])
    lapse = states[3]
    assert (lapse.repetitions, lapse.interval, lapse.lapses) == (0, 1, 1)
    assert lapse.easiness == Fraction("2.26")  # 2.8 − 0.54: EF moves on a lapse too
    assert [s.interval for s in states[4:]] == [1, 6, 14]  # 6 × 2.26 = 13.56 → 14
    assert all(s.lapses == 1 for s in states[4:])


def test_failing_a_new_card_is_not_a_lapse() -> None:
    (state,) = run([0])
    assert (state.repetitions, state.interval, state.lapses) == (0, 1, 0)


def test_easiness_floor() -> None:
    states = run([0, 0, 0, 0])
    assert [s.ef_hundredths for s in states] == [170, 130, 130, 130]


def test_easiness_summed_back_to_2_doubles_the_interval_exactly() -> None:
    # EF 2.6 → 1.8 → 1.9 → 2.0; the last interval is ⌈6 × 2.0⌉ = 12. EF summed in floats
    # would be 2.0000000000000004 here, and the interval a day long.
    states = run([5, 0, 5, 5, 5])
    assert [s.interval for s in states] == [1, 1, 1, 6, 12]
    assert states[3].easiness == 2 and states[4].due == date(2025, 1, 22)


def test_an_exact_product_is_not_rounded_up_a_day() -> None:
    # ⌈55 × 2.2⌉ is 121. In floats, even with EF kept in exact hundredths, the product is
    # 121.00000000000001, and the ceiling 122.
    states = run([2, 3, 5, 3, 5, 5, 5])
    assert [s.ef_hundredths for s in states] == [218, 204, 214, 200, 210, 220, 230]
    assert [s.interval for s in states] == [1, 1, 6, 13, 26, 55, 121]
    assert states[-1].due == date(2025, 8, 12)  # 223 days on


def test_intervals_stop_at_a_hundred_years() -> None:
    state = Sm2State.new()
    for _ in range(60):  # graded perfect, always on the same day: no calendar is that long
        state = review(state, 5, START)
    assert state.interval == MAX_INTERVAL == 36_500
    assert state.due == START + timedelta(days=MAX_INTERVAL)


def test_the_interval_of_each_grade_from_a_known_card() -> None:
    state = run([5, 5])[-1]  # n = 2, I = 6, EF = 2.7
    assert [review(state, q, START).interval for q in Grade] == [1, 1, 1, 17, 17, 17]


@pytest.mark.parametrize("bad", [-1, 6, 3.0, True, "3", None])
def test_out_of_range_grades_raise(bad: object) -> None:
    with pytest.raises(ValueError):
        review(Sm2State.new(), bad, START)  # type: ignore[arg-type]


def test_easiness_is_whole_hundredths() -> None:
    assert Sm2State(0, 0, 130, None, 0).easiness == Fraction(13, 10)
    assert Sm2State(ef_hundredths=236).ease_permille == 2360
    for bad in (2.36, Fraction(236, 100), True, 129):
        with pytest.raises(ValueError):
            Sm2State(ef_hundredths=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("field", ["repetitions", "interval", "lapses"])
def test_no_count_is_negative(field: str) -> None:
    with pytest.raises(ValueError):
        Sm2State(**{field: -1})  # type: ignore[arg-type]


def test_grades_read_as_sm2_describes_them() -> None:
    assert [int(g) for g in Grade] == [0, 1, 2, 3, 4, 5]
    assert Grade.HARD.passed and not Grade.ALMOST.passed
    # Each grade's words are its own, and say "right" exactly for the grades SM-2 passes.
    assert len({g.description for g in Grade}) == len(Grade)
    assert [g.description.startswith("right") for g in Grade] == [g.passed for g in Grade]


grades = st.lists(st.integers(min_value=0, max_value=5), min_size=1, max_size=40)


@settings(max_examples=150, deadline=None)
@given(grades, st.integers(min_value=0, max_value=30))
def test_properties(qs: list[int], gap: int) -> None:
    state, day = Sm2State.new(), START
    reference_ef = Decimal("2.5")
    for q in qs:
        before = state
        state = review(state, q, day)
        reference_ef = max(
            Decimal("1.3"),
            reference_ef + Decimal("0.1") - (5 - q) * (Decimal("0.08") + Decimal("0.02") * (5 - q)),
        )
        assert state.easiness >= Fraction(13, 10)
        assert state.interval >= 1
        assert state.due == day + timedelta(days=state.interval)
        # No drift: EF is always the exact decimal the published formula gives.
        assert state.easiness == Fraction(reference_ef)
        assert state.ease_permille == int(reference_ef * 1000)
        if q < 3:
            assert (state.repetitions, state.interval) == (0, 1)
            assert state.lapses == before.lapses + (before.repetitions > 0)
        else:
            assert state.repetitions == before.repetitions + 1
            assert state.lapses == before.lapses
            if before.repetitions >= 2:
                exact = math.ceil(Fraction(before.interval) * before.easiness)
                assert state.interval == min(MAX_INTERVAL, exact)
        # Reviews late or early by up to a month: the schedule counts from the review day.
        day = day + timedelta(days=state.interval + gap - 15)
