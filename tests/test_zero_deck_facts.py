"""The ZeRO deck's checkable claims, checked: stated defaults, the stages a key works at, figures.

Each claim below quotes the phrase on the card that makes it, with the stated value in
``[brackets]``. A test finds the phrase (without the brackets) on the card, reads the value out
of it and compares it with the source:

- defaults and stages with the deck's facts file, ``decks/deepspeed-zero.facts.json``, which
  ``tests/data/deepspeed/extract.py`` reads out of DeepSpeed's source at the pinned commit
  (``zerodrill validate`` checks the config keys cards name against the same file);
- figures with the formula they come from, evaluated here.

So editing a stated default or figure on a card, or moving the deck to a DeepSpeed commit whose
defaults differ, fails a test. Guards make sure a new card that states a default or a figure is
registered here too.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from zerodrill.deck import kinds

ROOT = Path(__file__).resolve().parent.parent
DECK_PATH = ROOT / "decks" / "deepspeed-zero.yaml"
FACTS = json.loads((ROOT / "decks/deepspeed-zero.facts.json").read_text(encoding="utf-8"))

BRACKETED = re.compile(r"\[([^\[\]]+)\]")


@dataclass(frozen=True)
class Default:
    """A card states that ``key`` (a path under ``zero_optimization``) defaults to a value."""

    card: str
    key: str
    phrase: str
    at_stage: int | None = None  # for defaults a validator derives from the stage


@dataclass(frozen=True)
class Stages:
    """A card states at which stages ``key`` takes effect (``engine``: the optimizer the engine
    builds for those stages reads it) or is accepted (``validator``: config validation)."""

    card: str
    key: str
    stages: tuple[int, ...]
    phrase: str
    via: str = "engine"


@dataclass(frozen=True)
class Figure:
    """A card states a number that ``formula`` computes."""

    card: str
    formula: str
    phrase: str


# ---------------------------------------------------------------------------------------------
# Reading cards and facts
# ---------------------------------------------------------------------------------------------


def _cards() -> dict[str, dict]:
    with DECK_PATH.open(encoding="utf-8") as fh:
        return {card["id"]: card for card in yaml.safe_load(fh)["cards"]}


CARDS = _cards()


def card_text(card: dict) -> str:
    """All of a card's text, whitespace collapsed, so a phrase may wrap across lines."""
    kind = kinds.named(card["kind"])
    assert kind is not None, card["kind"]
    fields = (*kind.field_names, "extra")
    return " ".join(" ".join(card[f].split()) for f in fields if isinstance(card.get(f), str))


TEXTS = {card_id: card_text(card) for card_id, card in CARDS.items()}


def unbracket(phrase: str) -> str:
    return BRACKETED.sub(lambda m: m.group(1), phrase)


def stated(phrase: str) -> str:
    values = BRACKETED.findall(phrase)
    assert len(values) == 1, f"mark exactly one stated value in {phrase!r}"
    return values[0]


def parse_value(text: str) -> object:
    """A value as a card writes it: 5e8, 1e5, -1, 1.0, true/on, false/off, null, sys.maxsize,
    or a string such as fp32."""
    low = text.strip().strip("`").lower()
    if low in ("true", "false", "on", "off"):
        return low in ("true", "on")
    if low == "null":
        return None
    if low == "none":  # the offload device enum's value, a string
        return "none"
    if low == "sys.maxsize":
        return "sys.maxsize"
    try:
        number = float(low.replace(",", ""))
    except ValueError:
        return low  # an enum-like string value, such as "fp32"
    return int(number) if number.is_integer() and "." not in low else number


def field(key: str) -> dict:
    """The extracted field for a key path, by field name or alias."""
    fields = FACTS["fields"]
    if key in fields:
        return fields[key]
    matches = [f for f in fields.values() if f["alias"] == key]
    assert matches, f"{key!r} is not a zero_optimization field at {FACTS['commit'][:8]}"
    return matches[0]


def field_name(key: str) -> str:
    if key in FACTS["fields"]:
        return key
    return next(name for name, f in FACTS["fields"].items() if f["alias"] == key)


def source_default(key: str, at_stage: int | None) -> object:
    default = field(key)["default"]
    if default is None and at_stage is not None:
        # A null default that a model validator fills in from the stage (overlap_comm).
        name = field_name(key)
        deriving = [v for v in FACTS["validators"].values() if name in v["fields"]]
        assert len(deriving) == 1, f"no single validator derives {key}"
        return at_stage in deriving[0]["stages"]
    return default


def phrase_problem(texts: dict[str, str], card_id: str, phrase: str) -> str | None:
    if card_id not in texts:
        return f"no card {card_id!r}"
    wanted = " ".join(unbracket(phrase).split())
    if wanted not in texts[card_id]:
        return f"{card_id}: the card no longer says {wanted!r}"
    return None


def figure_matches(value: float, written: str) -> bool:
    """True if ``written`` is ``value`` rounded to the precision it is written with."""
    number = re.search(r"-?\d+(?:\.\d+)?", written.replace(",", ""))
    assert number, f"no number in {written!r}"
    digits = number.group(0)
    places = len(digits.split(".")[1]) if "." in digits else 0
    return math.isclose(round(value, places), float(digits), abs_tol=10**-places / 2)


# ---------------------------------------------------------------------------------------------
# The claims (filled from the audit; see the module docstring)
# ---------------------------------------------------------------------------------------------

