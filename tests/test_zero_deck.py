"""Content checks for the DeepSpeed ZeRO deck (decks/deepspeed-zero.yaml).

These tests read the YAML with plain ``yaml.safe_load`` so they do not depend on the project
loader. They check the quality bar from issue 3 (card counts, refs, tags, unique ids; the form of
refs is ``zerodrill validate``'s, under ``refs: required``, which they run), that
every fenced JSON block parses, and that every ``zero_optimization`` key the deck names, in
JSON or in code spans, is a key DeepSpeed actually accepts.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_support import run_cli

from zerodrill.deck import refs as ref_rules

ROOT = Path(__file__).resolve().parent.parent
DECK_PATH = ROOT / "decks" / "deepspeed-zero.yaml"
README_PATH = ROOT / "decks" / "README.md"
COVERAGE_HEADING = "## Coverage of the seed page (deepspeed-zero)"

KIND_FIELDS = {
    "basic": ("front", "back"),
    "cloze": ("text",),
    "follow_up": ("question", "answer"),
    "red_flag": ("claim", "why", "instead"),
}
MIN_PER_KIND = {"basic": 15, "cloze": 8, "follow_up": 8, "red_flag": 8}
MIN_CARDS = 110
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

# ---------------------------------------------------------------------------------------------
# Accepted keys, read from DeepSpeed's source by tests/data/deepspeed/extract.py into
# decks/deepspeed-zero.facts.json (the commit is recorded there): the fields of
# DeepSpeedZeroConfig and of the two offload configs, with their aliases. The models are pydantic
# with extra="forbid" and populate_by_name=True (deepspeed/runtime/config_utils.py), so both a
# field's name and its alias are accepted and anything else is an error.
# ---------------------------------------------------------------------------------------------
ZERO_FACTS = json.loads((ROOT / "decks" / "deepspeed-zero.facts.json").read_text(encoding="utf-8"))


def _accepted_keys(prefix: str) -> frozenset[str]:
    keys = set()
    for path, field in ZERO_FACTS["fields"].items():
        if path.startswith(("/", "const:")):  # other sections of the config
            continue
        head, dot, sub = path.rpartition(".")
        if (head + dot) != prefix:
            continue
        keys.add(sub)
        if field["alias"]:
            keys.add(field["alias"].rpartition(".")[2])
    return frozenset(keys)


ZERO_OPTIMIZATION_KEYS = _accepted_keys("")
OFFLOAD_SUBKEYS = {
    "offload_param": _accepted_keys("offload_param."),
    "offload_optimizer": _accepted_keys("offload_optimizer."),
}
OFFLOAD_DEVICES = frozenset({"none", "cpu", "nvme"})  # OffloadDeviceEnum, offload_config.py
MAX_STAGE = 3  # ZeroStageEnum.max_stage, zero/config.py

# Top-level DeepSpeed keys a JSON block in this deck may use besides zero_optimization
# (deepspeed/runtime/constants.py at the same commit).
TOP_LEVEL_KEYS = frozenset(
    {
        "zero_optimization",
        "train_batch_size",
        "train_micro_batch_size_per_gpu",
        "gradient_accumulation_steps",
        "gradient_clipping",
        "bf16",
        "fp16",
        "optimizer",
        "scheduler",
    }
)

# Identifiers in code spans that look like ZeRO keys but are not zero_optimization keys, each
# with the reason it may appear on a card.
NOT_ZERO_KEYS = frozenset(
    {
        "zero_stage",  # Accelerate's YAML field (TRL presets), not DeepSpeed JSON
        "zero_optimization",  # the block itself
        "zero_force_ds_cpu_optimizer",  # a top-level key (runtime/constants.py)
    }
)

ALL_SUBKEYS = frozenset().union(*OFFLOAD_SUBKEYS.values())
KNOWN_IDENTIFIERS = ZERO_OPTIMIZATION_KEYS | ALL_SUBKEYS | TOP_LEVEL_KEYS | NOT_ZERO_KEYS
ZERO_LOOKING_PREFIXES = ("stage3_", "zero_", "zeropp_", "mics_", "offload_", "cpu_offload")

CLOZE = re.compile(r"\{\{c(\d+)::(.*?)(?:::(.*?))?\}\}", re.S)
JSON_FENCE = re.compile(r"```json[ \t]*\n(.*?)\n[ \t]*```", re.S)
ANY_FENCE = re.compile(r"```.*?```", re.S)
CODE_SPAN = re.compile(r"`([^`\n]+)`")
IDENTIFIER_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
KEY_VALUE = re.compile(r'"?([A-Za-z_][A-Za-z0-9_.]*)"?\s*:\s*\S.*')


# ---------------------------------------------------------------------------------------------
# Key extraction and checking (plain functions so the misspelling test can call them directly)
# ---------------------------------------------------------------------------------------------


def strip_cloze(text: str) -> str:
    """Replace each ``{{cN::answer::hint}}`` deletion with its answer."""
    return CLOZE.sub(lambda m: m.group(2), text)


def zero_keys_in_code_spans(text: str) -> list[str]:
    """Key paths such as ``stage``, ``offload_optimizer.ratio`` named in inline code spans.

    A span counts when it is ``zero_optimization.<path>``, ``offload_optimizer.<key>`` /
    ``offload_param.<key>``, or a bare identifier that is a ZeRO key or looks like one: it has a
    ZeRO-ish prefix, or it is a near miss of a known key (a likely misspelling).
    ``"key": value`` and ``key: value`` fragments are checked by their key. Fenced blocks are
    skipped here (JSON fences are checked structurally).
    """
    found: list[str] = []
    for span in CODE_SPAN.findall(ANY_FENCE.sub("", strip_cloze(text))):
        span = span.strip()
        kv = KEY_VALUE.fullmatch(span)
        if kv:
            span = kv.group(1)
        if not IDENTIFIER_PATH.fullmatch(span):
            continue
        head, _, rest = span.partition(".")
        if head == "zero_optimization":
            if rest:
                found.append(rest)
        elif head in OFFLOAD_SUBKEYS and rest:
            found.append(span)
        elif not rest:
            looks_zero = span.startswith(ZERO_LOOKING_PREFIXES)
            near_miss = span not in KNOWN_IDENTIFIERS and bool(
                difflib.get_close_matches(span, KNOWN_IDENTIFIERS, n=1, cutoff=0.85)
            )
            if span in ZERO_OPTIMIZATION_KEYS or near_miss:
                found.append(span)
            elif looks_zero and span not in NOT_ZERO_KEYS and span not in ALL_SUBKEYS:
                found.append(span)
    return found


def zero_keys_in_json(obj: Any) -> list[str]:
    """Key paths under every ``"zero_optimization"`` object, at any depth of ``obj``."""
    found: list[str] = []
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key == "zero_optimization" and isinstance(value, dict):
                for zkey, zvalue in value.items():
                    found.append(zkey)
                    if zkey in OFFLOAD_SUBKEYS and isinstance(zvalue, dict):
                        found.extend(f"{zkey}.{sub}" for sub in zvalue)
            else:
                found.extend(zero_keys_in_json(value))
    elif isinstance(obj, list):
        for item in obj:
            found.extend(zero_keys_in_json(item))
    return found


def unknown_zero_keys(paths: list[str]) -> list[str]:
    """The key paths DeepSpeed would reject."""
    bad = []
    for path in paths:
        head, _, sub = path.partition(".")
        if head not in ZERO_OPTIMIZATION_KEYS:
            bad.append(path)
        elif sub:
            if head not in OFFLOAD_SUBKEYS or sub.partition(".")[0] not in OFFLOAD_SUBKEYS[head]:
                bad.append(path)
    return bad


def zero_config_problems(obj: Any) -> list[str]:
    """Values DeepSpeed's validators reject: bad stage or device, stage-3-only features."""
    problems: list[str] = []
    if isinstance(obj, list):
        for item in obj:
            problems.extend(zero_config_problems(item))
        return problems
    if not isinstance(obj, dict):
        return problems
    for key, value in obj.items():
        if key != "zero_optimization":
            problems.extend(zero_config_problems(value))
            continue
        if not isinstance(value, dict):
            problems.append("zero_optimization must be an object in examples")
            continue
        stage = value.get("stage", 0)
        if not (isinstance(stage, int) and 0 <= stage <= MAX_STAGE):
            problems.append(f"stage {stage!r} is not 0-{MAX_STAGE}")
        for off in OFFLOAD_SUBKEYS:
            block = value.get(off)
            if isinstance(block, dict) and block.get("device", "none") not in OFFLOAD_DEVICES:
                problems.append(f"{off}.device {block.get('device')!r}")
        param = value.get("offload_param")
        if isinstance(param, dict) and param.get("device", "none") != "none" and stage != 3:
            problems.append("offload_param only takes effect at stage 3")
        opt = value.get("offload_optimizer")
        if isinstance(opt, dict) and opt.get("ratio", 1.0) < 1.0 and stage != 3:
            problems.append("offload_optimizer.ratio < 1 needs stage 3")
    return problems


