"""Card ids that a deck's other fields name, each checked to be a card of the deck.

An interview's follow-ups and red flags, the cards behind a point or a sheet bullet
(:mod:`zerodrill.deck.interviews`) and a card's ``siblings`` (:mod:`zerodrill.deck.load`) all
name cards by id, and each id is checked here the same way (it is a card, of the right kind,
not retired, listed once) and reported at its own line and column.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from zerodrill.deck import kinds
from zerodrill.deck.model import SLUG_PATTERN, Card
from zerodrill.deck.yaml_nodes import MAP, SEQ, STR, NodeReader, did_you_mean

if TYPE_CHECKING:
    import yaml

_SLUG = re.compile(SLUG_PATTERN)


class KnownCards:
    """The deck's cards as its other fields refer to them."""

    def __init__(self, cards: Sequence[Card], written: set[str]) -> None:
        self.by_id: Mapping[str, Card] = {c.id: c for c in cards}
        #: Every id written in the cards list, including cards that have problems of their
        #: own: those are reported there, not again as unknown here.
        self.written = written


def written_card_ids(node: yaml.Node) -> set[str]:
    """The ``id`` of every card mapping in the ``cards`` node, well-formed or not."""
    ids: set[str] = set()
    if node.tag != SEQ:
        return ids
    for child in node.value:
        if child.tag != MAP:
            continue
        for key, value in child.value:
            if key.tag == STR and key.value == "id" and value.tag == STR:
                ids.add(value.value)
    return ids


def card_list(
    reader: NodeReader, node: yaml.Node, name: str, kind: kinds.CardKind | None, known: KnownCards
) -> tuple[str, ...]:
    """The card ids in ``node``, each one a card of the deck (of ``kind``, if given)."""
    ids: list[str] = []
    for card_id, child in reader.strings(node, name, _SLUG):
        card = known.by_id.get(card_id)
        if card is None:
            if card_id not in known.written:
                reader.report(
                    child, f"unknown card '{card_id}'{did_you_mean(card_id, known.by_id)}"
                )
            continue
        if card_id in ids:
            reader.report(child, f"card '{card_id}' is listed twice in '{name}'")
            continue
        if kind is not None and card.kind is not kind:
            reader.report(
                child,
                f"card '{card_id}' is a {card.kind.name} card; '{name}' lists {kind.name} cards",
            )
            continue
        if card.retired:
            reader.report(child, f"card '{card_id}' is retired: link a card the drill still shows")
            continue
        ids.append(card_id)
    return tuple(ids)