DEFAULTS: list[Default] = [
    # the key and the stages
    Default("stage-default", "stage", "or without its `stage` key, runs at stage [0]"),
    # communication
    Default(
        "comm-dominates-when",
        "stage3_prefetch_bucket_size",
        "(`stage3_prefetch_bucket_size`, default [5e7] elements)",
    ),
    # offload
    Default(
        "pin-memory-default-change",
        "offload_optimizer.pin_memory",
        "defaults to {{c1::[true]}} from DeepSpeed",
    ),
    Default(
        "pin-memory-default-change",
        "offload_param.pin_memory",
        "defaults to {{c1::[true]}} from DeepSpeed",
    ),
    Default(
        "rf-offload-without-pinning",
        "offload_optimizer.pin_memory",
        "both offload blocks default to [true]",
    ),
    Default(
        "rf-offload-without-pinning",
        "offload_param.pin_memory",
        "both offload blocks default to [true]",
    ),
    Default(
        "partial-offload-ratio",
        "offload_optimizer.ratio",
        "The default [1.0] puts everything on the CPU",
    ),
    Default("partial-offload-ratio", "sub_group_size", "below `sub_group_size`, default [1e9])"),
    Default(
        "rf-trust-docs-defaults", "offload_optimizer.device", "offload `device` cpu (code: [none]"
    ),
    Default("rf-trust-docs-defaults", "offload_param.device", "offload `device` cpu (code: [none]"),
    # ZeRO++, MiCS
    Default("zeropp-keys", "zero_quantized_weights", "The two switches default to [false]"),
    Default("zeropp-keys", "zero_quantized_gradients", "The two switches default to [false]"),
    Default(
        "zeropp-keys",
        "zero_hpz_partition_size",
        "`zero_hpz_partition_size` defaults to [1] (hpZ off)",
    ),
    Default("mics-enable", "mics_shard_size", "(the default [-1] means off)"),
    # keys people tune
    Default(
        "overlap-comm-default",
        "overlap_comm",
        "`overlap_comm` defaults to {{c1::[true]}} at stage 3",
        at_stage=3,
    ),
    Default("overlap-comm-default", "overlap_comm", "the field's default is [null]"),
    Default(
        "overlap-comm-default", "overlap_comm", "and to {{c1::[false]}} at stages 0-2", at_stage=2
    ),
    Default("bucket-size-units", "reduce_bucket_size", "both default to {{c2::[5e8]}}"),
    Default("bucket-size-units", "allgather_bucket_size", "both default to {{c2::[5e8]}}"),
    Default("rf-overlap-comm-is-free", "reduce_bucket_size", "with both at their default [5e8]"),
    Default("rf-overlap-comm-is-free", "allgather_bucket_size", "with both at their default [5e8]"),
    Default("auto-without-trainer", "reduce_bucket_size", "(`reduce_bucket_size` becomes [5e8]"),
    Default(
        "hf-auto-bucket-values", "reduce_bucket_size", "below the code defaults [5e8], 5e7 and 1e5"
    ),
    Default(
        "hf-auto-bucket-values",
        "stage3_prefetch_bucket_size",
        "below the code defaults 5e8, [5e7] and 1e5",
    ),
    Default(
        "hf-auto-bucket-values",
        "stage3_param_persistence_threshold",
        "below the code defaults 5e8, 5e7 and [1e5]",
    ),
    Default("contiguous-gradients", "contiguous_gradients", "Default [true], at stages 1, 2 and 3"),
    Default("residual-memory", "contiguous_gradients", "`contiguous_gradients` (default [true])"),
    Default("stage3-live-and-reuse", "stage3_max_live_parameters", "and both default to [1e9]"),
    Default("stage3-live-and-reuse", "stage3_max_reuse_distance", "and both default to [1e9]"),
    Default("stage3-max-live-parameters", "stage3_max_live_parameters", "Default [1e9] elements"),
    Default("stage3-max-reuse-distance", "stage3_max_reuse_distance", "Default [1e9] elements"),
    Default(
        "fu-activation-oom",
        "stage3_max_live_parameters",
        "`stage3_max_live_parameters` (default [1e9])",
    ),
    Default(
        "stage3-prefetch-and-persistence",
        "stage3_prefetch_bucket_size",
        "ahead of use (default [5e7])",
    ),
    Default(
        "stage3-prefetch-and-persistence",
        "stage3_param_persistence_threshold",
        "this many elements (default [1e5])",
    ),
    Default(
        "stage3-prefetch-bucket-size", "stage3_prefetch_bucket_size", "Default [5e7] in the code"
    ),
    Default(
        "stage3-param-persistence", "stage3_param_persistence_threshold", "Default [1e5] elements"
    ),
    Default(
        "rf-trust-docs-defaults",
        "stage3_prefetch_bucket_size",
        "`stage3_prefetch_bucket_size` 5e8 (code [5e7])",
    ),
    Default(
        "rf-trust-docs-defaults",
        "stage3_param_persistence_threshold",
        "the code says [1e5] (as does the table)",
    ),
    Default("rf-trust-docs-defaults", "sub_group_size", "(as does the table) and [1e9]"),
    Default(
        "rf-zero-persistence-threshold",
        "stage3_param_persistence_threshold",
        "(default [1e5] elements;",
    ),
    Default("sub-group-size", "sub_group_size", "Code default [1e9]"),
    # saving
    Default(
        "save-16bit-key", "stage3_gather_16bit_weights_on_model_save", "The key defaults to [false]"
    ),
    Default(
        "fu-save-stage3", "stage3_gather_16bit_weights_on_model_save", "to true (default `[false]`)"
    ),
    Default(
        "rf-save-stage3-without-gather",
        "stage3_gather_16bit_weights_on_model_save",
        "`stage3_gather_16bit_weights_on_model_save` [false] (the default)",
    ),
    # checkpoints, precision, other sections (new cards)
    Default(
        "rf-elastic-checkpoint-resize",
        "elastic_checkpoint",
        "It is a legacy ZeRO-1/2 format, [off] by default",
    ),
    Default(
        "activation-checkpointing-block",
        "/activation_checkpointing.partition_activations",
        "The three flags default to [false]",
    ),
    Default(
        "activation-checkpointing-block",
        "/activation_checkpointing.cpu_checkpointing",
        "The three flags default to [false]",
    ),
    Default(
        "activation-checkpointing-block",
        "/activation_checkpointing.contiguous_memory_optimization",
        "The three flags default to [false]",
    ),
    Default(
        "activation-checkpointing-block",
        "/activation_checkpointing.number_checkpoints",
        "`number_checkpoints` to [null]",
    ),
    Default(
        "comm-dtype-default",
        "const:COMMUNICATION_DATA_TYPE",
        "`communication_data_type` defaults to [null]",
    ),
    Default(
        "comm-dtype-default",
        "const:SEQ_PARALLEL_COMMUNICATION_DATA_TYPE",
        "`seq_parallel_communication_data_type`, which defaults to [fp32]",
    ),
    Default(
        "fp16-loss-scale-keys",
        "/fp16.loss_scale",
        "`loss_scale` = {{c1::[0]}} selects dynamic loss scaling",
    ),
    Default("fp16-loss-scale-keys", "/fp16.hysteresis", "with `hysteresis` = {{c3::[2]}}"),
    Default(
        "fp16-loss-scale-keys",
        "/fp16.loss_scale_window",
        "after each {{c4::[1000]}} steps without an overflow",
    ),
    Default("fp16-loss-scale-keys", "/fp16.min_loss_scale", "At `min_loss_scale` (default [1])"),
    Default(
        "fp16-loss-scale-keys",
        "/bf16.check_grad_overflow",
        "(`check_grad_overflow`, default [true])",
    ),
    Default(
        "rf-fp16-loss-scale-floor",
        "/fp16.min_loss_scale",
        "`min_loss_scale` (default [1], no scaling at all)",
    ),
    Default(
        "gradient-clipping-default",
        "const:GRADIENT_CLIPPING",
        "defaults to {{c1::[1.0]}} from v0.19.3",
    ),
    Default(
        "rf-offload-client-torch-adam",
        "const:ZERO_FORCE_DS_CPU_OPTIMIZER",
        "`zero_force_ds_cpu_optimizer` defaults to [true]",
    ),
    Default(
        "rf-adam-means-adam", "const:ADAM_W_MODE", "DeepSpeed defaults `adam_w_mode` to [true]"
    ),
    Default("rf-aio-thread-count", "/aio.intra_op_parallelism", "the default [1] applies"),
    Default("rf-aio-thread-count", "/aio.block_size", "| `block_size` | [1048576] |"),
    Default("rf-aio-thread-count", "/aio.queue_depth", "| `queue_depth` | [8] |"),
    Default("rf-aio-thread-count", "/aio.single_submit", "| `single_submit` | [false] |"),
    Default("rf-aio-thread-count", "/aio.overlap_events", "| `overlap_events` | [true] |"),
    Default(
        "rf-aio-thread-count", "/aio.use_gds", "| `use_gds` | [false] (true: GPUDirect Storage"
    ),
    # offload, ZeRO-3 fetching (new cards)
    Default("nvme-param-buffers", "offload_param.buffer_count", "by default [5] × 1e8"),
    Default("nvme-param-buffers", "offload_param.buffer_size", "by default 5 × [1e8]"),
    Default("nvme-max-in-cpu", "offload_param.max_in_cpu", "(default [1e9] elements, 2 GB"),
    Default("round-robin-gradients", "round_robin_gradients", "Default [false]"),
    Default(
        "superoffload",
        "offload_optimizer.super_offload",
        "Default [false]; only the stage-3 engine reads it",
    ),
    Default(
        "superoffload",
        "offload_optimizer.cpuadam_cores_perc",
        "`offload_optimizer.cpuadam_cores_perc` (default [0.8])",
    ),
    Default("zenflow", "zenflow.topk_ratio", "(`topk_ratio`, code default [0.1])"),
    Default("zenflow", "zenflow.overlap_step", "`overlap_step` (default [false])"),
    Default(
        "zero-offload-dpu-shipped",
        "zenflow.overlap_step",
        "`zenflow.overlap_step` on (default [false])",
    ),
    Default(
        "model-persistence-threshold",
        "stage3_model_persistence_threshold",
        "The default is [sys.maxsize].",
    ),
    Default(
        "module-granularity-threshold", "stage3_module_granularity_threshold", "Default [0] (off)"
    ),
    # issue 23's new cards
    Default(
        "multi-rank-bucket-allreduce",
        "use_multi_rank_bucket_allreduce",
        "`use_multi_rank_bucket_allreduce` (default [true])",
    ),
    Default("deepcompile-compile-call", "/compile.deepcompile", "The key (default [false])"),
    Default(
        "memory-breakdown-key",
        "const:MEMORY_BREAKDOWN",
        "`memory_breakdown` to true (default [false])",
    ),
    Default(
        "bf16-master-weights-bytes",
        "/bf16.bf16_master_weights_and_grads",
        "Both switches default to [false]",
    ),
    Default(
        "bf16-master-weights-bytes",
        "/bf16.bf16_optimizer_states",
        "Both switches default to [false]",
    ),
    # issue 38's new cards: optimizers, RLHF
    Default(
        "zero-untested-optimizer",
        "const:ZERO_ALLOW_UNTESTED_OPTIMIZER",
        "(top level, default [false])",
    ),
    Default("muon-under-zero", "reduce_scatter", "while `reduce_scatter` is [true], its default"),
    Default(
        "hybrid-engine-pin-parameters", "/hybrid_engine.pin_parameters", "[True] (the default)"
    ),
    Default(
        "fu-rollout-tp-not-zero3",
        "/hybrid_engine.tp_gather_partition_size",
        "`tp_gather_partition_size` (default [8])",
    ),
    # issue 38's coverage cards
    Default(
        "nvme-optimizer-pipelining", "offload_optimizer.pipeline_read", "Both default to [false]"
    ),
    Default(
        "nvme-optimizer-pipelining", "offload_optimizer.pipeline_write", "Both default to [false]"
    ),
]

