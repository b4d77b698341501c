"""When ``zerodrill drill`` uses a throwaway database instead of the personal one.

A deck is *the learner's* when it is bundled, has a bundled deck's id, or has a card in the
personal database. Drilling only other decks (a contributor trying the deck they write) goes
to a scratch database; a mix drills the learner's decks and leaves the others out, named on
screen: one new deck must not turn the learner's reviews into grades that are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from zerodrill.deck.model import Deck
from zerodrill.paths import bundled_decks_dir


def decks_not_yours(decks: Sequence[Deck], personal_db: Path) -> list[str]:
    """The ids of ``decks`` that are neither bundled nor in ``personal_db``."""
    bundled = bundled_decks_dir().resolve()
    candidates = [d for d in decks if not d.path.resolve().is_relative_to(bundled)]
    if candidates:
        # Through the parsed-deck cache, as the drill reads decks: a hit costs little.
        from zerodrill.deck.cache import load_paths_cached

        bundled_ids = {deck.id for deck in load_paths_cached([bundled]).decks}
        candidates = [d for d in candidates if d.id not in bundled_ids]
    if not candidates:
        return []
    reviewed: set[str] = set()
    if personal_db.exists():
        from zerodrill.srs.store import Store

        with Store.open(personal_db, create=False) as store:
            reviewed = {key.partition("/")[0] for key in store.schedule.states()}
    return sorted(d.id for d in candidates if d.id not in reviewed)


def left_out_notice(deck_ids: Sequence[str]) -> str:
    ids = ", ".join(deck_ids)
    one = len(deck_ids) == 1
    return (
        f"Left out: {ids} ({'not' if one else 'none'} in your database yet). "
        f"--deck {deck_ids[0]} tries {'it' if one else 'one'} in a scratch sitting; "
        "--personal drills every deck here and keeps the grades."
    )


def scratch_notice(deck_ids: Sequence[str]) -> str:
    why = f"{', '.join(deck_ids)} not in your database yet" if deck_ids else "--scratch given"
    return (
        f"Scratch sitting ({why}): no daily limit, grades dropped on quit, your progress "
        "untouched. --personal keeps them."
    )
