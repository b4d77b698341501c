"""Coverage checked, not listed (issue 38): every ZeRO config key, every engine method ZeRO
refuses, branches on or changes, the ZeRO API page's names and the tutorials that teach ZeRO are
taught by a card of the ZeRO deck or left out in ``decks/deepspeed-zero.coverage.toml`` with a
reason. The list comes from the deck's facts file, which ``tests/data/deepspeed/extract.py``
reads from DeepSpeed's source; ``tests/deck_coverage.py`` holds the rules (and prints counts).

Below: the shipped deck against its facts, then the rules on a tiny made-up deck and facts
file, then the extractor's rules on a tiny made-up DeepSpeed tree.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from deck_coverage import COVERAGE_PATH, REASONS, load, problems, surface, taught

EXTRACT = Path(__file__).resolve().parent / "data" / "deepspeed" / "extract.py"


# ---------------------------------------------------------------------------------------------
# The shipped deck
# ---------------------------------------------------------------------------------------------


def test_every_zero_item_is_taught_or_left_out_with_a_reason() -> None:
    deck, facts, facts_bytes, coverage = load()
    assert problems(deck, facts, facts_bytes, coverage) == []


def test_the_list_is_the_source_s() -> None:
    """The surface is read from DeepSpeed, not empty: items a reader would expect are on it, and
    the config keys are validate's own list."""
    _, facts, _, _ = load()
    items = surface(facts)
    assert set(facts["config_keys"]["keys"]) <= items["config_keys"]
    assert {"offload_param.device", "/zero_allow_untested_optimizer"} <= items["config_keys"]
    assert {"offload_states", "save_16bit_model", "no_sync"} <= items["methods"]
    # A config reader is no state change; a refused or delegating method is.
    assert "zero_optimization_partition_weights" not in items["methods"]
    assert facts["coverage"]["methods"]["no_sync"]["refused"]
    assert "offload_states" in facts["coverage"]["methods"]["offload_states"]["delegates"]
    assert {"deepspeed.zero.Init", "deepspeed.utils.safe_get_full_grad"} <= items["api"]
    assert {"zero.md", "zeropp.md", "mixed_precision_zeropp.md"} <= items["tutorials"]
    assert "onebit-adam.md" not in items["tutorials"]


def test_the_new_cards_teach_what_they_were_written_for() -> None:
    deck, facts, facts_bytes, _ = load()
    found = taught(deck, facts, facts_bytes)
    expected = {
        ("methods", "no_sync"): "rf-no-sync-under-zero",
        ("methods", "coalesce_grad_reduction"): "rf-no-sync-under-zero",
        ("api", "deepspeed.utils.safe_get_full_grad"): "safe-get-full-state",
        ("api", "deepspeed.utils.safe_set_full_fp32_param"): "safe-set-full-fp32",
        ("config_keys", "zero_quantized_nontrainable_weights"): "mixz-frozen-weights",
        ("tutorials", "mixed_precision_zeropp.md"): "mixz-frozen-weights",
        ("config_keys", "offload_optimizer.pipeline_read"): "nvme-optimizer-pipelining",
        ("config_keys", "offload_param.nvme_path"): "nvme-optimizer-pipelining",
        ("tutorials", "large-models-w-deepspeed.md"): "fu-zero-vs-3d",
        ("tutorials", "getting-started.md"): "legacy-bool-form",
    }
    for (category, item), card in expected.items():
        assert card in found[category].get(item, []), (category, item)


def test_the_coverage_file_is_no_deck() -> None:
    """Every YAML file in decks/ is read as a deck; the coverage file must not be one."""
    assert COVERAGE_PATH.suffix == ".toml"


# ---------------------------------------------------------------------------------------------
# The rules, on a made-up deck and facts file
# ---------------------------------------------------------------------------------------------

FACTS: dict[str, Any] = {
    "config_keys": {
        "block": "zero_optimization",
        "keys": {
            "stage": {"values": [0, 1, 2, 3]},
            "max_live_parameters": {"aliases": ["stage3_max_live_parameters"]},
            "offload_param": {},
            "offload_param.pin_memory": {},
            "offload_optimizer": {},
            "offload_optimizer.pin_memory": {},
            "reduce_bucket_size": {},
        },
        "top_level": ["zero_optimization", "zero_allow_untested_optimizer", "train_batch_size"],
    },
    "coverage": {
        "methods": {"offload_states": {}, "compile": {}, "no_sync": {}},
        "api": {"deepspeed.zero.Init": {}},
        "tutorials": {"zero.md": {}, "zeropp.md": {}},
    },
}
FACTS_BYTES = json.dumps(FACTS).encode()
DECK_HEAD = {"config_keys": {"facts": "f.json", "prefixes": ["stage3_", "zero_"]}}