STAGES: list[Stages] = [
    Stages(
        "multi-rank-bucket-allreduce",
        "use_multi_rank_bucket_allreduce",
        (1, 2),
        "makes stages [1 and 2] all-reduce every gradient bucket",
    ),
    Stages(
        "offload-stage-support",
        "offload_optimizer",
        (1, 2, 3),
        "`offload_optimizer` works at ZeRO stages {{c1::[1, 2 and 3]}}",
    ),
    Stages(
        "offload-stage-support",
        "offload_param",
        (3,),
        "all need {{c2::stage [3]}}",
    ),
    Stages(
        "offload-stage-support",
        "offload_optimizer.ratio",
        (3,),
        "all need {{c2::stage [3]}}",
        via="validator:offload_ratio_check",
    ),
    Stages(
        "offload-param-what",
        "offload_param",
        (3,),
        "At stage [3] it keeps each rank's parameter partitions",
    ),
    Stages(
        "rf-offload-param-below-stage3",
        "offload_param",
        (3,),
        "Parameter offload is stage [3] only",
    ),
    Stages(
        "rf-offload-param-below-stage3",
        "offload_optimizer.ratio",
        (3,),
        "`offload_optimizer.ratio` below 1 outside stage [3]",
        via="validator:offload_ratio_check",
    ),
    Stages(
        "partial-offload-ratio",
        "offload_optimizer.ratio",
        (3,),
        "Values below 1 need stage [3]",
        via="validator:offload_ratio_check",
    ),
    Stages(
        "overlap-comm-default",
        "overlap_comm",
        (3,),
        "`overlap_comm` defaults to {{c1::true}} at stage [3]",
        via="validator:overlap_comm_valid",
    ),
    Stages(
        "bucket-size-units",
        "reduce_bucket_size",
        (1, 2, 3),
        "caps each gradient-reduction bucket at stages [1-3]",
    ),
    Stages(
        "bucket-size-units",
        "allgather_bucket_size",
        (1, 2),
        "`allgather_bucket_size` is read only at stages [1-2]",
    ),
    Stages(
        "contiguous-gradients",
        "contiguous_gradients",
        (1, 2, 3),
        "Default true, at stages [1, 2 and 3]",
    ),
    Stages("zeropp-keys", "zero_quantized_weights", (3,), "All three are read only at stage [3]"),
    Stages("zeropp-keys", "zero_hpz_partition_size", (3,), "All three are read only at stage [3]"),
    Stages("mics-enable", "mics_shard_size", (3,), "Stage [3] with `mics_shard_size` above 0"),
    Stages("sub-group-size", "sub_group_size", (3,), "A stage-[3] knob"),
    Stages(
        "stage3-live-and-reuse", "stage3_max_live_parameters", (3,), "Both are stage-[3] limits"
    ),
    Stages("stage3-live-and-reuse", "stage3_max_reuse_distance", (3,), "Both are stage-[3] limits"),
    Stages("stage3-max-live-parameters", "stage3_max_live_parameters", (3,), "A stage-[3] limit"),
    Stages("stage3-max-reuse-distance", "stage3_max_reuse_distance", (3,), "A stage-[3] limit"),
    Stages(
        "save-16bit-key",
        "stage3_gather_16bit_weights_on_model_save",
        (3,),
        "At stage [3], `save_16bit_model()` writes a consolidated model only if",
    ),
    Stages(
        "pipeline-zero-limit",
        "stage",
        (0, 1),
        "Only [0 and 1]. `PipelineEngine` asserts",
        via="pipeline",
    ),
    Stages(
        "round-robin-gradients",
        "round_robin_gradients",
        (1, 2),
        "At stages [1 and 2] it reorders each parameter group",
    ),
    Stages(
        "rf-elastic-checkpoint-resize",
        "elastic_checkpoint",
        (1, 2),
        "It is a legacy ZeRO-[1/2] format",
    ),
]

