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

from collections.abc import Sequence
from datetime import date, timedelta
from enum import IntEnum
from fractions import Fraction

from msgspec import Struct


class Grade(IntEnum):
    """SM-2's quality of response."""

    BLACKOUT = 0  #: complete blackout
    WRONG = 1  #: incorrect, but the answer was recognised once shown
    ALMOST = 2  #: incorrect, but the answer seemed easy once shown
    HARD = 3  #: correct, with serious difficulty
    GOOD = 4  #: correct, after a hesitation
    PERFECT = 5  #: correct, without hesitation

    @property
    def label(self) -> str:
        """The grade's short name ("blackout" ... "perfect"), short enough for a button."""
        return self.name.lower()

    @property
    def description(self) -> str:
        """What the grade means, in the learner's words (the help screen's)."""
        return _DESCRIPTIONS[self]

    @property
    def passed(self) -> bool:
        """SM-2 counts 3 and up as recalled."""
        return self >= Grade.HARD


_DESCRIPTIONS = {
    Grade.BLACKOUT: "no idea at all",
    Grade.WRONG: "wrong; you recognised the answer",
    Grade.ALMOST: "wrong; the answer seemed easy once shown",
    Grade.HARD: "right, with serious difficulty",
    Grade.GOOD: "right, after a hesitation",
    Grade.PERFECT: "right, no hesitation",
}


class Button(Struct, frozen=True):
    """One grade button: the digit that presses it, its name, and the SM-2 grade it gives."""

    key: int
    name: str
    grade: Grade


#: SM-2's own six grades, 0-5 on keys 0-5: the default layout.
SIX_BUTTONS = tuple(Button(int(g), g.label, g) for g in Grade)
#: Anki's four answers on keys 1-4, as SM-2 grades. Again is a fail that SM-2 still counts as
#: recognised (1); Hard, Good and Easy are SM-2's three passes (3, 4, 5). Read back the other
#: way, it maps an Anki answer (ease 1-4) to the SM-2 grade zerodrill logs.
FOUR_BUTTONS = (
    Button(1, "Again", Grade.WRONG),
    Button(2, "Hard", Grade.HARD),
    Button(3, "Good", Grade.GOOD),
    Button(4, "Easy", Grade.PERFECT),
)
#: The layouts by their number of buttons (``zerodrill drill --buttons 4|6``), which is also
#: how the log records the layout a grade was pressed on.
LAYOUTS: dict[int, tuple[Button, ...]] = {6: SIX_BUTTONS, 4: FOUR_BUTTONS}
DEFAULT_LAYOUT = 6
#: Anki's four buttons: the layout of a grade pressed on them, or imported from Anki.
ANKI_LAYOUT = 4


def check_layout(buttons: object) -> int:
    """``buttons`` if it names a layout (4 or 6); ``ValueError`` otherwise."""
    if isinstance(buttons, bool) or not isinstance(buttons, int) or buttons not in LAYOUTS:
        raise ValueError(f"grade buttons must be 4 or 6, not {buttons!r}")
    return buttons


def nearest_button(layout: Sequence[Button], grade: int) -> Button:
    """The button of ``layout`` closest to SM-2 ``grade``, on the same side of pass/fail: a
    suggested 2 (a fail) is Again in the four-button layout, never Hard (a pass)."""
    passed = to_grade(grade).passed
    same_side = [b for b in layout if b.grade.passed == passed] or list(layout)
    return min(same_side, key=lambda b: (abs(int(b.grade) - grade), b.grade))


def button_for_key(layout: Sequence[Button], key: int) -> Button | None:
    """The button the digit ``key`` presses in ``layout``; None if it presses none."""
    return next((b for b in layout if b.key == key), None)


#: Step 7: a grade below this comes back the same day until it reaches it.
REPEAT_BELOW = Grade.GOOD

INITIAL_EF_HUNDREDTHS = 250
MIN_EF_HUNDREDTHS = 130
#: Anki's own ceiling (100 years). SM-2 sets none, but without one a card graded 5 again and
#: again (say, by a script) outgrows the calendar; no real schedule comes near it.
MAX_INTERVAL = 36_500


def to_grade(quality: object) -> Grade:
    """``quality`` as a :class:`Grade`; ``ValueError`` for anything but an int in 0..5."""
    # bool is an int subclass, and Grade(True) would quietly be a 1.
    if isinstance(quality, bool) or not isinstance(quality, int):
        raise ValueError(f"grade must be an integer 0-5, not {quality!r}")
    if not 0 <= quality <= 5:
        raise ValueError(f"grade must be 0-5, not {quality}")
    return Grade(quality)


class Sm2State(Struct, frozen=True):
    """What SM-2 knows about one study item.

    EF is kept exact, in whole hundredths (:attr:`ef_hundredths`, 250 for 2.5): it only ever
    moves in steps of 0.02. :attr:`easiness` is it as an exact number (``state.easiness ==
    2.5`` holds for a new card; ``float(state.easiness)`` is for display) and
    :attr:`ease_permille` as Anki's ``factor``.

    A card never reviewed has ``due = None`` and ``interval = 0``: it is not scheduled until
    its first grade, which is what tells "new" from "due".
    """

    repetitions: int = 0
    interval: int = 0
    ef_hundredths: int = INITIAL_EF_HUNDREDTHS
    due: date | None = None
    lapses: int = 0

    def __post_init__(self) -> None:
        ef = self.ef_hundredths
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
    q = to_grade(quality)
    reps, interval, lapses = state.repetitions, state.interval, state.lapses
    if q.passed:
        if reps == 0:
            interval = 1
        elif reps == 1:
            interval = 6
        else:
            # ⌈I × EF⌉ in integers: -(-a // b) is the ceiling of a / b.
            interval = min(MAX_INTERVAL, -(-interval * state.ef_hundredths // 100))
        reps += 1
    else:
        lapses += reps > 0
        reps, interval = 0, 1
    d = 5 - q
    ef = max(MIN_EF_HUNDREDTHS, state.ef_hundredths + 10 - d * (8 + 2 * d))
    return Sm2State(reps, interval, ef, day + timedelta(days=interval), lapses)


#: Anki's answer buttons (the revlog's ``ease``: Again 1, Hard 2, Good 3, Easy 4, as the v2
#: and v3 schedulers log them) as SM-2 grades: the four-button layout read the other way, so a
#: press of Good in Anki and of Good in the drill log the same grade.
ANKI_EASE_TO_GRADE: dict[int, Grade] = {button.key: button.grade for button in FOUR_BUTTONS}
