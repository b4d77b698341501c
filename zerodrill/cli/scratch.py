"""Trying a deck without touching one's progress: when ``zerodrill drill`` uses a throwaway
database instead of the personal one.

A deck is *the learner's* when it is bundled with zerodrill, or has a bundled deck's id (the
same deck from a checkout of the repository, say), or when the personal database holds a card
of it (a grade never undone). Drilling only other decks (a contributor trying the deck they
are writing, "try the cards yourself" in decks/README.md) goes to a scratch database, deleted at
the end, with no daily limit on new cards; so does ``--scratch``. ``--personal`` keeps the grades
in the personal database: that is how a new deck of one's own is started for real. A database
named with ``--db`` is always used as it is.

Only the decks drilled decide: with ``--deck``, the one it names. When they are a mix (a
checkout's ``decks/`` with a deck being written beside the bundled one, say), the sitting is a
real one over the learner's decks, and the others are left out, named on screen with the ways
to drill them: one new deck must not turn the learner's reviews into grades that are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from zerodrill.deck.model import Deck
from zerodrill.paths import bundled_decks_dir


def decks_not_yours(decks: Sequence[Deck], personal_db: Path) -> list[str]:
    """The ids of ``decks`` that are neither bundled nor in ``personal_db`` (see above)."""
    bundled = bundled_decks_dir().resolve()
    candidates = [d for d in decks if not d.path.resolve().is_relative_to(bundled)]
    if candidates:
        candidates = [d for d in candidates if d.id not in _bundled_ids(bundled)]
    if not candidates:
        return []
    reviewed: set[str] = set()
    if personal_db.exists():
        from zerodrill.srs.store import Store

        with Store.open(personal_db, create=False) as store:
            reviewed = {key.partition("/")[0] for key in store.states()}
    return sorted(d.id for d in candidates if d.id not in reviewed)


def _bundled_ids(bundled: Path) -> set[str]:
    # Through the parsed-deck cache, as the drill reads decks: a hit costs little.
    from zerodrill.deck.cache import load_paths_cached

    return {deck.id for deck in load_paths_cached([bundled]).decks}


def left_out_notice(deck_ids: Sequence[str]) -> str:
    """What the drill says on screen about decks left out of a sitting over the learner's
    own decks (``deck_ids``: the ones not in the database yet)."""
    ids = ", ".join(deck_ids)
    one = len(deck_ids) == 1
    return (
        f"Left out: {ids} ({'not' if one else 'none'} in your database yet). "
        f"--deck {deck_ids[0]} tries {'it' if one else 'one'} in a scratch sitting; "
        "--personal drills every deck here and keeps the grades."
    )


def scratch_notice(deck_ids: Sequence[str]) -> str:
    """What the drill says on screen about a scratch sitting (``deck_ids``: why it is one)."""
    why = f"{', '.join(deck_ids)} not in your database yet" if deck_ids else "--scratch given"
    return (
        f"Scratch sitting ({why}): no daily limit, grades dropped on quit, your progress "
        "untouched. --personal keeps them."
    )
