"""What of DeepSpeed's ZeRO the ZeRO deck teaches, and what it leaves out and why (issue 38).

The surface comes from the deck's facts file, read from DeepSpeed's source by
``tests/data/deepspeed/extract.py``:

- ``config_keys``: every key path under ``zero_optimization`` (its ``config_keys.keys``, the
  list ``zerodrill validate`` checks against), and the top-level keys named ``zero_*``
  (written ``/zero_allow_untested_optimizer``);
- ``methods``: the public ``DeepSpeedEngine`` methods ZeRO refuses, branches on or changes
  (``coverage.methods``, by the rule in ``extract.engine_methods``);
- ``api``: what DeepSpeed's ZeRO API page documents (``coverage.api``: ``deepspeed.zero.Init``);
- ``tutorials``: the ``docs/_tutorials`` pages that teach ZeRO (``coverage.tutorials``).

Each item is taught by an active card, decided mechanically, or listed in the deck's coverage
file (``decks/<deck>.coverage.toml``, beside the deck: TOML, not YAML, so that ``validate``
and the drill, which take every YAML file in the folder for a deck, pass it over) with a
one-line reason:

- a key is taught when a card's text names it in code, as ``validate`` reads the keys a deck
  names (``config_keys.Checker.mentions``: a code span, a ``"key": value`` span, a ``json``
  fence; a cloze deletion read as its answer; an alias counts for its key, and a bare name
  several keys end in, like ``pin_memory``, for those whose parent the same text names);
- a method or API name is taught when a card's code (a span or any code block) calls it or
  reaches it as an attribute (``engine.offload_states()``, ``zero.Init``,
  ``GatheredParameters(...)``), or a span is the bare name (`save_16bit_model`);
- a tutorial is taught when a card's refs cite its file (``docs/_tutorials/zeropp.md#L10``).

A reason starts with its class and a colon (``deprecated: the old name of offload_param``),
one of ``REASONS``, so the left-out items can be counted by why.

``python tests/deck_coverage.py`` prints the counts: taught, and left out by class of reason.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from zerodrill.deck import config_keys, kinds

ROOT = Path(__file__).resolve().parent.parent
DECK_PATH = ROOT / "decks" / "deepspeed-zero.yaml"
FACTS_PATH = ROOT / "decks" / "deepspeed-zero.facts.json"
COVERAGE_PATH = ROOT / "decks" / "deepspeed-zero.coverage.toml"

CATEGORIES = ("config_keys", "methods", "api", "tutorials")
#: Why an item is left out: the class a reason starts with, and what it means.
REASONS = {
    "deprecated": "a deprecated name or field, kept for old configs",
    "internal": "DeepSpeed calls it, or it tunes DeepSpeed's own machinery; users rarely set it",
    "niche": "a narrow feature a ZeRO interview does not reach",
    "general": "not ZeRO's: general training, taught with ZeRO only where ZeRO changes it",
}
TUTORIAL_REF = re.compile(r"docs/_tutorials/([\w.-]+\.md)\b")


def surface(facts: Mapping[str, Any]) -> dict[str, set[str]]:
    """Every item the deck must teach or list, by category."""
    section = facts[config_keys.SECTION]
    block = section["block"]
    top = {f"/{k}" for k in section["top_level"] if k.startswith("zero_") and k != block}
    coverage = facts["coverage"]
    return {
        "config_keys": set(section["keys"]) | top,
        "methods": set(coverage["methods"]),
        "api": set(coverage["api"]),
        "tutorials": set(coverage["tutorials"]),
    }


def checker(deck: Mapping[str, Any], facts_bytes: bytes) -> config_keys.Checker:
    """The deck's config-key checks, as validate builds them from its ``config_keys:``."""
    declared = deck.get("config_keys") or {}
    facts = config_keys.parse_facts(facts_bytes)
    assert isinstance(facts, config_keys.Facts), facts
    return config_keys.Checker(
        facts, declared.get("prefixes", []), declared.get("known", []), declared.get("facts", "")
    )


def _fields(card: Mapping[str, Any]) -> Iterable[tuple[str, bool]]:
    """Each text of a card, and whether it is the cloze field (its deletions read as answers)."""
    kind = kinds.named(card["kind"])
    assert kind is not None, card["kind"]
    for name in (*(f.name for f in kind.fields), "extra"):
        if isinstance(card.get(name), str):
            yield card[name], name == kind.cloze_field


def _named(name: str) -> re.Pattern[str]:
    """``name`` called or reached as an attribute, as a whole identifier."""
    word = re.escape(name)
    return re.compile(rf"(?<![\w.]){word}\s*\(|\.{word}(?!\w)")


