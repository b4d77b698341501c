"""Checking a typed cloze answer: its parts, their marks, the verdict and the grade it suggests.

A deletion number used several times asks for several answers, typed in order, separated by
commas or semicolons. Blanks the card shows side by side (``[...].[...]``) may also be typed as
the one text the card shows there (``zero_optimization.stage``). How one part is marked is
:mod:`answer_marks`'s; the verdict and the suggested grade both come from the worst mark, so
they never disagree.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence

from msgspec import Struct

from zerodrill.deck import cloze
from zerodrill.srs.answer_marks import Mark, judge, plain
from zerodrill.srs.grades import Grade

_SEPARATORS = re.compile(r"\s*[,;]\s*")
#: What may stand between two blanks for the card to show them as one piece of text: a
#: little punctuation (``.``, ``::``, ``/``), a single space, or nothing; never a word.
_JOINER = re.compile(r"[^\w\s]{0,3}| ?")
#: What, right after a deletion, says its list is in order.
_IN_ORDER = re.compile(
    r"[\s,]*(?:in\s+(?:that|this|the\s+same|the\s+given)\s+order|respectively)\b", re.IGNORECASE
)


class Part(Struct, frozen=True):
    expected: str
    typed: str
    #: (is_right, text) runs over ``typed``.
    runs: tuple[tuple[bool, str], ...]
    mark: Mark
    #: How alike the typed text is to the answer, 0..1.
    ratio: float
    #: Why the mark: what differs, or for a right answer written another way, how it was read.
    reason: str = ""

    @property
    def right(self) -> bool:
        return self.mark is Mark.RIGHT

    @property
    def close(self) -> bool:
        return self.mark is Mark.SLIP

    @property
    def almost(self) -> bool:
        return self.mark is Mark.ALMOST


class Check(Struct, frozen=True):
    parts: tuple[Part, ...]
    ratio: float

    @property
    def right(self) -> bool:
        return all(p.right for p in self.parts)

    @property
    def suggested_grade(self) -> int:
        """SM-2's own wording: 4 for right (5 if it was instant), 3 for slips, 2 for an
        identifier almost right, 1 otherwise."""
        worst = max((p.mark for p in self.parts), key=lambda m: m.rank)
        return {
            Mark.RIGHT: Grade.GOOD,
            Mark.SLIP: Grade.HARD,
            Mark.ALMOST: Grade.ALMOST,
            Mark.WRONG: Grade.WRONG,
        }[worst]

    def verdict(self, name: Callable[[Grade], str] = lambda g: f"{int(g)} {g.label}") -> str:
        """One line: what the marks add up to and the grade suggested, each grade called by
        ``name`` (the grade bar's key and label)."""
        grade = Grade(self.suggested_grade)
        why = f"{name(grade)} suggested ({grade.description})"
        if grade is Grade.GOOD:
            return f"Right: {why}; {name(Grade.PERFECT)} if it came at once."
        if grade is Grade.HARD:
            return f"Nearly right, a slip where marked ≈: {why}."
        if grade is Grade.ALMOST:
            return f"Almost, a name in code not exact: {why}."
        wrong = sum(p.mark is Mark.WRONG for p in self.parts)
        if len(self.parts) == 1:
            return f"Not right: {why}."
        return f"{wrong} of {len(self.parts)} parts wrong: {why}."


def check_cloze(typed: str, text: str, ordinal: int) -> Check:
    """:func:`check` of ``typed`` against deletion ``ordinal`` of the cloze ``text``, as the
    card shows it: which blanks are in code, and whether the card says a list's order."""
    answers, between = cloze.blanks(text, ordinal)
    mine = [d for d in cloze.deletions(text) if d.ordinal == ordinal]
    spans = cloze.code_spans(text) if "`" in text else []
    code = [cloze.span_at(spans, d.start) is not None for d in mine]
    ordered = bool(mine) and _IN_ORDER.match(text, mine[-1].end) is not None
    return check(typed, answers, between, code=code, ordered=ordered)


def check(
    typed: str,
    expected: Sequence[str],
    between: Sequence[str] = (),
    *,
    code: Sequence[bool] = (),
    ordered: bool = False,
) -> Check:
    """Compare ``typed`` with the ``expected`` answers of one deletion number. ``between[i]``
    is the card's text between ``expected[i]`` and the next; ``code[i]``, that ``expected[i]``
    is in a code span; ``ordered``, that the card says a list's order."""
    pieces = [typed]
    wanted = [(answer, n < len(code) and code[n]) for n, answer in enumerate(expected)]
    in_order = ordered
    if len(wanted) > 1:
        split = _SEPARATORS.split(typed.strip())
        groups = _side_by_side(wanted, between)
        if len(split) == len(wanted):
            pieces = split
        elif len(split) == len(groups):
            pieces, wanted = split, groups
        else:
            # Neither one answer per blank nor per group: judged as one answer against the
            # groups written the way the placeholder asks for them, in the blanks' order.
            wanted = [(", ".join(g for g, _ in groups), any(c for _, c in groups))]
            in_order = True
    parts = tuple(
        _part(t, e, code=c, ordered=in_order) for t, (e, c) in zip(pieces, wanted, strict=True)
    )
    ratio = sum(p.ratio for p in parts) / len(parts)
    return Check(parts, ratio)


def _side_by_side(
    expected: Sequence[tuple[str, bool]], between: Sequence[str]
) -> list[tuple[str, bool]]:
    groups = [expected[0]]
    for n, (answer, code) in enumerate(expected[1:]):
        gap = between[n] if n < len(between) else None
        if gap is not None and _JOINER.fullmatch(gap):
            text, in_code = groups[-1]
            groups[-1] = (text + gap + answer, in_code or code)
        else:
            groups.append((answer, code))
    return groups


def _part(typed: str, expected: str, *, code: bool, ordered: bool) -> Part:
    judged = judge(typed, expected, code=code, ordered=ordered)
    shown, want = plain(typed), plain(expected)
    # Letter case is marked only where it made the answer almost: a name in code.
    a, b = (shown, want) if judged.mark is Mark.ALMOST else (shown.casefold(), want.casefold())
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
    if judged.mark is Mark.RIGHT:
        # Right as the checker reads it ("2 psi" for "2Ψ"): nothing to mark red.
        runs = [(True, shown)] if shown else []
    return Part(expected, typed, tuple(runs), judged.mark, matcher.ratio(), judged.reason)
