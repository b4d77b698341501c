"""The checks of how a card teaches (issue 38), on small texts: what each must see, and what it
must let pass. ``zerodrill validate`` warns with them (tests/test_validate.py) and the bundled
deck is held to them (tests/test_zero_deck_cards.py)."""

from __future__ import annotations

import pytest

from zerodrill.deck.derived_figures import BLANK, card_derived
from zerodrill.deck.derived_figures import _derived as derived
from zerodrill.deck.kinds import BASIC, CLOZE
from zerodrill.deck.model import Card, Pos
from zerodrill.deck.questions import questions_asked
from zerodrill.deck.recall_lists import longest_list

# -- one question per front -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("front", "asked"),
    [
        ("What is ZeRO++, and what does it claim?", ["What is ZeRO++", "what does it claim"]),
        ("What does hpZ do and what does it cost?", ["What does hpZ do", "what does it cost"]),
        ("Why, and what is the fix?", ["Why", "what is the fix"]),
        ("What is it? What does it cost?", ["What is it", "What does it cost"]),
        ("What is DPU, when is it used, and does DeepSpeed ship it?", 3),
        ("ZeRO-Offload: what stays, what moves, and what crosses PCIe?", 3),
        ("Why is it PCIe-bound, and roughly how much moves?", 2),
        ("In which dtype are gradients reduced; how do you change it?", 2),
        ("At stage 1, what is sharded, and what is kept whole?", 2),
    ],
)
def test_two_questions_in_one_front_are_seen(front: str, asked: list[str] | int) -> None:
    found = questions_asked(front)
    assert (len(found) if isinstance(asked, int) else found) == asked


@pytest.mark.parametrize(
    "front",
    [
        # One question about two things: its answer's length is the list count's business.
        "What do stage 1 and stage 2 shard?",
        "What do `a` and `b` control?",
        # An instruction after the question asks nothing more.
        "Will a 13B model fit on 8 GPUs? Walk it through.",
        "Which stage shrinks a frozen model, and why not stage 2?"[:34] + "?",
        # A relative clause after a comma is not a question.
        "How does ZeRO-3 treat tied embeddings, which are used twice?",
        "What happens to the weights, when offload is on?",
        # Question marks and question words in code are code's.
        "What does `x ? y : z, and what` do?",
        "```\nwhat? why?\n```\nWhat does it do?",
        "Do the scripts run ZeRO-3 with parameter offload?",
        "How much does stage 1 or 2 move per step?",
        "Estimate the model-state memory at stages 0 to 3.",
    ],
)
def test_one_question_is_one(front: str) -> None:
    assert len(questions_asked(front)) <= 1, questions_asked(front)


# -- at most four items to recall ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("Bats, cats, dogs, eels and fish.", 5),
        ("Bats; cats; dogs; eels; fish.", 5),
        ("Bats, cats, dogs, eels, fish.", 5),
        ("The knobs: a low threshold; small prefetch, max-live or reuse limits; c; d.", 6),
        ("It moves optimizer states, fp32 and 16-bit parameters, and the gradients.", 4),
        ("It moves optimizer states, fp32 and 16-bit parameters, 16-bit gradients and buffers.", 5),
        ("Templates for stages 1, 2, 2 + offload, 3 and 3 + offload.", 5),
        ("| stage | formula | GB |\n| --- | --- | --- |\n| 0 | 16Ψ | 112 |\n| 3 | 16Ψ/8 | 14 |", 4),
        ("| a | b | c |\n| - | - | - |\n| 1 | 2 | 3 |\n| 4 | 5 | 6 |\n| 7 | 8 | 9 |", 6),
        ("- a\n- b, c, d, e and f\n", 5),
    ],
)
def test_lists_are_counted_however_written(text: str, items: int) -> None:
    assert longest_list(text).items == items


@pytest.mark.parametrize(
    "text",
    [
        # Commas of clauses, not of a list.
        "Right before a layer runs, in forward and again in backward, its slices are "
        "all-gathered into full weights, used and released, so whole weights exist briefly.",
        "With plain data parallelism, shrink activations with checkpointing, smaller "
        "micro-batches, or sequence parallelism.",
        "Set it to log memory around forward, backward and step, then lower the micro-batch, "
        "the buckets or the prefetch.",
        # Code, numbers and asides are one thing each.
        "Set `a, b, c, d, e` and `f`.",
        "It holds 1,000,000 elements and 2,500 buffers.",
        "Stage 3 (forward, backward, step, save, load) gathers weights.",
        "Default true, at stages 1, 2 and 3; leave it on.",
    ],
)
def test_prose_that_lists_four_or_fewer_passes(text: str) -> None:
    assert longest_list(text).items <= 4, longest_list(text)


