"""Each of zerodrill's cards in Anki given its marks (suspended, buried, flagged, marked; the
mapping is :mod:`zerodrill.export.anki_marks`, the export's own), and the marks set in Anki
(on the phone) brought back as card actions of origin ``anki``.

Which side changed a mark is told by the marks both had after the last run: a record kept in
the review store (:func:`record_text`), one for each collection synced with, so one for each
zerodrill machine (a machine's store may not hold another's actions yet, so a record shared
between machines would mislead them). Not in the collection's config: Anki's sync replaces a
side's whole config with the other's, whichever was modified last, so a phone that synced a
change of its own would put back a record of an earlier run. A run that took the server's
collection whole (a full download) reads no record: the collection may lack what the last run
wrote. For each card and mark:

- changed in zerodrill since the last run: zerodrill's goes to Anki (it wins over a change
  made on both sides);
- changed in Anki only: brought back as a card action from ``anki``, its time the card's (or,
  for *marked*, the note's) modification time, its number a digest of the card, the change and
  that time; so a second run, or another machine seeing the same change, makes the same event,
  and the set union by identity keeps one (Anki times a change to the second: two changes of
  one mark on one card within the same second replay in no particular order). A flag is the
  exception: Anki leaves the card's time as it was when it sets one, so that time would put
  the change before zerodrill's older ones, which would undo it. A flag is timed when the run
  first sees it, at the earliest (another machine that sees the same change before this one's
  event reaches it through the collection makes an event of its own, which sets the same flag);
- then the card is given what replaying every action (those just brought back included) makes
  of it.

Two marks go one way only. *Buried*: Anki's manual bury ends at Anki's next day, which the
collection does not record, so a bury seen in Anki could be yesterday's; zerodrill's bury is
sent, Anki's is left as it is. *Suspended* on a retired card: the notes step suspends those.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection as Keys
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from zerodrill.anki_sync.backend import db
from zerodrill.anki_sync.note_updates import NoteKeys
from zerodrill.export.anki_marks import MARKED_TAG, NO_ANKI_MARKS, AnkiMarks
from zerodrill.srs.anki_import import ORIGIN as ANKI_ORIGIN
from zerodrill.srs.card_actions import Action, CardActionEvent, CardMarks, legacy_seq
from zerodrill.srs.sync.wire import unfit

if TYPE_CHECKING:
    from anki.collection import Collection


class AnkiCard(Struct, frozen=True):
    """One of zerodrill's cards in the collection, as its marks go."""

    key: str
    cid: int
    nid: int
    marks: AnkiMarks
    #: Anki's modification times (seconds) of the card and of its note.
    card_mod: int
    note_mod: int


def read(col: Collection, notes: NoteKeys) -> dict[str, AnkiCard]:
    """Each of zerodrill's cards in the collection with its marks, by item key."""
    out: dict[str, AnkiCard] = {}
    # Read apart and joined here, not by SQLite: with Anki's statistics of a collection filled
    # since they were taken, it scans every note for each card (as note_updates.our_cards).
    of_note = {
        nid: (guid, tags, mod)
        for nid, guid, tags, mod in db(col).all("SELECT id, guid, tags, mod FROM notes")
    }
    for cid, nid, ord_, queue, flags, card_mod in db(col).all(
        "SELECT id, nid, ord, queue, flags, mod FROM cards"
    ):
        if nid not in of_note:
            continue
        guid, tags, note_mod = of_note[nid]
        key = notes.get(guid, {}).get(ord_)
        if key is not None:
            marks = AnkiMarks.read(int(queue), int(flags), str(tags))
            out[key] = AnkiCard(key, int(cid), int(nid), marks, int(card_mod), int(note_mod))
    return out


# -- the record of the last run, in the review store --------------------------------------


def load_record(text: str | None, today: date) -> dict[str, AnkiMarks]:
    """The marks the last run left on each card (cards with none absent), from the record
    :func:`record_text` made; what is not such a record reads as none, entry by entry."""
    try:
        raw: Any = json.loads(text) if text is not None else {}
    except (ValueError, RecursionError):
        return {}
    if not isinstance(raw, dict):
        return {}
    out = {}
    for key, value in raw.items():
        marks = _from_record(value, today)
        if isinstance(key, str) and marks is not None:
            out[key] = marks
    return out


def _from_record(value: object, today: date) -> AnkiMarks | None:
    if not isinstance(value, list) or len(value) != 4:
        return None
    suspended, buried_on, flag, marked = value
    if (
        not isinstance(suspended, bool)
        or not isinstance(buried_on, str)
        or isinstance(flag, bool)
        or not isinstance(flag, int)
        or not 0 <= flag <= 7
        or not isinstance(marked, bool)
    ):
        return None
    return AnkiMarks(suspended, buried_on == today.isoformat(), flag, marked)


def record_text(marks: Mapping[str, AnkiMarks], today: date) -> str:
    """The record of ``marks`` as a run leaves them on ``today`` (cards with none left out)."""
    record = {
        key: [m.suspended, today.isoformat() if m.buried else "", m.flag, m.marked]
        for key, m in sorted(marks.items())
        if m != NO_ANKI_MARKS
    }
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


# -- Anki's changes, as card actions -------------------------------------------------------


