"""The siblings the drill holds for another day, held in Anki too: what Anki shows due today
is what the drill shows due.

The drill never shows siblings on one day (a cloze card's deletions, and cards the deck says
teach the same thing: :mod:`zerodrill.srs.queue`): once one is graded or queued today, the
others wait, due as they were. Anki has the same notion, "buried siblings": a card in its
sibling-buried queue (-2) until Anki's next day, when Anki puts it back by itself. So each card
the drill's rule holds today (:func:`~zerodrill.srs.queue.held_today`) is buried so in Anki,
and a card left there from another day, or held no longer, is put back. Anki's buried
siblings are not the user's bury (:mod:`zerodrill.export.anki_marks`), so no mark moves with
them. Cards the user suspended or buried, and cards in a filtered deck, are left as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from zerodrill.anki_sync.note_updates import CardRow
from zerodrill.anki_sync.store_bridge import DrillDay
from zerodrill.deck.item_index import ItemIndex
from zerodrill.export.anki_marks import BURIED_QUEUE, SIBLING_BURIED_QUEUE, SUSPENDED_QUEUE
from zerodrill.srs.queue import held_today

if TYPE_CHECKING:
    from anki.collection import Collection

#: The queues of a card Anki may show: new, learning, review, learning by days.
_SHOWN_QUEUES = (0, 1, 2, 3)


def held(cards: Mapping[str, CardRow], index: ItemIndex, drill: DrillDay) -> set[str]:
    """The keys of ``cards`` the drill holds today, as the queue's rule says (cards the
    user suspended or buried in Anki stay out of the queue, as in the drill)."""
    hidden = {key for key, row in cards.items() if row.queue in (SUSPENDED_QUEUE, BURIED_QUEUE)}
    shown = index.without(hidden)
    new = [key for key in shown if key not in drill.scheduled]
    return held_today(
        shown,
        drill.due,
        new,
        drill.graded,
        introduced=drill.introduced,
        brought=drill.brought,
        apart=drill.apart,
    )


def hold(col: Collection, cards: Mapping[str, CardRow], index: ItemIndex, drill: DrillDay) -> int:
    """Bury in Anki, as siblings, the cards of ``cards`` the drill holds today, and put back
    those Anki has so that it does not; how many cards changed."""
    from anki.cards import CardId

    waiting = held(cards, index, drill)
    bury, back = [], []
    for key, row in cards.items():
        if row.odid or key not in index:
            continue
        if key in waiting and row.queue in _SHOWN_QUEUES:
            bury.append(CardId(row.cid))
        elif key not in waiting and row.queue == SIBLING_BURIED_QUEUE:
            back.append(CardId(row.cid))
    if back:
        col.sched.unbury_cards(back)
    if bury:
        col.sched.bury_cards(bury, manual=False)
    return len(bury) + len(back)
