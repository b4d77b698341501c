"""The deck model: immutable values that remember where in a file they came from.

A YAML *card* is what Anki calls a note. Each card gives one or more study *items*: one per
card, or one per deletion number for a cloze kind (:mod:`zerodrill.deck.kinds`). Review
history belongs to an item's key (``deck/card`` or ``deck/card#cN``), so editing a card's text
keeps its history, while renaming its id starts it afresh.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from msgspec import Struct

from zerodrill.deck.control_chars import shown

if TYPE_CHECKING:
    from zerodrill.deck.kinds import CardKind, Sides


#: Fields any card may carry besides its kind's own (:mod:`zerodrill.deck.kinds`).
COMMON_FIELDS: tuple[str, ...] = ("id", "kind", "extra", "tags", "refs", "level", "siblings")
DECK_FIELDS: tuple[str, ...] = (
    "deck",
    "title",
    "description",
    "cards",
    "retired",
    "anki_math",
    "interviews",
    "sheet",
    "refs",
    "config_keys",
)
REQUIRED_DECK_FIELDS: tuple[str, ...] = ("deck", "title", "description", "cards")

#: A card's ``level``: which new cards come first, 1 (foundations) first. Cards without one
#: come after every card that has one (:mod:`zerodrill.deck.study_order`).
MIN_LEVEL, MAX_LEVEL = 1, 9

#: The most characters a field (or title, description, tag...) may hold. The bundled deck's
#: longest field is about a thousand; a field past this is a paste gone wrong, and each such
#: field costs every later step (rendering, export, Anki) in proportion.
MAX_FIELD_CHARS = 20_000

#: The longest deck id: it names the exported package and its manifest (``<id>.apkg``,
#: ``<id>.manifest.json`` and their temporary files), which must fit a file name's 255 bytes.
MAX_DECK_ID_CHARS = 64
#: Deck ids that zerodrill's own tags use (``zerodrill::kind::cloze``, ``zerodrill::retired``,
#: ``zerodrill::id::<deck>/<card>``): a deck named so would have its tags confused with them.
#: The format's schema names them; the rule that refuses them is the exporters'
#: (:mod:`zerodrill.export.anki_rules`).
RESERVED_DECK_IDS = frozenset({"id", "kind", "retired"})

#: Deck ids, card ids and tags are slugs: stable, URL- and Anki-tag-safe. Match them whole
#: (``fullmatch``): with ``match``, ``$`` also matches before a final newline.
SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
TAG_PATTERN = r"^[a-z0-9][a-z0-9_-]*$"
#: The patterns in words, for the loader's messages and the format's documentation: one
#: sentence each, so what is refused and what the reader is told never disagree.
SLUG_RULE = "lowercase letters, digits and hyphens"
TAG_RULE = "lowercase letters, digits, '-' and '_', starting with a letter or digit"


class Pos(Struct, frozen=True):
    """A 1-based position in a source file."""

    path: str
    line: int
    col: int

    def __str__(self) -> str:
        # A file name may hold any character but NUL and '/', ESC included.
        return f"{shown(self.path)}:{self.line}:{self.col}"


class Problem(Struct, frozen=True):
    """One mistake in a deck, reported as ``path:line:col: message``."""

    pos: Pos
    message: str

    def __str__(self) -> str:
        # Messages quote what the deck says (an unknown field, a bad id): never raw.
        return f"{self.pos}: {shown(self.message)}"


class FactsFile(Struct, frozen=True):
    """A file in the deck's folder that the deck's text was checked against (its
    ``config_keys: facts``): its path as the deck names it, and the SHA-256 of the bytes read."""

    path: str
    digest: str


class Item(Struct, frozen=True):
    """One thing to study: a whole card, or one deletion number of a cloze card."""

    key: str
    card: Card
    ordinal: int | None = None

    def sides(self) -> Sides:
        return self.card.kind.read(self)


@dataclass(frozen=True)
class Card:
    deck: str
    id: str
    kind: CardKind
    #: The kind's Markdown fields, plus ``extra`` when given.
    fields: Mapping[str, str]
    tags: tuple[str, ...]
    refs: tuple[str, ...]
    pos: Pos
    field_pos: Mapping[str, Pos] = field(repr=False, compare=False)
    #: Cloze deletion numbers, ascending; empty for other kinds.
    ordinals: tuple[int, ...] = ()
    #: Image paths, relative to the deck's folder, that the card's Markdown references.
    media: tuple[str, ...] = ()
    retired: bool = False
    #: Which new cards come first (:data:`MIN_LEVEL` first); None: after every leveled card.
    level: int | None = None
    #: Ids of the cards that teach the same thing, as the deck lists them on this card (the
    #: relation goes both ways: :attr:`StudyItems.siblings`).
    siblings: tuple[str, ...] = ()

    # Cached: the queue looks up each card's key several times over, on every item.
    @cached_property
    def key(self) -> str:
        return f"{self.deck}/{self.id}"

    @property
    def extra(self) -> str:
        return self.fields.get("extra", "")

    def items(self) -> tuple[Item, ...]:
        key = self.key
        if self.kind.is_cloze:
            return tuple([Item(f"{key}#c{n}", self, n) for n in self.ordinals])
        return (Item(key, self),)


class Point(Struct, frozen=True):
    """One thing a strong answer to an interview says, and the card ids that teach it."""

    text: str
    cards: tuple[str, ...]
    pos: Pos


class Interview(Struct, frozen=True):
    """A question to answer out loud against a clock, as the interviewer would ask it.

    ``follow_ups`` and ``red_flags`` are card ids, in the order an interviewer would come to
    them; the loader has checked that each names a card of that kind.
    """

    id: str
    title: str
    #: Markdown.
    question: str
    minutes: int
    points: tuple[Point, ...]
    follow_ups: tuple[str, ...]
    red_flags: tuple[str, ...]
    pos: Pos


class Bullet(Struct, frozen=True):
    """One line of the night-before sheet (Markdown), and the card ids that back it."""

    text: str
    cards: tuple[str, ...]
    pos: Pos


class Sheet(Struct, frozen=True):
    """The night-before cheat sheet: a few short bullets."""

    bullets: tuple[Bullet, ...]
    pos: Pos


class StudyItems(NamedTuple):
    """A deck's study items as keys (see :attr:`Deck.study_items`): an item's card key is its
    key up to ``#``, as no card key holds one."""

    keys: tuple[str, ...]
    #: The position in the deck's cards of each key's card.
    positions: tuple[int, ...]
    #: The deletion number of each cloze item's key.
    ordinals: Mapping[str, int]
    #: The card keys of each active card's declared siblings, both ways (a card that lists
    #: another is the other's sibling too); cards without any are left out. The queue holds a
    #: card's siblings for another day, as it holds a cloze card's other deletions.
    siblings: Mapping[str, tuple[str, ...]] = MappingProxyType({})


