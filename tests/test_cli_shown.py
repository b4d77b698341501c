"""Nothing the command line prints carries a raw control character: problem lines, error
lines, paths (a file name may hold ESC) and summaries show them as escapes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_support import run_cli

DATA = Path(__file__).resolve().parent / "data" / "decks"
ESC_NAME = "e\x1b]2;PWNED\x07\x1b[2J"
# Anything a terminal would act on; newline ends each line and is all that may remain.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
HEADER = "deck: d\ntitle: T\ndescription: D\ncards:\n"
CARD = "  - id: a\n    kind: basic\n    front: Q\n    back: A\n"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code, out, err = run_cli(capsys, *args)
    assert RAW.search(out + err) is None, repr(out + err)
    return code, out + err


def test_the_issues_example_is_refused_and_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text(
        HEADER + CARD.replace("front: Q", 'front: "x \\e]2;PWNED\\a \\e[2J\\e[H"'), "utf-8"
    )
    code, output = run(capsys, "validate", str(path))
    assert code == 1
    assert f"{path}:7:15: control character U+001B is not allowed in field 'front'" in output


def test_a_file_name_holding_escape_sequences_is_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZERODRILL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ZERODRILL_DB", str(tmp_path / "r.db"))
    path = tmp_path / f"{ESC_NAME}.yaml"
    path.write_text(HEADER + CARD.replace("back: A", "bakc: A"), "utf-8")
    code, output = run(capsys, "validate", str(path))
    assert code == 1
    assert "e\\x1b]2;PWNED\\x07\\x1b[2J.yaml:8:5: unknown field 'bakc'" in output
    # The drill, stats and export print the problems of a deck they refuse too.
    for command in ("stats", "export", "drill"):
        code, output = run(capsys, command, str(path))
        assert code == 1
        assert "\\x1b" in output


def test_what_a_deck_says_is_quoted_escaped_in_messages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text(HEADER + CARD + '    "ta\\e[2Jgs": [x]\n', "utf-8")
    code, output = run(capsys, "validate", str(path))
    assert code == 1
    assert "unknown field 'ta\\x1b[2Jgs' in a basic card" in output


def test_paths_and_ids_in_error_lines_are_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / f"{ESC_NAME}.db"
    code, output = run(capsys, "stats", "--db", str(db), str(DATA))
    assert code == 1
    assert "PWNED\\x07" in output
    code, output = run(capsys, "drill", "--deck", ESC_NAME, "--db", str(db), str(DATA))
    assert code == 1
    assert "no deck with id 'e\\x1b]2;PWNED\\x07\\x1b[2J'" in output
    code, output = run(capsys, ESC_NAME)
    assert code == 2
    assert "PWNED\\x07" in output


def test_a_package_path_holding_escapes_is_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZERODRILL_CACHE_DIR", str(tmp_path / "cache"))
    code, output = run(capsys, "export", "-o", str(tmp_path / f"{ESC_NAME}.apkg"), str(DATA))
    assert code == 0
    assert "PWNED\\x07\\x1b[2J.apkg: 1 deck" in output


def test_the_line_on_quitting_the_drill_shows_the_database_name_escaped() -> None:
    from zerodrill.cli.drill import saved_line
    from zerodrill.srs.sitting import Summary

    summary = Summary(reviews=3, cards=3, grades={4: 3}, seconds=9.0, due_tomorrow=1)
    line = saved_line(summary, Path(f"/tmp/{ESC_NAME}.db"))
    assert line == "3 grades saved to /tmp/e\\x1b]2;PWNED\\x07\\x1b[2J.db; 1 due tomorrow."
