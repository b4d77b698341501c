"""Deleted figures that the learner can work out from what the card leaves in sight.

A cloze deletion of a figure tests recall only if the figure cannot be computed from the text
shown while it is asked (the other deletions filled in, hints shown). This finds the cases it
can tell, where the arithmetic is plain on the card:

- the value of a visible expression ("2Ψ + 2Ψ + 12Ψ" shown, 16Ψ deleted), or the one unknown
  of a visible sum ("2 + 2 + [...] = 16");
- a total of the figures of its unit in its sentence ("2Ψ, 2Ψ and 12Ψ: [...] in all"), a
  difference of two of them, or a ratio of two of them deleted as "4x";
- a figure of its sentence times or divided by a count stated there ("2 GB on each of 8 GPUs,
  [...] in all");
- bytes a visible type names ("[...] bytes of fp16 weights": fp16 is 16 bits, 2 bytes), one
  type's or all the types' in its sentence ("the 16-bit weights, and the fp32 master weights,
  momentum and variance": 2 + 3 × 4 = 14 bytes).

Figures carry their unit (Ψ, M, B, GB, GiB, MB, TB, bytes, %, x) and only figures of the same
unit are combined, so stage numbers and counts never add up to a size. A number after a label
word ("stage 2", "v0.19", "PR #8068") is a name, not a quantity. A deletion is compared at the
precision it is written in (1.875 shows as 1.9). What needs knowledge the card does not show
(the ZeRO formulas, what M is measured in) is left to the reviewer.
"""

from __future__ import annotations

import itertools
import math
import re

from msgspec import Struct

from zerodrill.deck import cloze, prose
from zerodrill.deck.model import Card
from zerodrill.deck.recall_lists import clause_items

#: Marks the blank in the text the check reads: a character no deck writes.
BLANK = "\ue000"
_NUM = r"\d+(?:\.\d+)?"
_SPACED_UNIT = r"GiB|GB|MiB|MB|TiB|TB|bytes?|%"
_TIGHT_UNIT = r"Ψ|M|B|x|×"
_FIGURE = re.compile(
    rf"(?<![\w.\-−/#§])(?P<num>{_NUM})"
    rf"(?:\s?(?P<unit>{_SPACED_UNIT})(?![\w])|(?P<tight>{_TIGHT_UNIT})(?![\w]))?"
    rf"(?![\w\-])(?!\s*/\s*[A-Za-z_])|(?<![\w])(?P<bare>Ψ)(?![\w])(?!\s*/\s*[A-Za-z_])"
)
_UNIT_AFTER_BLANK = re.compile(rf"\s*(?:\[[^\]]*\]\s*)?({_SPACED_UNIT})(?!\w)")
_ANSWER = re.compile(rf"\s*(?P<num>{_NUM})\s?(?P<unit>{_SPACED_UNIT}|{_TIGHT_UNIT})?\s*")
_LABEL = re.compile(
    r"(?:stage|stages|zero|v|version|level|rank|step|pr|table|figure|section|line|lines|"
    r"commit|python|cuda|sm|top)[\s-]*$",
    re.I,
)
_DTYPE = re.compile(
    r"\b(?:fp|bf|int|uint|float|bfloat)(?P<bits>\d{1,2})\b|\b(?P<b2>\d{1,2})-bit\b", re.I
)
_COUNT_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "eight": 8, "ten": 10}
_COUNT_WORDS |= {"twice": 2, "double": 2, "half": 2, "halves": 2, "quarter": 4, "triple": 3}
_COUNT_WORD = re.compile(rf"\b({'|'.join(_COUNT_WORDS)})\b", re.I)
_OPERATOR = re.compile(r"\s*([-+−×*/·=])\s*")
_BYTES = re.compile(r"\bbytes?\b", re.I)
#: Words between a type and a deleted byte count for the type to name it: "[...] bytes of fp16".
DTYPE_REACH_WORDS = 4


class Figure(Struct, frozen=True):
    value: float
    unit: str | None
    start: int
    end: int
    text: str


class Derived(Struct, frozen=True):
    """A deletion the card lets the learner work out: its number, answer, and how."""

    ordinal: int
    answer: str
    how: str


def _unit(raw: str | None) -> str | None:
    if raw is None:
        return None
    return {"byte": "bytes", "×": "x"}.get(raw, raw)


def figures(text: str) -> list[Figure]:
    """The figures in ``text`` with their units, labels ("stage 2") left out."""
    found: list[Figure] = []
    for m in _FIGURE.finditer(text):
        if m.group("bare"):
            found.append(Figure(1.0, "Ψ", m.start(), m.end(), m.group()))
            continue
        unit = _unit(m.group("unit") or m.group("tight"))
        if unit is None and _LABEL.search(text[: m.start()]):
            continue
        found.append(Figure(float(m.group("num")), unit, m.start(), m.end(), m.group().strip()))
    return found