@dataclass(frozen=True)
class Deck:
    id: str
    title: str
    description: str
    cards: tuple[Card, ...]
    path: Path
    pos: Pos
    #: Where the title is written: a title Anki would merge with another deck's is reported there.
    title_pos: Pos | None = field(default=None, compare=False, repr=False)
    #: The deck's Markdown may use Anki's LaTeX and MathJax syntax (else it is shown as text).
    anki_math: bool = False
    interviews: tuple[Interview, ...] = ()
    sheet: Sheet | None = None
    #: The facts file the deck's config keys were checked against: the parsed-deck cache serves
    #: the deck only while that file holds the same bytes.
    facts: FactsFile | None = field(default=None, compare=False, repr=False)

    @cached_property
    def study_order(self) -> tuple[int, ...]:
        """Positions in :attr:`cards` of the active cards, in the order they are introduced
        (:mod:`zerodrill.deck.study_order`); the parsed-deck cache stores it."""
        from zerodrill.deck.study_order import study_order

        return study_order(self.cards)

    @cached_property
    def study_items(self) -> StudyItems:
        """Each item's key in study order, with its card's position in :attr:`cards` and, for a
        cloze deletion, its number; the parsed-deck cache stores them."""
        keys: list[str] = []
        positions: list[int] = []
        ordinals: dict[str, int] = {}
        cards = self.cards
        for n in self.study_order:
            card = cards[n]
            if card.kind.is_cloze:
                for ordinal in card.ordinals:
                    key = f"{card.key}#c{ordinal}"
                    keys.append(key)
                    positions.append(n)
                    ordinals[key] = ordinal
            else:
                keys.append(card.key)
                positions.append(n)
        from zerodrill.deck.study_order import sibling_keys

        return StudyItems(tuple(keys), tuple(positions), ordinals, sibling_keys(cards))

    @property
    def folder(self) -> Path:
        return self.path.parent

    def talk_track(self, interview: Interview) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """An interview's model talk track: each point's text, with what each of its cards
        teaches (as its kind says: ``CardKind.teaches``). The rehearsal shows it, and the ZeRO
        deck's test checks that it can be said in the interview's minutes."""
        by_id = {card.id: card for card in self.cards}
        return tuple(
            (point.text, tuple(by_id[c].kind.teaches(by_id[c]) for c in point.cards if c in by_id))
            for point in interview.points
        )

    def items(self) -> tuple[Item, ...]:
        """The items to study: retired cards stay in the file only so exports can tag them."""
        # A plain loop rather than a nested generator: a drill builds every item at start.
        items: list[Item] = []
        for card in self.cards:
            if not card.retired:
                items.extend(card.items())
        return tuple(items)
