"""A card naming another card of its deck by id, in parentheses in its prose, shows that card's
question instead, in the drill and in Anki (issue 36, point 4): the ids of code, links and raw
HTML left as written, and nothing of the question read as markup."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tui_support import Clock, run_async, shown

from zerodrill.deck.load import load_paths
from zerodrill.deck.mentions import CardTitles, name_cards, name_cards_in, short
from zerodrill.deck.model import Card, Deck
from zerodrill.export.notes import note_fields, notes_of
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import create_app
from zerodrill.tui.widgets.card_side import CardSide

BUNDLED = Path(__file__).resolve().parents[1] / "decks" / "deepspeed-zero.yaml"

DECK = """\
deck: named
title: Cards naming cards
description: Ids in prose, code and links.
cards:
  - id: hpz-memory
    kind: follow_up
    question: |
      What does **hpZ** cost in GPU memory? Size it for a 70B model on 8 nodes.
    answer: An extra copy of the weights, sharded within the node.
  - id: tricky
    kind: basic
    front: "Is `a < b` [true](https://example.com) in *all* cases, or 1 * 2 \\\\ 3 # no?"
    back: No.
  - id: keys
    kind: cloze
    text: ZeRO++ turns hpZ on with `{{c1::zero_hpz_partition_size}}`, qwZ with {{c2::a flag}}.
  - id: claim
    kind: red_flag
    claim: '"Stage 3 always saves the most memory, so it is always the right choice to make."'
    why: It costs 1.5x the traffic.
    instead: Measure.
  - id: naming
    kind: basic
    front: Which card is this?
    back: |
      The secondary copy costs memory (hpz-memory). Both at once (hpz-memory, keys);
      across a line break (tricky,
      claim).

      Not in code: `(hpz-memory)`, nor a link: [see (hpz-memory)](https://example.com/a),
      <https://example.com/(hpz-memory)>, nor raw HTML: <span title="(hpz-memory)">x</span>.
      Nor a word that is no card (all-reduce), nor a group with one (hpz-memory, all-reduce).
      Nor an id glued to more: (hpz-memory-2), f(hpz-memory), (hpz-memory)s, \\(hpz-memory).

      ```text
      (hpz-memory)
      ```
    extra: Once more in the extra, after ünïcode (hpz-memory).
"""


@pytest.fixture
def deck(tmp_path: Path) -> Deck:
    path = tmp_path / "named.yaml"
    path.write_text(DECK, encoding="utf-8")
    result = load_paths([path])
    assert result.ok, result.problems
    (deck,) = result.decks
    return deck


def card(deck: Deck, card_id: str) -> Card:
    return next(c for c in deck.cards if c.id == card_id)


HPZ = "“What does hpZ cost in GPU memory?”"


def test_an_id_in_parentheses_in_prose_shows_the_cards_question(deck: Deck) -> None:
    titles = CardTitles(deck.cards)
    back = name_cards(card(deck, "naming").fields["back"], titles)
    lines = back.splitlines()
    hpz = "“What does hpZ cost in GPU memory\\?”"
    assert lines[0] == (
        f"The secondary copy costs memory ({hpz}). Both at once ({hpz}, "
        "“ZeRO\\+\\+ turns hpZ on with \\[\\.\\.\\.\\]\\, qwZ with \\[\\.\\.\\.\\]\\.”);"
    )
    assert lines[1:3] == [
        "across a line break (“Is a \\< b true in all cases\\, or 1 \\* 2 \\\\ 3 \\# no\\?”,",
        "“Stage 3 always saves the most memory\\, so it is always the…”).",
    ]
    # Everything else as written.
    assert lines[3:] == card(deck, "naming").fields["back"].splitlines()[3:]


def test_titles_are_the_question_as_read_on_one_short_line(deck: Deck) -> None:
    titles = CardTitles(deck.cards)
    # Up to the question mark: what follows frames the question.
    assert titles.title("hpz-memory") == "What does hpZ cost in GPU memory?"
    # Marks dropped, code as its text, a cloze's every deletion a blank (in code too).
    assert titles.title("keys") == "ZeRO++ turns hpZ on with [...], qwZ with [...]."
    # A red flag's claim, out of its own quotes, cut at a word.
    assert titles.title("claim") == "Stage 3 always saves the most memory, so it is always the…"
    assert short("a" * 70) == "a" * 59 + "…"


def test_the_answer_side_in_the_drill_shows_the_question(tmp_path: Path, deck: Deck) -> None:
    @run_async
    async def go() -> None:
        with Store.open(tmp_path / "reviews.db") as store:
            app = create_app([deck], store, clock=Clock())
            async with app.run_test(size=(100, 40)) as pilot:
                for _ in range(8):  # on to the card that names the others
                    current = app.session.current
                    if current is not None and current.card.id == "naming":
                        break
                    await pilot.press("enter", "4")
                await pilot.press("enter")
                text = " ".join(shown(app.screen.query_one("#answer", CardSide)).split())
        assert text.startswith(f"The secondary copy costs memory ({HPZ}). Both at once ({HPZ}, ")
        assert "across a line break (“Is a < b true in all cases, or 1 * 2 \\ 3 # no?”," in text
        assert "Not in code: (hpz-memory), nor a link: see (hpz-memory), " in text
        assert "(all-reduce)" in text and "(hpz-memory, all-reduce)" in text
        assert text.endswith(f"(hpz-memory) Once more in the extra, after ünïcode ({HPZ}).")

    go()


def test_the_anki_note_shows_the_question_html_escaped(deck: Deck) -> None:
    naming = card(deck, "naming")
    titles = CardTitles(deck.cards)
    front, back, extra, _sources = note_fields(naming, {}, titles=titles)
    assert "(“What does hpZ cost in GPU memory?”)" in back
    assert "(“Is a &lt; b true in all cases, or 1 * 2 \\ 3 # no?”," in back
    assert "<code>(hpz-memory)</code>" in back and "(all-reduce)" in back
    assert f"after ünïcode ({HPZ})" in extra
    # notes_of, the package's way in, names them too; without titles, ids stay.
    (note,) = [n for n in notes_of([deck], {"named": {}}) if n.card is naming]
    assert HPZ in note.fields
    assert "(hpz-memory)" in note_fields(naming, {})[1]


def test_a_card_naming_none_is_the_same_object(deck: Deck) -> None:
    # Most cards name no other: nothing is parsed or copied for them, parentheses or not.
    titles = CardTitles(deck.cards)
    for plain in ("hpz-memory", "tricky"):
        sides = card(deck, plain).items()[0].sides()
        assert name_cards_in(sides, titles) is sides
    sides = card(deck, "naming").items()[0].sides()
    assert name_cards_in(sides, titles) is not sides


def test_the_bundled_deck_names_its_cards_in_prose_and_each_resolves() -> None:
    (deck,) = load_paths([BUNDLED]).decks
    ids = {c.id for c in deck.cards}
    titles = CardTitles(deck.cards)
    named = 0
    for c in deck.cards:
        for text in c.fields.values():
            # The old way, an id as a code span in parentheses, is code: never resolved.
            spans = re.findall(r"\(`([a-z0-9-]+)`", text)
            assert not [s for s in spans if s in ids], (c.id, spans)
            named += name_cards(text, titles) != text
    assert named >= 20