def _decimals(number: str) -> int:
    return len(number.partition(".")[2])


def _same(computed: float, answer: str, value: float) -> bool:
    """Whether ``computed`` is the deleted value at the precision the deletion is written in."""
    return math.isclose(computed, value, rel_tol=1e-9) or (
        _decimals(answer) > 0 and round(computed, _decimals(answer)) == value
    )


def _question(text: str, ordinal: int) -> str:
    def hidden(d: cloze.Deletion) -> str:
        return f" {BLANK} " + (f"[{d.hint}]" if d.hint else "")

    return prose.plain(cloze.render(text, ordinal, reveal=False, hidden=hidden))


def _expressions(text: str) -> list[list[str | Figure]]:
    """Runs of figures (and the blank) joined by + - × / =, as tokens. A run that an operator
    joins to a symbol ("12Ψ/N_d", "N_d × 2Ψ") is not arithmetic on figures: left out."""
    marks: list[tuple[int, int, str | Figure]] = [(f.start, f.end, f) for f in figures(text)]
    marks += [(m.start(), m.end(), BLANK) for m in re.finditer(BLANK, text)]
    marks.sort(key=lambda mark: mark[0])
    runs: list[list[str | Figure]] = []
    run: list[str | Figure] = []
    first = last = 0
    for start, end, token in marks + [(len(text) + 1, len(text) + 1, "")]:
        op = _OPERATOR.fullmatch(text[last:start]) if run else None
        if op is not None and token:
            run += [op.group(1), token]
        else:
            touches = _OPERATOR.match(text[last:]) or re.search(r"[-+−×*/·=]\s*$", text[:first])
            if len(run) >= 3 and not touches:
                runs.append(run)
            run, first = [token], start
        last = end
    return runs


def _evaluate(tokens: list[str | Figure]) -> tuple[float, str | None] | None:
    """The value and unit of a sum of products, or None where units do not agree."""
    total: float | None = None
    total_unit: str | None = None
    sign = 1.0
    term: list[str | Figure] = []
    for token in [*tokens, "+"]:
        if token in ("+", "-", "−"):
            product = _product(term)
            if product is None:
                return None
            value, unit = product
            # A bare number adds to a figure of any unit: "2 + 2 + 12 = 16 bytes".
            if total is not None and None not in (unit, total_unit) and unit != total_unit:
                return None
            total = (total or 0.0) + sign * value
            total_unit = total_unit or unit
            sign = 1.0 if token == "+" else -1.0
            term = []
        else:
            term.append(token)
    return None if total is None else (total, total_unit)


def _product(term: list[str | Figure]) -> tuple[float, str | None] | None:
    if not term or not isinstance(term[0], Figure):
        return None
    value, unit = term[0].value, term[0].unit
    for op, factor in zip(term[1::2], term[2::2], strict=False):
        if not isinstance(factor, Figure):
            return None
        if op == "/":
            if factor.value == 0:
                return None
            value /= factor.value
            unit = None if factor.unit == unit and unit is not None else unit or factor.unit
            if factor.unit not in (None, unit) and unit is not None:
                return None
        else:
            if unit is not None and factor.unit is not None:
                return None
            value *= factor.value
            unit = unit or factor.unit
    return value, unit


def _from_expressions(text: str, answer: str, value: float, unit: str | None) -> str | None:
    for run in _expressions(text):
        shown = " ".join(t.text if isinstance(t, Figure) else t for t in run)
        shown = shown.replace(BLANK, "[...]")
        sides = _split(run, "=")
        with_blank = [side for side in sides if BLANK in side]
        if not with_blank:
            results = [r for side in sides if (r := _evaluate(side)) is not None]
            if any(u in (unit, None) and _same(v, answer, value) for v, u in results):
                return f"it is the value of '{shown}', which stays in sight"
            continue
        if len(sides) != 2 or len(with_blank) != 1 or with_blank[0].count(BLANK) != 1:
            continue
        rest = with_blank[0]
        known = _evaluate(sides[1] if rest is sides[0] else sides[0])
        if known is None or any(op not in ("+", "-", "−") for op in rest[1::2]):
            continue  # the unknown of a sum only: a product's is another matter
        at = rest.index(BLANK)
        sign = -1.0 if at and rest[at - 1] != "+" else 1.0
        zero = Figure(0.0, None, 0, 0, "0")
        partial = _evaluate([zero if t == BLANK else t for t in rest])
        if partial is not None and _same(sign * (known[0] - partial[0]), answer, value):
            return f"it is the one unknown of '{shown}'"
    return None


