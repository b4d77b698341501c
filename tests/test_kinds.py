"""The card-kind registry: each kind declared once, and every part of zerodrill asking it.

A kind made up in the tests (``kind_support.DEFINITION``) is registered and then loaded,
described by the schema, drilled and exported without a line of zerodrill changed.
"""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
import yaml
from kind_support import DECK, DEFINITION, write_deck
from msgspec import structs
from textual.widgets import TextArea
from tui_support import Clock, run_async, shown

from zerodrill.deck import json_schema as schema
from zerodrill.deck import kinds
from zerodrill.deck.load import load_file
from zerodrill.export.notes import notes_of, tags_for
from zerodrill.export.notetypes import field_names, note_type
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import create_app
from zerodrill.tui.widgets.card_view import CardView


def problems_of(tmp_path: Path, text: str) -> list[str]:
    deck, problems = load_file(write_deck(tmp_path, text))
    assert deck is None
    return [p.message for p in problems]


# -- the hints a field's declaration gives ----------------------------------------------------

BASIC_WITH_QUESTION = """\
deck: d
title: T
description: D
cards:
  - id: a
    kind: basic
    question: Q
    back: A
"""


def test_question_in_a_basic_card_is_told_it_means_front(tmp_path: Path) -> None:
    # Issue 24: "question" is no misspelling of "front", so spelling alone never suggested it.
    messages = problems_of(tmp_path, BASIC_WITH_QUESTION)
    assert "unknown field 'question' in a basic card (did you mean 'front'?)" in messages


def test_answer_in_a_red_flag_is_told_it_means_why(tmp_path: Path) -> None:
    text = BASIC_WITH_QUESTION.replace("kind: basic", "kind: red_flag").replace(
        "question: Q\n    back: A", "claim: C\n    answer: A\n    instead: I"
    )
    assert "unknown field 'answer' in a red_flag card (did you mean 'why'?)" in problems_of(
        tmp_path, text
    )


def test_a_misspelling_is_still_caught_by_spelling(tmp_path: Path) -> None:
    text = BASIC_WITH_QUESTION.replace("question: Q", "fronte: Q")
    assert "unknown field 'fronte' in a basic card (did you mean 'front'?)" in problems_of(
        tmp_path, text
    )


# -- the registry ---------------------------------------------------------------------------


def test_the_shipped_kinds_in_order() -> None:
    assert [k.name for k in kinds.registered()] == ["basic", "cloze", "follow_up", "red_flag"]
    assert kinds.named("cloze") is kinds.CLOZE and kinds.named("flashcard") is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"name": "basic"}, "a kind named 'basic' is registered already"),
        ({"anki": structs.replace(DEFINITION.anki, model_id=1273273555)}, "model id"),
        ({"anki": structs.replace(DEFINITION.anki, name="zerodrill cloze")}, "name"),
        ({"fields": (kinds.KindField("extra", "x"),)}, "field name 'extra'"),
        ({"fields": ()}, "at least one field"),
        ({"cloze_field": "nowhere"}, "cloze field 'nowhere'"),
        ({"typing": kinds.Typing.BLANKS}, "typing the blanks needs a cloze field"),
        ({"fields": (kinds.KindField("term", "t", aliases=("tags",)),)}, "alias 'tags'"),
    ],
)
def test_a_kind_that_would_clash_is_refused(
    monkeypatch: pytest.MonkeyPatch, change: dict[str, object], message: str
) -> None:
    monkeypatch.setattr(kinds, "_REGISTRY", dict(kinds._REGISTRY))
    with pytest.raises(ValueError, match=message):
        kinds.register(structs.replace(DEFINITION, **change))  # type: ignore[arg-type]
    assert kinds.named(DEFINITION.name) is None


# -- a kind zerodrill does not ship ---------------------------------------------------------


def test_an_unregistered_kind_cannot_get_past_loading(tmp_path: Path) -> None:
    messages = problems_of(tmp_path, DECK)
    assert messages[0] == (
        "unknown kind 'definition' (expected one of basic, cloze, follow_up, red_flag)"
    )


def test_a_registered_kind_is_loaded_with_its_fields_and_hints(
    tmp_path: Path, definition_kind: kinds.CardKind
) -> None:
    deck, problems = load_file(write_deck(tmp_path))
    assert deck is not None, problems
    card = deck.cards[0]
    assert card.kind is definition_kind
    assert dict(card.fields) == {
        "term": "shard",
        "meaning": "One rank's slice of a tensor.",
        "extra": "ZeRO shards optimizer states, gradients and parameters.",
    }
    (item,) = card.items()
    assert item.sides().question == "What does **shard** mean?"
    broken = DECK.replace("    term: shard\n", "    word: shard\n")
    assert problems_of(tmp_path, broken) == [
        "unknown field 'word' in a definition card (did you mean 'term'?)",
        "a definition card is missing required field 'term'",
    ]


def test_a_registered_kind_is_in_the_schema_and_the_readme_tables(
    definition_kind: kinds.CardKind,
) -> None:
    generated = schema.schema()
    validator = jsonschema.Draft202012Validator(generated)
    assert not list(validator.iter_errors(yaml.safe_load(DECK)))
    wrong = yaml.safe_load(DECK.replace("    term: shard\n", "    word: shard\n"))
    assert list(validator.iter_errors(wrong))
    assert generated["$defs"]["definition"]["required"] == ["id", "kind", "term", "meaning"]
    tables = schema.readme_tables()
    assert "| `definition` | `term`, `meaning` | A term and what it means. | Define |" in tables


def test_a_registered_kind_is_exported_as_its_note_type(
    tmp_path: Path, definition_kind: kinds.CardKind
) -> None:
    deck, problems = load_file(write_deck(tmp_path))
    assert deck is not None, problems
    note, _basic = notes_of([deck], {deck.id: {}})
    assert note.model_id == definition_kind.anki.model_id
    assert note.fields.split("\x1f")[:2] == ["<p>shard</p>", "<p>One rank's slice of a tensor.</p>"]
    assert "zerodrill::kind::definition" in tags_for(note.card).split()
    assert field_names(definition_kind) == ("term", "meaning", "extra", "sources")
    model = note_type(definition_kind).model
    assert model.name == "zerodrill test definition"
    assert "{{meaning}}" in model.templates[0]["afmt"] and "{{extra}}" in model.templates[0]["afmt"]


@run_async
async def test_a_registered_kind_is_drilled_as_it_reads(
    tmp_path: Path, definition_kind: kinds.CardKind
) -> None:
    deck, problems = load_file(write_deck(tmp_path))
    assert deck is not None, problems
    with Store.open(tmp_path / "reviews.db") as store:
        app = create_app([deck], store, clock=Clock())
        async with app.run_test(size=(80, 24)) as pilot:
            view = app.screen.query_one(CardView)
            while view.item is None or view.item.card.kind is not definition_kind:
                await pilot.press("enter", "4")
            question = shown(app.screen.query_one("#question"))
            assert question.startswith("Define  words/shard")
            assert "What does shard mean?" in question
            # Typing.FREE: the learner may type first, and sees it beside the model answer.
            assert "Ctrl+J new line" in shown(app.screen.query_one("#hint"))
            await pilot.press("a")
            assert isinstance(app.focused, TextArea) and app.focused.display
            await pilot.press(*"a slice", "enter")
            answer = shown(app.screen.query_one("#answer"))
            assert "Your answer" in answer and "a slice" in answer
            assert "One rank's slice of a tensor." in answer
