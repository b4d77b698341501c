"""The editor schema and the loader agree: shipped decks pass both, invalid decks fail both."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import jsonschema
import pytest
import yaml

from zerodrill.deck import json_schema as schema
from zerodrill.deck.load import load_file, load_paths
from zerodrill.export.formats import all_rules
from zerodrill.paths import bundled_decks_dir

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "zerodrill" / "deck" / "deck.schema.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
DATA = Path(__file__).resolve().parent / "data"


REPO_DECKS = Path(__file__).resolve().parent.parent / "decks"


def shipped_decks() -> list[Path]:
    # The repository's copies: their schema comment points into the repository's tree.
    return sorted(REPO_DECKS.glob("*.yaml"))


def test_schema_is_a_valid_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize(
    "path",
    [*shipped_decks(), DATA / "decks" / "sample.yaml"],
    ids=lambda p: p.name,
)
def test_good_decks_pass_schema_and_loader(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=")
    schema_ref = text.splitlines()[0].split("$schema=", 1)[1]
    assert (path.parent / schema_ref).resolve() == SCHEMA_PATH
    errors = list(VALIDATOR.iter_errors(yaml.safe_load(text)))
    assert not errors, [e.message for e in errors]
    deck, problems = load_file(path)
    assert deck is not None and not problems, problems


def test_bundled_decks_are_found_and_match_the_repository() -> None:
    result = load_paths([bundled_decks_dir()])
    assert result.decks and result.ok, result.problems
    bundled = {p.name: p.read_bytes() for p in bundled_decks_dir().glob("*.yaml")}
    assert bundled == {p.name: p.read_bytes() for p in shipped_decks()}


CARD = {"id": "a", "kind": "basic", "front": "Q", "back": "A"}

INVALID: dict[str, dict[str, object]] = {
    "missing-title": {"deck": "d", "description": "D", "cards": [CARD]},
    "unknown-top-field": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "cards": [CARD],
        "colour": "red",
    },
    "bad-deck-id": {"deck": "Deck One", "title": "T", "description": "D", "cards": [CARD]},
    "no-cards": {"deck": "d", "title": "T", "description": "D", "cards": []},
    "cards-not-list": {"deck": "d", "title": "T", "description": "D", "cards": {"a": CARD}},
    "unknown-kind": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "cards": [{**CARD, "kind": "flashcard"}],
    },
    "missing-kind-field": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "cards": [{"id": "a", "kind": "basic", "front": "Q"}],
    },
    "field-of-other-kind": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "cards": [{**CARD, "question": "Q"}],
    },
    "typo-field": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "cards": [{"id": "a", "kind": "follow_up", "question": "Q", "anwser": "A"}],
    },
    "number-as-text": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "cards": [{**CARD, "back": 3}],
    },
    "empty-text": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "cards": [{**CARD, "front": "  "}],
    },
    "bad-card-id": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "cards": [{**CARD, "id": "Card One"}],
    },
    "bad-tag": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "cards": [{**CARD, "tags": ["Has Space"]}],
    },
    "tags-not-list": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "cards": [{**CARD, "tags": "config"}],
    },
    "cloze-without-deletion": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "cards": [{"id": "a", "kind": "cloze", "text": "no deletion"}],
    },
    "id-with-trailing-newline": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "cards": [{**CARD, "id": "abc\n"}],
    },
    "deck-id-with-trailing-newline": {
        "deck": "t\n",
        "title": "T",
        "description": "D",
        "cards": [CARD],
    },
    "deck-id-too-long": {"deck": "a" * 65, "title": "T", "description": "D", "cards": [CARD]},
    "reserved-deck-id": {"deck": "retired", "title": "T", "description": "D", "cards": [CARD]},
    "title-default": {"deck": "d", "title": "default", "description": "D", "cards": [CARD]},
    "title-with-colons": {"deck": "d", "title": "A::B", "description": "D", "cards": [CARD]},
    "escape-sequence": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "cards": [{**CARD, "front": "x \x1b]2;PWNED\x07 \x1b[2J\x1b[H"}],
    },
    "unit-separator": {"deck": "d", "title": "T", "description": "D\x1f", "cards": [CARD]},
    "oversized-field": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "cards": [{**CARD, "extra": "x" * 20_001}],
    },
    "refs-required-card-without": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "refs": "required",
        "cards": [CARD],
    },
    "refs-required-card-with-none": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "refs": "required",
        "cards": [{**CARD, "refs": []}],
    },
    "refs-rule-unknown": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "refs": "yes",
        "cards": [CARD],
    },
    "red-flag-without-instead": {
        "deck": "d",
        "title": "T",
        "description": "D",
        "cards": [{"id": "a", "kind": "red_flag", "claim": "C", "why": "W"}],
    },
}


INTERVIEW = {"id": "i", "title": "T", "question": "Q", "minutes": 4, "points": ["P"]}
_BASE = {"deck": "d", "title": "T", "description": "D", "cards": [CARD]}
INVALID.update(
    {
        "interview-budget-out-of-range": {**_BASE, "interviews": [{**INTERVIEW, "minutes": 0}]},
        "interview-without-points": {**_BASE, "interviews": [{**INTERVIEW, "points": []}]},
        "interview-blank-point": {**_BASE, "interviews": [{**INTERVIEW, "points": [" "]}]},
        "interview-unknown-field": {**_BASE, "interviews": [{**INTERVIEW, "hints": ["h"]}]},
        "interview-two-line-title": {**_BASE, "interviews": [{**INTERVIEW, "title": "A\nB"}]},
        "sheet-of-13-bullets": {**_BASE, "sheet": [f"b{n}" for n in range(13)]},
        "sheet-bullet-too-long": {**_BASE, "sheet": ["x" * 241]},
        "sheet-bullet-of-two-paragraphs": {**_BASE, "sheet": [{"text": "a\n\nb"}]},
        "sheet-bullet-bad-card-id": {**_BASE, "sheet": [{"text": "a", "cards": ["A b"]}]},
        "level-zero": {**_BASE, "cards": [{**CARD, "level": 0}]},
        "level-ten": {**_BASE, "cards": [{**CARD, "level": 10}]},
        "level-as-text": {**_BASE, "cards": [{**CARD, "level": "1"}]},
        "siblings-not-a-list": {**_BASE, "cards": [{**CARD, "siblings": "a"}]},
        "siblings-bad-card-id": {**_BASE, "cards": [{**CARD, "siblings": ["A b"]}]},
        "siblings-twice": {**_BASE, "cards": [CARD, {**CARD, "id": "b", "siblings": ["a", "a"]}]},
    }
)


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_decks_fail_schema_and_loader(tmp_path: Path, name: str) -> None:
    document = INVALID[name]
    assert list(VALIDATOR.iter_errors(document)), f"schema accepts {name}"
    path = tmp_path / "deck.yaml"
    path.write_text(textwrap.dedent(yaml.safe_dump(document, sort_keys=False)), encoding="utf-8")
    # What validate checks: the deck format and every export format's rules.
    deck, problems = load_file(path, all_rules())
    assert deck is None and problems, f"loader accepts {name}"


# -- the schema and the README's tables are generated from the loader's declarations ----------


def test_the_committed_schema_is_the_generated_one() -> None:
    # Stale after any change to the format: run `python -m zerodrill.deck.json_schema`.
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema.schema_text()


def test_the_readme_field_tables_are_the_generated_ones() -> None:
    readme = (REPO_DECKS / "README.md").read_text(encoding="utf-8")
    assert schema.README_START in readme and schema.README_END in readme
    assert readme == schema.readme_with_tables(readme)


def test_a_field_the_loader_reads_without_a_shape_stops_the_generator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(schema, "DECK_FIELDS", (*schema.DECK_FIELDS, "colour"))
    with pytest.raises(ValueError, match="colour"):
        schema.schema()


def test_the_command_rewrites_a_stale_schema_and_check_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stale, readme = tmp_path / "deck.schema.json", tmp_path / "README.md"
    stale.write_text("{}\n", encoding="utf-8")
    readme.write_text(
        f"# Decks\n\n{schema.README_START}\nstale table\n{schema.README_END}\n\nMore.\n"
    )
    monkeypatch.setattr(schema, "SCHEMA_PATH", stale)
    monkeypatch.setattr(schema, "README_PATH", readme)
    assert schema.main(["--check"]) == 1
    assert stale.read_text(encoding="utf-8") == "{}\n"
    assert "stale" in capsys.readouterr().err
    assert schema.main([]) == 0
    assert schema.main(["--check"]) == 0
    assert json.loads(stale.read_text(encoding="utf-8")) == schema.schema()
    text = readme.read_text(encoding="utf-8")
    assert (
        text.startswith("# Decks\n\n")
        and text.endswith("\n\nMore.\n")
        and "stale table" not in text
    )
