"""Fuzzing the loader: no input makes it raise; every problem is a reported Problem.

Runs a modest number of examples in the normal suite; ZERODRILL_HEAVY=1 runs fifty times more.
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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

texts = st.one_of(
    st.text(max_size=30),
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
    for p in problems:
        assert p.pos.line >= 1 and p.pos.col >= 1 and p.message


@settings(max_examples=300 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decks)
def test_structured_documents(document: dict[str, object]) -> None:
    _check(yaml.safe_dump(document, allow_unicode=True).encode("utf-8"))


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
    "#",
]


@settings(max_examples=500 * SCALE, deadline=None)
@given(st.lists(st.sampled_from(YAML_BITS), max_size=40))
def test_yaml_shaped_text(bits: list[str]) -> None:
    _check("".join(bits).encode("utf-8"))