FIGURES: list[Figure] = [
    # memory: the paper's formulas, GB = 1e9 bytes
    Figure("model-state-bytes", "2 + 2 + 12", "2 + 2 + 12 = [16] bytes of model state"),
    Figure("gpt2-1-5b-example", "2 * 1.5", "has only [3] GB of fp16 weights"),
    Figure("gpt2-1-5b-example", "16 * 1.5", "16 × 1.5B = [24] GB"),
    Figure("gpt2-1-5b-example", "100 * 24 / 32", "already [75]% of the card"),
    Figure("gpt2-1-5b-example", "4 * 1.5", "4 × 1.5B = [6] GB"),
    Figure("per-stage-memory-formulas", "16 / 4", "tend to [4]x, 8x and N_d-fold"),
    Figure("per-stage-memory-formulas", "16 / 2", "tend to 4x, [8]x and N_d-fold"),
    Figure("paper-7-5b-numbers", "16 * 7.5", "16 × 7.5 = [120] GB"),
    Figure("paper-7-5b-numbers", "4 * 7.5 + 12 * 7.5 / 64", "stage 1 {{c2::[31.4] GB}}"),
    Figure("paper-7-5b-numbers", "2 * 7.5 + 14 * 7.5 / 64", "stage 2 {{c3::[16.6] GB}}"),
    Figure("paper-7-5b-numbers", "16 * 7.5 / 64", "stage 3 {{c4::[1.9] GB}}"),
    Figure("paper-7-5b-numbers", "16 * 7.5 / 64", "(Table 1 prints [1.88])"),
    Figure("estimate-7b-8gpu", "16 * 7", "| 0 | 16Ψ | [112] |"),
    Figure("estimate-7b-8gpu", "4 * 7 + 12 * 7 / 8", "| 1 | 4Ψ + 12Ψ/8 | 28 + 10.5 = [38.5] |"),
    Figure("estimate-7b-8gpu", "2 * 7 + 14 * 7 / 8", "| 2 | 2Ψ + 14Ψ/8 | 14 + 12.25 = [26.25] |"),
    Figure("estimate-7b-8gpu", "16 * 7 / 8", "| 3 | 16Ψ/8 | [14] |"),
    Figure("estimate-7b-8gpu", "80 - (4 * 7 + 12 * 7 / 8)", "leave about [41.5], 53.75 and 66 GB"),
    Figure("estimate-7b-8gpu", "80 - (2 * 7 + 14 * 7 / 8)", "leave about 41.5, [53.75] and 66 GB"),
    Figure("estimate-7b-8gpu", "80 - 16 * 7 / 8", "leave about 41.5, 53.75 and [66] GB"),
    Figure("paper-7-5b-stage3", "16 * 7.5 / 64", "16 × 7.5 / 64 ≈ [1.9] GB"),
    Figure("paper-7-5b-stage3", "16 * 7.5 / 64", "Table 1 prints [1.88])"),
    Figure("paper-7-5b-stage3", "16 * 7.5", "16 × 7.5 = [120] GB"),
    Figure("paper-7-5b-stage3", "4 * 7.5 + 12 * 7.5 / 64", "come to [31.4] and 16.6 GB"),
    Figure("paper-7-5b-stage3", "2 * 7.5 + 14 * 7.5 / 64", "come to 31.4 and [16.6] GB"),
    Figure("paper-7-5b-stage3", "4 * 7.5", "16-bit copies they keep are [30] and 15 GB"),
    Figure("paper-7-5b-stage3", "2 * 7.5", "16-bit copies they keep are 30 and [15] GB"),
    Figure("estimate-7b-8gpu-stage1", "4 * 7 + 12 * 7 / 8", "28 + 10.5 = [38.5] GB"),
    Figure("estimate-7b-8gpu-stage1", "4 * 7", "fp16 weights and gradients ([28] GB)"),
    Figure("estimate-7b-8gpu-stage1", "12 * 7", "an eighth of the [84] GB"),
    Figure("estimate-7b-8gpu-stage1", "16 * 7", "16Ψ = [112] GB per GPU"),
    Figure("estimate-7b-8gpu-stage1", "80 - (4 * 7 + 12 * 7 / 8)", "leaves about [41.5] GB"),
    Figure("estimate-7b-8gpu-stage2", "2 * 7 + 14 * 7 / 8", "14 + 12.25 = [26.25] GB"),
    Figure("estimate-7b-8gpu-stage2", "2 * 7", "the whole fp16 weights ([14] GB)"),
    Figure("estimate-7b-8gpu-stage2", "14 * 7", "gradients and optimizer state ([98] GB)"),
    Figure("estimate-7b-8gpu-stage2", "80 - (2 * 7 + 14 * 7 / 8)", "leaves about [53.75] GB"),
    Figure("estimate-7b-8gpu-stage2", "16 * 7 / 8", "16Ψ/8 = [14] GB"),
    Figure("estimate-7b-8gpu-stage2", "80 - 16 * 7 / 8", "would leave [66] GB"),
    Figure(
        "memory-estimator-functions", "2 + 4 + 4 + 4 + 4", "ZeRO-2 budgets 2Ψ + [18]Ψ/N per GPU"
    ),
    Figure("memory-estimator-functions", "(18 * 2783e6 + 4 * 65e6) / 2**30", "/ 2³⁰ ≈ [46.9]"),
    Figure("frozen-model-stage3", "2 * 70", "A 70B teacher in bf16 needs [140] GB"),
    Figure("frozen-model-stage3", "2 * 70 / 8", "140/8 = [17.5] GB per GPU"),
    Figure("fu-choose-stage", "4 * 7.5 + 12 * 7.5 / 64", "[31.4], 16.6 and 1.9 GB at stages 1-3"),
    Figure("fu-choose-stage", "2 * 7.5 + 14 * 7.5 / 64", "31.4, [16.6] and 1.9 GB at stages 1-3"),
    Figure("fu-choose-stage", "16 * 7.5 / 64", "31.4, 16.6 and [1.9] GB at stages 1-3"),
    Figure("fu-choose-stage", "16 * 7.5", "against [120] GB for DDP"),
    Figure("fu-estimate-13b-node", "16 * 13", "16Ψ = [208] GB"),
    Figure("fu-estimate-13b-node", "4 * 13 + 12 * 13 / 8", "52 + 19.5 = [71.5] GB"),
    Figure("fu-estimate-13b-node", "80 - (4 * 13 + 12 * 13 / 8)", "leaving [8.5] GB"),
    Figure("fu-estimate-13b-node", "2 * 13 + 14 * 13 / 8", "26 + 22.75 = [48.75] GB"),
    Figure("fu-estimate-13b-node", "80 - (2 * 13 + 14 * 13 / 8)", "leaving about [31] GB"),
    Figure("fu-estimate-13b-node", "16 * 13 / 8", "16Ψ/8 = [26] GB"),
    Figure("fu-estimate-13b-node", "2 * 13 + 18 * 13 / 8", "2Ψ + 18Ψ/8 = [55.25] GB"),
    Figure("fu-estimate-13b-node", "18 * 13 / 8", "18Ψ/8 = [29.25] GB"),
    Figure("fu-activation-oom", "16 * 7.5 / 64", "has about [1.9] GB of model states"),
    Figure("fu-activation-oom", "16 * 7.5 / 64", "16 × 7.5B / 64 = [1.875] GB"),
    Figure("fu-activation-oom", "1e9 * 2 / 1e9", "[2] GB in 16-bit"),
    Figure("bucket-size-units", "5e8 * 2 / 1e9", "5e8 fp16 or bf16 elements are [1] GB"),
    Figure("rf-overlap-comm-is-free", "4.5 * (5e8 + 5e8) * 2 / 1e9", "that is [9] GB"),
    # communication, in units of Ψ
    Figure("comm-volume", "3 / 2", "{{c3::[1.5]x::how many times DDP's volume?}}"),
    Figure("stage3-3psi", "3 / 2", "[1.5]x DDP's 2Ψ"),
    Figure("grad-accum-caveat", "2 * 4 + 1", "[9]Ψ against 3Ψ at k = 4"),
    # the HF Trainer's "auto" sizes, h = 4096
    Figure("hf-auto-bucket-values", "4096**2", "h = 4096: [16,777,216]"),
    Figure("hf-auto-bucket-values", "int(0.9 * 4096**2)", "16,777,216, [15,099,494] and 40,960"),
    Figure("hf-auto-bucket-values", "10 * 4096", "15,099,494 and [40,960] elements"),
    # batch sizes and BLOOM's layout
    Figure("batch-size-identity", "8 * 4 * 8", "8 accumulation steps = [256]"),
    Figure("rf-batch-size-per-gpu", "32 // 8", "runs a micro-batch of [4]"),
    Figure("bloom-real-config", "48 * 8", "On [384] A100 80 GB GPUs"),
    Figure("bloom-real-config", "4 * 12", "pipeline parallel 12 ([48] GPUs per replica)"),
    Figure("bloom-real-config", "384 / (4 * 12)", "and data parallel [8]"),
    # ZeRO++ cross-node volume, in model sizes M
    # new cards
    Figure("zero-checkpoint-size", "2 + 12", "takes about {{c1::[14]}} bytes per"),
    Figure("zero-checkpoint-size", "12 / 2", "hold about {{c5::[6]}}x as much"),
    Figure("zero-checkpoint-size", "176e9 * 14 / 2**30", "176e9 × 14 B ≈ [2,295] GiB"),
    Figure("zero-checkpoint-size", "176e9 * 2 / 2**30", "176e9 × 2 B ≈ [328] GiB"),
    Figure("zero-to-fp32-ram", "4 * 70", "[280] GB for 70B"),
    Figure("zero-to-fp32-ram", "2 * 4 * 70", "about twice that in RAM ([560] GB)"),
    Figure("activation-memory-figures", "16 * 1.5", "16 × 1.5 = [24] GB (§3.1)"),
    Figure("zero-r-parts", "4 * 3", "for a 3B model would be [12] GB"),
    Figure("fu-pa-worth-it", "33 / 16", "P_a brings that to about [2] GB (33/16)"),
    Figure("bf16-optimizer-memory", "(2 + 2 + 4 + 12 / 8) * 7", "(8 + 1.5) × 7 = [66.5] GB"),
    Figure("bf16-optimizer-memory", "(4 + 12 / 8) * 7", "(4 + 1.5) × 7 = [38.5] GB"),
    Figure("fp16-loss-scale-keys", "2**16", "{{c2::[65536]}} by default"),
    Figure("zero-nd-parallel-groups", "64 / (8 * 2)", "TP 8 and PP 2 give N_d = [4]"),
    Figure("zero-nd-parallel-groups", "70 / 16", "70/16 = [4.375]B parameters"),
    Figure("zero-nd-parallel-groups", "4 * 70 / 16 + 12 * (70 / 16) / 4", "≈ [30.6] GB"),
    Figure("fu-offload-pcie-bound", "4 * 7", "4 × 7B = [28] GB"),
    Figure("fu-offload-pcie-bound", "4 * 7 / 32", "about [0.9] s at the ~32 GB/s"),
    Figure("fu-zeropp-hpz-memory", "2 * 70", "[140] GB / 64 ≈ 2.2 GB"),
    Figure("fu-zeropp-hpz-memory", "2 * 70 / 64", "140 GB / 64 ≈ [2.2] GB"),
    Figure("fu-zeropp-hpz-memory", "2 * 70 / 8", "140 GB / 8 = [17.5] GB per GPU"),
    Figure("fu-zeropp-hpz-memory", "(2 * 70 / 8) / (2 * 70 / 64)", "[8]x more weight memory"),
    Figure("fu-mics-memory-cost", "16 * 13 / 8", "16 × 13B / 8 = [26] GB"),
    Figure("fu-mics-memory-cost", "16 * 13 / 64", "16 × 13B / 64 = [3.25] GB"),
    Figure("fu-mics-memory-cost", "(16 * 13 / 8) / (16 * 13 / 64)", "3.25 GB, [8]x more"),
    Figure("nvme-param-buffers", "5 * 1e8 * 2 / 1e9", "about [1] GB per rank for 16-bit weights"),
    Figure("nvme-max-in-cpu", "1e9 * 2 / 1e9", "[2] GB in 16-bit"),
    Figure("zero-offload-data-flow", "2 + 2", "2M + 2M = [4]M bytes"),
    Figure("zeropp-volume-breakdown", "0.5 + 0 + 0.25", "0.5 + 0 + 0.25 = [0.75]M"),
    Figure("zeropp-volume-breakdown", "3 / 0.75", "and 3 / 0.75 = [4]"),
    Figure("fu-moe-expert-state-memory", "8 / 2", "each GPU hosts [4] experts"),
    # issue 23's new cards
    Figure("bf16-master-weights-bytes", "2 + 2 + 2 + 2 + 2", "About [10] instead of 16"),
    Figure("bf16-master-weights-bytes", "10 * 7", "For 7B that is [70] GB"),
    Figure("bf16-master-weights-bytes", "16 * 7", "70 GB against [112] GB"),
    # issue 38's whiteboard arithmetic: T >= F/B tokens per GPU hides ZeRO-3's gathers (F the
    # FLOP/s a GPU sustains, B its bytes/s; 6 FLOPs per parameter per token, 16-bit traffic)
    Figure("wb-zero3-tokens-to-hide-gathers", "400e12 / 50e9", "400e12 / 50e9 = [8,000] tokens"),
    Figure(
        "wb-zero3-tokens-to-hide-gathers", "400 / 8", "400 Gb/s NIC per GPU is 400/8 = [50] GB/s"
    ),
    Figure("wb-zero3-max-gpus", "2**22", "2²² = [4,194,304] tokens"),
    Figure("wb-zero3-max-gpus", "400e12 / 50e9", "G/N ≥ F/B = [8,000]"),
    Figure("wb-zero3-max-gpus", "2**22 / (400e12 / 50e9)", "N ≤ 4,194,304 / 8,000 ≈ [524]"),
    Figure("wb-zero3-max-gpus", "2**22 / (400e12 / 50e9)", "About [524]. A GPU's traffic"),
    # offload: compute 6 × 7e9 × tokens / F, then CPU Adam (2 s, given) and the 16-bit weights
    # back over PCIe; the fp32 gradients go down during backward (2/3 of the compute)
    Figure(
        "wb-offload-step-time",
        "6 * 7e9 * 16384 / 400e12 + 2 + 2 * 7 / 32",
        "About [4.2] s, of which only 1.7 s",
    ),
    Figure("wb-offload-step-time", "6 * 7e9 * 16384 / 400e12", "of which only [1.7] s is GPU"),
    Figure("wb-offload-step-time", "2 * 7", "over PCIe, [14] GB / 32 GB/s"),
    Figure("wb-offload-step-time", "2 * 7 / 32", "14 GB / 32 GB/s ≈ [0.44] s"),
    Figure("wb-offload-step-time", "4 * 7", "fp32 gradients ([28] GB, 0.875 s)"),
    Figure("wb-offload-step-time", "4 * 7 / 32", "(28 GB, [0.875] s)"),
    Figure("wb-offload-step-time", "2 / 3 * 6 * 7e9 * 16384 / 400e12", "(about [1.15] s)"),
    Figure("wb-offload-step-time", "4 + 2", "4 + 2 = [6] bytes per parameter"),
]