# ---------------------------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def deck() -> dict:
    with DECK_PATH.open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


@pytest.fixture(scope="module")
def cards(deck: dict) -> list[dict]:
    return deck["cards"]


def text_fields(card: dict) -> dict[str, str]:
    names = KIND_FIELDS[card["kind"]] + ("extra",)
    return {name: card[name] for name in names if isinstance(card.get(name), str)}


def json_blocks(cards: list[dict]) -> list[tuple[str, str, str]]:
    return [
        (card["id"], name, block)
        for card in cards
        for name, text in text_fields(card).items()
        for block in JSON_FENCE.findall(text)
    ]


# ---------------------------------------------------------------------------------------------
# The quality bar
# ---------------------------------------------------------------------------------------------


def test_deck_header(deck: dict) -> None:
    assert deck["deck"] == "deepspeed-zero"
    assert deck["title"] and deck["description"]
    assert set(deck) <= {
        "deck",
        "title",
        "description",
        "cards",
        "retired",
        "refs",
        "interviews",
        "sheet",
    }
    # The deck promises sources on every card, and says so where validate enforces it.
    assert deck["refs"] == "required"


def test_counts_meet_quality_bar(cards: list[dict]) -> None:
    counts = Counter(card["kind"] for card in cards)
    assert len(cards) >= MIN_CARDS, counts
    for kind, minimum in MIN_PER_KIND.items():
        assert counts[kind] >= minimum, f"{kind}: {counts[kind]} < {minimum}"


