"""What an export target asks of a deck beyond the deck format itself.

A target (an Anki package, a TSV file) may refuse what the format allows: Anki reads ``A::B``
in a deck's name as nested decks, and cloze markers in the HTML it is given. Such a rule
belongs beside its target (:mod:`zerodrill.export.anki_rules`), yet its problems must be
reported where they are written, at their line and column, which only the loader knows. So a
target declares its rules as a :class:`TargetRules`, and the loader runs the rules it is given
(:func:`zerodrill.deck.load.load_paths`): ``validate`` gives every target's, ``export`` its
format's, and the drill none, so a rule of Anki's never keeps a deck from being drilled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from msgspec import Struct

from zerodrill.deck.cloze import ClozeIssue, Deletion


def _no_problem(_text: str) -> None:
    return None


def _no_cloze_issues(_text: str, _deletions: Sequence[Deletion]) -> list[ClozeIssue]:
    return []


class TargetRules(Struct, frozen=True):
    """One target's rules; each check returns the problem it finds, or nothing."""

    #: The target, as ``export --format`` names it.
    target: str
    #: The program the target's files are for, as messages name it.
    app: str
    #: Why a deck id cannot be exported to the target, or None.
    deck_id: Callable[[str], str | None] = _no_problem
    #: Where (an offset into the title) and why a deck title cannot be the target's deck
    #: name, or None.
    title: Callable[[str], ClozeIssue | None] = _no_problem
    #: The name two deck titles clash under when the target would take them for one deck
    #: (None: no two titles clash).
    same_deck: Callable[[str], str] | None = None
    #: Every way a cloze card's deletions (well-formed, as :func:`~zerodrill.deck.cloze.parse`
    #: found them) would show in the target otherwise than the text means them.
    cloze: Callable[[str, Sequence[Deletion]], Sequence[ClozeIssue]] = _no_cloze_issues