# ---------------------------------------------------------------------------------------------
# Checks (plain functions over card texts, so the self-tests below can feed them mutated cards)
# ---------------------------------------------------------------------------------------------


def default_problem(claim: Default, texts: dict[str, str]) -> str | None:
    if problem := phrase_problem(texts, claim.card, claim.phrase):
        return problem
    said = parse_value(stated(claim.phrase))
    truth = source_default(claim.key, claim.at_stage)
    if said != truth and not (
        isinstance(said, float | int)
        and isinstance(truth, float | int)
        and math.isclose(said, truth)
    ):
        where = field(claim.key)
        return (
            f"{claim.card}: says {claim.key} defaults to {said!r}, DeepSpeed "
            f"{FACTS['commit'][:8]} has {truth!r} ({where['file']}:{where['line']})"
        )
    return None


def source_stages(claim: Stages) -> list[int]:
    if claim.via == "engine":
        reads = FACTS["engine"]["reads"]
        name = field_name(claim.key)
        assert name in reads, f"{claim.key} is not read by stage-gated engine code"
        return reads[name]["stages"]
    if claim.via == "pipeline":
        return FACTS["pipeline"]["stages"]
    validator = claim.via.removeprefix("validator:")
    return FACTS["validators"][validator]["stages"]


def stages_problem(claim: Stages, texts: dict[str, str]) -> str | None:
    if problem := phrase_problem(texts, claim.card, claim.phrase):
        return problem
    said = stated(claim.phrase)
    numbers = tuple(int(n) for n in re.findall(r"\d", said))
    if "-" in said and len(numbers) == 2:  # "1-2" names a range
        numbers = tuple(range(numbers[0], numbers[1] + 1))
    if numbers != claim.stages:
        return f"{claim.card}: the phrase states stages {numbers}, the claim {claim.stages}"
    truth = source_stages(claim)
    if list(claim.stages) != truth:
        return f"{claim.card}: says {claim.key} works at stages {claim.stages}, the code: {truth}"
    return None


