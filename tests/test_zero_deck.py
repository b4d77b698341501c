"""Content checks for the DeepSpeed ZeRO deck (decks/deepspeed-zero.yaml).

Most tests read the YAML with plain ``yaml.safe_load`` so they do not depend on the project
loader. They check the quality bar from issue 3 (card counts, refs, tags, unique ids) and what
is this deck's own policy beyond the format: its refs are code, papers and threads only, every
fenced JSON block is a whole example config, and DeepSpeed's stage-3-only settings appear at
stage 3. The rules every deck meets are ``zerodrill validate``'s, so the pre-commit hook has
them too: refs pinned to their lines, and every config key a card names accepted by the facts
file the deck declares (``config_keys:``, ``decks/deepspeed-zero.facts.json``, read from
DeepSpeed's source by ``tests/data/deepspeed/extract.py``). The tests here run validate on the
deck, and on small decks that break those rules the way this deck could.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_support import run_cli

from zerodrill.deck import config_keys, kinds
from zerodrill.deck import refs as ref_rules

ROOT = Path(__file__).resolve().parent.parent
DECK_PATH = ROOT / "decks" / "deepspeed-zero.yaml"
FACTS_PATH = ROOT / "decks" / "deepspeed-zero.facts.json"
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

CLOZE = re.compile(r"\{\{c(\d+)::(.*?)(?:::(.*?))?\}\}", re.S)
JSON_FENCE = re.compile(r"```json[ \t]*\n(.*?)\n[ \t]*```", re.S)


def zero_config_problems(obj: Any) -> list[str]:
    """What DeepSpeed's validators and engine refuse or ignore that no key list can tell: a
    block that is not an object in an example, and stage-3-only settings below stage 3. (An
    unknown key, stage or device is validate's, from the facts file.)"""
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
        param = value.get("offload_param")
        if isinstance(param, dict) and param.get("device", "none") != "none" and stage != 3:
            problems.append("offload_param only takes effect at stage 3")
        opt = value.get("offload_optimizer")
        if isinstance(opt, dict) and opt.get("ratio", 1.0) < 1.0 and stage != 3:
            problems.append("offload_optimizer.ratio < 1 needs stage 3")
    return problems


def deck_config_keys() -> str:
    """The deck's own ``config_keys:`` block, as written (with its comments)."""
    text = DECK_PATH.read_text(encoding="utf-8")
    found = re.search(r"^config_keys:\n(?:[ #].*\n)+", text, re.M)
    assert found, "the deck declares no config_keys"
    return found.group()


def checker() -> config_keys.Checker:
    """The deck's config-key checks, as validate builds them from its ``config_keys:``."""
    declared = yaml.safe_load(deck_config_keys())["config_keys"]
    facts = config_keys.parse_facts(FACTS_PATH.read_bytes())
    assert isinstance(facts, config_keys.Facts), facts
    return config_keys.Checker(
        facts, declared.get("prefixes", []), declared.get("known", []), declared["facts"]
    )


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
        "config_keys",
        "interviews",
        "sheet",
    }
    # The deck promises sources on every card, and says so where validate enforces it; and it
    # has its config keys checked against the facts read from DeepSpeed's source.
    assert deck["refs"] == "required"
    assert deck["config_keys"]["facts"] == FACTS_PATH.name


def test_the_deck_passes_validate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "validate", str(DECK_PATH))
    assert (code, err) == (0, ""), out
    assert out.startswith("1 deck, ") and out.rstrip().endswith(": ok"), out


def test_the_facts_file_is_the_one_the_facts_tests_read() -> None:
    facts = json.loads(FACTS_PATH.read_text(encoding="utf-8"))
    assert facts["commit"] == "edaa7221267243c7be7fb49c5d5f5c4fb97b4641"
    # Read from DeepSpeed's source, not listed by hand: the keys a list once had to add.
    top_level = facts[config_keys.SECTION]["top_level"]
    assert {"zero_allow_untested_optimizer", "zero_force_ds_cpu_optimizer"} <= set(top_level)


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
        allowed = {"id", "kind", "tags", "refs", "extra", "level", "siblings"}
        allowed |= set(KIND_FIELDS[card["kind"]])
        assert set(card) <= allowed, (cid, set(card) - allowed)
        for name in KIND_FIELDS[card["kind"]]:
            assert isinstance(card.get(name), str) and card[name].strip(), (cid, name)
        refs = card.get("refs")
        assert isinstance(refs, list) and refs, cid
        assert all(isinstance(r, str) and r.strip() for r in refs), cid
        tags = card.get("tags")
        assert isinstance(tags, list) and tags, cid
        assert all(isinstance(t, str) and SLUG.match(t) for t in tags), (cid, tags)