def taught(
    deck: Mapping[str, Any], facts: Mapping[str, Any], facts_bytes: bytes
) -> dict[str, dict[str, list[str]]]:
    """For each category, each item of the surface an active card teaches, and the cards."""
    items = surface(facts)
    check = checker(deck, facts_bytes)
    retired = set(deck.get("retired") or ())
    found: dict[str, dict[str, list[str]]] = {c: {} for c in CATEGORIES}
    names = {
        "methods": {m: _named(m) for m in items["methods"]},
        "api": {q: _named(q.rpartition(".")[2]) for q in items["api"]},
    }

    def credit(category: str, item: str, card_id: str) -> None:
        cards = found[category].setdefault(item, [])
        if card_id not in cards:
            cards.append(card_id)

    for card in deck["cards"]:
        cid = card["id"]
        if cid in retired:
            continue
        for text, cloze_field in _fields(card):
            for mention in check.mentions(text, cloze_field):
                if mention.problem is not None:
                    continue
                for path in mention.paths:
                    credit("config_keys", path, cid)
                if f"/{mention.written}" in items["config_keys"]:
                    credit("config_keys", f"/{mention.written}", cid)
            for language, code in config_keys.code(text, cloze_field):
                for category, patterns in names.items():
                    for item, pattern in patterns.items():
                        bare = language is None and code.strip() == item.rpartition(".")[2]
                        if bare or pattern.search(code):
                            credit(category, item, cid)
        for ref in card.get("refs") or ():
            for tutorial in TUTORIAL_REF.findall(str(ref)):
                if tutorial in items["tutorials"]:
                    credit("tutorials", tutorial, cid)
    return found


def problems(
    deck: Mapping[str, Any],
    facts: Mapping[str, Any],
    facts_bytes: bytes,
    coverage: Any,
    name: str = COVERAGE_PATH.name,
) -> list[str]:
    """What is wrong with the coverage file ``coverage`` (as ``tomllib`` reads it): items neither
    taught nor listed, listed items now taught or gone from the source, reasons that are not
    one line starting with a class of ``REASONS``."""
    if not isinstance(coverage, dict) or not set(coverage) <= set(CATEGORIES):
        return [f"{name} must map some of {', '.join(CATEGORIES)} to items and reasons"]
    items = surface(facts)
    teaching = taught(deck, facts, facts_bytes)
    out: list[str] = []
    for category in CATEGORIES:
        listed = coverage.get(category) or {}
        if not isinstance(listed, dict):
            out.append(f"{name}: {category} must map each item to its reason")
            continue
        for item in sorted(items[category]):
            if item not in teaching[category] and item not in listed:
                out.append(
                    f"{category}: '{item}' is neither taught by a card nor listed in {name} "
                    "with the reason it is left out"
                )
        for item, reason in listed.items():
            if item not in items[category]:
                out.append(
                    f"{category}: '{item}' is listed in {name} but the facts file has no such "
                    "item (gone from DeepSpeed, or misspelt): drop it"
                )
            elif item in teaching[category]:
                cards = ", ".join(teaching[category][item])
                out.append(
                    f"{category}: '{item}' is listed in {name} but taught by {cards}: drop it"
                )
            if not (
                isinstance(reason, str)
                and "\n" not in reason.strip()
                and reason.partition(":")[0] in REASONS
                and reason.partition(":")[2].strip()
            ):
                out.append(
                    f"{category}: '{item}' needs a one-line reason starting with one of "
                    f"{', '.join(f'{r}:' for r in REASONS)}"
                )
    return out


def counts(
    deck: Mapping[str, Any], facts: Mapping[str, Any], facts_bytes: bytes, coverage: Any
) -> dict[str, tuple[int, Counter[str]]]:
    """For each category: how many items cards teach, and the left-out ones by reason class."""
    teaching = taught(deck, facts, facts_bytes)
    return {
        category: (
            len(teaching[category]),
            Counter(r.partition(":")[0] for r in (coverage.get(category) or {}).values()),
        )
        for category in CATEGORIES
    }


def load() -> tuple[dict[str, Any], dict[str, Any], bytes, Any]:
    """The shipped deck, its facts file (parsed and as bytes) and its coverage file."""
    deck = yaml.safe_load(DECK_PATH.read_text(encoding="utf-8"))
    facts_bytes = FACTS_PATH.read_bytes()
    coverage = tomllib.loads(COVERAGE_PATH.read_text(encoding="utf-8"))
    return deck, json.loads(facts_bytes), facts_bytes, coverage


def main() -> int:
    deck, facts, facts_bytes, coverage = load()
    for category, (n, left) in counts(deck, facts, facts_bytes, coverage).items():
        reasons = ", ".join(f"{r} {k}" for r, k in sorted(left.items()))
        print(f"{category}: {n} taught; {sum(left.values())} left out ({reasons or 'none'})")
    for problem in problems(deck, facts, facts_bytes, coverage):
        print(problem)
    return 0


if __name__ == "__main__":
    sys.exit(main())
