"""The order a deck's new cards are introduced in: its kinds and topics spread evenly.

Within a deck, the kinds are spread evenly over the whole deck (the first card of each kind
comes first, then each kind at its own pace), and within a kind so are the topics (a card's
first tag). The order depends on the deck file only, never on the day or on what was studied,
so every terminal and every day agrees on it. It is a property of the deck's content, kept with
the parsed deck (:attr:`zerodrill.deck.model.Deck.study_order`, cached with it by
:mod:`zerodrill.deck.cache`), so the drill's first card does not wait for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from zerodrill.deck.model import Card

T = TypeVar("T")


def study_order(cards: Sequence[Card]) -> tuple[int, ...]:
    """The positions in ``cards`` of the active ones, kinds and topics mixed."""
    kinds: dict[str, dict[str, list[int]]] = {}  # by kind name
    for n, card in enumerate(cards):
        if not card.retired:
            topic = card.tags[0] if card.tags else ""
            kinds.setdefault(card.kind.name, {}).setdefault(topic, []).append(n)
    return tuple(spread([spread(list(topics.values())) for topics in kinds.values()]))


def spread(groups: Sequence[Sequence[T]]) -> list[T]:
    """The groups' elements merged so that each group is spread evenly over the whole: the
    i-th of a group of n goes at i/n of the way, ties in the groups' order. The first element
    of every group comes first, and each group keeps its own order. (Floats: i/n is rounded
    correctly, so equal fractions tie exactly, and decks are far too small for two different
    ones to round alike.)"""
    placed = [(i / len(group), g, i) for g, group in enumerate(groups) for i in range(len(group))]
    placed.sort()
    return [groups[g][i] for _, g, i in placed]