def _split(run: list[str | Figure], sep: str) -> list[list[str | Figure]]:
    sides: list[list[str | Figure]] = [[]]
    for token in run:
        if token == sep:
            sides.append([])
        else:
            sides[-1].append(token)
    return sides


def _counts(sentence: str) -> list[int]:
    numbers = [int(f.value) for f in figures(sentence) if f.unit is None and f.value.is_integer()]
    words = [_COUNT_WORDS[w.casefold()] for w in _COUNT_WORD.findall(sentence)]
    return sorted({n for n in numbers + words if n >= 2})


def _from_sentence(sentence: str, answer: str, value: float, unit: str | None) -> str | None:
    if unit is None:
        return None
    visible = [f for f in figures(sentence) if f.unit == unit or (unit == "x" and f.unit)]
    same = [f for f in visible if f.unit == unit]
    if unit != "x" and len(same) >= 2 and _same(sum(f.value for f in same), answer, value):
        return f"it is the total of {', '.join(f.text for f in same)}, in sight"
    for a, b in itertools.permutations(same, 2):
        if _same(a.value - b.value, answer, value):
            return f"it is {a.text} - {b.text}, both in sight"
    if unit == "x":
        for a, b in itertools.permutations(visible, 2):
            if a.unit == b.unit and b.value and _same(a.value / b.value, answer, value):
                return f"it is {a.text} / {b.text}, both in sight"
        return None
    for f, k in itertools.product(same, _counts(sentence)):
        if _same(f.value * k, answer, value):
            return f"it is {f.text} × {k}, both in sight"
        if _same(f.value / k, answer, value):
            return f"it is {f.text} / {k}, both in sight"
    return None


def _dtype_bytes(sentence: str, answer: str, value: float, unit: str | None) -> str | None:
    if unit not in ("bytes", None) or not _BYTES.search(sentence):
        return None
    at = sentence.index(BLANK)
    types = list(_DTYPE.finditer(sentence))
    for m in types:
        bits = int(m.group("bits") or m.group("b2"))
        near = sentence[m.end() : at] if m.start() < at else sentence[at + 1 : m.start()]
        if len(near.split()) <= DTYPE_REACH_WORDS + 1 and _same(bits / 8, answer, value):
            return f"{m.group()} is {bits} bits, {bits // 8 or bits / 8:g} bytes"
    # All the types in the sentence, each with the items it qualifies: a total in bytes.
    total, items = 0.0, 0
    for n, m in enumerate(types):
        stop = types[n + 1].start() if n + 1 < len(types) else len(sentence)
        stop = min([stop] + [i for i in (sentence.find(BLANK, m.end()),) if i >= 0])
        phrase = re.split(r"[;:]|\d", sentence[m.end() : stop])[0]
        count = max(1, clause_items(phrase))
        total += int(m.group("bits") or m.group("b2")) / 8 * count
        items += count
    if items >= 2 and _same(total, answer, value):
        return f"the types in sight add up to it ({items} items, {total:g} bytes)"
    return None


def card_derived(card: Card) -> list[Derived]:
    """Each figure deletion whose answer can be worked out from the text in sight."""
    field = card.kind.cloze_field
    if field is None or card.retired:
        return []
    text = card.fields[field]
    found: list[Derived] = []
    for ordinal in card.ordinals:
        question = _question(text, ordinal)
        if question.count(BLANK) != 1:
            continue  # several blanks under one number: their sum is not in sight
        for answer in dict.fromkeys(cloze.answers(text, ordinal)):
            how = _derived(question, prose.plain(answer))
            if how is not None:
                found.append(Derived(ordinal, answer, how))
    return found


def _derived(question: str, answer: str) -> str | None:
    m = _ANSWER.fullmatch(answer)
    if m is None:
        return None
    at = question.index(BLANK)
    if _LABEL.search(question[:at].rstrip()):
        return None  # "stage [...]": a name, not a quantity
    value = float(m.group("num"))
    unit = _unit(m.group("unit"))
    after = _UNIT_AFTER_BLANK.match(question, at + 1)
    if unit is None and after is not None:
        unit = _unit(after.group(1))
    number = m.group("num")
    sentence = next(s for s in prose.sentences(question) if BLANK in s)
    return (
        _from_expressions(question, number, value, unit)
        or _from_sentence(sentence, number, value, unit)
        or _dtype_bytes(sentence, number, value, unit)
    )