ALL_LISTED: dict[str, dict[str, str]] = {
    "config_keys": {
        "stage": "general: x",
        "max_live_parameters": "internal: x",
        "offload_param": "internal: x",
        "offload_param.pin_memory": "internal: x",
        "offload_optimizer": "internal: x",
        "offload_optimizer.pin_memory": "internal: x",
        "reduce_bucket_size": "internal: x",
        "/zero_allow_untested_optimizer": "niche: x",
    },
    "methods": {"offload_states": "niche: x", "compile": "niche: x", "no_sync": "niche: x"},
    "api": {"deepspeed.zero.Init": "niche: x"},
    "tutorials": {"zero.md": "niche: x", "zeropp.md": "niche: x"},
}


def deck_of(*cards: dict[str, Any], retired: tuple[str, ...] = ()) -> dict[str, Any]:
    return {**DECK_HEAD, "cards": list(cards), "retired": list(retired)}


def basic(cid: str, back: str, **more: Any) -> dict[str, Any]:
    return {"id": cid, "kind": "basic", "front": "Q?", "back": back, **more}


def taught_items(*cards: dict[str, Any], retired: tuple[str, ...] = ()) -> set[tuple[str, str]]:
    found = taught(deck_of(*cards, retired=retired), FACTS, FACTS_BYTES)
    return {(category, item) for category, items in found.items() for item in items}


def test_nothing_taught_and_nothing_listed_is_reported_item_by_item() -> None:
    got = problems(deck_of(basic("a", "Nothing in code.")), FACTS, FACTS_BYTES, {})
    assert len(got) == 8 + 3 + 1 + 2
    assert got[0] == (
        "config_keys: '/zero_allow_untested_optimizer' is neither taught by a card nor listed "
        "in deepspeed-zero.coverage.toml with the reason it is left out"
    )
    assert any(p.startswith("methods: 'no_sync' is neither") for p in got)


def test_everything_listed_and_nothing_taught_passes() -> None:
    assert problems(deck_of(basic("a", "No code.")), FACTS, FACTS_BYTES, ALL_LISTED) == []


@pytest.mark.parametrize(
    ("back", "item"),
    [
        pytest.param("`zero_optimization.stage`", ("config_keys", "stage"), id="key-path"),
        pytest.param(
            "`stage3_max_live_parameters`", ("config_keys", "max_live_parameters"), id="alias"
        ),
        pytest.param(
            '`"reduce_bucket_size": 5e8`', ("config_keys", "reduce_bucket_size"), id="key-value"
        ),
        pytest.param(
            '```json\n{"zero_optimization": {"offload_param": {"pin_memory": true}}}\n```',
            ("config_keys", "offload_param.pin_memory"),
            id="json-fence",
        ),
        pytest.param(
            "`pin_memory` under `offload_optimizer`",
            ("config_keys", "offload_optimizer.pin_memory"),
            id="bare-name-beside-its-parent",
        ),
        pytest.param(
            "`zero_allow_untested_optimizer: true`",
            ("config_keys", "/zero_allow_untested_optimizer"),
            id="top-level-key",
        ),
        pytest.param("`engine.offload_states()`", ("methods", "offload_states"), id="method-call"),
        pytest.param("`no_sync`", ("methods", "no_sync"), id="bare-span"),
        pytest.param(
            "```python\nwith engine.no_sync():\n    pass\n```",
            ("methods", "no_sync"),
            id="code-block",
        ),
        pytest.param("`with deepspeed.zero.Init():`", ("api", "deepspeed.zero.Init"), id="api"),
    ],
)
def test_what_teaches_an_item(back: str, item: tuple[str, str]) -> None:
    assert item in taught_items(basic("a", back))


@pytest.mark.parametrize(
    "back",
    [
        pytest.param("engine.offload_states() in prose, not code", id="prose"),
        pytest.param("`pin_memory` alone", id="ambiguous-bare-name"),
        pytest.param(
            '```json\n{"zero_optimization": {"stage": 1}, "compile": {}}\n```', id="json-key"
        ),
        pytest.param("`compile.deepcompile`", id="dotted-not-a-call"),
        pytest.param("`MyInit()`", id="another-identifier"),
    ],
)
def test_what_does_not_teach(back: str) -> None:
    got = taught_items(basic("a", back))
    assert not got - {("config_keys", "stage")}, got


def test_a_cloze_deletion_reads_as_its_answer() -> None:
    card = {"id": "c", "kind": "cloze", "text": "Call `engine.{{c1::offload_states}}()` first."}
    assert ("methods", "offload_states") in taught_items(card)


def test_a_tutorial_is_taught_by_a_ref_and_a_retired_card_teaches_nothing() -> None:
    ref = "https://github.com/o/r/blob/" + "a" * 40 + "/docs/_tutorials/zeropp.md#L1-L2"
    card = basic("a", "`engine.offload_states()`", refs=[ref])
    assert taught_items(card) == {("tutorials", "zeropp.md"), ("methods", "offload_states")}
    assert taught_items(card, retired=("a",)) == set()


def test_a_listed_item_a_card_teaches_is_stale() -> None:
    deck = deck_of(basic("teacher", "`engine.offload_states()`"))
    got = problems(deck, FACTS, FACTS_BYTES, ALL_LISTED)
    assert got == [
        "methods: 'offload_states' is listed in deepspeed-zero.coverage.toml but taught by "
        "teacher: drop it"
    ]


