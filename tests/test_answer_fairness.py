"""The typed-answer check, pinned on answers from the real deck: what is right, a slip or
wrong (issue 23, point 7). Each row is (typed, expected, verdict); the expected answers are
deletions of decks/deepspeed-zero.yaml as written there."""

from __future__ import annotations

import pytest

from zerodrill.srs.answer_check import Mark, check, mark

R, S, W = Mark.RIGHT, Mark.SLIP, Mark.WRONG

ROWS: list[tuple[str, str, Mark]] = [
    # Case, spacing, punctuation and Markdown never matter.
    ("ZERO_OPTIMIZATION.STAGE", "zero_optimization.stage", R),
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
    # An identifier in code must be exact (letter case aside).
    ("zero_optimisation.stage", "zero_optimization.stage", W),
    ("zero_optimization stage", "zero_optimization.stage", W),
    ("stage3_param_persistence_threshold", "stage3_param_persistence_threshold", R),
    ("stage3_param_persistance_threshold", "stage3_param_persistence_threshold", W),
    ("stage3_gather_16bit_weights_on_model_save", "stage3_gather_16bit_weights_on_model_save", R),
    ("train_micro_batch_size", "train_micro_batch_size_per_gpu", W),
    ("sys.maxsize", "sys.maxsize", R),
    ("torch.compile()", "torch.compile()", R),
    ("torch.compile", "torch.compile()", W),
    # A list missing an item is wrong, not a slip; its "and"/"or" does not matter.
    ("1, 2 and 3", "1, 2 and 3", R),
    ("1 2 3", "1, 2 and 3", R),
    ("1, 2, 3", "1, 2 and 3", R),
    ("2 and 3", "1, 2 and 3", W),
    ("1, 2", "1, 2 and 3", W),
    ("0, 1, 2, 3", "0, 1, 2 or 3", R),
    ("0 1 2", "0, 1, 2 or 3", W),
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
    assert len(ROWS) >= 40
    assert {v for *_, v in ROWS} == {R, S, W}


def test_a_right_answer_written_another_way_is_marked_right_throughout() -> None:
    result = check("2 psi", ["2Ψ"])
    assert result.right and result.suggested_grade == 4
    (part,) = result.parts
    assert part.runs == ((True, "2 psi"),)


def test_a_missing_list_item_suggests_a_failing_grade() -> None:
    result = check("2 and 3", ["1, 2 and 3"])
    assert result.suggested_grade == 1 and result.verdict().startswith("Not right")


def test_a_misspelt_key_is_wrong_because_the_deck_teaches_it_falls_back_silently() -> None:
    assert check("zero_optimisation", ["zero_optimization"]).suggested_grade == 1


def test_nothing_typed_is_wrong_even_for_an_answer_of_filler_words() -> None:
    assert mark("", "the") is W and mark("", "2Ψ") is W and mark("", "x") is W
    assert mark("x", "x") is R
