"""Marking one typed answer against one expected answer, with the reason for the mark.

Compared as tokens (:mod:`answer_tokens`), so that only what the card tests can make an answer
wrong: case, spacing, punctuation and "the" never matter in prose; a number is its value
however written, and must be exact (``1e8`` for ``1e9`` is wrong, never a slip); a list is a
set unless the answer or the card says its order; a product's factors come in any order; an
identifier must be exact, case included, as DeepSpeed reads its keys (one character or the
case off is "almost", a fail: the key would be ignored silently); a letter or two off in a
word of prose is a slip; a missing or extra item is wrong, as it leaves out the fact tested.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from enum import Enum

from msgspec import Struct

from zerodrill.srs.answer_tokens import Kind, Token, has_suffixes, tokens, with_suffixes

_SPACE = re.compile(r"\s+")
#: What a number's writing may differ by and still be the same writing (500,000 and 500000).
_UNGROUPED = re.compile(r"[\s,_]")
#: Words of an answer that say an order, without joining its steps as "then" does.
_ORDER_WORDS = frozenset({"before", "after", "<-"})
#: What joins the factors of a product: a multiplication sign, a lone x, "times".
_PRODUCT_SIGN = re.compile(r"\s*(?:[×·∙⋅*]|(?<![\w.])x(?![\w.])|\btimes\b)\s*")
#: What makes a text with a multiplication sign more than a product (W / (TP × PP)).
_OTHER_OPERATOR = re.compile(r"[+/=<>()^,;]|\s-\s")
_STEP = Token(Kind.SEP, "then")
#: How alike (0..1) a mistyped word must be to its answer to count as a slip, not a miss.
CLOSE = 0.8
#: At most this many letters off (added, dropped or changed) for a slip.
SLIP_EDITS = 2
#: The shortest identifier whose one character off is "almost": in a shorter one, one
#: character makes another name.
ALMOST_LENGTH = 5
#: The most items a list is matched in any order (each typed item against each of the
#: answer's); a longer one, as no card asks for, is compared in turn.
_LONGEST_SET = 64
#: How many items :func:`_cover` tries at most before it gives up on a list typed unparted.
_COVER_STEPS = 5000


class Mark(Enum):
    """Valued by how far from right: the worst mark of a part's tokens is the part's."""

    RIGHT = 0
    SLIP = 1
    ALMOST = 2
    WRONG = 3

    @property
    def rank(self) -> int:
        return int(self.value)


class Judged(Struct, frozen=True):
    mark: Mark
    reason: str = ""


def plain(text: str) -> str:
    return _SPACE.sub(" ", text.replace("`", "").strip())


def normalize(text: str) -> str:
    return plain(text).casefold()


def mark(typed: str, expected: str) -> Mark:
    """Right, a slip, almost or wrong: ``typed`` against one ``expected`` answer."""
    return judge(typed, expected).mark


def judge(typed: str, expected: str, *, code: bool = False, ordered: bool = False) -> Judged:
    """``typed`` against one ``expected`` answer: its mark and why. With ``code``, the answer
    is in a code span on the card; with ``ordered``, a list in it is in order."""
    want, got = tokens(expected, code=code), tokens(typed)
    if not has_suffixes(want):
        # 500M for 500,000,000; where the answer writes 0.5M itself, M is not a million.
        got = with_suffixes(got)
    if not _content(want):
        # An answer of punctuation alone: nothing to forgive, so it is compared as written.
        if normalize(typed) == normalize(expected):
            return Judged(Mark.RIGHT)
        return Judged(
            Mark.WRONG, f"expected `{expected.strip()}`" if typed.strip() else "nothing typed"
        )
    if not _content(got):
        return Judged(Mark.WRONG, "nothing typed")
    if any(_is_step(want, n) for n in range(len(want))):
        # A sequence ("reduce-scatter then all-gather"): its steps are items, in order.
        want, got, ordered = _steps(want), _steps(got), True
    elif any(t.fold in _ORDER_WORDS for t in want):
        ordered = True
    in_turn = _in_turn(_content(got), _content(want))
    if in_turn.mark is Mark.RIGHT:
        return in_turn
    items = _items(want)
    if 2 <= len(items) <= _LONGEST_SET:
        as_set = _as_set(_items(got), items)
        if not ordered:
            return as_set if as_set.mark.rank <= in_turn.mark.rank else in_turn
        if as_set.mark is Mark.RIGHT:
            return Judged(
                Mark.WRONG, "the right items in the wrong order: here the order is the fact"
            )
    factors = None if ordered else _factors(expected)
    if factors is not None:
        # A product's factors in any order: "micro-batch × world size" is its other way round.
        typed_factors = [_content(tokens(f)) for f in _PRODUCT_SIGN.split(typed)]
        want_factors = [_content(tokens(f, code=code)) for f in factors]
        as_product = _as_set([f for f in typed_factors if f], want_factors)
        if as_product.mark.rank <= in_turn.mark.rank:
            return as_product
    return in_turn


def _is_step(found: Sequence[Token], n: int) -> bool:
    t = found[n]
    if t.kind is Kind.EXACT:
        return t.text == "->"
    if t.kind is not Kind.WORD:
        return False
    if t.fold == "then":
        return True
    return t.fold == "followed" and n + 1 < len(found) and found[n + 1].fold == "by"


def _steps(found: tuple[Token, ...]) -> tuple[Token, ...]:
    out: list[Token] = []
    for n, t in enumerate(found):
        if n and found[n - 1].fold == "followed" and t.fold == "by" and out and out[-1] is _STEP:
            continue
        out.append(_STEP if _is_step(found, n) else t)
    return tuple(out)


def _factors(text: str) -> list[str] | None:
    """A product's factors (``world size × micro-batch × accumulation``); None if ``text`` is
    anything else (a formula with other operators, or no product)."""
    parts = _PRODUCT_SIGN.split(text.strip())
    if not 2 <= len(parts) <= _LONGEST_SET or any(
        not p.strip() or _OTHER_OPERATOR.search(p) for p in parts
    ):
        return None
    return parts


def _content(found: Sequence[Token]) -> list[Token]:
    return [t for t in found if t.kind is not Kind.SEP]


def _items(found: Sequence[Token]) -> list[list[Token]]:
    items: list[list[Token]] = [[]]
    for t in found:
        if t.kind is Kind.SEP:
            items.append([])
        else:
            items[-1].append(t)
    return [item for item in items if item]


def _shown(found: Sequence[Token]) -> str:
    return " ".join(t.text for t in found)


def _in_turn(got: list[Token], want: list[Token]) -> Judged:
    if len(got) == len(want):
        worst = Judged(Mark.RIGHT)
        notes: list[str] = []
        for g, w in zip(got, want, strict=True):
            judged = _token(g, w)
            if judged.mark.rank > worst.mark.rank:
                worst = judged
            elif judged.mark is Mark.RIGHT and judged.reason and judged.reason not in notes:
                notes.append(judged.reason)
        if worst.mark is Mark.RIGHT:
            return Judged(Mark.RIGHT, "; ".join(notes[:2]) + ("; …" if len(notes) > 2 else ""))
        return worst
    # Words run together or split apart ("allgather", "all gather"): the same letters, the
    # same numbers and code, only the spacing differs.
    facts_got = [t for t in got if t.kind is not Kind.WORD]
    facts_want = [t for t in want if t.kind is not Kind.WORD]
    if len(facts_got) == len(facts_want) and _same(facts_got, facts_want):
        joined = "".join(t.fold for t in got if t.kind is Kind.WORD)
        target = "".join(t.fold for t in want if t.kind is Kind.WORD)
        if joined == target:
            return Judged(Mark.RIGHT)
        if _close(joined, target):
            return Judged(Mark.SLIP, "a letter or two off")
    return Judged(Mark.WRONG, _difference(got, want))


def _token(got: Token, want: Token) -> Judged:
    if want.kind is Kind.NUMBER:
        if got.kind is Kind.NUMBER and got.value == want.value:
            if _UNGROUPED.sub("", got.fold) != _UNGROUPED.sub("", want.fold):
                return Judged(Mark.RIGHT, f"`{got.text}` is {want.text}")
            return Judged(Mark.RIGHT)
        if got.fold == want.fold:  # "one" and "one"
            return Judged(Mark.RIGHT)
        return _expected(got, want)
    if want.kind is Kind.EXACT:
        return Judged(Mark.RIGHT) if got.text == want.text else _expected(got, want)
    if got.kind is Kind.EXACT:
        return _expected(got, want)
    if want.kind is Kind.VAR:
        # A subscript written N_d, N_{d}, Nd or nd: a formula's letters, not a program's.
        if got.fold.replace("_", "") == want.fold.replace("_", ""):
            return Judged(Mark.RIGHT)
        return _expected(got, want)
    if want.kind is Kind.CODE:
        return _identifier(got, want)
    # A word of prose: typed as a word, or as a name spelt the same.
    if got.fold == want.fold and got.kind is not Kind.NUMBER:
        return Judged(Mark.RIGHT)
    if got.kind is Kind.NUMBER and got.fold == want.fold:
        return Judged(Mark.RIGHT)
    if got.kind is Kind.WORD and _slip(got.fold, want.fold):
        return Judged(Mark.SLIP, f"`{got.text}` for `{want.text}`: a slip")
    return _expected(got, want)


def _identifier(got: Token, want: Token) -> Judged:
    if got.text == want.text:
        return Judged(Mark.RIGHT)
    if got.fold == want.fold:
        if not want.exact:
            return Judged(Mark.RIGHT)
        how = f"`{want.text}` is lowercase" if want.text.islower() else f"expected `{want.text}`"
        return Judged(Mark.ALMOST, f"case differs: {how}; names in code are case-sensitive")
    if got.kind is not Kind.NUMBER and len(want.text) >= ALMOST_LENGTH:
        off = _one_off(got.fold, want.fold)
        if off is not None:
            return Judged(Mark.ALMOST, f"one character off in `{want.text}`: {off}")
    return _expected(got, want)


def _expected(got: Token, want: Token) -> Judged:
    return Judged(Mark.WRONG, f"expected `{want.text}`, not `{got.text}`")


def _difference(got: list[Token], want: list[Token]) -> str:
    a, b = [_key(t) for t in got], [_key(t) for t in want]
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "replace":
            return f"expected `{_shown(want[j1:j2])}`, not `{_shown(got[i1:i2])}`"
        if op == "delete":
            return f"`{_shown(got[i1:i2])}` is not in the answer"
        if op == "insert":
            return f"missing `{_shown(want[j1:j2])}`"
    return ""  # pragma: no cover - called only when the tokens differ


def _key(t: Token) -> str:
    if t.kind is Kind.NUMBER and t.value is not None:
        return f"#{t.value.normalize()}"
    return t.fold.replace("_", "") if t.kind is Kind.VAR else t.fold


def _as_set(got: list[list[Token]], want: list[list[Token]]) -> Judged:
    if len(got) == len(want):
        return _matched(got, want)
    # Typed without separators ("3 2 1"): the items, one after another, in any order.
    flat = [t for item in got for t in item]
    order = _cover(flat, want)
    if order is not None:
        return Judged(Mark.RIGHT, _any_order(order))
    missing = [w for w in want if not _occurs(w, flat)]
    if missing:
        return Judged(Mark.WRONG, "missing " + ", ".join(f"`{_shown(w)}`" for w in missing))
    return Judged(Mark.WRONG, _difference(flat, [t for item in want for t in item]))


def _matched(got: list[list[Token]], want: list[list[Token]]) -> Judged:
    """Each typed item matched to the answer's item it comes closest to."""
    scores = {(i, j): _in_turn(g, w) for i, g in enumerate(got) for j, w in enumerate(want)}
    pairs: dict[int, int] = {}
    for i, j in sorted(scores, key=lambda ij: (scores[ij].mark.rank, abs(ij[0] - ij[1]))):
        if i not in pairs and j not in pairs.values():
            pairs[i] = j
    worst = max((scores[i, j] for i, j in pairs.items()), key=lambda s: s.mark.rank)
    if worst.mark is Mark.RIGHT:
        return Judged(Mark.RIGHT, _any_order([pairs[i] for i in range(len(got))]))
    if worst.mark is not Mark.WRONG:
        return worst
    wrong = [(i, j) for i, j in pairs.items() if scores[i, j].mark is Mark.WRONG]
    missing = ", ".join(f"`{_shown(want[j])}`" for _, j in wrong)
    extra = ", ".join(f"`{_shown(got[i])}`" for i, _ in wrong)
    return Judged(Mark.WRONG, f"missing {missing}; {extra} not in the answer")