def figure_problem(claim: Figure, texts: dict[str, str]) -> str | None:
    if problem := phrase_problem(texts, claim.card, claim.phrase):
        return problem
    value = eval(claim.formula, {"__builtins__": {}}, {"int": int})  # formulas are ours
    if not figure_matches(value, stated(claim.phrase)):
        return f"{claim.card}: {claim.formula} = {value:g}, the card says {stated(claim.phrase)}"
    return None


# ---------------------------------------------------------------------------------------------
# The deck's claims, checked
# ---------------------------------------------------------------------------------------------


def claim_id(claim: Default | Stages | Figure) -> str:
    detail = getattr(claim, "key", None) or getattr(claim, "formula", "")
    return f"{claim.card}:{detail}"


@pytest.mark.parametrize("claim", DEFAULTS, ids=claim_id)
def test_stated_default_is_deepspeeds(claim: Default) -> None:
    assert default_problem(claim, TEXTS) is None, default_problem(claim, TEXTS)


@pytest.mark.parametrize("claim", STAGES, ids=claim_id)
def test_stated_stages_are_where_deepspeed_reads_the_key(claim: Stages) -> None:
    assert stages_problem(claim, TEXTS) is None, stages_problem(claim, TEXTS)


@pytest.mark.parametrize("claim", FIGURES, ids=claim_id)
def test_worked_figure_recomputes(claim: Figure) -> None:
    assert figure_problem(claim, TEXTS) is None, figure_problem(claim, TEXTS)


