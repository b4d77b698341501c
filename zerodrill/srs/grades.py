"""The grades a learner gives and the buttons that give them, whatever the scheduler.

SM-2's six qualities of response (0-5) are the log's vocabulary: every scheduler reads a
grade as one of them (FSRS maps them to its four ratings), and a layout of buttons (SM-2's
six, or Anki's four) says which grade each key gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

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
    if type(buttons) is int and buttons in LAYOUTS:  # the common case, first
        return buttons
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


def to_grade(quality: object) -> Grade:
    """``quality`` as a :class:`Grade`; ``ValueError`` for anything but an int in 0..5."""
    if type(quality) is Grade:  # most calls: a replay hands on the grades it read
        return quality
    # bool is an int subclass, and Grade(True) would quietly be a 1.
    if isinstance(quality, bool) or not isinstance(quality, int):
        raise ValueError(f"grade must be an integer 0-5, not {quality!r}")
    # A table, not Grade(quality): the enum's call cost a replay of bench_anki_sync.py's
    # 20,000 grades 60 ms (issue 35 point 7: a two-way sync within 3x Anki's own syncs).
    grade = _BY_VALUE.get(quality)
    if grade is None:
        raise ValueError(f"grade must be 0-5, not {quality}")
    return grade


_BY_VALUE: dict[int, Grade] = {int(grade): grade for grade in Grade}


#: Anki's answer buttons (the revlog's ``ease``: Again 1, Hard 2, Good 3, Easy 4, as the v2
#: and v3 schedulers log them) as SM-2 grades: the four-button layout read the other way, so a
#: press of Good in Anki and of Good in the drill log the same grade.
ANKI_EASE_TO_GRADE: dict[int, Grade] = {button.key: button.grade for button in FOUR_BUTTONS}
