"""Anki's rules for a deck: what the Anki exporter needs of it beyond the deck format (reserved
deck ids, deck names as Anki reads them, cloze markers as :mod:`~zerodrill.export.anki_cloze`
checks them), declared as :class:`~zerodrill.deck.target_rules.TargetRules` so that the loader
reports each problem at its line and column when ``validate`` or ``export`` asks.
"""

from __future__ import annotations

import unicodedata

from zerodrill.deck.cloze import ClozeIssue
from zerodrill.deck.model import RESERVED_DECK_IDS
from zerodrill.deck.target_rules import TargetRules
from zerodrill.export.anki_cloze import cloze_issues


def deck_id_problem(deck_id: str) -> str | None:
    """Why ``deck_id`` cannot tag its notes in Anki, or None."""
    if deck_id in RESERVED_DECK_IDS:
        return f"deck id '{deck_id}' is reserved for zerodrill's Anki tags; rename the deck"
    return None


def title_problem(title: str) -> ClozeIssue | None:
    """Where and why ``title`` (one line) cannot be an Anki deck's name, or None."""
    if "::" in title:
        # Anki reads "A::B" as deck B inside deck A.
        return ClozeIssue(
            title.index("::"),
            "'::' is not allowed in a deck title: Anki would make nested decks of it",
        )
    if anki_deck_name(title) == "default":
        # Every Anki collection has a deck named Default: the cards would join the user's.
        return ClozeIssue(
            0, "'Default' is the name of Anki's own deck: the cards would be mixed into it"
        )
    return None


def anki_deck_name(title: str) -> str:
    """``title`` as Anki compares deck names: NFC, case-folded, trimmed."""
    return unicodedata.normalize("NFC", title).strip().casefold()


#: The Anki package's rules.
APKG = TargetRules(
    "apkg",
    app="Anki",
    deck_id=deck_id_problem,
    title=title_problem,
    same_deck=anki_deck_name,
    cloze=cloze_issues,
)

#: The rules of a file for Anki's text import: the tags and the cloze text, no deck name.
TAGS_AND_CLOZE = TargetRules("tsv", app="Anki", deck_id=deck_id_problem, cloze=cloze_issues)
