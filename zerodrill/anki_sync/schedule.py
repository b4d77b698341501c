"""Each of zerodrill's cards in Anki given the due day, interval and ease zerodrill derives,
but for a card last answered in Anki, which keeps the schedule Anki gave it (zerodrill's
replay takes that decision too: :mod:`zerodrill.srs.schedulers.decision`).

Anki counts due days from its collection's creation, on its own rollover; zerodrill counts
calendar study days. Both say which day is *today* at the same moment, so a due date goes to
Anki as today's day number plus the days from today to it: the phone shows the day the
terminal does. A card the user suspended or buried in Anki stays so; one in a filtered deck
gets its home deck's due day (``odue``), as Anki keeps it there. A card the drill brings back
later the same day (a learning step, a failed card) is in Anki's learning queue, due then. A
card whose every grade was undone is new again, in both. Under FSRS each card also carries its
memory state, desired retention and last review time in Anki's ``data`` JSON, as Anki keeps them
(:func:`memory_data`), so Anki's Check Database has nothing to add.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import date
from typing import TYPE_CHECKING

from msgspec import Struct
from msgspec.structs import replace

from zerodrill.anki_sync.backend import db
from zerodrill.anki_sync.note_updates import CardRow
from zerodrill.anki_sync.store_bridge import CardHistory
from zerodrill.srs.anki_import import left_as
from zerodrill.srs.schedulers import AnkiCard

if TYPE_CHECKING:
    from anki.collection import Collection

# Anki's card types and queues.
NEW, LEARNING, REVIEW, RELEARNING = 0, 1, 2, 3
_LEARNING_QUEUE = 1
_SUSPENDED_OR_BURIED = (-1, -2, -3)
_MAX_FACTOR, _MAX_COUNT = 2**16 - 1, 2**31 - 1


class Today(Struct, frozen=True):
    """The same moment on both calendars."""

    zerodrill: date
    anki: int

    def anki_day(self, day: date) -> int:
        """``day`` as Anki numbers it: today's number plus the days from today to it."""
        return self.anki + (day - self.zerodrill).days


def wanted(row: CardRow, history: CardHistory, today: Today) -> CardRow:
    """``row`` with the scheduling ``history`` derives (unchanged if it derives none, or if
    the card's latest answer was given in Anki and the row is as it left it: whoever answers
    decides, and Anki's schedule is the card's already)."""
    if history.due is None or history.anki_decides and _as_anki_left(row, history):
        return row
    day = today.anki_day(history.due)
    type_, queue, due = REVIEW, REVIEW, day
    if history.again_at is not None and history.again_on is not None:
        if history.again_on >= today.zerodrill or history.anki_decides:
            # A learning step the drill brings back today: Anki's learning queue, due at
            # that moment (a time stamp there), so that the phone shows it today too. And a
            # step Anki decided, whatever its day: the row its answer left, which a newer
            # change of the card replaced (a phone offline), is learning, overdue, not a
            # review (as the phone shows it where that row survives).
            type_ = RELEARNING if history.relearning else LEARNING
            queue = _LEARNING_QUEUE
            due = int(history.again_at.timestamp())
    queue = row.queue if row.queue in _SUSPENDED_OR_BURIED or row.odid else queue
    return replace(
        row,
        type=type_,
        queue=queue,
        due=row.due if row.odid else due,
        odue=day if row.odid else row.odue,
        ivl=min(max(1, history.interval), _MAX_COUNT),
        factor=min(history.factor, _MAX_FACTOR),
        reps=min(len(history.answers), _MAX_COUNT),
        lapses=min(history.lapses, _MAX_COUNT),
        # One step left: Anki's Good then graduates it, as the drill's would.
        left=0 if type_ == REVIEW else 1,
        data=memory_data(row.data, history.anki),
    )


def _as_anki_left(row: CardRow, history: CardHistory) -> bool:
    """The card's row is as the answer (or change by hand) given in Anki that decides it left
    it. Anki's sync keeps a card's newer row: an answer on a phone offline while the drill
    changed the card (a suspend) reaches the revlog, its row does not, and the card is then
    written as that answer decided (the replay took it), its marks kept."""
    decided = history.decided
    if decided is None:
        return True  # a Forget, or an answer logged before decisions were kept
    return left_as(
        decided, row.type, row.ivl, row.data, history.decided_id, by_hand=history.set_in_anki
    )


