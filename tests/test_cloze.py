"""Cloze text that `validate` must refuse because export or Anki would not carry it as meant,
each reported at its place; and the cost of checking cloze text, linear in its length."""

from __future__ import annotations

from pathlib import Path

import pytest

from zerodrill.deck import cloze
from zerodrill.deck.load import load_paths
from zerodrill.export import ids
from zerodrill.export.formats import all_rules

HEADER = "deck: d\ntitle: T\ndescription: D\ncards:\n  - id: a\n    kind: cloze\n    text: |\n"
FIRST_LINE = 8  # the text's first line; its text starts at column 7


def problems(tmp_path: Path, text: str) -> list[str]:
    """``line:col: message`` of each problem validate finds in a cloze card's ``text``."""
    body = "".join(f"      {line}\n" if line else "\n" for line in text.split("\n"))
    path = tmp_path / "deck.yaml"
    path.write_text(HEADER + body, encoding="utf-8")
    (tmp_path / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    result = load_paths([path], all_rules())
    return [f"{p.pos.line}:{p.pos.col}: {p.message}" for p in result.problems]


def at(line: int, col: int) -> str:
    return f"{FIRST_LINE + line - 1}:{col + 6}: "


def test_the_export_limit_on_cloze_numbers_is_the_deck_layer_s() -> None:
    assert ids.ID_STRIDE == cloze.MAX_ORDINAL


def test_a_cloze_number_beyond_the_export_limit_is_refused_at_its_opener(tmp_path: Path) -> None:
    assert problems(tmp_path, f"ok {{{{c{cloze.MAX_ORDINAL}::x}}}}") == []
    (line,) = problems(tmp_path, "ok {{c1::a}} and {{c1001::x}}")
    assert line.startswith(at(1, 18) + "cloze number c1001 is too large")


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        pytest.param(
            "Use {{c1::`std::vector`}} here.",
            (1, 15),
            "'::' inside code splits the deletion into answer and hint in Anki",
            id="hint-separator-in-code",
        ),
        pytest.param(
            "{{c1::**a::b**}}",
            (1, 10),
            "the cloze deletion's hint separator '::' is in another Markdown element",
            id="hint-separator-in-emphasis",
        ),
        pytest.param(
            "See [docs](https://x.org/{{c1::a}}).",
            (1, 26),
            "cloze marker '{{c' in a link's URL or title",
            id="link-url",
        ),
        pytest.param(
            'See [docs](https://x.org/ "{{c1::a}}").',
            (1, 28),
            "cloze marker '{{c' in a link's URL or title",
            id="link-title",
        ),
        pytest.param(
            "<https://x.org/{{c1::a}}>",
            (1, 16),
            "cloze marker '{{c' in a link's URL or title",
            id="autolink",
        ),
        pytest.param(
            "![the {{c1::alt}}](a.png)",
            (1, 7),
            "cloze marker '{{c' in an image",
            id="image-alt",
        ),
        pytest.param(
            "```{{c1::python}}\nx = 1\n```",
            (1, 4),
            "cloze marker '{{c' in a code fence's info string",
            id="fence-info",
        ),
        pytest.param(
            "Text [r].\n\n[r]: https://x.org/{{c1::a}}",
            (3, 20),
            "cloze marker '{{c' in Markdown syntax",
            id="reference-definition",
        ),
        pytest.param(
            "*a {{c1::b* c}}",
            (1, 14),
            "the cloze deletion's '}}' is in another Markdown element",
            id="emphasis-cut",
        ),
        pytest.param(
            "| a | b |\n|---|---|\n| {{c1::x | y}} |",
            (3, 14),
            "the cloze deletion's '}}' is in another Markdown element",
            id="table-cells",
        ),
        pytest.param(
            "{{c1::one\n\ntwo}}",
            (3, 4),
            "the cloze deletion's '}}' is in another Markdown element",
            id="two-paragraphs",
        ),
        pytest.param(
            "# {{c1::head\nbody}}",
            (2, 5),
            "the cloze deletion's '}}' is in another Markdown element",
            id="heading-and-paragraph",
        ),
        pytest.param(
            "{{c1::a&#58;&#58;b}}",
            (1, 1),
            "the answer renders as '::' (from an entity or escape)",
            id="entity-colons",
        ),
        pytest.param(
            r"{{c1::a\:\:b}}",
            (1, 1),
            "the answer renders as '::' (from an entity or escape)",
            id="escaped-colons",
        ),
        pytest.param(
            "{{c1::[x](https://a.org/&#58;&#58;)}}",
            (1, 1),
            "the answer renders as '::' (from an entity or escape)",
            id="entity-colons-in-a-link-url",
        ),
        pytest.param(
            r"\{{c1::x}}",
            (1, 2),
            "a backslash does not escape '{{c'",
            id="backslash-before-opener",
        ),
        pytest.param(
            r"{{c1::x\}}",
            (1, 9),
            "a backslash does not escape '}}'",
            id="backslash-before-closer",
        ),
        pytest.param(
            "{{c1::a&#58;::hint}}",
            (1, 1),
            "the answer renders as '::' (from an entity or escape)",
            id="entity-colon-before-the-hint",
        ),
        pytest.param(
            "Say {{c1::&#32;}} here.",
            (1, 5),
            "empty cloze deletion: its answer renders as nothing",
            id="answer-renders-empty",
        ),
        pytest.param(
            "{{c1::a::}}",
            (1, 1),
            "empty hint after '::'",
            id="empty-hint",
        ),
        pytest.param(
            "Set `{{c1:key}}` and `{{c2::value}}`.",
            (1, 6),
            "'{{c1:' is not a cloze marker to Anki (one colon): it opens no deletion there",
            id="one-colon-in-code",
        ),
        pytest.param(
            "Set {{c1:key}} and {{c2::value}}.",
            (1, 5),
            "'{{c1:' is not a cloze marker to Anki (one colon)",
            id="one-colon-in-prose",
        ),
        pytest.param(
            "`{{c1:::x}}` and {{c2::y}}",
            (1, 2),
            "'{{c1:::' has 3 colons: Anki opens the deletion at '{{c1::' and reads the other "
            "colon as part of it",
            id="three-colons",
        ),
        pytest.param(
            "`{c1::x}}` and {{c2::y}}",
            (1, 2),
            "'{c1::' is not a cloze marker to Anki (one opening brace)",
            id="one-brace",
        ),
        pytest.param(
            "`{{C1::x}}` and {{c2::y}}",
            (1, 2),
            "'{{C1::' is not a cloze marker to Anki (a capital C)",
            id="capital-c",
        ),
        pytest.param(
            "`{{ c1::x }}` and {{c2::y}}",
            (1, 2),
            "'{{ c1::' is not a cloze marker to Anki (blanks inside)",
            id="blanks",
        ),
        pytest.param(
            "{{c2::y}}\n\n```python\nx = {{c::1}}\n```",
            (4, 5),
            "'{{c::' is not a cloze marker to Anki (no number)",
            id="no-number-in-a-fence",
        ),
    ],
)
def test_cloze_markdown_that_anki_would_read_otherwise_is_refused_at_its_place(
    tmp_path: Path, text: str, where: tuple[int, int], message: str
) -> None:
    lines = problems(tmp_path, text)
    assert len(lines) == 1, lines
    assert lines[0].startswith(at(*where) + message), lines


