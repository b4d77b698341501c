"""Checking a typed cloze answer: pure text work, no Textual, so it is tested on its own.

The comparison forgives what a learner cannot be expected to type exactly: letter case,
surrounding space and Markdown backticks (``zero_optimization`` and `` `zero_optimization` ``
are the same answer). A deletion number used several times in one card asks for several
answers; they are typed in order, separated by commas or semicolons.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

_SEPARATORS = re.compile(r"\s*[,;]\s*")
_SPACE = re.compile(r"\s+")


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
        raises it to 5 if it was instant), 3 for a near miss, 1 "incorrect, but remembered
        once seen" for a wrong one."""
        if self.right:
            return 4
        if self.ratio >= 0.8:
            return 3
        return 1


def check(typed: str, expected: list[str]) -> Check:
    """Compare ``typed`` with the ``expected`` answers of one deletion number."""
    if len(expected) > 1:
        pieces = _SEPARATORS.split(typed.strip())
        if len(pieces) != len(expected):
            # Typed without separators: judge it as one answer against all of them joined.
            pieces = [typed]
            expected = [" ".join(expected)]
    else:
        pieces = [typed]
    parts = tuple(_part(t, e) for t, e in zip(pieces, expected, strict=True))
    ratio = sum(_ratio(p.typed, p.expected) for p in parts) / len(parts)
    return Check(parts, ratio)


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