def test_facts_file_is_for_the_pinned_commit() -> None:
    # The refs on the cards name this commit; the facts must come from the same one.
    assert FACTS["commit"] == "edaa7221267243c7be7fb49c5d5f5c4fb97b4641"
    deck_text = DECK_PATH.read_text(encoding="utf-8")
    pinned = set(re.findall(r"deepspeedai/DeepSpeed/blob/([0-9a-f]{40})/", deck_text))
    assert pinned == {FACTS["commit"]}, pinned


# ---------------------------------------------------------------------------------------------
# Guards: a default or a GB figure written on a card is registered above
# ---------------------------------------------------------------------------------------------

STATED_DEFAULT = re.compile(
    r"\bdefaults?(?: value)?(?: (?:is|to|of))?(?: ?[:=])? (?:\{\{c\d+::)?`?"
    r"(-?\d+(?:\.\d+)?(?:e\d+)?|true|false|none|null)\b",
    re.I,
)
GB_FIGURE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?) ?GB\b")

# GB figures that are quoted, not computed: hardware sizes and measured values from a source.
QUOTED_GB = {
    ("gpt2-1-5b-example", "32"): "the paper's GPU (§3)",
    ("gpt2-1-5b-example", "60"): "the paper's activation figure (§3.2)",
    ("gpt2-1-5b-example", "8"): "the paper's checkpointed activation figure (§3.2)",
    ("residual-memory", "60"): "the paper's activation figure (§3.2)",
    ("residual-memory", "8"): "the paper's checkpointed activation figure (§3.2)",
    ("fu-activation-oom", "60"): "the paper's activation figure (§3.2)",
    ("fu-activation-oom", "8"): "the paper's checkpointed activation figure (§3.2)",
    ("offload-param-what", "32"): "DeepSpeed's ZeRO-3 Offload post: one 32 GB V100",
    ("bloom-real-config", "80"): "BLOOM's A100 80 GB GPUs",
    ("estimate-7b-8gpu", "80"): "the GPU size in the question",
    ("estimate-7b-8gpu-stage1", "80"): "the GPU size the extra assumes",
    ("estimate-7b-8gpu-stage2", "80"): "the GPU size the extra assumes",
    ("fu-estimate-13b-node", "80"): "the GPU size in the question",
    ("zero-to-fp32-ram", "5"): "the script's --max_shard_size default, 5GB",
    ("activation-memory-figures", "60"): "the paper's activation figures (§3.2)",
    ("activation-memory-figures", "8"): "the paper's checkpointed activation figure (§3.2)",
    ("fu-pa-worth-it", "33"): "the paper's checkpoint figure for a 100B model (§6.1)",
    ("fu-offload-pcie-bound", "32"): "PCIe 4.0 bandwidth as DeepSpeed's ZenFlow post gives it",
    ("superoffload", "900"): "NVLink-C2C bandwidth as DeepSpeed's SuperOffload post gives it",
    ("wb-zero3-max-gpus", "50"): "the bandwidth given in the question",
    ("wb-offload-step-time", "32"): "the PCIe bandwidth given in the question",
}


