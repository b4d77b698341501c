"""The study items of some decks by key, each :class:`~zerodrill.deck.model.Item` made when it
is first looked up.

A drill needs every item's key before its first card (today's queue is built over them all),
but only the items it queues: the twenty new ones of a day, or the ones due. Indexing a card
by its items' keys is far less work than making each item, so the items are made on demand.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TypeVar, overload

from zerodrill.deck.model import Card, Deck, Item

_T = TypeVar("_T")


class ItemIndex(Mapping[str, Item]):
    """Every item of ``decks``' active cards by key, in study order (the order new ones come
    in: deck by deck, each in its :attr:`~zerodrill.deck.model.Deck.study_order`), as
    ``{item.key: item for deck in decks for item in deck's items}`` would hold them."""

    __slots__ = ("_cards", "_made")

    def __init__(self, decks: Iterable[Deck] = ()) -> None:
        # Each key's card; a cloze card's ordinal is read back from its key when the item is
        # made (Card.items() names a deletion "<card key>#c<n>").
        cards: dict[str, Card] = {}
        for deck in decks:
            deck_cards = deck.cards
            for n in deck.study_order:
                card = deck_cards[n]
                if card.kind.is_cloze:
                    key = card.key
                    for ordinal in card.ordinals:
                        cards[f"{key}#c{ordinal}"] = card
                else:
                    cards[card.key] = card
        self._cards = cards
        self._made: dict[str, Item] = {}

    def without(self, keys: Iterable[str]) -> ItemIndex:
        """This index less ``keys`` (those it does not hold are passed over)."""
        gone = set(keys).intersection(self._cards)
        if not gone:
            return self
        index = ItemIndex()
        index._cards = {k: c for k, c in self._cards.items() if k not in gone}
        index._made = self._made
        return index

    def __getitem__(self, key: str) -> Item:
        item = self._made.get(key)
        if item is None:
            card = self._cards[key]
            if card.kind.is_cloze:
                item = Item(key, card, int(key[len(card.key) + 2 :]))
            else:
                item = Item(key, card)
            self._made[key] = item
        return item

    @overload
    def get(self, key: str, /) -> Item | None: ...
    @overload
    def get(self, key: str, default: Item | _T, /) -> Item | _T: ...

    def get(self, key: str, default: object = None, /) -> object:
        # Mapping's own get goes through a raised and caught KeyError for each missing key.
        return self[key] if key in self._cards else default

    def __contains__(self, key: object) -> bool:
        return key in self._cards

    def __iter__(self) -> Iterator[str]:
        return iter(self._cards)

    def __len__(self) -> int:
        return len(self._cards)
