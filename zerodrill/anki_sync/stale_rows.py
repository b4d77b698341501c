"""The cards whose row in Anki no longer shows the schedule the store holds, though nothing
new came for them: a phone that had not synced since the drill graded a card changes it (a
suspend, a flag) on its stale copy, and Anki's sync keeps that copy's newer row, its old
schedule with it. The goal: the phone and every terminal keep one schedule (issue 35).

Checked against the store's derived cache (:attr:`zerodrill.srs.store.Store.schedule`), not a
replay, so that every sync can look at every card for what a phone shows: new or not, and a
review's due day and interval. A card found here is replayed with the rest and written as any
other (:func:`.schedule.changes`), so what Anki decided (the card's latest event an answer
given there, or a Set Due Date or Forget made there) and the marks stay as they are.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from zerodrill.anki_sync.note_updates import CardRow
from zerodrill.anki_sync.schedule import LEARNING, NEW, RELEARNING, REVIEW, Today
from zerodrill.srs.schedulers import AnkiCard, Phase

_LEARNING_PHASES = (Phase.LEARNING, Phase.RELEARNING)


def stale(
    cards: Mapping[str, CardRow],
    cached: Mapping[str, tuple[Phase, AnkiCard]],
    today: Today,
    skip: Collection[str] = (),
) -> set[str]:
    """The keys of ``cards`` (not in ``skip``) whose row differs from the card's schedule in
    ``cached`` (the store's, by key; a card absent is new): new where it has a schedule, or
    the other way round; a review due another day, or at another interval; learning where
    it is a review. A learning row's moment is not compared (Anki keeps it to the second)."""
    out = set()
    for key, row in cards.items():
        if key in skip:
            continue
        phase, card = cached.get(key, (Phase.NEW, None))
        if card is None or card.due is None:
            if row.type != NEW:
                out.add(key)
        elif row.type == NEW:
            out.add(key)
        elif row.type == REVIEW:
            day = today.anki_day(card.due)
            if (row.odue if row.odid else row.due) != day or row.ivl != max(1, card.interval):
                out.add(key)
        elif row.type in (LEARNING, RELEARNING) and phase not in _LEARNING_PHASES:
            out.add(key)
    return out
