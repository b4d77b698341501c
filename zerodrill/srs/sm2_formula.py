"""SuperMemo 2 (Woźniak, 1987), exactly: pure, no clock, no I/O.

After a grade q in 0..5 given on ``day``:

1. q >= 3: interval I = 1 if n = 0, 6 if n = 1, else ⌈I × EF⌉ with the EF from *before* this
   grade; then n = n + 1.
2. q < 3: n = 0, I = 1 (a lapse when the card had n > 0).
3. EF = max(1.3, EF + 0.1 − (5 − q)(0.08 + 0.02(5 − q))), after every grade.
4. due = day + I.

One addition: I never exceeds :data:`MAX_INTERVAL` (Anki's 100 years), so that ``due`` stays
on the calendar.

Step 5 of the published algorithm (same-day repeats of grades below 4) moves no schedule, so it
lives in the queue, not here.

EF is held in whole hundredths. EF only ever moves in steps of 0.02 (and Anki's ``factor`` is
permille), so nothing is lost, and ⌈I × EF⌉ is computed in integers: with floats, 55 × 2.2 is
121.00000000000001 and the ceiling a day too long.
"""

from __future__ import annotations

from datetime import date
from fractions import Fraction

from msgspec import Struct

from zerodrill.srs.days import whole_days
from zerodrill.srs.grades import Grade, to_grade

#: Step 7: a grade below this comes back the same day until it reaches it.
REPEAT_BELOW = Grade.GOOD

INITIAL_EF_HUNDREDTHS = 250
MIN_EF_HUNDREDTHS = 130
#: Anki's own ceiling (100 years). SM-2 sets none, but without one a card graded 5 again and
#: again (say, by a script) outgrows the calendar; no real schedule comes near it.
MAX_INTERVAL = 36_500


class Sm2State(Struct, frozen=True, gc=False):
    """What SM-2 knows about one study item.

    EF is kept exact, in whole hundredths (:attr:`ef_hundredths`, 250 for 2.5): it only ever
    moves in steps of 0.02. :attr:`easiness` is it as an exact number (``state.easiness ==
    2.5`` holds for a new card; ``float(state.easiness)`` is for display) and
    :attr:`ease_permille` as Anki's ``factor``.

    A card never reviewed has ``due = None`` and ``interval = 0``: it is not scheduled until
    its first grade, which is what tells "new" from "due".

    Untracked by the garbage collector, as the card state holding it is: a value of scalars,
    one made for every grade a replay takes (bench_anki_sync.py's 20,000).
    """

    repetitions: int = 0
    interval: int = 0
    ef_hundredths: int = INITIAL_EF_HUNDREDTHS
    due: date | None = None
    lapses: int = 0

    def __post_init__(self) -> None:
        ef = self.ef_hundredths
        # The states a replay makes pass in one test (bench_anki_sync.py's 20,000 grades):
        # a whole EF (no bool is of type int) and no negative count.
        if (
            type(ef) is int
            and ef >= MIN_EF_HUNDREDTHS
            and self.repetitions >= 0
            and self.interval >= 0
            and self.lapses >= 0
        ):
            return
        if isinstance(ef, bool) or not isinstance(ef, int):
            raise ValueError(f"EF must be a whole number of hundredths, not {ef!r}")
        if ef < MIN_EF_HUNDREDTHS:
            raise ValueError(f"EF must be at least 1.3, not {ef / 100}")
        if self.repetitions < 0 or self.interval < 0 or self.lapses < 0:
            raise ValueError(f"negative count in {self!r}")

    @classmethod
    def new(cls) -> Sm2State:
        """A card never reviewed."""
        return cls()

    @property
    def is_new(self) -> bool:
        return self.due is None

    @property
    def easiness(self) -> Fraction:
        """EF, exactly."""
        return Fraction(self.ef_hundredths, 100)

    @property
    def ease_permille(self) -> int:
        """EF × 1000, exactly: Anki's ``factor`` (2.5 → 2500)."""
        return self.ef_hundredths * 10


def review(state: Sm2State, quality: int, day: date) -> Sm2State:
    """The state after grading ``state`` with ``quality`` (0..5) on study day ``day``: steps 1-4
    of the module's docstring, in integers."""
    reps, interval, ef, lapses = counts(state, to_grade(quality))
    return Sm2State(reps, interval, ef, day + whole_days(interval), lapses)


def counts(state: Sm2State, q: Grade) -> tuple[int, int, int, int]:
    """Steps 1-3 for grade ``q``: the repetitions, interval, EF (hundredths) and lapses after
    it, without the state: a caller that puts another interval in its place (Anki's decision,
    Easy on the four buttons: :mod:`zerodrill.srs.schedulers.sm2`) makes one state, not two
    (bench_anki_sync.py's replay of 20,000 grades)."""
    reps, interval, lapses = state.repetitions, state.interval, state.lapses
    # Plain comparisons, not q.passed, min() and max(): each a call, for every grade.
    if q >= _LOWEST_PASS:
        if reps == 0:
            interval = 1
        elif reps == 1:
            interval = 6
        else:
            # ⌈I × EF⌉ in integers: -(-a // b) is the ceiling of a / b.
            interval = -(-interval * state.ef_hundredths // 100)
            if interval > MAX_INTERVAL:
                interval = MAX_INTERVAL
        reps += 1
    else:
        lapses += reps > 0
        reps, interval = 0, 1
    d = 5 - q
    ef = state.ef_hundredths + 10 - d * (8 + 2 * d)
    return reps, interval, ef if ef > MIN_EF_HUNDREDTHS else MIN_EF_HUNDREDTHS, lapses


#: The lowest grade SM-2 counts as recalled (:attr:`Grade.passed`), as a plain int.
_LOWEST_PASS = int(Grade.HARD)