def _cover(flat: list[Token], want: list[list[Token]]) -> list[int] | None:
    """The order in which ``want``'s items, each once, make up ``flat``, or None: a search
    that gives up after a bounded number of steps, so that no answer keeps the reveal waiting."""
    keys = [tuple(_key(t) for t in item) for item in want]
    steps = [_COVER_STEPS]

    def search(at: int, used: tuple[int, ...]) -> tuple[int, ...] | None:
        if at == len(flat):
            return used if len(used) == len(want) else None
        tried: set[tuple[str, ...]] = set()
        for j, item in enumerate(want):
            if j in used or keys[j] in tried or at + len(item) > len(flat):
                continue
            tried.add(keys[j])
            steps[0] -= 1
            if steps[0] < 0:
                return None
            if _same(flat[at : at + len(item)], item):
                found = search(at + len(item), (*used, j))
                if found is not None:
                    return found
        return None

    order = search(0, ())
    return list(order) if order is not None else None


def _occurs(item: list[Token], flat: list[Token]) -> bool:
    return any(_same(flat[k : k + len(item)], item) for k in range(len(flat) - len(item) + 1))


def _same(got: Sequence[Token], want: Sequence[Token]) -> bool:
    return all(_token(g, w).mark is Mark.RIGHT for g, w in zip(got, want, strict=True))


