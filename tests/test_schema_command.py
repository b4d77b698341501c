"""``zerodrill schema``: the deck format's JSON Schema for a deck repository of one's own."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from cli_support import ONE_CARD_DECK, run_cli

from zerodrill.deck.json_schema import SCHEMA_PATH

DECK = ONE_CARD_DECK


def test_printed_schema_is_the_packages_and_says_how_to_name_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_cli(capsys, "schema")
    assert code == 0
    assert out == SCHEMA_PATH.read_text(encoding="utf-8")
    assert "# yaml-language-server: $schema=deck.schema.json" in err


def test_written_schema_checks_a_deck_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "schema", "-o", str(tmp_path))
    assert code == 0, err
    written = tmp_path / "deck.schema.json"
    assert f"$schema={written.name}" in out
    schema = json.loads(written.read_text(encoding="utf-8"))
    jsonschema.validate(yaml.safe_load(DECK), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(yaml.safe_load(DECK.replace("front:", "frnot:")), schema)
    # Written again after an upgrade: it replaces its own file.
    written.write_text(written.read_text().replace('"deck"', '"deck" '))
    code, out, err = run_cli(capsys, "schema", "-o", str(written))
    assert code == 0 and written.read_text(encoding="utf-8") == SCHEMA_PATH.read_text()


@pytest.mark.parametrize("kind", ["other json", "not json", "nested too deep", "symlink"])
def test_a_file_zerodrill_did_not_write_is_left_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    target = tmp_path / "deck.schema.json"
    mine = tmp_path / "mine.json"
    mine.write_text('{"title": "zerodrill deck"}')
    if kind == "symlink":
        target.symlink_to(mine)
    else:
        text = {"other json": '{"title": "my own"}', "nested too deep": "[" * 100_000}
        target.write_text(text.get(kind, "notes"))
    before = target.read_bytes()
    code, out, err = run_cli(capsys, "schema", "-o", str(target))
    assert code == 1
    assert err.startswith("zerodrill: ") and "left as it is" in err and len(err.splitlines()) == 1
    assert target.read_bytes() == before and mine.read_text() == '{"title": "zerodrill deck"}'


def test_a_missing_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "schema", "-o", str(tmp_path / "nope" / "s.json"))
    assert code == 1 and "no folder" in err and not (tmp_path / "nope").exists()