def test_a_listed_item_the_source_no_longer_has_is_reported() -> None:
    listed = {**ALL_LISTED, "methods": {**ALL_LISTED["methods"], "gone_method": "niche: x"}}
    got = problems(deck_of(basic("a", "x")), FACTS, FACTS_BYTES, listed)
    assert got == [
        "methods: 'gone_method' is listed in deepspeed-zero.coverage.toml but the facts file "
        "has no such item (gone from DeepSpeed, or misspelt): drop it"
    ]


@pytest.mark.parametrize("reason", ["", "internal:", "because", "trivia: x", "niche: a\nb", 3])
def test_a_reason_is_one_line_with_its_class(reason: object) -> None:
    listed = {**ALL_LISTED, "tutorials": {"zero.md": reason, "zeropp.md": "niche: x"}}
    got = problems(deck_of(basic("a", "x")), FACTS, FACTS_BYTES, listed)
    assert got == [
        "tutorials: 'zero.md' needs a one-line reason starting with one of "
        + ", ".join(f"{r}:" for r in REASONS)
    ]


def test_a_coverage_file_of_another_shape_is_one_problem() -> None:
    assert len(problems(deck_of(basic("a", "x")), FACTS, FACTS_BYTES, {"keys": {}})) == 1
    got = problems(deck_of(basic("a", "x")), FACTS, FACTS_BYTES, {**ALL_LISTED, "api": ["x"]})
    assert got == ["deepspeed-zero.coverage.toml: api must map each item to its reason"]


# ---------------------------------------------------------------------------------------------
# The extractor's rules, on a made-up DeepSpeed tree
# ---------------------------------------------------------------------------------------------


def extract_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ds_extract", EXTRACT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ENGINE = """\
class DeepSpeedEngine:
    def zero_optimization_stage(self):
        return self._config.zero_optimization_stage

    def zero_optimization_partition_gradients(self):
        return self.zero_optimization_stage() >= ZeroStageEnum.gradients

    def train_batch_size(self):
        return self._config.train_batch_size

    def no_sync(self):
        assert not self.zero_optimization_partition_gradients(), "no"
        yield

    def offload_states(self):
        self._check()
        self.optimizer.offload_states()

    def _check(self):
        if isinstance(self.optimizer, DeepSpeedZeRoOffload):
            raise ValueError("no optimizer")

    def eval(self):
        self.module.eval()

    def empty_partition_cache(self):
        pass
"""
OPTIMIZER = "class {name}:\n    def offload_states(self):\n        pass\n"
TUTORIAL = "---\ntitle: {title}\n---\n\n{body}\n"


def test_the_extractor_finds_methods_api_and_tutorials(tmp_path: Path) -> None:
    extract = extract_module()
    for rel, name in extract.ZERO_OPTIMIZERS.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(OPTIMIZER.format(name=name), encoding="utf-8")
    (tmp_path / extract.ENGINE).write_text(ENGINE, encoding="utf-8")
    doc = tmp_path / extract.ZERO_API_DOC
    doc.parent.mkdir(parents=True)
    doc.write_text(
        ".. autopydantic_model:: deepspeed.runtime.zero.config.DeepSpeedZeroConfig\n"
        ".. autoclass:: deepspeed.zero.Init\n"
        ".. autofunction::deepspeed.DeepSpeedEngine.empty_partition_cache\n",
        encoding="utf-8",
    )
    tutorials = tmp_path / extract.TUTORIALS
    tutorials.mkdir(parents=True)
    pages = {
        "zeropp.md": ("ZeRO++", "Text."),
        "heading.md": ("Large models", "## ZeRO or 3D?\n"),
        "config.md": ("Config", '```json\n{"zero_optimization": {"stage": 1}}\n```'),
        "fenced.md": ("Fenced", "```python\n# 3. Initialize with ZeRO\n```"),
        "quant.md": ("ZeroQuant", "## zero gradients"),
    }
    for name, (title, body) in pages.items():
        (tutorials / name).write_text(TUTORIAL.format(title=title, body=body), encoding="utf-8")

    methods = extract.engine_methods(tmp_path)
    assert set(methods) == {"no_sync", "offload_states", "empty_partition_cache"}
    assert methods["no_sync"]["refused"] == [12]
    assert methods["offload_states"]["refused"] == [20]  # in its private helper
    assert methods["offload_states"]["delegates"] == ["offload_states"]
    assert methods["empty_partition_cache"]["documented"] == 3
    assert extract.zero_api(tmp_path) == {"deepspeed.zero.Init": {"line": 2, "kind": "class"}}
    found = extract.zero_tutorials(tmp_path)
    assert {name: entry["why"] for name, entry in found.items()} == {
        "zeropp.md": "title",
        "heading.md": "heading",
        "config.md": "config",
    }
    assert found["zeropp.md"] == {"title": "ZeRO++", "line": 2, "why": "title"}
