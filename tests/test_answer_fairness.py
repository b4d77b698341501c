"""The typed-answer check, pinned on answers from the real deck: what is right, a slip, almost
or wrong (issue 23, point 7; issue 36, point 3). Each row is (typed, expected, verdict); the
expected answers are deletions of decks/deepspeed-zero.yaml as written there."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zerodrill.srs.answer_check import check, check_cloze
from zerodrill.srs.answer_marks import Mark, judge, mark
from zerodrill.srs.grades import Grade

R, S, A, W = Mark.RIGHT, Mark.SLIP, Mark.ALMOST, Mark.WRONG

ROWS: list[tuple[str, str, Mark]] = [
    # Spacing, punctuation and Markdown never matter; letter case only in a name in code.
    ("ZERO_OPTIMIZATION.STAGE", "zero_optimization.stage", A),  # DeepSpeed's keys are not
    ("Zero_Optimization.Stage", "zero_optimization.stage", A),
    ("MAX_GRAD_NORM", "`max_grad_norm`", A),
    ("max_grad_norm", "`max_grad_norm`", R),
    ("Every Rank", "every rank", R),
    ("a zero wrapper", "a ZeRO wrapper", R),  # a name in prose, not in code
    ("valueerror", "a ValueError", R),
    ("`zero_optimization.stage`", "zero_optimization.stage", R),
    ("  zero_optimization.stage ", "zero_optimization.stage", R),
    ("reduce scatter", "reduce-scatter", R),
    ("reducescatter", "reduce-scatter", R),
    ("Optimizer states", "optimizer_states", W),  # a key, not prose
    ("the data parallel world size", "the data-parallel world size", R),
    ("data-parallel world size", "the data-parallel world size", R),
    ("every rank.", "every rank", R),
    ("raises a value error", "raises a ValueError", W),  # ValueError is a name
    ("raises ValueError", "raises a ValueError", R),
    # Symbols and their spelt names.
    ("2 psi", "2Ψ", R),
    ("2psi", "2Ψ", R),
    ("2Psi", "2Ψ", R),
    ("2 phi", "2Ψ", W),
    ("3 psi, i.e. 1.5x", "3Ψ, i.e. 1.5x", R),
    ("3psi ie 1.5 x", "3Ψ, i.e. 1.5x", R),
    ("16 psi / N_d", "16Ψ/N_d", R),
    ("16psi/n_d", "16Ψ/N_d", R),
    ("16 psi * N_d", "16Ψ/N_d", W),  # a different formula
    ("4 psi + 12 psi / N_d", "4Ψ + 12Ψ/N_d", R),
    ("4 psi + 12 psi / N_d", "2Ψ + 14Ψ/N_d", W),
    # Subscripts and separators in formulas: N_d, N_{d}, Nd; spacing; psi for Ψ.
    ("4psi + 12psi/Nd", "4Ψ + 12Ψ/N_d", R),
    ("4Ψ+12Ψ/N_{d}", "4Ψ + 12Ψ/N_d", R),
    ("4 psi + 12 psi / nd", "4Ψ + 12Ψ/N_d", R),
    ("4 psi + 12 psi / N", "4Ψ + 12Ψ/N_d", W),
    ("4 psi + 12 psi / N_p", "4Ψ + 12Ψ/N_d", W),
    ("16 Ψ / Nd", "16Ψ/N_d", R),
    ("16 Ψ Nd", "16Ψ/N_d", W),
    ("h²", "h²", R),
    ("h**2", "h²", R),
    ("h^2", "h²", R),
    ("0.9 * h^2", "0.9·h²", R),
    ("0.9 x h2", "0.9·h²", R),
    ("10 h", "10·h", R),
    ("W / (TP x PP)", "W / (TP × PP)", R),
    ("W/(TP*PP)", "W / (TP × PP)", R),
    ("W / TP", "W / (TP × PP)", W),
    ("alpha <= 1", "α ≤ 1", R),
    ("α =< 1", "α ≤ 1", W),
    # Numbers must match exactly; their notation may differ.
    ("5e8", "5e8", R),
    ("500000000", "5e8", R),
    ("500,000,000", "5e8", R),
    ("5e9", "5e8", W),
    ("1e8", "1e9", W),
    ("12", "12", R),
    ("13", "12", W),
    ("65536", "65536", R),
    ("65535", "65536", W),
    ("120GB", "120 GB", R),
    ("120 gb", "120 GB", R),
    ("12 GB", "120 GB", W),
    ("31.4 GB", "31.4 GB", R),
    ("31.5 GB", "31.4 GB", W),
    ("33 %", "33%", R),
    ("0.5 M", "0.5M", R),
    ("v0.19.5", "v0.19.5", R),
    ("0.19.5", "v0.19.5", R),
    ("v0.19.4", "v0.19.5", W),
    # Numbers in words, with a scale word or letter, in notation, grouped.
    ("two", "2", R),
    ("Twelve", "12", R),
    ("fourteen", "14", R),
    ("sixty GB", "60 GB", R),
    ("twenty-one", "21", R),
    ("three", "2", W),
    ("stage three", "stage 3", R),
    ("zero", "0", R),
    ("one thousand", "1000", R),
    ("a thousand", "1000", R),
    ("sixty-five thousand five hundred and thirty-six", "65536", R),
    ("2^16", "65536", R),
    ("2**16", "65536", R),
    ("2^15", "65536", W),
    ("500M", "5e8", R),
    ("500m", "5e8", R),
    ("500 M", "5e8", R),
    ("500 million", "5e8", R),
    ("five hundred million", "5e8", R),
    ("half a billion", "5e8", W),  # not read: typed another way, it is right
    ("0.5B", "5e8", R),
    ("0.5 billion", "5e8", R),
    ("500_000_000", "5e8", R),
    ("5 x 10^8", "5e8", R),
    ("5×10⁸", "5e8", R),
    ("50M", "5e8", W),
    ("5 billion", "5e8", W),
    ("500k", "0.5M", W),  # M is the model's size there, not a million
    ("0.5m", "0.5M", R),
    ("1.5 times", "1.5x", R),
    ("33 percent", "33%", R),
    # An identifier in code must be exact; one character off is almost (2), still a fail.
    ("zero_optimisation.stage", "zero_optimization.stage", A),
    ("zero_optimziation.stage", "zero_optimization.stage", A),  # two letters swapped
    ("zero_optimizaton.stage", "zero_optimization.stage", A),  # one dropped
    ("zero_optimisaton.stage", "zero_optimization.stage", W),  # two off
    ("zero_optimization stage", "zero_optimization.stage", W),  # not one key
    ("optimizer_state", "optimizer_states", A),
    ("optimiser_state", "optimizer_states", W),
    ("stage3_param_persistence_threshold", "stage3_param_persistence_threshold", R),
    ("stage3_param_persistance_threshold", "stage3_param_persistence_threshold", A),
    ("stage3_model_persistence_threshold", "stage3_param_persistence_threshold", W),
    ("sys.MAXSIZE", "sys.maxsize", A),
    ("stage3_gather_16bit_weights_on_model_save", "stage3_gather_16bit_weights_on_model_save", R),
    ("train_micro_batch_size", "train_micro_batch_size_per_gpu", W),
    ("sys.maxsize", "sys.maxsize", R),
    ("torch.compile()", "torch.compile()", R),
    ("torch.compile", "torch.compile()", W),
    # A list is a set: its items in any order, a range for its numbers; missing an item is
    # wrong, not a slip; its "and"/"or" does not matter.
    ("1, 2 and 3", "1, 2 and 3", R),
    ("1 2 3", "1, 2 and 3", R),
    ("1, 2, 3", "1, 2 and 3", R),
    ("2 and 3", "1, 2 and 3", W),
    ("1, 2", "1, 2 and 3", W),
    ("0, 1, 2, 3", "0, 1, 2 or 3", R),
    ("0 1 2", "0, 1, 2 or 3", W),
    ("3, 1, 2", "1, 2 and 3", R),
    ("3 2 1", "1, 2 and 3", R),
    ("1 to 3", "1, 2 and 3", R),
    ("1-3", "1, 2 and 3", R),
    ("1–3", "1, 2 and 3", R),
    ("from 1 to 3", "1, 2 and 3", R),
    ("one to three", "1, 2 and 3", R),
    ("one, two and three", "1, 2 and 3", R),
    ("1 to 4", "1, 2 and 3", W),
    ("2-3", "1, 2 and 3", W),
    ("1, 2, 4", "1, 2 and 3", W),
    ("0-3", "0 to 3", R),
    ("0, 1, 2, 3", "0 to 3", R),
    ("3, 2, 1, 0", "0 to 3", R),
    ("zero to three", "0 to 3", R),
    ("0 to 2", "0 to 3", W),
    ("gradients, optimizer_states", "optimizer_states, gradients", R),
    ("gradients and optimizer_sates", "optimizer_states and gradients", A),
    ("gradients, weigths", "weights and gradients", S),
    # A sequence keeps its order: "then", "->" or "followed by" say it is one.
    ("reduce-scatter, all-gather", "reduce-scatter then all-gather", R),
    ("reduce-scatter -> all-gather", "reduce-scatter then all-gather", R),
    ("reduce-scatter followed by all-gather", "reduce-scatter → all-gather", R),
    ("all-gather, reduce-scatter", "reduce-scatter then all-gather", W),
    ("all-gather then reduce-scatter", "reduce-scatter followed by an all-gather", W),
    # A product's factors in any order, with any multiplication sign.
    ("world size * micro-batch * accumulation", "world size × micro-batch × accumulation", R),
    ("micro-batch x accumulation x world size", "world size × micro-batch × accumulation", R),
    ("micro batch times world size", "world size × micro-batch × accumulation", W),
    (
        "engine, optimizer, training_dataloader, lr_scheduler",
        "engine, optimizer, training_dataloader, lr_scheduler",
        R,
    ),
    ("engine, optimizer, lr_scheduler", "engine, optimizer, training_dataloader, lr_scheduler", W),
    # A slip is a letter or two off in a word of prose.
    ("infinity ofload engine", "infinity offload engine", S),
    ("bandwith-centric partitioning", "bandwidth-centric partitioning", S),
    ("memory-centric tilling", "memory-centric tiling", S),
    ("overlap centric desing", "overlap-centric design", S),
    ("overlap centric", "overlap-centric design", W),
    ("disabeld", "disabled", S),
    ("gradiens", "gradients", S),
    ("weight", "weights", S),
    ("elemnts", "elements", S),
    ("ture", "true", W),  # a short word is the fact: true and false differ by little
    ("flase", "false", S),
    ("true", "false", W),
    ("weights-only", "weights-only", R),
    ("weights", "weights-only", W),
]


@pytest.mark.parametrize(("typed", "expected", "verdict"), ROWS)
def test_the_check_grades_fairly(typed: str, expected: str, verdict: Mark) -> None:
    assert mark(typed, expected) is verdict


def test_the_table_is_large_and_covers_every_verdict() -> None:
    assert len(ROWS) >= 150
    assert {v for *_, v in ROWS} == {R, S, A, W}


def test_a_right_answer_written_another_way_is_marked_right_throughout() -> None:
    result = check("2 psi", ["2Ψ"])
    assert result.right and result.suggested_grade == 4
    (part,) = result.parts
    assert part.runs == ((True, "2 psi"),)


def test_a_missing_list_item_suggests_a_failing_grade() -> None:
    result = check("2 and 3", ["1, 2 and 3"])
    assert result.suggested_grade == 1 and result.verdict().startswith("Not right")


def test_a_misspelt_key_is_almost_and_still_a_fail_as_it_falls_back_silently() -> None:
    result = check("zero_optimisation", ["zero_optimization"])
    assert result.suggested_grade == Grade.ALMOST and not Grade.ALMOST.passed
    assert result.verdict().startswith("Almost, a name in code not exact: 2 almost suggested")


def test_nothing_typed_is_wrong_even_for_an_answer_of_filler_words() -> None:
    assert mark("", "the") is W and mark("", "2Ψ") is W and mark("", "x") is W
    assert mark("x", "x") is R


#: (typed, expected, the reason given): every verdict says why.
REASONS: list[tuple[str, str, str]] = [
    ("4 psi + 12 psi / N", "4Ψ + 12Ψ/N_d", "expected `N_d`, not `N`"),
    ("16 psi * N_d", "16Ψ/N_d", "missing `/`"),
    ("1e8", "1e9", "expected `1e9`, not `1e8`"),
    ("ZERO_OPTIMIZATION", "zero_optimization", "case differs: `zero_optimization` is lowercase"),
    ("valueerror", "`ValueError`", "case differs: expected `ValueError`"),
    ("zero_optimisation", "zero_optimization", "one character off in `zero_optimization`: `s`"),
    ("zero_optimizaton", "zero_optimization", "`i` left out"),
    ("zero_optimziation", "zero_optimization", "`zi` for `iz`"),
    ("2 and 3", "1, 2 and 3", "missing `1`"),
    ("1 to 4", "1, 2 and 3", "`4` is not in the answer"),
    ("1, 2, 4", "1, 2 and 3", "missing `3`; `4` not in the answer"),
    ("all-gather, reduce-scatter", "reduce-scatter then all-gather", "in the wrong order"),
    ("memory-centric tilling", "memory-centric tiling", "`tilling` for `tiling`: a slip"),
    ("", "2", "nothing typed"),
    # A right answer read another way says how it was read.
    ("two", "2", "`two` is 2"),
    ("500M", "500,000,000", "`500M` is 500,000,000"),
    ("3, 1, 2", "1, 2 and 3", "the same items in another order"),
]


@pytest.mark.parametrize(("typed", "expected", "reason"), REASONS)
def test_every_verdict_says_why(typed: str, expected: str, reason: str) -> None:
    assert reason in judge(typed, expected).reason


def test_a_right_answer_as_written_needs_no_reason() -> None:
    assert judge("zero_optimization", "zero_optimization").reason == ""
    assert judge("1, 2 and 3", "1, 2 and 3").reason == ""


def test_a_blank_in_code_on_the_card_is_a_name_whose_case_matters() -> None:
    # Only the card says that "stage" is code: the blank sits in a code span.
    text = "The stage is `zero_optimization.{{c1::stage}}`; in prose, {{c2::stage}}."
    assert check_cloze("Stage", text, 1).parts[0].mark is A
    assert check_cloze("Stage", text, 2).right


def test_a_list_the_card_says_is_in_order_keeps_its_order() -> None:
    text = "`deepspeed.initialize` returns {{c1::engine, optimizer, lr_scheduler}}, in that order."
    assert check_cloze("engine, optimizer, lr_scheduler", text, 1).right
    swapped = check_cloze("optimizer, engine, lr_scheduler", text, 1)
    assert swapped.suggested_grade == 1
    assert "in the wrong order" in swapped.parts[0].reason
    # Without the card's word for it, the same list is a set.
    assert check_cloze(
        "optimizer, engine, lr_scheduler", text.replace(", in that order", ""), 1
    ).right


def test_several_blanks_keep_their_order_even_typed_as_one() -> None:
    # The blanks of one number are places on the card, never a set.
    expected, between = ["reduce-scatter", "all-gather"], [" followed by an "]
    assert check("reduce-scatter all-gather", expected, between).right
    backwards = check("all-gather reduce-scatter", expected, between)
    assert backwards.suggested_grade == 1


def test_the_real_deck_s_in_that_order_card_is_read_in_order() -> None:
    from pathlib import Path

    from zerodrill.deck.load import load_paths

    deck = Path(__file__).resolve().parents[1] / "decks" / "deepspeed-zero.yaml"
    (loaded,) = load_paths([deck]).decks
    card = next(c for c in loaded.cards if c.id == "initialize-returns")
    text = card.fields["text"]
    assert check_cloze("engine, optimizer, training_dataloader, lr_scheduler", text, 1).right
    assert not check_cloze("optimizer, engine, training_dataloader, lr_scheduler", text, 1).right
    stage = next(c for c in loaded.cards if c.id == "stage-key").fields["text"]
    assert check_cloze("0-3", stage, 2).right and check_cloze("3, 2, 1, 0", stage, 2).right
    assert check_cloze("ZERO_OPTIMIZATION.STAGE", stage, 1).suggested_grade == 2


_PIECES = st.sampled_from(
    [*"abzAZ_.09 ,;-–×*x^²⁹`()+/Ψ&", "to", "and", "two", "million", "then", "M", "k", "N_d", "1e9"]
)
_TEXTS = st.lists(_PIECES, max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(_TEXTS, _TEXTS)
def test_any_answer_is_right_as_written_and_every_other_verdict_says_why(
    typed: str, expected: str
) -> None:
    assert judge(expected, expected).mark is R
    judged = judge(typed, expected)
    assert judged.mark is R or judged.reason
