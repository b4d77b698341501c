"""Numbers written in words ("two", "twenty-one", "five hundred million", "a thousand"), read
as a learner means them, for the typed-answer check.

Words that do not make one number are read as several: "one two three" is 1, 2 and 3, as in
a list; "one hundred and five" is 105 (the "and" after a hundred or a scale word belongs to
the number, never elsewhere, so "two and three" stays a list).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
SCALE_WORDS = {
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
}
#: Letters after a number that multiply it (500M, 1.5k, 0.5B): read so only where the answer
#: is a plain number, as elsewhere a letter may be a unit or a name ("0.5M" of a model size M).
SCALE_SUFFIXES = {
    "k": 10**3,
    "m": 10**6,
    "mn": 10**6,
    "b": 10**9,
    "bn": 10**9,
    "g": 10**9,
    "t": 10**12,
}
_HUNDRED = "hundred"


def read(words: Sequence[str], start: int) -> tuple[Decimal, int] | None:
    """The number spelt by ``words`` (lower case) from ``start``, and the index just past
    it; None if no number starts there. The longest number that reads as one is taken."""
    n = len(words)
    i = start
    total = group = 0
    #: What the last word was: a unit (0-19), tens, "hundred", a scale word, or nothing yet.
    state = ""
    below = 10**15  # a scale word must be smaller than the one before it (million thousand)
    if (
        i + 1 < n
        and words[i] in ("a", "an")
        and (words[i + 1] in SCALE_WORDS or words[i + 1] == _HUNDRED)
    ):
        group, state, i = 1, "unit", i + 1
    while i < n:
        word = words[i]
        if word == "and" and state in ("hundred", "scale") and i + 1 < n:
            after = words[i + 1]
            if _UNITS.get(after, 0) > 0 or after in _TENS:
                i += 1
                continue
            break
        if word in _UNITS:
            value = _UNITS[word]
            if word == "zero":
                if state:
                    break
                return Decimal(0), i + 1
            if state == "unit" or (state == "tens" and value >= 10):
                break
            group += value
            state = "unit"
        elif word in _TENS:
            if state in ("unit", "tens"):
                break
            group += _TENS[word]
            state = "tens"
        elif word == _HUNDRED:
            if state != "unit" or group % 100 >= 20 or group >= 100:
                break
            group *= 100
            state = "hundred"
        elif word in SCALE_WORDS:
            scale = SCALE_WORDS[word]
            if state not in ("unit", "tens", "hundred") or scale >= below:
                break
            total += group * scale
            group, below, state = 0, scale, "scale"
        else:
            break
        i += 1
    if not state:
        return None
    return Decimal(total + group), i
