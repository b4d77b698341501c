"""Cards as Anki notes: their fields as HTML, their tags, and what identifies each.

Tags (Anki's ``::`` makes them a tree under "zerodrill" in the browser's sidebar)::

    zerodrill::<deck-id>            every note of the deck
    zerodrill::id::<deck-id>/<card-id>
                                    the card's own id, as zerodrill names it everywhere
    zerodrill::<deck-id>::<tag>     the card's own tags, kept apart from the user's own tags
    zerodrill::kind::<kind>         the card's kind: basic, cloze, follow_up, red_flag...
    zerodrill::retired              cards the deck has retired

Deck and card ids are slugs (no space, no ``::``, no ``*`` or ``_``, which Anki's search reads
as wildcards), so an id tag is one leaf and ``deck-id/card-id`` names one card across every
deck; ``id`` is therefore a reserved deck id, as ``kind`` and ``retired`` are. Anki matches a
tag search case-insensitively, and the tag or its children only, so ``.../stage-key`` never
finds ``.../stage-key-2``.

The id is a tag, not a field: Anki's importer compares an incoming note type's fields with the
user's copy (``equal_schema`` in rslib's apkg importer), and one more field makes it a new,
duplicate note type whose notes are "conflicting" and never update the user's notes.

Retired cards: a package can only ask for them to be suspended, which Anki keeps only on an
import with "Import any learning progress" on into a collection new to the card. So a retired
card's first field also says so (:data:`RETIRED_NOTICE`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from hashlib import sha256
from typing import NamedTuple

from zerodrill.deck.links import safe_link
from zerodrill.deck.mentions import CardTitles, name_cards
from zerodrill.deck.model import Card, Deck
from zerodrill.deck.source_labels import source
from zerodrill.export import html
from zerodrill.export.ids import deck_anki_id, note_guid
from zerodrill.export.notetypes import EXTRA_FIELDS, MATH_ON

TAG_ROOT = "zerodrill"
#: The node under which each card's id tag sits (a deck may not be named ``id``).
ID_TAG_ROOT = f"{TAG_ROOT}::id"
RETIRED_TAG = f"{TAG_ROOT}::retired"
RETIRED_SEARCH = f"tag:{RETIRED_TAG}"
#: Heads a retired card's first field: what a user studying it sees.
RETIRED_NOTICE = (
    '<div class="zd-retired">Retired from zerodrill: suspend this card (press @) or delete '
    "its note. Browse <code>tag:zerodrill::retired</code> for all of them.</div>"
)

# note_fields writes the kind's fields, then these two, in this order.
assert EXTRA_FIELDS == ("extra", "sources")


class Note(NamedTuple):
    """A note as the collection stores it, before its ID and modification time are known."""

    key: str
    card: Card
    deck_id: int
    model_id: int
    guid: str
    tags: str  # space-separated
    fields: str  # joined with \x1f, as Anki stores them
    sort_field: str

    @property
    def digest(self) -> str:
        """A digest of everything Anki stores for the note: note type, GUID, tags, fields."""
        text = f"{self.model_id}\x1e{self.guid}\x1e{self.tags}\x1e{self.fields}"
        return sha256(text.encode()).hexdigest()


def id_tag(key: str) -> str:
    return f"{ID_TAG_ROOT}::{key}"


def id_search(key: str) -> str:
    return f"tag:{id_tag(key)}"


def tags_for(card: Card) -> str:
    deck_tag = f"{TAG_ROOT}::{card.deck}"
    tags = f"{deck_tag} {ID_TAG_ROOT}::{card.key} {TAG_ROOT}::kind::{card.kind.name}"
    if card.tags:
        tags += "".join([f" {deck_tag}::{tag}" for tag in card.tags])
    return f"{tags} {RETIRED_TAG}" if card.retired else tags


def notes_of(decks: Sequence[Deck], media: Mapping[str, Mapping[str, str]]) -> list[Note]:
    """Every card of ``decks`` (retired ones too) as a note; ``media``: deck id -> image path
    -> packed name."""
    notes: list[Note] = []
    for deck in decks:
        did = deck_anki_id(deck.id)
        names = media[deck.id]
        every = CardTitles(deck.cards)
        titles = every if every.named_anywhere() else None
        for card in deck.cards:
            fields = note_fields(card, names, math=deck.anki_math, titles=titles)
            notes.append(
                Note(
                    key=card.key,
                    card=card,
                    deck_id=did,
                    model_id=card.kind.anki.model_id,
                    guid=note_guid(card.deck, card.id),
                    tags=tags_for(card),
                    fields="\x1f".join(fields),
                    sort_field=fields[0],
                )
            )
    return notes


def note_fields(
    card: Card,
    media: Mapping[str, str],
    *,
    math: bool = False,
    titles: CardTitles | None = None,
) -> list[str]:
    """The note's fields as HTML, in the note type's order (the kind's own, extra, sources).

    ``titles``: the questions of the cards of the card's deck, shown where it names one by id
    (:mod:`zerodrill.deck.mentions`), as the drill shows them.

    ``math``: the deck opted in to Anki's LaTeX and MathJax, so its Markdown fields keep that
    syntax live and are marked as ones MathJax typesets (the note types mark the rest of the
    card as one it skips).
    """
    given: Mapping[str, str] = card.fields
    if titles is not None:
        named = {name: name_cards(text, titles) for name, text in given.items() if "(" in text}
        if any(named[name] is not given[name] for name in named):
            given = {**given, **named}
    render = html.render
    cloze = card.kind.cloze_field
    out = [
        render(given.get(name, ""), media=media, cloze_field=name == cloze, math=math)
        for name in card.kind.field_names
    ]
    extra = given.get("extra")
    out.append(render(extra, media=media, math=math) if extra else "")
    if math:
        out = [f'<div class="{MATH_ON}">{text}</div>' if text else "" for text in out]
    if card.retired:
        # The package's suspended queue holds only for an import with scheduling into a
        # collection new to the card (see the module docstring), so the card says it.
        out[0] = RETIRED_NOTICE + out[0]
    out.append(sources_html(card.refs))
    return out


def sources_html(refs: Iterable[str]) -> str:
    """The card's references as a list of the terminal's short labels, each a link to its
    address where :func:`safe_link` allows one (a raw URL would take a third of a phone's
    screen), each once."""
    items = "".join(dict.fromkeys([_source_item(ref) for ref in refs]))
    return f"<ul>{items}</ul>" if items else ""


# Cards of a deck cite the same few papers and files over and over.
@lru_cache(maxsize=4096)
def _source_item(ref: str) -> str:
    found = source(ref)
    url = found.url if found.url is not None else ref.strip()
    label = html.escape(found.label)
    if safe_link(url):
        return f'<li><a href="{html.escape(url)}" rel="noopener noreferrer">{label}</a></li>'
    return f"<li>{label}</li>"
