"""The study items of some decks by key, each :class:`~zerodrill.deck.model.Item` made when it
is first looked up.

A drill needs every item's key before its first card (today's queue is built over them all),
but only the items it queues: the twenty new ones of a day, or the ones due. Indexing a card
by its items' keys is far less work than making each item, so the items are made on demand.

The index also knows which cards keep which busy for the day (:meth:`ItemIndex.busy_cards`):
a card keeps itself busy (so a cloze card's other deletions wait) and its declared siblings
(cards that teach the same thing, :attr:`~zerodrill.deck.model.StudyItems.siblings`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, KeysView, Mapping
from typing import TypeVar, overload

from zerodrill.deck.model import Card, Deck, Item
from zerodrill.deck.study_order import sibling_keys

_T = TypeVar("_T")


class ItemIndex(Mapping[str, Item]):
    """Every item of ``decks``' active cards by key, in study order (the order new ones come
    in: deck by deck, each in its :attr:`~zerodrill.deck.model.Deck.study_order`), as
    ``{item.key: item for deck in decks for item in deck's items}`` would hold them."""

    __slots__ = ("_cards", "_ordinals", "_siblings", "_made")

    def __init__(self, decks: Iterable[Deck] = ()) -> None:
        cards: dict[str, Card] = {}
        ordinals: dict[str, int] = {}
        siblings: dict[str, tuple[str, ...]] = {}
        for deck in decks:
            keys, positions, deck_ordinals, deck_siblings = deck.study_items
            cards.update(zip(keys, map(deck.cards.__getitem__, positions), strict=True))
            ordinals.update(deck_ordinals)
            siblings.update(deck_siblings)
        self._cards = cards
        self._ordinals = ordinals
        #: Each card key with siblings: theirs (card keys), both ways.
        self._siblings = siblings
        self._made: dict[str, Item] = {}

    @classmethod
    def of(cls, items: Iterable[Item]) -> ItemIndex:
        """An index of ``items``, in their order (the last of any two with one key)."""
        index = cls()
        for item in items:
            index._cards[item.key] = item.card
            index._made[item.key] = item
        index._siblings = sibling_keys({card.key: card for card in index._cards.values()}.values())
        return index

    def card_key(self, key: str) -> str | None:
        """The key of the card whose item ``key`` is, without making the item; None if there
        is no such item here."""
        return key.partition("#")[0] if key in self._cards else None

    def busy_cards(self, keys: Iterable[str], *, deletions_apart: bool = True) -> set[str]:
        """The card keys that items ``keys`` keep from coming again today: each one's card
        (its other deletions wait; not with ``deletions_apart`` False) and that card's
        siblings. A key need not be here: one no longer in a deck (a deletion since removed)
        still keeps its card busy."""
        cards = {key.partition("#")[0] for key in keys}
        busy = set(cards) if deletions_apart else set()
        siblings = self._siblings
        if siblings:
            for card in cards:
                busy.update(siblings.get(card, ()))
        return busy

    def one_per_card(
        self,
        keys: Iterable[str],
        busy_cards: set[str],
        limit: int | None = None,
        *,
        deletions_apart: bool = True,
    ) -> list[Item]:
        taken = self.one_key_per_card(keys, busy_cards, limit, deletions_apart=deletions_apart)
        return [self[key] for key in taken]

    def one_key_per_card(
        self,
        keys: Iterable[str],
        busy_cards: set[str],
        limit: int | None = None,
        *,
        deletions_apart: bool = True,
    ) -> list[str]:
        """Those of ``keys`` held here, in order, at most ``limit`` (None: all), and at most
        one per card not in ``busy_cards``, without making their items. The cards taken, and
        their siblings, join ``busy_cards``. With ``deletions_apart`` False a card's deletions
        may all be taken (only its siblings are held)."""
        taken: list[str] = []
        if limit == 0:
            return taken
        cards = self._cards
        siblings = self._siblings
        for key in keys:
            if key not in cards:
                continue
            card = key.partition("#")[0]
            if card not in busy_cards:
                if deletions_apart:
                    busy_cards.add(card)
                if siblings:
                    busy_cards.update(siblings.get(card, ()))
                taken.append(key)
                if len(taken) == limit:
                    break
        return taken

    def without(self, keys: Iterable[str]) -> ItemIndex:
        """This index less ``keys`` (those it does not hold are passed over)."""
        gone = set(keys).intersection(self._cards)
        if not gone:
            return self
        index = ItemIndex()
        index._cards = {k: c for k, c in self._cards.items() if k not in gone}
        index._ordinals = self._ordinals
        # Kept whole: a card left out (suspended, say) is still its siblings' sibling, and
        # marking a card busy that has no items here changes nothing.
        index._siblings = self._siblings
        index._made = self._made
        return index

    def __getitem__(self, key: str) -> Item:
        item = self._made.get(key)
        if item is None:
            card = self._cards[key]
            item = self._made[key] = Item(key, card, self._ordinals.get(key))
        return item

    @overload
    def get(self, key: str, /) -> Item | None: ...
    @overload
    def get(self, key: str, default: Item | _T, /) -> Item | _T: ...

    def get(self, key: str, default: object = None, /) -> object:
        # Mapping's own get goes through a raised and caught KeyError for each missing key.
        return self[key] if key in self._cards else default

    def keys(self) -> KeysView[str]:
        # The dict's own view: its set operations run in C, where Mapping's walk each key.
        return self._cards.keys()

    def __contains__(self, key: object) -> bool:
        return key in self._cards

    def __iter__(self) -> Iterator[str]:
        return iter(self._cards)

    def __len__(self) -> int:
        return len(self._cards)
