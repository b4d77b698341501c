"""An answer read as tokens, the way the typed-answer check (:mod:`answer_check`) compares them.

Names in a code span are identifiers whose case matters. Symbols are spelt as a learner types
them (``Ψ`` is ``psi``, ``≤`` is ``<=``); multiplication signs are left out; ``5 × 10^8`` is
``5e8``. One token per version, identifier, subscripted variable (``N_d``), number, operator or
word; commas, semicolons, "and" and "or" separate a list's items. A number is its value, in
digits or words; a range of whole numbers (``1 to 3``) is the list of its numbers; "the", "a",
"an" and "percent" after a number are left out.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation
from enum import Enum

from msgspec import Struct

from zerodrill.srs import number_words


class Kind(Enum):
    WORD = "word"
    NUMBER = "number"
    CODE = "code"  #: an identifier
    VAR = "var"  #: a formula's variable with a subscript (N_d)
    EXACT = "exact"  #: versions and operators
    SEP = "sep"  #: between the items of a list


class Token(Struct, frozen=True):
    kind: Kind
    #: As written (a number's words or digits; an identifier's letter case).
    text: str
    value: Decimal | None = None
    #: An identifier whose letter case matters.
    exact: bool = False

    @property
    def fold(self) -> str:
        return self.text.casefold()


_SYMBOLS = {
    "≤": " <= ", "≥": " >= ", "≠": " != ", "→": " -> ", "⇒": " -> ", "←": " <- ",
    "×": " ", "·": " ", "∙": " ", "⋅": " ", "*": " ", "−": "-", "–": "-", "—": " ",
    "≈": " ~ ", "∞": " infinity ",
}  # fmt: skip
_SYMBOL_RE = re.compile("|".join(map(re.escape, _SYMBOLS)))
_SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_SUPERSCRIPT_RUN = re.compile(f"[{_SUPERSCRIPTS}]+")
#: Thousands grouped by an underscore or a narrow or no-break space (before NFKC makes those
#: plain spaces, which also part a list's numbers).
_GROUPED = re.compile(r"(?<![\d.])\d{1,3}(?:[_\u00a0\u2009\u202f]\d{3})+(?!\d)")
_SCIENTIFIC = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:[x×*·]|\\times)\s*10\s*(?:\^|\*\*)\s*([+-]?\d{1,3})(?![\d.])"
)
_POWER = re.compile(r"(?<![\w.^])(\d{1,4})\s*(?:\^|\*\*)\s*(\d{1,3})(?![\d.^])")
_BRACED = re.compile(r"_\{(\w{1,3})\}")
_BACKTICKED = re.compile(r"`+([^`]*)`+")

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_TOKEN = re.compile(
    rf"""
    (?P<version> v?\d+(?:\.\d+){{2,}} )
    | (?P<dotted> {_IDENT}(?:(?:\.|::){_IDENT})+(?:\(\))? )
    | (?P<var> (?<![A-Za-z0-9_])[A-Za-z]_[A-Za-z0-9]{{1,3}}(?![A-Za-z0-9_(]) )
    | (?P<code> (?={_IDENT}_){_IDENT}(?:\(\))?
             | {_IDENT}\(\)
             | [A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]* )
    | (?P<number> (?:\d{{1,3}}(?:,\d{{3}})+(?!\d)|\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?
               | \.\d+(?:[eE][+-]?\d+)? )
    | (?P<dash> (?<=\d)[ ]*(?:-|\.\.\.?)[ ]*(?=\d) )
    | (?P<op> <=|>=|!=|->|<-|[+/=<>~] )
    | (?P<sep> [,;&] )
    | (?P<word> [^\W\d_]+ )
    """,
    re.VERBOSE,
)
_FILLER = frozenset({"the", "a", "an"})
_CONJUNCTIONS = frozenset({"and", "or"})
#: A multiplication sign written as a word or letter (2 x 3, TP x PP, 1.5x, 1.5 times).
_TIMES = frozenset({"x", "times"})
_RANGE_WORDS = frozenset({"to", "through", "thru"})
#: The longest range read as the list of its numbers.
_LONGEST_RANGE = 64
_DASH = Token(Kind.SEP, "-")
_SEP = Token(Kind.SEP, ",")


def tokens(text: str, *, code: bool = False) -> tuple[Token, ...]:
    """``text`` as the check compares it; with ``code``, all of it as in a code span."""
    found: list[Token] = []
    last = 0
    for m in _BACKTICKED.finditer(text):
        found += _scan(text[last : m.start()], code=code)
        found += _scan(m.group(1), code=True)
        last = m.end()
    found += _scan(text[last:].replace("`", " "), code=code)
    found = _ranges(_scaled(_spelt_numbers(found)))
    kept: list[Token] = []
    for t in found:
        if t is _DASH or (t.kind is Kind.WORD and t.fold in _FILLER):
            continue
        kept.append(_SEP if t.kind is Kind.WORD and t.fold in _CONJUNCTIONS else t)
    if sum(t.kind is not Kind.SEP for t in kept) > 1:
        kept = [t for t in kept if not (t.kind is Kind.WORD and t.fold in _TIMES)]
    return tuple(kept)


def _spelt(text: str) -> str:
    text = _SUPERSCRIPT_RUN.sub(lambda m: "^" + unicodedata.normalize("NFKC", m.group()), text)
    text = _GROUPED.sub(lambda m: re.sub(r"\D", ",", m.group()), text)
    text = _SCIENTIFIC.sub(lambda m: f"{m.group(1)}e{m.group(2)}", text)
    text = _POWER.sub(_power, text)
    text = unicodedata.normalize("NFKC", text)
    text = _BRACED.sub(r"_\1", text)
    text = _SYMBOL_RE.sub(lambda m: _SYMBOLS[m.group()], text)
    out = []
    for ch in text:
        name = unicodedata.name(ch, "") if ord(ch) > 127 else ""
        out.append(f" {name.split()[-1].lower()} " if name.startswith("GREEK") else ch)
    return "".join(out)


def _power(m: re.Match[str]) -> str:
    base, exponent = int(m.group(1)), int(m.group(2))
    # Kept as written when too large to be a number an answer means (or to compute at once).
    if base > 1 and exponent * len(str(base)) > 40:
        return m.group()
    return str(base**exponent)


def _scan(text: str, *, code: bool) -> list[Token]:
    found: list[Token] = []
    for m in _TOKEN.finditer(_spelt(text)):
        kind, raw = m.lastgroup, m.group()
        if kind == "number":
            try:
                value = Decimal(raw.replace(",", ""))
            except InvalidOperation:  # pragma: no cover - the pattern admits only numbers
                continue
            found.append(Token(Kind.NUMBER, raw, value))
        elif kind == "dash":
            found.append(_DASH)
        elif kind == "sep":
            found.append(_SEP)
        elif kind in ("version", "op"):
            found.append(Token(Kind.EXACT, raw.casefold().removeprefix("v")))
        elif code and kind in ("dotted", "code", "var", "word"):
            found.append(Token(Kind.CODE, raw, exact=True))
        elif kind == "var":
            found.append(Token(Kind.VAR, raw))
        elif kind in ("dotted", "code") and _is_code(raw):
            # Names that only a program reads are exact; a CamelCase name (ValueError, ZeRO)
            # outside code is also a product's or a paper's, written in any case.
            exact = kind == "dotted" or "_" in raw or raw.endswith("()")
            found.append(Token(Kind.CODE, raw, exact=exact))
        else:
            # A dotted abbreviation ("i.e.") is prose, not code: its letters are words.
            found += [Token(Kind.WORD, w) for w in re.findall(r"[^\W\d_]+", raw)]
    return found


def _is_code(raw: str) -> bool:
    # "i.e" and "e.g" match the dotted pattern; a real dotted name has a part of 3 letters.
    if "_" in raw or raw.endswith("()") or re.search(r"[a-z][A-Z]", raw):
        return True
    return any(len(part) >= 3 for part in re.split(r"\.|::", raw))


def _spelt_numbers(found: list[Token]) -> list[Token]:
    # Any other token is "", which no number reads on past.
    words = [t.fold if t.kind is Kind.WORD else "" for t in found]
    out: list[Token] = []
    k = 0
    while k < len(found):
        read = number_words.read(words, k)
        if read is None:
            out.append(found[k])
            k += 1
        else:
            value, end = read
            out.append(Token(Kind.NUMBER, " ".join(t.text for t in found[k:end]), value))
            k = end
    return out


def _scaled(found: list[Token]) -> list[Token]:
    """A number and a scale word after it ("500 million") as one number; "percent" after a
    number left out, as "%" is."""
    out: list[Token] = []
    for t in found:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind is Kind.NUMBER
            and prev.value is not None
            and t.kind is Kind.WORD
        ):
            scale = number_words.SCALE_WORDS.get(t.fold)
            if scale is not None and not prev.text.isalpha():
                out[-1] = Token(Kind.NUMBER, f"{prev.text} {t.text}", prev.value * scale)
                continue
            if t.fold in ("percent", "pct"):
                continue
        out.append(t)
    return out


def _ranges(found: list[Token]) -> list[Token]:
    out: list[Token] = []
    i = 0
    while i < len(found):
        if i + 2 < len(found):
            a, joint, b = found[i : i + 3]
            span = _span(a, b)
            if span is not None and (
                joint is _DASH or (joint.kind is Kind.WORD and joint.fold in _RANGE_WORDS)
            ):
                if out and out[-1].kind is Kind.WORD and out[-1].fold == "from":
                    out.pop()
                for n in span:
                    if n != span[0]:
                        out.append(_SEP)
                    out.append(Token(Kind.NUMBER, str(n), Decimal(n)))
                i += 3
                continue
        out.append(found[i])
        i += 1
    return out


def _span(a: Token, b: Token) -> range | None:
    if a.kind is not Kind.NUMBER or b.kind is not Kind.NUMBER:
        return None
    if a.value is None or b.value is None or a.value != a.value.to_integral_value():
        return None
    if b.value != b.value.to_integral_value():
        return None
    lo, hi = int(a.value), int(b.value)
    if not 0 < hi - lo <= _LONGEST_RANGE:
        return None
    return range(lo, hi + 1)


def with_suffixes(found: tuple[Token, ...]) -> tuple[Token, ...]:
    out: list[Token] = []
    for t in found:
        prev = out[-1] if out else None
        scale = number_words.SCALE_SUFFIXES.get(t.fold) if t.kind is Kind.WORD else None
        if (
            scale is not None
            and prev is not None
            and prev.kind is Kind.NUMBER
            and prev.value is not None
        ):
            out[-1] = Token(Kind.NUMBER, prev.text + t.text, prev.value * scale)
            continue
        out.append(t)
    return tuple(out)


def has_suffixes(found: tuple[Token, ...]) -> bool:
    return any(
        a.kind is Kind.NUMBER and b.kind is Kind.WORD and b.fold in number_words.SCALE_SUFFIXES
        for a, b in zip(found, found[1:], strict=False)
    )
