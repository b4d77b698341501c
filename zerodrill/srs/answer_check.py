"""Checking a typed cloze answer: pure text work, no Textual, so it is tested on its own.

What a learner types is compared with the deletion's answer as a sequence of tokens, so that
only what the card tests can make an answer wrong:

- letter case, spacing, punctuation and Markdown never matter (``zero_optimization`` and
  `` `Zero_Optimization` ``; ``all-gather`` and ``all gather``); nor do "the", "a", "an" and
  the "and"/"or" before a list's last item;
- a symbol and its spelt name are one token: Greek letters (``Ψ`` and ``psi``), ``≤`` and
  ``<=``, ``≥`` and ``>=``, ``→`` and ``->``; multiplication signs (``×``, ``·``, ``*`` and a
  lone ``x``) are left out, as a learner writes ``2 × 3`` or ``2*3`` or ``2 x 3``;
- a number is its value (``5e8`` is ``500,000,000``) and must be exactly right: ``1e8`` for
  ``1e9`` is wrong, never a slip;
- an identifier in code (a config key, a dotted name, a call, a CamelCase name) must be exact
  up to letter case:
  the deck itself teaches that a misspelt key falls back silently, so ``zero_optimisation`` for
  ``zero_optimization`` is wrong;
- a slip (a letter or two off in a word of prose) is "nearly right"; a missing or extra item
  (``2 and 3`` for ``1, 2 and 3``) is wrong, as it leaves out the very fact the card tests.

A deletion number used several times in one card asks for several answers; they are typed in
order, separated by commas or semicolons. Blanks the card shows side by side (``[...].[...]``,
only punctuation between them) may also be typed as the one text the card shows there,
punctuation included (``zero_optimization.stage``).

The verdict and the suggested grade come from the same marks, in SM-2's own words, so they
never disagree: every part right is right (4, good); every part right or a slip is a slip
(3, hard: right, with serious difficulty); any part wrong is wrong (1).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable, Sequence
from decimal import Decimal, InvalidOperation
from enum import Enum

from msgspec import Struct

from zerodrill.srs.sm2 import Grade

_SEPARATORS = re.compile(r"\s*[,;]\s*")
_SPACE = re.compile(r"\s+")
#: What may stand between two blanks for the card to show them as one piece of text: a
#: little punctuation (``.``, ``::``, ``/``), a single space, or nothing; never a word.
_JOINER = re.compile(r"[^\w\s]{0,3}| ?")
#: How alike (0..1) a mistyped word must be to its answer to count as a slip, not a miss.
CLOSE = 0.8
#: At most this many letters off (added, dropped or changed) for a slip.
SLIP_EDITS = 2

#: Symbols written as the learner would type them. Greek letters are spelt by name below.
_SYMBOLS = {
    "≤": " <= ", "≥": " >= ", "≠": " != ", "→": " -> ", "⇒": " -> ", "←": " <- ",
    "×": " ", "·": " ", "∙": " ", "⋅": " ", "*": " ", "−": "-", "–": " ", "—": " ",
    "≈": " ~ ", "∞": " infinity ",
}  # fmt: skip
_SYMBOL_RE = re.compile("|".join(map(re.escape, _SYMBOLS)))

#: One token: a version, a code identifier, a number, an operator or a word; whatever is
#: left (punctuation) separates tokens and is dropped.
_TOKEN = re.compile(
    r"""
    (?P<version> v?\d+(?:\.\d+){2,} )
    | (?P<code> [A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)+(?:\(\))?
             | [A-Za-z0-9]*_[A-Za-z0-9_]*(?:\(\))?
             | [A-Za-z_][A-Za-z0-9_]*\(\)
             | [A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]* )
    | (?P<number> (?:\d+(?:,\d{3}(?!\d))*(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)? )
    | (?P<op> <=|>=|!=|->|<-|[+/=<>~] )
    | (?P<word> [^\W\d_]+ )
    """,
    re.VERBOSE,
)
#: Words that carry no fact the card tests.
_FILLER = frozenset({"the", "a", "an", "and", "or"})


class _Kind(Enum):
    WORD = "word"
    NUMBER = "number"
    CODE = "code"
    EXACT = "exact"  #: versions and operators


class _Token(Struct, frozen=True):
    kind: _Kind
    text: str
    #: A number's value, so that 5e8 and 500000000 are one number.
    value: Decimal | None = None

    def same(self, other: _Token) -> bool:
        if {self.kind, other.kind} <= {_Kind.WORD, _Kind.CODE}:
            # Typed in lower case, a name reads as a word: the letters decide.
            return self.text == other.text
        if self.kind is not other.kind:
            return False
        if self.kind is _Kind.NUMBER:
            return self.value == other.value
        return self.text == other.text


def _spelt(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = _SYMBOL_RE.sub(lambda m: _SYMBOLS[m.group()], text)
    out = []
    for ch in text:
        name = unicodedata.name(ch, "") if ord(ch) > 127 else ""
        out.append(f" {name.split()[-1].lower()} " if name.startswith("GREEK") else ch)
    return "".join(out)


def tokens(text: str) -> tuple[_Token, ...]:
    """``text`` as the checker compares it (see the module's docstring)."""
    found: list[_Token] = []
    for m in _TOKEN.finditer(_spelt(text.replace("`", " "))):
        kind, raw = m.lastgroup, m.group()
        if kind == "number":
            try:
                value = Decimal(raw.replace(",", ""))
            except InvalidOperation:  # pragma: no cover - the pattern admits only numbers
                continue
            found.append(_Token(_Kind.NUMBER, raw, value))
        elif kind == "code" and _is_code(raw):
            found.append(_Token(_Kind.CODE, raw.casefold()))
        elif kind in ("version", "op"):
            found.append(_Token(_Kind.EXACT, raw.casefold().removeprefix("v")))
        else:
            # A dotted abbreviation ("i.e.") is prose, not code: its letters are words.
            found += [_Token(_Kind.WORD, w.casefold()) for w in re.findall(r"[^\W\d_]+", raw)]
    kept = [t for t in found if not (t.kind is _Kind.WORD and t.text in _FILLER)]
    # A lone "x" among other tokens is a multiplication sign (2 x 3, TP x PP, 1.5x).
    if len(kept) > 1:
        kept = [t for t in kept if not (t.kind is _Kind.WORD and t.text == "x")]
    return tuple(kept)


def _is_code(raw: str) -> bool:
    # "i.e" and "e.g" match the dotted pattern; a real dotted name has a part of 3 letters.
    if "_" in raw or raw.endswith("()") or re.search(r"[a-z][A-Z]", raw):
        return True
    return any(len(part) >= 3 for part in re.split(r"\.|::", raw))


def normalize(text: str) -> str:
    return _SPACE.sub(" ", text.replace("`", "").strip()).casefold()


class Mark(Enum):
    RIGHT = "right"
    SLIP = "slip"
    WRONG = "wrong"


class Part(Struct, frozen=True):
    """One expected answer next to what was typed for it."""

    expected: str
    typed: str
    #: (is_right, text) runs over ``typed``: what to colour green and red.
    runs: tuple[tuple[bool, str], ...]
    mark: Mark
    #: How alike the typed text is to the answer, 0..1 (for the whole answer's figure).
    ratio: float

    @property
    def right(self) -> bool:
        return self.mark is Mark.RIGHT

    @property
    def close(self) -> bool:
        """Not right, but a slip (a letter or two off) rather than another answer."""
        return self.mark is Mark.SLIP


class Check(Struct, frozen=True):
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
        is right or a slip, 1 "incorrect, but remembered once seen" otherwise."""
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


def mark(typed: str, expected: str) -> Mark:
    """Right, a slip or wrong: ``typed`` against one ``expected`` answer."""
    want, got = tokens(expected), tokens(typed)
    if not want:
        # An answer of punctuation alone: nothing to forgive, so it is compared as written.
        return Mark.RIGHT if normalize(typed) == normalize(expected) else Mark.WRONG
    if len(got) == len(want):
        if all(g.same(w) for g, w in zip(got, want, strict=True)):
            return Mark.RIGHT
        if all(g.same(w) or _slip(g, w) for g, w in zip(got, want, strict=True)):
            return Mark.SLIP
        return Mark.WRONG
    # Words run together or split apart ("allgather", "all gather"): the same letters, the
    # same numbers and code, only the spacing differs.
    if _facts(got) == _facts(want):
        joined, target = _joined(got), _joined(want)
        if joined == target:
            return Mark.RIGHT
        if _edits(joined, target) <= SLIP_EDITS and _similar(joined, target) >= CLOSE:
            return Mark.SLIP
    return Mark.WRONG


def _slip(got: _Token, want: _Token) -> bool:
    # Only prose forgives a letter off: a number, a version or a code identifier is the fact.
    if got.kind is not _Kind.WORD or want.kind is not _Kind.WORD or len(want.text) < 4:
        return False
    return _edits(got.text, want.text) <= SLIP_EDITS and _similar(got.text, want.text) >= CLOSE


def _facts(found: Sequence[_Token]) -> list[tuple[_Kind, str | Decimal | None]]:
    return [
        (t.kind, t.value if t.value is not None else t.text)
        for t in found
        if t.kind is not _Kind.WORD
    ]


def _joined(found: Sequence[_Token]) -> str:
    return "".join(t.text for t in found if t.kind is _Kind.WORD)


def _similar(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _edits(a: str, b: str) -> int:
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for op, i1, i2, j1, j2 in ops if op != "equal")


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
    verdict = mark(typed, expected)
    if verdict is Mark.RIGHT:
        # Right as the checker reads it ("2 psi" for "2Ψ"): nothing to mark red.
        runs = [(True, shown)] if shown else []
    return Part(expected, typed, tuple(runs), verdict, matcher.ratio())
