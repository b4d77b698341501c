"""Checking a typed cloze answer: pure text work, no Textual, so it is tested on its own.

The comparison forgives what a learner cannot be expected to type exactly: letter case,
surrounding space and Markdown backticks (``zero_optimization`` and `` `zero_optimization` ``
are the same answer). A deletion number used several times in one card asks for several
answers; they are typed in order, separated by commas or semicolons. Blanks the card shows
side by side (``[...].[...]``, only punctuation between them) may also be typed as the one
text the card shows there, punctuation included (``zero_optimization.stage``).

The verdict and the suggested grade come from the same marks, in SM-2's own words, so they
never disagree: every part exact is right (4, good); every part exact or a near miss is a
slip (3, hard: right, with serious difficulty); any part wrong is wrong (1).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from zerodrill.srs.sm2 import Grade

_SEPARATORS = re.compile(r"\s*[,;]\s*")
_SPACE = re.compile(r"\s+")
#: What may stand between two blanks for the card to show them as one piece of text: a
#: little punctuation (``.``, ``::``, ``/``), a single space, or nothing; never a word.
_JOINER = re.compile(r"[^\w\s]{0,3}| ?")
#: How alike (0..1) a typed part must be to its answer to count as a slip, not a miss.
CLOSE = 0.8


def normalize(text: str) -> str:
    return _SPACE.sub(" ", text.replace("`", "").strip()).casefold()


@dataclass(frozen=True, slots=True)
class Part:
    """One expected answer next to what was typed for it."""

    expected: str
    typed: str
    #: (is_right, text) runs over ``typed``: what to colour green and red.
    runs: tuple[tuple[bool, str], ...]

    @property
    def right(self) -> bool:
        return normalize(self.typed) == normalize(self.expected)

    @property
    def ratio(self) -> float:
        return _ratio(self.typed, self.expected)

    @property
    def close(self) -> bool:
        """Not right, but a slip (a letter or two off) rather than another answer."""
        return not self.right and self.ratio >= CLOSE


@dataclass(frozen=True, slots=True)
class Check:
    parts: tuple[Part, ...]
    #: How close the whole answer came, 0..1.
    ratio: float

    @property
    def right(self) -> bool:
        return all(p.right for p in self.parts)

    @property
    def suggested_grade(self) -> int:
        """SM-2's own wording: 4 "correct after hesitation" for a right answer (the learner
        raises it to 5 if it was instant), 3 "correct with serious difficulty" when every part
        is right or a near miss, 1 "incorrect, but remembered once seen" otherwise."""
        if self.right:
            return Grade.GOOD
        if all(p.right or p.close for p in self.parts):
            return Grade.HARD
        return Grade.WRONG

    def verdict(self, name: Callable[[Grade], str] = lambda g: f"{int(g)} {g.label}") -> str:
        """One line: what the marks add up to, the grade suggested, and why.

        ``name`` says how a grade is called on the grade bar (its key and label).
        """
        grade = Grade(self.suggested_grade)
        why = f"{name(grade)} suggested ({grade.description})"
        if grade is Grade.GOOD:
            return f"Right: {why}; {name(Grade.PERFECT)} if it came at once."
        if grade is Grade.HARD:
            return f"Nearly right, a slip where marked ≈: {why}."
        wrong = sum(not (p.right or p.close) for p in self.parts)
        if len(self.parts) == 1:
            return f"Not right: {why}."
        return f"{wrong} of {len(self.parts)} parts wrong: {why}."


def check(typed: str, expected: Sequence[str], between: Sequence[str] = ()) -> Check:
    """Compare ``typed`` with the ``expected`` answers of one deletion number.

    ``between[i]`` is the text the card shows between ``expected[i]`` and ``expected[i+1]``
    (left out, the blanks count as apart).
    """
    pieces = [typed]
    wanted = list(expected)
    if len(wanted) > 1:
        split = _SEPARATORS.split(typed.strip())
        groups = _side_by_side(wanted, between)
        if len(split) == len(wanted):
            pieces = split
        elif len(split) == len(groups):
            pieces, wanted = split, groups
        else:
            # Neither one answer per blank nor per group: judged as one answer against the
            # groups written the way the placeholder asks for them.
            wanted = [", ".join(groups)]
    parts = tuple(_part(t, e) for t, e in zip(pieces, wanted, strict=True))
    ratio = sum(p.ratio for p in parts) / len(parts)
    return Check(parts, ratio)


def _side_by_side(expected: Sequence[str], between: Sequence[str]) -> list[str]:
    """``expected`` with the answers the card shows side by side joined as it shows them."""
    groups = [expected[0]]
    for n, answer in enumerate(expected[1:]):
        gap = between[n] if n < len(between) else None
        if gap is not None and _JOINER.fullmatch(gap):
            groups[-1] += gap + answer
        else:
            groups.append(answer)
    return groups


def _ratio(typed: str, expected: str) -> float:
    return difflib.SequenceMatcher(None, normalize(typed), normalize(expected)).ratio()


def _part(typed: str, expected: str) -> Part:
    shown = _SPACE.sub(" ", typed.replace("`", "").strip())
    a, b = shown.casefold(), normalize(expected)
    runs: list[tuple[bool, str]] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, _j1, _j2 in matcher.get_opcodes():
        if i1 == i2:
            continue
        ok = op == "equal"
        if runs and runs[-1][0] == ok:
            runs[-1] = (ok, runs[-1][1] + shown[i1:i2])
        else:
            runs.append((ok, shown[i1:i2]))
    return Part(expected, typed, tuple(runs))