#: The places Anki keeps each figure of the memory state to in a card's data, as its sync
#: and every change of the card there write it; the coarsest any Anki kept them to (25.02:
#: stability to 3).
_PLACES = {"s": 4, "d": 3, "dr": 2, "decay": 3}
_COARSEST = _PLACES | {"s": 3}
#: What Anki 25.02 did not keep in a card's data, and dropped from every card it wrote.
_NEWER = ("decay", "lrt")


def memory_data(data: str, card: AnkiCard | None) -> str:
    """Anki's ``data`` JSON of a card (``data``, as the collection has it) given the memory
    state ``card`` carries, under the keys Anki keeps it (stability, difficulty, desired
    retention, decay, the last review's time in seconds), its other keys kept; unchanged
    for a card without one (SM-2's), for JSON that is no object (not Anki's own), and where
    it holds that state already, as Anki rounds it (:func:`_as_anki_keeps`)."""
    if card is None or card.stability is None or card.difficulty is None:
        return data
    try:
        found = json.loads(data) if data else {}
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
        return data
    if not isinstance(found, dict):
        return data
    figures = {"s": card.stability, "d": card.difficulty}
    if card.desired_retention is not None:
        figures["dr"] = card.desired_retention
    if card.decay is not None:
        figures["decay"] = card.decay
    memory: dict[str, float | int] = {k: round(v, _PLACES[k]) for k, v in figures.items()}
    if card.last_review is not None:
        memory["lrt"] = int(card.last_review.timestamp())
    # An Anki older than the figure drops it as it carries the card: absent is no change.
    kept = (k for k in memory if k in found or k not in _NEWER)
    if all(_as_anki_keeps(k, found.get(k), memory[k]) for k in kept):
        return data
    return json.dumps({**found, **memory}, separators=(",", ":"))


def _as_anki_keeps(key: str, found: object, wanted: float) -> bool:
    """Whether ``found`` (what a card's data holds under ``key``) is ``wanted`` as any Anki
    keeps it: within half a unit of the coarsest place Anki rounds the figure to, and of its
    32-bit float. A figure Anki's sync rounded is no change: taken for one, the card was
    written again by every terminal at each sync that replayed it."""
    if isinstance(found, bool) or not isinstance(found, int | float):
        return False
    places = _COARSEST.get(key)
    if places is None:  # the last review's time: whole seconds on both sides
        return found == wanted
    return abs(found - wanted) <= 0.5 * 10.0**-places + 1e-6 * abs(wanted)


def changes(
    cards: Mapping[str, CardRow], histories: Mapping[str, CardHistory], today: Today
) -> list[CardRow]:
    """The rows whose scheduling differs from what zerodrill derives, as they must become."""
    out = []
    for key, row in cards.items():
        history = histories.get(key)
        if history is None:
            continue
        new = wanted(row, history, today)
        if new != row:
            out.append(new)
    return out


def to_forget(cards: Mapping[str, CardRow], histories: Mapping[str, CardHistory]) -> list[int]:
    """Cards Anki has in learning or review whose every grade was withdrawn (undone): new
    again in zerodrill, so new again in Anki."""
    return [
        row.cid
        for key, row in cards.items()
        if key in histories and histories[key].due is None and row.type != NEW
    ]


def count_today(col: Collection, introduced: Sequence[int], reviewed: Sequence[int]) -> None:
    """Count the new cards ``introduced`` and the reviews of the cards ``reviewed`` (a card
    once a review) that the drill gave on Anki's today, just written to its revlog, in
    their decks' counts of the day, as answers in Anki are counted (the parents' too): the
    phone then offers what its daily limits leave after them, as it would after the same
    answers on another device, not its whole limits again."""
    if not introduced and not reviewed:
        return
    from anki.decks import DeckId

    counts: dict[int, list[int]] = {}
    # The home deck of a card in a filtered one: its limits are the home deck's.
    home = "SELECT id, CASE WHEN odid THEN odid ELSE did END FROM cards WHERE id IN"
    rows = db(col).all(f"{home} ({','.join(map(str, {*introduced, *reviewed}))})")
    decks: dict[int, int] = {cid: did for cid, did in rows}
    for cids, at in ((introduced, 0), (reviewed, 1)):
        for cid in cids:
            counts.setdefault(decks[cid], [0, 0])[at] += 1
    for did, (new, review) in counts.items():
        col.sched.update_stats(DeckId(did), new_delta=new, review_delta=review)
