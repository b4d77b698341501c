"""The ZeRO deck's cards are flashcards (issues 23 and 38): short answers, one question per
front, lists of at most four things to recall however they are written, cloze deletions that
test recall (neither read nor worked out from the rest of the card), and nothing about a page
the learner never sees.

The limits are the minimum-information rule of spaced-repetition writing, made countable: an
answer of about 60 words (the median), never over 100; an extra of at most 80; a list to recall
of at most four items. The word counts come from ``tests/deck_words.py``, which also prints the
figures by hand. Questions, lists and figures are counted by the checks ``zerodrill validate``
warns with (zerodrill/deck/questions.py, recall_lists.py, derived_figures.py): here they are
the bundled deck's rule.
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path
from typing import Any

import pytest
import yaml
from deck_words import ANSWER_FIELDS, DECK_PATH, active_cards, field_words, words

from zerodrill.deck import cloze
from zerodrill.deck.derived_figures import card_derived
from zerodrill.deck.giveaways import card_giveaways
from zerodrill.deck.load import load_file
from zerodrill.deck.model import Deck
from zerodrill.deck.questions import card_compound_questions
from zerodrill.deck.recall_lists import deck_long_lists, longest_list

MAX_ANSWER_WORDS = 100
MEDIAN_ANSWER_WORDS = 60
MAX_EXTRA_WORDS = 80
#: A deletion is a fact (a value, a name, a short term), not a sentence to match word for word.
MAX_DELETION_WORDS = 4

DECK: dict[str, Any] = yaml.safe_load(DECK_PATH.read_text(encoding="utf-8"))
CARDS = active_cards(DECK)


def answer_fields(card: dict[str, Any]) -> dict[str, str]:
    return {name: card[name] for name in ANSWER_FIELDS[card["kind"]] if card["kind"] != "cloze"}


def loaded() -> Deck:
    deck, problems = load_file(DECK_PATH)
    assert deck is not None, problems
    return deck


def items_to_recall(text: str) -> int:
    return longest_list(text).items


def test_no_answer_is_over_the_hard_limit() -> None:
    long = {
        f"{card['id']}.{name}": n
        for card in CARDS
        for name, text in answer_fields(card).items()
        if (n := words(text)) > MAX_ANSWER_WORDS
    }
    assert not long, f"split these into cards of one idea each: {long}"


@pytest.mark.parametrize("name", ["back", "answer", "why", "instead"])
def test_typical_answer_is_about_sixty_words(name: str) -> None:
    counts = [n for _, n in field_words(DECK)[name]]
    assert statistics.median(counts) <= MEDIAN_ANSWER_WORDS, (name, statistics.median(counts))


def test_cloze_texts_stay_short() -> None:
    long = {cid: n for cid, n in field_words(DECK)["text"] if n > MAX_ANSWER_WORDS}
    assert not long


def test_extras_stay_short() -> None:
    long = {cid: n for cid, n in field_words(DECK)["extra"] if n > MAX_EXTRA_WORDS}
    assert not long, f"cut these extras to what they add: {long}"


def test_no_list_asks_for_more_than_four_things() -> None:
    # Bullets, table cells and comma or semicolon lists alike, in every answer and sheet bullet.
    long = [str(w) for w in deck_long_lists(loaded())]
    assert not long, "make a cloze per item, or several cards:\n" + "\n".join(long)


def test_each_front_asks_one_question() -> None:
    found = {card.id: asked for card in loaded().cards if (asked := card_compound_questions(card))}
    assert not found, f"one question per front: split these {len(found)} cards: {found}"


def test_deletions_are_facts_not_phrases() -> None:
    long = {
        f"{card['id']}#c{d.ordinal}": d.answer
        for card in CARDS
        if card["kind"] == "cloze"
        for d in cloze.deletions(card["text"])
        if words(d.answer) > MAX_DELETION_WORDS or ", i.e." in d.answer
    }
    assert not long, long


def test_no_deletion_gives_itself_away() -> None:
    found = {card.id: hits for card in loaded().cards if (hits := card_giveaways(card))}
    assert not found, found


def test_no_deleted_figure_can_be_worked_out_from_the_rest() -> None:
    found = {
        card.id: [(d.ordinal, d.answer, d.how) for d in derived]
        for card in loaded().cards
        if (derived := card_derived(card))
    }
    assert not found, found


def test_nothing_speaks_of_a_page_the_learner_never_sees() -> None:
    # Every field and tag of every card, the interviews and the sheet, and the comments too.
    text = DECK_PATH.read_text(encoding="utf-8")
    hits = [line.strip() for line in text.splitlines() if re.search(r"\bseed", line, re.I)]
    assert not hits, hits


# Self-tests: the measures see what they are meant to see.


def test_word_count_skips_table_rules() -> None:
    assert words("| a | b |\n| --- | --- |\n| 1 | 2Ψ |") == 4
    assert words("`zero_optimization.stage` = 0, the default.") == 4


def test_list_and_table_items_are_counted() -> None:
    assert items_to_recall("- a\n- b\n- c\n- d\n- e\n") == 5
    assert items_to_recall("1. a\n2. b\n") == 2
    assert items_to_recall("| h | h |\n| --- | --- |\n| 1 | 2 |\n| 3 | 4 |\n") == 2
    assert items_to_recall("A sentence - with a dash.") == 1
    assert items_to_recall("ZeRO-1, ZeRO-2, ZeRO-2 + offload, ZeRO-3, ZeRO-3 + offload.") == 5


def test_give_away_check_sees_a_visible_answer(tmp_path: Path) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(
        "deck: d\ntitle: T\ndescription: D\ncards:\n"
        "  - id: c\n    kind: cloze\n"
        "    text: 'DDP moves {{c1::2Ψ}}, stage 1 the same {{c2::2Ψ}}.'\n",
        encoding="utf-8",
    )
    deck, _ = load_file(path)
    assert deck is not None
    assert card_giveaways(deck.cards[0]) == [(1, "2Ψ"), (2, "2Ψ")]