def test_ids_unique_and_slugs(cards: list[dict]) -> None:
    ids = [card["id"] for card in cards]
    dupes = [i for i, n in Counter(ids).items() if n > 1]
    assert not dupes, dupes
    assert all(SLUG.match(i) for i in ids), [i for i in ids if not SLUG.match(i)]


def test_every_card_has_refs_tags_and_fields(cards: list[dict]) -> None:
    for card in cards:
        cid = card["id"]
        assert card["kind"] in KIND_FIELDS, cid
        allowed = {"id", "kind", "tags", "refs", "extra", *KIND_FIELDS[card["kind"]]}
        assert set(card) <= allowed, (cid, set(card) - allowed)
        for name in KIND_FIELDS[card["kind"]]:
            assert isinstance(card.get(name), str) and card[name].strip(), (cid, name)
        refs = card.get("refs")
        assert isinstance(refs, list) and refs, cid
        assert all(isinstance(r, str) and r.strip() for r in refs), cid
        tags = card.get("tags")
        assert isinstance(tags, list) and tags, cid
        assert all(isinstance(t, str) and SLUG.match(t) for t in tags), (cid, tags)


def test_refs_are_code_papers_and_threads(cards: list[dict]) -> None:
    """A reader checks a card in one click: source lines at a pinned commit or version, a
    paper's section, table or figure, or the issue or pull request a change came from. That
    each names its place is validate's rule (``refs: required``); that this deck cites no docs
    page (only its source file, at a commit) and no bare text is the deck's own."""
    allowed = {ref_rules.RefKind.CODE, ref_rules.RefKind.PAPER, ref_rules.RefKind.THREAD}
    for card in cards:
        for ref in card["refs"]:
            assert ref_rules.kind(ref) in allowed, f"{card['id']}: {ref}"