def from_anki(
    cards: Mapping[str, AnkiCard],
    record: Mapping[str, AnkiMarks],
    ours: Mapping[str, AnkiMarks],
    retired: Keys[str],
    seen: int,
) -> list[CardActionEvent]:
    """The marks changed in Anki since the last run that zerodrill did not change, as card
    actions from ``anki`` (see the module's docstring); ``seen``: the run's time (s)."""
    out: list[CardActionEvent | None] = []
    for key, card in sorted(cards.items()):
        was, now, mine = record.get(key, NO_ANKI_MARKS), card.marks, ours.get(key, NO_ANKI_MARKS)
        if key not in retired and now.suspended != was.suspended == mine.suspended:
            action = Action.SUSPEND if now.suspended else Action.UNSUSPEND
            out.append(_event(key, action, 0, card.card_mod))
        if now.flag != was.flag == mine.flag:
            out.append(_event(key, Action.FLAG, now.flag, max(card.card_mod, seen)))
    for keys in _by_note(cards).values():
        now_marked = cards[keys[0]].marks.marked
        was_marked = any(record.get(k, NO_ANKI_MARKS).marked for k in keys)
        mine_marked = any(ours.get(k, NO_ANKI_MARKS).marked for k in keys)
        if now_marked != was_marked == mine_marked:
            action = Action.MARK if now_marked else Action.UNMARK
            out += [_event(k, action, 0, cards[k].note_mod) for k in keys]
    return [e for e in out if e is not None and unfit(e) is None]


def _event(key: str, action: Action, flag: int, mod: int) -> CardActionEvent | None:
    """The action Anki's change makes, the same from every machine and every run; None for a
    modification time outside the calendar (a collection is shared ground)."""
    digest = hashlib.sha256(f"{key}\0{action.value}\0{flag}\0{mod}".encode()).digest()
    # Numbered as before actions joined the log, and moved as those were: the same events.
    seq = legacy_seq((int.from_bytes(digest[:8], "big") >> 2) + 1)
    try:
        at = datetime.fromtimestamp(mod, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    # The day in UTC, not the local study day: machines in other time zones make the same
    # event (a suspend, flag or mark lasts beyond its day; only a bury is held to it).
    return CardActionEvent(ANKI_ORIGIN, seq, key, at, at.date(), action, flag)


def _by_note(cards: Mapping[str, AnkiCard]) -> dict[int, list[str]]:
    notes: dict[int, list[str]] = {}
    for key, card in sorted(cards.items()):
        notes.setdefault(card.nid, []).append(key)
    return notes


# -- zerodrill's marks, into Anki -----------------------------------------------------------


def apply(
    col: Collection,
    cards: Mapping[str, AnkiCard],
    record: Mapping[str, AnkiMarks],
    wanted: Mapping[str, AnkiMarks],
    retired: Keys[str],
) -> int:
    """Give each card the marks ``wanted`` (a bury only where zerodrill's changed since the
    last run, a suspension not on a retired card); how many cards changed. Through Anki's own
    operations, which keep each card's queue right for its type."""
    from anki.cards import CardId
    from anki.notes import NoteId

    suspend: list[CardId] = []
    unsuspend: list[CardId] = []
    bury: list[CardId] = []
    unbury: list[CardId] = []
    flags: dict[int, list[CardId]] = {}
    changed: set[int] = set()
    for key, card in cards.items():
        now, want = card.marks, wanted.get(key, NO_ANKI_MARKS)
        was = record.get(key, NO_ANKI_MARKS)
        cid = CardId(card.cid)
        if key not in retired and want.suspended != now.suspended:
            (suspend if want.suspended else unsuspend).append(cid)
            changed.add(card.cid)
        if want.buried != was.buried and want.buried != now.buried and not want.suspended:
            (bury if want.buried else unbury).append(cid)
            changed.add(card.cid)
        if want.flag != now.flag:
            flags.setdefault(want.flag, []).append(cid)
            changed.add(card.cid)
    # Unsuspending and unburying both restore the card's queue: first, so that a card
    # unsuspended and buried at once ends buried.
    if unsuspend or unbury:
        col.sched.unsuspend_cards([*unsuspend, *unbury])
    if suspend:
        col.sched.suspend_cards(suspend)
    if bury:
        col.sched.bury_cards(bury, manual=True)
    for flag, ids in sorted(flags.items()):
        col.set_user_flag_for_cards(flag, ids)
    mark: list[NoteId] = []
    unmark: list[NoteId] = []
    for nid, keys in _by_note(cards).items():
        want_marked = any(wanted.get(k, NO_ANKI_MARKS).marked for k in keys)
        if want_marked != cards[keys[0]].marks.marked:
            (mark if want_marked else unmark).append(NoteId(nid))
            changed.update(cards[k].cid for k in keys)
    if mark:
        col.tags.bulk_add(mark, MARKED_TAG)
    if unmark:
        col.tags.bulk_remove(unmark, MARKED_TAG)
    return len(changed)


def wanted_marks(
    replayed: Mapping[str, CardMarks], keys: Iterable[str], today: date
) -> dict[str, AnkiMarks]:
    """zerodrill's marks (as :func:`~zerodrill.srs.card_actions.replay` gives them) of each
    of ``keys`` on ``today``, as Anki holds them; cards with none absent."""
    out = {}
    for key in keys:
        marks = replayed.get(key)
        if marks is not None:
            anki = AnkiMarks.of(marks, today)
            if anki != NO_ANKI_MARKS:
                out[key] = anki
    return out
