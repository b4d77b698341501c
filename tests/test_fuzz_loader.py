"""Fuzzing the loader: no input makes it raise; every problem is a reported Problem.

Every problem is one line at a place inside the file as an editor counts lines (LF only:
YAML also breaks lines at U+0085, U+2028, U+2029 and a lone CR, editors do not), and a deck
that loads holds no control character in any value.

Runs a modest number of examples in the normal suite; ZERODRILL_HEAVY=1 runs fifty times more.
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zerodrill.deck.control_chars import CONTROL
from zerodrill.deck.load import parse_bytes
from zerodrill.deck.model import Deck

PATH = Path("fuzz.yaml")
SCALE = 50 if os.environ.get("ZERODRILL_HEAVY") else 1
FIELDS = [
    "deck",
    "title",
    "description",
    "cards",
    "retired",
    "id",
    "kind",
    "front",
    "back",
    "text",
    "question",
    "answer",
    "claim",
    "why",
    "instead",
    "extra",
    "tags",
    "refs",
]
KINDS = ["basic", "cloze", "follow_up", "red_flag", "other"]
# Cloze markers where Markdown would put them in an attribute or cut an element in two (the
# property that accepted ones reach Anki as meant is in test_cloze_anki.py).
CLOZE_IN_MARKDOWN = [
    "[l](https://x.org/{{c1::a}})",
    '[l](https://x.org/ "{{c1::t}}")',
    "![{{c1::alt}}](x.png)",
    "```{{c1::py}}\nx\n```",
    "{{c1::`std::vector`}}",
    "{{{c1::x}}",
    "{{c1::a}}}",
    "{{c1::a::}}",
    "{{c1001::x}}",
    "*a {{c1::b* c}}",
    "| a |\n|---|\n| {{c1::x | y}} |",
    "{{c1::a&#58;&#58;b}}",
    "\\{{c1::x}}",
    "<https://x.org/{{c1::<b>}}",
    "![r][d]\n\n[d]: ../x.png",
]

#: Characters a deck value may not hold, and the line breaks only YAML sees.
CONTROLS = ["\x00", "\x01", "\x07", "\x08", "\r", "\x1b", "\x1f", "\x7f", "\x85", "\x9b"]
CONTROLS += ["\u2028", "\u2029", "\u202e", "\u2066"]
hostile_text = st.text(
    alphabet=st.one_of(st.characters(codec="utf-8"), st.sampled_from(CONTROLS + ["\n", "\t"])),
    max_size=30,
)
texts = st.one_of(
    st.text(max_size=30),
    hostile_text,
    st.sampled_from(["x \x1b]2;PWNED\x07 \x1b[2J\x1b[H", "a\x1fb", "abc\n", "t\n", "A::B"]),
    st.sampled_from(
        [
            "{{c1::x}}",
            "{{c2::a::b}}",
            "}}",
            "{{",
            "`{{c1::`}}`",
            "![i](x.png)",
            "![i](../x.png)",
            "",
            "   ",
        ]
    ),
    st.sampled_from(KINDS),
    st.lists(st.sampled_from(CLOZE_IN_MARKDOWN), min_size=1, max_size=3).map(" ".join),
)
scalars = st.one_of(texts, st.integers(), st.booleans(), st.none(), st.floats(allow_nan=False))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(FIELDS), st.text(max_size=8)), inner, max_size=6),
    ),
    max_leaves=25,
)
cards = st.fixed_dictionaries(
    {"id": st.one_of(st.sampled_from(["a", "b", "Bad Id"]), values)},
    optional={f: values for f in FIELDS[6:]} | {"kind": st.sampled_from(KINDS)},
)
decks = st.fixed_dictionaries(
    {},
    optional={
        "deck": st.one_of(st.just("d"), values),
        "title": values,
        "description": values,
        "cards": st.one_of(st.lists(cards, max_size=5), values),
        "retired": values,
    },
)


def _check(data: bytes) -> None:
    deck, problems = parse_bytes(data, PATH)
    assert (deck is None) == bool(problems)
    if deck is not None:
        assert isinstance(deck, Deck)
        values = [deck.id, deck.title, deck.description]
        for card in deck.cards:
            values += [card.id, *card.fields.values(), *card.tags, *card.refs, *card.media]
        assert not any(CONTROL.search(v) for v in values)
    try:
        lines = data.decode("utf-8-sig").split("\n")
    except UnicodeDecodeError:
        lines = [line.decode("latin-1") for line in data.split(b"\n")]
    for p in problems:
        assert p.pos.line >= 1 and p.pos.col >= 1 and p.message
        assert p.pos.line <= len(lines), (str(p), len(lines))
        assert p.pos.col <= len(lines[p.pos.line - 1]) + 1, str(p)
        assert "\n" not in str(p) and not CONTROL.search(str(p)), str(p)


@settings(max_examples=300 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decks, st.sampled_from([None, '"', "'", "|", ">"]), st.booleans())
def test_structured_documents(document: dict[str, object], style: str | None, crlf: bool) -> None:
    text = yaml.safe_dump(document, allow_unicode=True, default_style=style)
    _check((text.replace("\n", "\r\n") if crlf else text).encode("utf-8"))


@settings(max_examples=300 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decks, st.sampled_from([None, '"', "'", "|", ">"]), st.data())
def test_raw_controls_anywhere(
    document: dict[str, object], style: str | None, data: st.DataObject
) -> None:
    """Control characters and line separators written raw into any kind of scalar."""
    text = yaml.safe_dump(document, allow_unicode=True, default_style=style)
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        at = data.draw(st.integers(min_value=0, max_value=len(text)))
        text = text[:at] + data.draw(st.sampled_from(CONTROLS)) + text[at:]
    _check(text.encode("utf-8"))


@settings(max_examples=300 * SCALE, deadline=None)
@given(st.binary(max_size=400))
def test_raw_bytes(data: bytes) -> None:
    _check(data)


YAML_BITS = [
    "deck: d\n",
    "cards:\n",
    "  - id: a\n",
    "    kind: cloze\n",
    "    text: |\n",
    "      {{c1::x}}\n",
    "&a ",
    "*a ",
    "!!python/object:os.system ",
    "\t",
    "- ",
    ": ",
    "[",
    "]",
    "{",
    "}",
    "'",
    '"',
    "\n",
    "    ",
    "? ",
    "--- ",
    "%YAML 1.1\n",
    "\ufeff",
    "\x00",
    "\x85",
    "\u2028",
    "\u2029",
    "\r",
    "\x1b",
    "\x1f",
    '"\\e\\x1f\\N\\L" ',
    "|2\n",
    ">-\n",
    "#",
]


@settings(max_examples=500 * SCALE, deadline=None)
@given(st.lists(st.sampled_from(YAML_BITS), max_size=40))
def test_yaml_shaped_text(bits: list[str]) -> None:
    _check("".join(bits).encode("utf-8"))
