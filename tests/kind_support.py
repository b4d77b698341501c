"""A card kind made up for the tests and never shipped: what adding a kind takes, exercised.

Everything a new kind needs is here, in one declaration, as ``zerodrill/deck/kinds.py`` asks;
the tests then see the loader, the schema, the drill and the export honour it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from zerodrill.deck import kinds
from zerodrill.deck.kinds import AnkiNoteType, CardKind, KindField, Sides, Typing
from zerodrill.deck.model import Item


def _read(item: Item) -> Sides:
    f = item.card.fields
    return Sides(f"What does **{f['term']}** mean?", f["meaning"], item.card.extra)


DEFINITION = CardKind(
    name="definition",
    summary="A term and what it means.",
    label="Define",
    fields=(
        KindField("term", "The term, in Markdown.", aliases=("word",)),
        KindField("meaning", "What it means, in Markdown."),
    ),
    read=_read,
    anki=AnkiNoteType(
        1518315127,  # made up for this test kind; never shipped
        "zerodrill test definition",
        '<div class="zd zd-front zd-basic"><div class="zd-q">{{term}}</div></div>',
        '<div class="zd-back">{{FrontSide}}</div>\n<hr id="answer">\n'
        '<div class="zd zd-basic"><div class="zd-a">{{meaning}}</div>\n',
    ),
    typing=Typing.FREE,
)

DECK = """\
deck: words
title: Words
description: A deck with a kind zerodrill does not ship.
cards:
  - id: shard
    kind: definition
    term: shard
    meaning: One rank's slice of a tensor.
    extra: ZeRO shards optimizer states, gradients and parameters.
  - id: plain
    kind: basic
    front: Q
    back: A
"""


def register_for_test(monkeypatch: pytest.MonkeyPatch, kind: CardKind) -> CardKind:
    """``kind`` registered until the test ends; the registry is then as it was."""
    monkeypatch.setattr(kinds, "_REGISTRY", dict(kinds._REGISTRY))
    return kinds.register(kind)


def write_deck(folder: Path, text: str = DECK) -> Path:
    path = folder / "words.yaml"
    path.write_text(text, encoding="utf-8")
    return path