# -- figures worked out from what stays in sight ----------------------------------------------


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (f"Model states: 2Ψ + 2Ψ + 12Ψ, in all {BLANK} per parameter.", "16Ψ"),
        (f"2 + 2 + {BLANK} = 16 bytes per parameter.", "12"),
        (f"Weights 2Ψ, gradients 2Ψ and optimizer states 12Ψ: {BLANK} in all.", "16Ψ"),
        (f"Each of the 8 GPUs holds 2 GB, {BLANK} in all.", "16 GB"),
        (f"Stage 3 holds 16Ψ; dropping the 12Ψ of optimizer state leaves {BLANK}.", "4Ψ"),
        (f"ZeRO-3 moves 3M and ZeRO++ 0.75M, {BLANK} less.", "4x"),
        (f"120 GB over 64 GPUs is {BLANK} each.", "1.9 GB"),
        (f"Each parameter costs {BLANK} bytes of fp16 weights.", "2"),
        (f"It stores 12 bytes, of which the fp32 master weights take {BLANK}.", "4"),
        (
            f"It stores {BLANK} bytes per parameter: the 16-bit weights, and the fp32 master "
            "weights, momentum and variance.",
            "14",
        ),
    ],
)
def test_a_figure_worked_out_from_the_rest_is_seen(question: str, answer: str) -> None:
    assert derived(question, answer) is not None


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # Recall, not arithmetic: nothing in sight gives these.
        (f"The ZeRO paper: 7.5B parameters on 64 GPUs need {BLANK} per GPU at stage 3.", "1.9 GB"),
        (f"Each parameter costs {BLANK} bytes of model state with mixed-precision Adam.", "16"),
        (f"Each parameter costs 2 bytes of fp16 weights and {BLANK} of optimizer state.", "12"),
        # Labels and counts are no quantities to add up.
        (f"Stage {BLANK} shards 2Ψ of fp16 weights and 1Ψ more.", "3"),
        (f"Stages 1 and 2 move 2Ψ; stage 3 moves {BLANK}.", "3Ψ"),
        # A symbol in the arithmetic: the card asks for the formula, not a sum of figures.
        (f"Per GPU: 4Ψ + 12Ψ/N_d at stage 1, {BLANK} at stage 3.", "16Ψ/N_d"),
        (f"Per GPU: 4Ψ + 12Ψ/N_d at stage 1, and 16Ψ/N_d at stage {BLANK}.", "3"),
        # Figures of other units never combine.
        (f"A 2 GB model on 8 GPUs takes {BLANK} of optimizer state.", "16Ψ"),
        (f"The default is {BLANK}; the buckets hold 5e8 elements.", "0"),
        (f"The scale starts at {BLANK} and halves after 2 overflows.", "65536"),
    ],
)
def test_an_honest_figure_passes(question: str, answer: str) -> None:
    assert derived(question, answer) is None


def _cloze(text: str) -> Card:
    pos = Pos("d.yaml", 1, 1)
    ordinals = tuple(sorted({int(n) for n in __import__("re").findall(r"\{\{c(\d+)::", text)}))
    return Card("d", "c", CLOZE, {"text": text}, (), (), pos, {}, ordinals)


def test_the_card_is_read_with_other_deletions_filled_and_hints_shown() -> None:
    card = _cloze("It is {{c1::2Ψ}} + {{c2::2Ψ}} + 12Ψ = {{c3::16Ψ::the total}}.")
    # c3: every term is in sight. c1 and c2: the one unknown of the sum.
    assert [d.ordinal for d in card_derived(card)] == [1, 2, 3]
    # Blanked together, the parts are not in sight.
    assert card_derived(_cloze("It is {{c1::2Ψ}} + {{c1::2Ψ}} + 12Ψ.")) == []


def test_only_cloze_cards_have_deletions_to_work_out() -> None:
    card = Card("d", "b", BASIC, {"front": "2 + 2?", "back": "4"}, (), (), Pos("d", 1, 1), {})
    assert card_derived(card) == []
