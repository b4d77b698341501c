"""Cloze deletions that give themselves away: an answer the learner can read on the question side.

A deletion tests recall only if its answer is nowhere else in sight when it is blanked. The
other deletions are filled in and any hint is shown while one is asked, so an answer that also
sits in the surrounding text, in another deletion or in a hint is read, not recalled. These are
warnings, not problems: the card still works, it only tests less than it seems to.

A figure the learner can work out from figures in sight gives itself away as surely: those
deletions are found by :mod:`zerodrill.deck.derived_figures` and warned about here too.
"""

from __future__ import annotations

import re

from zerodrill.deck import cloze
from zerodrill.deck.derived_figures import card_derived
from zerodrill.deck.model import Card, Deck, Problem


def _plain(text: str) -> str:
    """Text as a reader compares it: no code or emphasis marks, case and spacing ignored."""
    return " ".join(text.replace("`", "").replace("*", "").casefold().split())


def _shown_in(needle: str, question: str) -> bool:
    # Whole words only, and a number only as a whole number: the 0 of "1.0" gives nothing away.
    pattern = rf"(?<![\w.]){re.escape(needle)}(?!\w|[.,]\d)"
    return re.search(pattern, question) is not None


def card_giveaways(card: Card) -> list[tuple[int, str]]:
    """(cloze number, answer) for each answer readable elsewhere while that number is asked."""
    field = card.kind.cloze_field
    if field is None or card.retired:
        return []
    text = card.fields[field]
    found: list[tuple[int, str]] = []
    for ordinal in card.ordinals:
        question = _plain(cloze.render(text, ordinal, reveal=False))
        for answer in dict.fromkeys(cloze.answers(text, ordinal)):
            needle = _plain(answer)
            if any(ch.isalnum() for ch in needle) and _shown_in(needle, question):
                found.append((ordinal, answer))
    return found


def deck_giveaways(deck: Deck) -> list[Problem]:
    """One warning per give-away deletion, read or worked out, at the card's text."""
    warnings: list[Problem] = []
    for card in deck.cards:
        pos = card.field_pos.get(card.kind.cloze_field or "", card.pos)
        for ordinal, answer in card_giveaways(card):
            shown = answer.strip()
            warnings.append(
                Problem(
                    pos,
                    f"warning: card '{card.id}': c{ordinal}'s answer '{shown}' can be read "
                    f"elsewhere on the card while c{ordinal} is asked (reword it, or blank both "
                    "places under one number)",
                )
            )
        for found in card_derived(card):
            n = found.ordinal
            warnings.append(
                Problem(
                    pos,
                    f"warning: card '{card.id}': c{n}'s answer '{found.answer.strip()}' can be "
                    f"worked out from what the card shows while c{n} is asked: {found.how} "
                    "(ask for what the figure means, or blank what it comes from as well)",
                )
            )
    return warnings
