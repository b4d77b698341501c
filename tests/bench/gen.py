"""Generated decks for the benchmarks: realistic sizes, every kind, no real content."""

from __future__ import annotations

from pathlib import Path

HEADER = """\
# yaml-language-server: $schema=../zerodrill/deck/deck.schema.json
deck: {deck}
title: Generated benchmark deck
description: {n} generated cards for measuring zerodrill's speed.
cards:
"""

_KINDS = (
    """\
  - id: card-{i}
    kind: basic
    front: What does ZeRO stage {s} partition across data-parallel ranks (variant {i})?
    back: |
      Optimizer states **and** gradients; each rank keeps a full copy of the parameters.
      With `N_d` ranks the per-GPU model state is `2Ψ + 14Ψ/N_d` bytes.
    tags: [memory, generated]
    refs: ["ZeRO paper, arXiv:1910.02054v3, section 5"]
""",
    """\
  - id: card-{i}
    kind: cloze
    text: The ZeRO stage is set by `{{{{c1::zero_optimization}}}}.{{{{c2::stage}}}}` (variant {i}).
    extra: |
      ```json
      {{"zero_optimization": {{"stage": {s}}}}}
      ```
    tags: [config, generated]
    refs: [https://www.deepspeed.ai/docs/config-json/]
""",
    """\
  - id: card-{i}
    kind: follow_up
    question: Why is the move from stage 1 to stage 2 almost free in communication ({i})?
    answer: |
      With optimizer states sharded, each rank only needs the reduced gradients of its own
      shard. A reduce-scatter delivers exactly that, so the traffic stays at 2Ψ per step.
    tags: [communication, generated]
    refs: ["ZeRO paper, arXiv:1910.02054v3, section 7"]
""",
    """\
  - id: card-{i}
    kind: red_flag
    claim: Just turn on stage 3 by default (variant {i}).
    why: Stage 3 all-gathers parameters in forward and backward, 1.5x the traffic.
    instead: Use the lowest stage that fits and measure throughput first.
    tags: [interview, generated]
    refs: ["ZeRO paper, arXiv:1910.02054v3, section 7.2.2"]
""",
)


def deck_text(n: int, deck: str = "bench") -> str:
    parts = [HEADER.format(deck=deck, n=n)]
    for i in range(n):
        parts.append(_KINDS[i % len(_KINDS)].format(i=i, s=i % 4))
    return "".join(parts)


def write_deck(folder: Path, n: int, deck: str = "bench") -> Path:
    path = folder / f"{deck}.yaml"
    path.write_text(deck_text(n, deck), encoding="utf-8")
    return path


#: The bundled deck, whose cards the "real" bench deck copies (code blocks, tables, long answers).
BUNDLED = Path(__file__).resolve().parents[2] / "decks" / "deepspeed-zero.yaml"


def real_deck_text(n: int, deck: str = "bench") -> str:
    """``n`` cards copied in turn from the bundled deck's (retired ones left out), each with a
    new id ``card-<i>``, so the bench reads real cards' Markdown under its own card keys."""
    import yaml

    source = yaml.safe_load(BUNDLED.read_text(encoding="utf-8"))
    retired = set(source.get("retired") or ())
    cards = [c for c in source["cards"] if c["id"] not in retired]
    # A card's siblings name the bundled deck's ids, which the copies do not have.
    cards = [{k: v for k, v in c.items() if k != "siblings"} for c in cards]
    copies = [{**cards[i % len(cards)], "id": f"card-{i}"} for i in range(n)]
    head = {
        "deck": deck,
        "title": "Benchmark deck of the bundled deck's cards",
        "description": f"{n} copies of {BUNDLED.name}'s cards, for measuring zerodrill's speed.",
        "cards": copies,
    }

    class NoAliases(yaml.SafeDumper):
        # The copies share their tag and ref lists: written out each time, as decks refuse
        # YAML aliases.
        def ignore_aliases(self, data: object) -> bool:
            return True

    return yaml.dump(head, Dumper=NoAliases, sort_keys=False, allow_unicode=True, width=100)


def write_real_deck(folder: Path, n: int, deck: str = "bench") -> Path:
    path = folder / f"{deck}.yaml"
    path.write_text(real_deck_text(n, deck), encoding="utf-8")
    return path