def registered_tokens(card_id: str, kinds: tuple[type, ...]) -> set[str]:
    claims = [c for c in (*DEFAULTS, *STAGES, *FIGURES) if isinstance(c, kinds)]
    return {stated(c.phrase).strip("`").lower() for c in claims if c.card == card_id}


def unregistered_defaults(card_id: str, text: str) -> list[str]:
    known = registered_tokens(card_id, (Default,))
    return [m.group(1) for m in STATED_DEFAULT.finditer(text) if m.group(1).lower() not in known]


def unregistered_gb(card_id: str, text: str) -> list[str]:
    known = {re.sub(r"\s*gb$", "", t) for t in registered_tokens(card_id, (Figure,))}
    return [
        m.group(1)
        for m in GB_FIGURE.finditer(text)
        if m.group(1) not in known and (card_id, m.group(1)) not in QUOTED_GB
    ]


def test_every_stated_default_is_registered() -> None:
    missing = {
        cid: found for cid, text in TEXTS.items() if (found := unregistered_defaults(cid, text))
    }
    assert not missing, f"register these defaults in DEFAULTS: {missing}"


def test_every_gb_figure_is_registered_or_quoted() -> None:
    missing = {cid: found for cid, text in TEXTS.items() if (found := unregistered_gb(cid, text))}
    assert not missing, f"register these figures in FIGURES (or QUOTED_GB): {missing}"


# ---------------------------------------------------------------------------------------------
# Self-tests: the checks catch a changed card
# ---------------------------------------------------------------------------------------------


def mutated(card_id: str, old: str, new: str) -> dict[str, str]:
    texts = dict(TEXTS)
    assert old in texts[card_id], (card_id, old)
    texts[card_id] = texts[card_id].replace(old, new, 1)
    return texts


def test_a_changed_default_fails() -> None:
    claim = next(c for c in DEFAULTS if c.key == "stage3_prefetch_bucket_size")
    value = stated(claim.phrase)
    wrong = "5e8" if value != "5e8" else "5e7"
    # Edited in the card only: the phrase is gone.
    assert default_problem(
        claim,
        mutated(claim.card, unbracket(claim.phrase), unbracket(claim.phrase).replace(value, wrong)),
    )
    # Edited in the card and in the registry: DeepSpeed disagrees.
    edited = Default(claim.card, claim.key, claim.phrase.replace(f"[{value}]", f"[{wrong}]"))
    texts = mutated(claim.card, unbracket(claim.phrase), unbracket(edited.phrase))
    assert "DeepSpeed" in (default_problem(edited, texts) or "")


def test_a_changed_figure_fails() -> None:
    claim = next(c for c in FIGURES if c.card == "paper-7-5b-numbers" and "12" in c.formula)
    edited = Figure(claim.card, claim.formula, claim.phrase.replace("[31.4]", "[34.1]"))
    texts = mutated(claim.card, unbracket(claim.phrase), unbracket(edited.phrase))
    assert "the card says 34.1" in (figure_problem(edited, texts) or "")


def test_a_wrong_stage_fails() -> None:
    claim = next(c for c in STAGES if c.key == "offload_param")
    wrong = Stages(claim.card, claim.key, (2, 3), claim.phrase.replace("[3]", "[2-3]"))
    texts = mutated(claim.card, unbracket(claim.phrase), unbracket(wrong.phrase))
    assert "the code" in (stages_problem(wrong, texts) or "")


def test_guards_see_unregistered_claims() -> None:
    assert unregistered_defaults("x", "The key defaults to 5e8 here.") == ["5e8"]
    assert unregistered_defaults("x", "`pin_memory` (default `true`)") == ["true"]
    assert unregistered_gb("x", "that needs 42.5 GB per GPU") == ["42.5"]


def test_value_parsing() -> None:
    assert parse_value("5e8") == 500_000_000 and parse_value("1.0") == 1.0
    assert parse_value("`true`") is True and parse_value("null") is None
    assert figure_matches(31.40625, "31.4") and not figure_matches(31.46, "31.4")
    assert figure_matches(15099494.4, "15,099,494")