def test_every_card_says_which_comes_first(deck: dict, cards: list[dict]) -> None:
    """The deck's policy: three levels, so a new card is placed by its writer, never last by
    default (the format puts cards without a level after every leveled one). 1: the stage key,
    what each stage shards, memory and communication per stage; 2: the config and costs a
    ZeRO job is set up with; 3: the rest (ZeRO++, MiCS, offload internals, other parallelism,
    RLHF...)."""
    retired = set(deck.get("retired", []))
    levels = Counter(card.get("level") for card in cards if card["id"] not in retired)
    assert set(levels) == {1, 2, 3}, levels
    # Enough foundations for a first day at the default 20 new cards, siblings held back.
    assert levels[1] >= 24, levels


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


def test_json_blocks_are_whole_configs_deepspeed_would_run(cards: list[dict]) -> None:
    blocks = json_blocks(cards)
    assert len(blocks) >= 3, "the deck should show real configs"
    for cid, name, block in blocks:
        obj = json.loads(block)  # validate has checked it parses, and its keys
        assert isinstance(obj, dict) and "zero_optimization" in obj, (cid, name)
        assert not zero_config_problems(obj), (cid, name, zero_config_problems(obj))


def test_validate_sees_the_deck_s_zero_keys(cards: list[dict]) -> None:
    """The check must see the keys the deck names, or its passing proves nothing."""
    check = checker()
    named: set[str] = set()
    for card in cards:
        kind = kinds.named(card["kind"])
        assert kind is not None
        for name, text in text_fields(card).items():
            for mention in check.mentions(text, name == kind.cloze_field):
                assert mention.problem is None, (card["id"], mention)
                named.add(mention.written)
    expected = {
        "zero_optimization.stage",  # a cloze deletion inside a code span
        "overlap_comm",
        "stage3_max_live_parameters",  # an alias
        "offload_optimizer.ratio",
        "zero_force_ds_cpu_optimizer",  # a top-level key
        "zero_stage",  # the deck's known identifier
    }
    assert expected <= named, expected - named


def test_stage_3_only_settings_below_stage_3_are_caught() -> None:
    assert zero_config_problems(
        {"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu", "ratio": 0.5}}}
    )
    assert zero_config_problems({"zero_optimization": {"offload_param": {"device": "cpu"}}})
    assert not zero_config_problems(
        {"zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}}}
    )


MISSPELT = """\
  - id: keys
    kind: cloze
    text: |
      Set `stage3_prefetch_bucket` and `offload_optimizer.ratioo`, and
      `contigous_gradients`, via `zero_optimization.overlap_com`; `{{c1::stage3_max_live_param}}`.
    extra: |
      ```json
      {"zero_optimization": {"stage": 4, "offload_param": {"devise": "cpu"}},
       "train_batch_sise": 8}
      ```
      Right: `stage3_prefetch_bucket_size`, `offload_param.pin_memory`, `zero_to_fp32.py`,
      `zero_allow_untested_optimizer`, `zero_stage`.
"""


def test_validate_catches_misspelt_zero_keys_at_their_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A deck with the ZeRO deck's own config_keys (and a copy of its facts file) naming keys
    DeepSpeed would reject: each is reported at its line and column, with the right one."""
    shutil.copy(FACTS_PATH, tmp_path / FACTS_PATH.name)
    deck = tmp_path / "deck.yaml"
    deck.write_text(
        "deck: d\ntitle: T\ndescription: D\n" + deck_config_keys() + "cards:\n" + MISSPELT,
        encoding="utf-8",
    )
    first = 4 + deck_config_keys().count("\n")  # MISSPELT's first line is first + 1
    code, out, _ = run_cli(capsys, "validate", str(deck))
    assert code == 1
    got = [line.removeprefix(f"{deck}:") for line in out.splitlines()]
    expected = [
        (4, 12, "'stage3_prefetch_bucket' looks like", "'stage3_prefetch_bucket_size'"),
        (4, 41, "'offload_optimizer.ratioo' is not a key", "'offload_optimizer.ratio'"),
        (5, 8, "'contigous_gradients' looks like", "'contiguous_gradients'"),
        (5, 35, "'zero_optimization.overlap_com' is not", "'zero_optimization.overlap_comm'"),
        (5, 74, "'stage3_max_live_param' looks like", "'stage3_max_live_parameters'"),
        (8, 39, "'zero_optimization.stage' takes 0, 1, 2 or 3", "not 4"),
        (8, 60, "'zero_optimization.offload_param.devise' is not", "'[...].offload_param.device'"),
        (9, 8, "'train_batch_sise' is not a top-level key", "'train_batch_size'"),
    ]
    assert len(got) == len(expected), got
    for line, (row, col, message, hint) in zip(got, expected, strict=True):
        assert line.startswith(f"{first + row}:{col}: {message}"), (line, row, col)
        assert hint.replace("[...]", "zero_optimization") in line, line


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
