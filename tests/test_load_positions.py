"""Problems inside a value are reported at the character's place in the file, whatever the
scalar's style: folded, literal, with an indentation indicator, chomped, quoted, escaped."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from zerodrill.deck.load import load_paths
from zerodrill.deck.scalar_pos import source_offsets

HEADER = "deck: d\ntitle: T\ndescription: D\ncards:\n  - id: a\n    kind: cloze\n"


def first_problem(tmp_path: Path, text: str) -> str:
    path = tmp_path / "deck.yaml"
    path.write_text(HEADER + text, encoding="utf-8")
    result = load_paths([path])
    assert result.problems
    return str(result.problems[0]).removeprefix(f"{path}:")


STRAY = "'}}' has no matching"


@pytest.mark.parametrize(
    ("scalar", "where"),
    [
        pytest.param(
            "text: >\n      one two three\n      four {{c1::x}} and }} here\n", "9:26", id="folded"
        ),
        pytest.param(
            "text: >\n      one\n\n        indented\n      {{c1::x}} }}\n",
            "11:17",
            id="folded-more",
        ),
        pytest.param("text: |2\n        one\n      four {{c1::x}} }}\n", "9:22", id="literal-2"),
        pytest.param("text: >4-\n          a\n        {{c1::x}} }}\n", "9:19", id="folded-4-strip"),
        pytest.param("text: |+\n      {{c1::x}}\n\n      }}\n\n", "10:7", id="literal-keep"),
        pytest.param('text: "{{c1::x}} \\\n      \\t }}"\n', "8:10", id="double-escaped-break"),
        pytest.param("text: '{{c1::x}} it''s\n\n      }}'\n", "9:7", id="single-folded"),
        pytest.param("text: a {{c1::x}}\n      two }}\n", "8:11", id="plain-folded"),
        pytest.param('text: "\\u00e9\\U0001F600 {{c1::x}} }}"\n', "7:39", id="double-hex"),
        pytest.param("text: >\r\n      a\r\n      {{c1::x}} }}\r\n", "9:17", id="crlf"),
    ],
)
def test_cloze_problem_positions(tmp_path: Path, scalar: str, where: str) -> None:
    problem = first_problem(tmp_path, "    " + scalar)
    assert problem.startswith(f"{where}: {STRAY}"), problem


def test_image_problem_in_a_folded_scalar_is_at_the_image(tmp_path: Path) -> None:
    text = (
        "    text: >\n      {{c1::x}} and a long line that folds\n"
        "      then ![a](missing.png) here\n"
    )
    problem = first_problem(tmp_path, text)
    assert problem == "9:12: image 'missing.png' does not exist"


# What PyYAML writes for a value, in each style, and what CSafeLoader reads back: our scan of
# the source must give, for every character, a place that holds it (or its escape).
values = st.text(
    alphabet=st.sampled_from(list("ab {}:#'\"\\\n\t-é😀") + ["\x1b", "\u2028", "\x85"]),
    max_size=40,
)


@settings(max_examples=400, deadline=None)
@given(
    values,
    st.sampled_from([None, "'", '"', "|", ">"]),
    st.integers(min_value=5, max_value=40),
    st.integers(min_value=0, max_value=3),
)
def test_each_character_maps_to_its_place(
    value: str, style: str | None, width: int, depth: int
) -> None:
    doc: object = value
    for _ in range(depth):
        doc = {"k": [doc]}
    text = yaml.dump(doc, default_style=style, width=width, allow_unicode=True)
    if any(c in text for c in "\u2028\x85"):
        return  # raw line separators are refused before this scan runs
    node = yaml.compose(text, Loader=yaml.CSafeLoader)
    while node.tag.endswith(("map", "seq")):
        node = node.value[0][1] if node.tag.endswith("map") else node.value[0]
    value = node.value  # what the parser read is what is mapped (PyYAML's writer has quirks)
    offsets = source_offsets(
        text, node.start_mark.index, node.end_mark.index, node.style or None, node.value
    )
    assert offsets is not None, (text, node.style)
    assert offsets == sorted(offsets)
    for char, at in zip(value, offsets, strict=True):
        if char in " \n" or text[at] == "\\":
            continue
        assert text[at] == char
