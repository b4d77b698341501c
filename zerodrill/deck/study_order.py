"""The order a deck's new cards are introduced in: level by level, kinds and topics spread.

The rule is decks/README.md's "Which new cards come first". It depends on the deck file only,
never on the day or on what was studied, so every terminal and every day agrees on it; it is
kept with the parsed deck (:attr:`zerodrill.deck.model.Deck.study_order`, cached with it), so
the drill's first card does not wait for it. Siblings are kept apart by the queue
(:mod:`zerodrill.srs.queue`), the one rule that also keeps a cloze card's deletions apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from zerodrill.deck.model import MAX_LEVEL

if TYPE_CHECKING:
    from zerodrill.deck.model import Card

T = TypeVar("T")

#: Where a card without a level goes: after every level a deck can give.
UNLEVELED = MAX_LEVEL + 1


def study_order(cards: Sequence[Card]) -> tuple[int, ...]:
    """The positions in ``cards`` of the active ones, level by level, kinds and topics mixed
    within a level."""
    levels: dict[int, dict[str, dict[str, list[int]]]] = {}  # by level, kind name, topic
    for n, card in enumerate(cards):
        if not card.retired:
            topic = card.tags[0] if card.tags else ""
            level = UNLEVELED if card.level is None else card.level
            kinds = levels.setdefault(level, {})
            kinds.setdefault(card.kind.name, {}).setdefault(topic, []).append(n)
    return tuple(
        n
        for level in sorted(levels)
        for n in spread([spread(list(topics.values())) for topics in levels[level].values()])
    )


def spread(groups: Sequence[Sequence[T]]) -> list[T]:
    """The groups' elements merged so that each group is spread evenly over the whole: the
    i-th of a group of n goes at i/n of the way, ties in the groups' order. The first element
    of every group comes first, and each group keeps its own order. (Floats: i/n is rounded
    correctly, so equal fractions tie exactly, and decks are far too small for two different
    ones to round alike.)"""
    placed = [(i / len(group), g, i) for g, group in enumerate(groups) for i in range(len(group))]
    placed.sort()
    return [groups[g][i] for _, g, i in placed]


def sibling_keys(cards: Iterable[Card]) -> dict[str, tuple[str, ...]]:
    """The card keys of each active card's siblings, both ways: a card that lists another is
    that card's sibling too. Only cards with a sibling are keys. Not transitive: two cards that
    each teach the same thing as a third may still come on one day."""
    linked: dict[str, dict[str, None]] = {}  # dicts as ordered sets: the deck's order
    for card in cards:
        if card.retired:
            continue
        key = card.key
        for other in card.siblings:
            other_key = f"{card.deck}/{other}"
            if other_key != key:
                linked.setdefault(key, {})[other_key] = None
                linked.setdefault(other_key, {})[key] = None
    return {key: tuple(others) for key, others in linked.items()}
