"""A YAML syntax error keeps its place and PyYAML's words, and adds a hint at the usual cause."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_cli

HEAD = "deck: d\ntitle: T\ndescription: D\ncards:\n  - id: a\n    kind: basic\n"
INDENT_HINT = (
    "keys of one mapping line up, each card's '- ' lines up with the others', "
    "and a block's text stays indented deeper than its key"
)
COLON_HINT = (
    "hint: an unquoted ': ' inside a value reads as a new key: put the whole value in "
    "quotes, or write it as a block (key: | and the text on the lines below)"
)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(
            "    front: What is ZeRO: a thing?\n    back: A\n",
            f"7:24: YAML syntax error: mapping values are not allowed in this context; "
            f"{COLON_HINT}",
            id="colon-in-value",
        ),
        pytest.param(
            "    front: Q\n    back: A\n  - id: b\n    kind: cloze\n"
            "    text: The {{c1::x}} is y: z\n",
            f"11:29: YAML syntax error: mapping values are not allowed in this context; "
            f"{COLON_HINT}",
            id="colon-in-cloze",
        ),
        pytest.param(
            "    front: Q\n     back: A\n",
            "8:10: YAML syntax error: mapping values are not allowed in this context; hint: "
            "line 8 is indented 5 spaces, line 7 4: keys of one card line up; text that goes "
            "on from the line above must be in quotes or a block (key: |)",
            id="indented-more",
        ),
        pytest.param(
            "    front: Q\n   back: A\n",
            "8:4: YAML syntax error: did not find expected '-' indicator (while parsing a block "
            f"collection started at line 5); hint: line 8 is indented 3 spaces, line 7 4: "
            f"{INDENT_HINT}",
            id="indented-less",
        ),
        pytest.param(
            "    front: Q\n    back: A\n - id: b\n",
            "9:2: YAML syntax error: did not find expected key (while parsing a block mapping "
            f"started at line 1); hint: line 9 is indented 1 space, line 8 4: {INDENT_HINT}",
            id="card-misaligned",
        ),
        pytest.param(
            "    front: Q\n    back: |\n      a\n    b\n",
            "11:1: YAML syntax error: could not find expected ':' (while scanning a simple key "
            f"started at line 10); hint: line 10 is indented 4 spaces, line 9 6: {INDENT_HINT}",
            id="block-text-dedented",
        ),
        pytest.param(
            '    front: "a" and b\n    back: A\n',
            "7:16: YAML syntax error: did not find expected key (while parsing a block mapping "
            "started at line 5); hint: the value's \" quote closes before the line ends: put "
            'the whole value in quotes (write \\" for a " inside), or write it as a block '
            "(key: | and the text below)",
            id="text-after-double-quote",
        ),
        pytest.param(
            "    front: 'it's here'\n    back: A\n",
            "7:16: YAML syntax error: did not find expected key (while parsing a block mapping "
            "started at line 5); hint: the value's ' quote closes before the line ends: put "
            "the whole value in quotes (write '' for a ' inside), or write it as a block "
            "(key: | and the text below)",
            id="apostrophe-in-single-quotes",
        ),
        pytest.param(
            "    front: [x] is y\n    back: A\n",
            "7:16: YAML syntax error: did not find expected key (while parsing a block mapping "
            "started at line 5); hint: a value that starts with '[' is read as a list or "
            "mapping up to its closing bracket, and text after it is an error: put the whole "
            "value in quotes",
            id="text-after-bracket",
        ),
        pytest.param(
            "    front: Q\n    back: A\n    tags: [a, b\n  - id: b\n",
            "10:7: YAML syntax error: did not find expected ',' or ']' (while parsing a flow "
            "sequence started at line 9); hint: the [ opened at line 9 is never closed, or an "
            "item inside holds an unquoted ',', ']' or '}': quote such an item",
            id="unclosed-bracket",
        ),
        pytest.param(
            "    front: Q\n    back: `code` here\n",
            "8:11: YAML syntax error: found character that cannot start any token (while "
            "scanning for the next token started at line 8); hint: YAML reserves '`' at the "
            "start of a value: put the whole value in quotes",
            id="reserved-backtick",
        ),
        pytest.param(
            "    front: Q\n    back: - a\n",
            "8:11: YAML syntax error: block sequence entries are not allowed in this context; "
            "hint: a value that starts with '- ' reads as a list: put the whole value in quotes",
            id="dash-value",
        ),
        pytest.param(
            "    front: Q\n    back: {{c1::x}}\n",
            "8:11: field 'back' must be text, not a mapping (a value that starts with { is "
            "read as a mapping: quote it)",
            id="brace-value",
        ),
    ],
)
def test_a_yaml_mistake_gets_a_hint_at_its_usual_cause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, expected: str
) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text(HEAD + body, encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", str(path))
    assert (code, out) == (1, f"{path}:{expected}\n")


def test_a_syntax_error_with_no_usual_cause_keeps_pyyaml_words_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text(HEAD + "    front: Q\n    back: A\n---\nx: [\n", encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", str(path))
    assert code == 1 and "hint" not in out, out