REF_CARD = """\
deck: d
title: T
description: D
refs: required
cards:
  - id: a
    kind: basic
    front: Q
    back: A
    refs:
"""


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        pytest.param(
            "https://github.com/deepspeedai/DeepSpeed/blob/master/deepspeed/runtime/zero/"
            "config.py#L1",
            "'master' is a branch or other name that moves",
            id="branch",
        ),
        pytest.param(
            "https://github.com/deepspeedai/DeepSpeed/blob/edaa7221267243c7be7fb49c5d5f5c4fb97b4641"
            "/deepspeed/runtime/zero/config.py",
            "it names no lines: add them as '#L10' or '#L10-L20'",
            id="no-lines",
        ),
        pytest.param(
            "https://github.com/deepspeedai/DeepSpeed/blob/edaa722/deepspeed/runtime/zero/"
            "config.py#L119",
            "'edaa722' is a shortened commit",
            id="short-commit",
        ),
        pytest.param(
            "ZeRO paper, arXiv:1910.02054v3",
            "this ref cites a paper but not where in it",
            id="paper-without-place",
        ),
    ],
)
def test_validate_refuses_a_ref_without_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ref: str, message: str
) -> None:
    deck = tmp_path / "deck.yaml"
    deck.write_text(REF_CARD + f"      - {json.dumps(ref)}\n", encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", str(deck))
    assert code == 1
    assert out.startswith(f"{deck}:11:9: "), out
    assert message in out, out


@pytest.mark.parametrize(
    "ref",
    [
        "https://github.com/deepspeedai/DeepSpeed/blob/edaa7221267243c7be7fb49c5d5f5c4fb97b4641"
        "/deepspeed/runtime/zero/config.py#L119",
        "https://github.com/huggingface/transformers/blob/v4.57.1/src/x.py#L10-L20",
        "ZeRO paper, arXiv:1910.02054v3, §7.2.1",
        "ZeRO paper, arXiv:1910.02054v3, Table 1",
        "ZeRO-Infinity paper, arXiv:2104.07857, abstract",
    ],
)
def test_validate_takes_a_ref_that_names_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ref: str
) -> None:
    deck = tmp_path / "deck.yaml"
    deck.write_text(REF_CARD + f"      - {json.dumps(ref)}\n", encoding="utf-8")
    assert run_cli(capsys, "validate", str(deck))[0] == 0