def _any_order(order: list[int]) -> str:
    if order == sorted(order):
        return ""
    return "the same items in another order, which does not matter here"


def _slip(got: str, want: str) -> bool:
    # A short word is the fact (true and false differ by little).
    return len(want) >= 4 and _close(got, want)


def _close(got: str, want: str) -> bool:
    return _edits(got, want) <= SLIP_EDITS and _similar(got, want) >= CLOSE


def _one_off(typed: str, want: str) -> str | None:
    """What one character added, dropped or changed, or two swapped, makes ``typed`` of
    ``want``: said as a reason; None if it is more than that (or nothing)."""
    if typed == want or abs(len(typed) - len(want)) > 1:
        return None
    at = 0
    while at < min(len(typed), len(want)) and typed[at] == want[at]:
        at += 1
    if len(typed) == len(want):
        if typed[at + 1 :] == want[at + 1 :]:
            return f"`{typed[at]}` for `{want[at]}`"
        if typed[at : at + 2] == want[at : at + 2][::-1] and typed[at + 2 :] == want[at + 2 :]:
            return f"`{typed[at : at + 2]}` for `{want[at : at + 2]}`"
        return None
    if len(typed) < len(want):
        return f"`{want[at]}` left out" if typed[at:] == want[at + 1 :] else None
    return f"`{typed[at]}` too many" if typed[at + 1 :] == want[at:] else None


def _similar(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _edits(a: str, b: str) -> int:
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for op, i1, i2, j1, j2 in ops if op != "equal")