@pytest.mark.parametrize(
    "text",
    [
        "{{{c1::x}} a brace before a deletion",
        "`{{c1::x}}` and ```{{c2::y}}``` in code",
        "```\n{{c1::x}}\n```",
        "```python\nx = {{c1::1}}\n```",
        "# {{c1::x}}\n\n- {{c2::y::a hint}}",
        "| a | b |\n|---|---|\n| {{c1::x}} | `{{c2::y}}` |",
        "[{{c1::link text}}](https://x.org/) and {{c2::[a link](https://x.org/)}}",
        "{{c1::*a* b `c`}} d",
        "a::b outside {{c1::x}}, then {{c2::y::a::b}}",
        r"\\{{c1::x}} after an escaped backslash",
        "{{c1::é}} [ä](https://ö.org/) {{c2::ü}}",
        "<div>\n{{c1::x}}\n</div> (raw HTML is shown as text)",
        "an image as the answer: {{c1::![](a.png)}}",
        "`{c: 1}` and `{c1: x}` are code, not markers: {{c1::a}}",
        "`{{ jinja }}` and `{{c1::x}}`",
    ],
)
def test_cloze_markdown_that_anki_reads_as_meant_passes(tmp_path: Path, text: str) -> None:
    assert problems(tmp_path, text) == []


def test_non_ascii_digits_open_no_deletion(tmp_path: Path) -> None:
    # Python's \d matches "١" (Arabic-Indic one); Anki reads only ASCII digits.
    assert cloze.deletions("{{c\u0661::x}}") == []
    assert problems(tmp_path, "{{c\u0661::x}} and {{c1::y}}")[0].startswith(
        at(1, 1) + "'{{' does not open a cloze deletion"
    )


def test_braces_before_an_opener_do_not_hide_it() -> None:
    (d,) = cloze.deletions("{{{c1::x}}")
    assert (d.start, d.answer) == (1, "x")


class _CountingList(list[tuple[int, int]]):
    """A list that counts how many items are read one by one (a linear search reads many)."""

    reads = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        for item in super().__iter__():
            _CountingList.reads += 1
            yield item

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        _CountingList.reads += 1
        return super().__getitem__(index)


def test_finding_the_code_span_of_each_token_is_logarithmic() -> None:
    spans = _CountingList((i * 10, i * 10 + 5) for i in range(4096))
    _CountingList.reads = 0
    assert cloze.span_at(spans, 40_953) == (40_950, 40_955)
    assert cloze.span_at(spans, 40_956) is None
    assert _CountingList.reads <= 2 * 2 * 13  # two bisections of 4096 spans, and a check each


def test_backtick_runs_pair_as_markdown_pairs_them() -> None:
    # Runs of 1..n backticks, none repeated (the input on which pairing used to search ahead).
    n = 60
    text = " ".join("`" * k for k in range(1, n + 1)) + " x"
    assert cloze.code_spans(text) == []
    assert cloze.code_spans("`a` ``b`` `c`") == [(0, 3), (4, 9), (10, 13)]
    assert cloze.code_spans("`` ` `` x ``") == [(0, 7)]


def test_a_misread_marker_in_code_costs_a_card_and_is_refused(tmp_path: Path) -> None:
    """Issue 37: a typo inside a code span beside a good deletion validated, gave Anki one card
    fewer, and showed its braces in the drill."""
    text = "`{{c1:key}}` beside `{{c2::stage}}`"
    assert [d.ordinal for d in cloze.deletions(text)] == [2]  # what Anki and the drill read
    (line,) = problems(tmp_path, text)
    assert line.startswith(at(1, 2) + "'{{c1:' is not a cloze marker to Anki"), line
    assert line.endswith("write '{{c1::'"), line