def test_validate_refuses_a_thread_as_a_card_s_only_ref(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deck = tmp_path / "deck.yaml"
    deck.write_text(
        REF_CARD + "      - https://github.com/deepspeedai/DeepSpeed/pull/7000\n",
        encoding="utf-8",
    )
    code, out, _ = run_cli(capsys, "validate", str(deck))
    assert code == 1
    assert out.startswith(f"{deck}:11:7: card 'a' cites only pull requests or issues"), out


def test_braces_only_in_cloze_deletions(cards: list[dict]) -> None:
    for card in cards:
        for name, text in text_fields(card).items():
            if card["kind"] == "cloze" and name == "text":
                deletions = CLOZE.findall(text)
                assert deletions, f"{card['id']}: a cloze card needs a deletion"
                for _, answer, hint in deletions:
                    assert not set(answer + hint) & set("{}"), (card["id"], answer)
                rest = CLOZE.sub("", text)
            else:
                rest = text
            assert "{{" not in rest and "}}" not in rest, (card["id"], name)


# ---------------------------------------------------------------------------------------------
# JSON and keys
# ---------------------------------------------------------------------------------------------


def test_json_blocks_parse_and_are_valid_configs(cards: list[dict]) -> None:
    blocks = json_blocks(cards)
    assert len(blocks) >= 3, "the deck should show real configs"
    for cid, name, block in blocks:
        try:
            obj = json.loads(block)
        except json.JSONDecodeError as exc:
            pytest.fail(f"{cid}.{name}: invalid JSON: {exc}")
        assert isinstance(obj, dict), (cid, name)
        assert set(obj) <= TOP_LEVEL_KEYS, (cid, name, set(obj) - TOP_LEVEL_KEYS)
        assert not unknown_zero_keys(zero_keys_in_json(obj)), (cid, name)
        assert not zero_config_problems(obj), (cid, name, zero_config_problems(obj))


def test_zero_keys_in_code_spans_are_accepted(cards: list[dict]) -> None:
    named: set[str] = set()
    for card in cards:
        for name, text in text_fields(card).items():
            keys = zero_keys_in_code_spans(text)
            assert not unknown_zero_keys(keys), (card["id"], name, unknown_zero_keys(keys))
            named.update(keys)
    # The extractor must actually see the deck's keys, or this test proves nothing.
    expected = {"stage", "overlap_comm", "stage3_max_live_parameters", "offload_optimizer.ratio"}
    assert expected <= named, named


def test_checker_catches_misspelt_keys() -> None:
    # Code spans: a truncated stage3_* key, a bad offload sub-key, a near miss without a prefix.
    text = (
        "Set `stage3_prefetch_bucket` and `offload_optimizer.ratioo`, "
        "and `contigous_gradients`, via `zero_optimization.overlap_com`."
    )
    keys = zero_keys_in_code_spans(text)
    assert unknown_zero_keys(keys) == [
        "stage3_prefetch_bucket",
        "offload_optimizer.ratioo",
        "contigous_gradients",
        "overlap_com",
    ]
    # Inside a cloze deletion, and in JSON at any depth.
    assert unknown_zero_keys(zero_keys_in_code_spans("`{{c1::stage3_prefetch_bucket}}`")) == [
        "stage3_prefetch_bucket"
    ]
    bad = {"zero_optimization": {"stage": 3, "offload_param": {"devise": "cpu"}}}
    assert unknown_zero_keys(zero_keys_in_json(bad)) == ["offload_param.devise"]
    # Correct spellings pass; non-key spans are ignored.
    good = '`stage3_prefetch_bucket_size`, `offload_param.pin_memory`, `zero_to_fp32.py`, `"auto"`'
    assert unknown_zero_keys(zero_keys_in_code_spans(good)) == []
    # Stage-3-only features outside stage 3 are caught.
    assert zero_config_problems(
        {"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu", "ratio": 0.5}}}
    )


# ---------------------------------------------------------------------------------------------
# Coverage list
# ---------------------------------------------------------------------------------------------


def test_coverage_section_names_real_cards(cards: list[dict]) -> None:
    if not README_PATH.exists():
        pytest.fail("decks/README.md is missing the deck coverage section")
    text = README_PATH.read_text(encoding="utf-8")
    assert COVERAGE_HEADING in text
    section = text.split(COVERAGE_HEADING, 1)[1]
    nxt = re.search(r"^## ", section, re.M)
    section = section[: nxt.start()] if nxt else section
    named = set(re.findall(r"`([a-z0-9]+(?:-[a-z0-9]+)*)`", section))
    ids = {card["id"] for card in cards}
    assert named, "the coverage section names no card ids"
    assert not named - ids, sorted(named - ids)
