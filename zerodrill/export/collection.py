"""The package's Anki collection (``collection.anki2``): a SQLite file built in memory.

Schema 11, as genanki writes it. Everything in it is pinned so that the same notes give the
same bytes: the collection's creation day and config, deck and note-type JSON, row order, card
IDs (note ID + template ordinal), and the SQLite header's writer-version field.

Scheduling (``--with-progress``): the collection is created on :data:`CREATED` with a UTC
creation offset and a 4 am rollover, so that Anki's "days elapsed" for it is the user's local
calendar day counted from that date. A review card's ``due`` is written as days from
:data:`CREATED` to its due date. On import with scheduling, Anki shifts review due days by
(package's today - collection's today), which lands the card on the same calendar day.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from typing import Protocol

import genanki

from zerodrill.deck import kinds
from zerodrill.deck.model import Card, Deck
from zerodrill.errors import ExportError
from zerodrill.export.anki_marks import (
    MARKED_TAG,
    SIBLING_BURIED_QUEUE,
    SUSPENDED_QUEUE,
    AnkiMarks,
)
from zerodrill.export.cheat_sheet import anki_description
from zerodrill.export.genanki_internals import COLLECTION_ROW, DEFAULT_CONF, INDEXES, TABLES
from zerodrill.export.ids import ID_STRIDE, deck_anki_id
from zerodrill.export.manifest import NoteRecord, NoteTypeRecord
from zerodrill.export.notes import Note
from zerodrill.export.notetypes import note_type

#: The collection's creation day. Review ``due`` values count days from it.
CREATED = date(2020, 1, 1)
_CREATED_STAMP = int(datetime(2020, 1, 1, tzinfo=UTC).timestamp())
#: Anki's default day rollover; zerodrill's SM-2 days use the same local calendar.
ROLLOVER_HOUR = 4
#: SQLite writes its library version into the header; pin it so the bytes do not depend on it.
_SQLITE_VERSION_OFFSET = 96
_PINNED_SQLITE_VERSION = (3_037_000).to_bytes(4, "big")

# The largest ease (permille) and count (interval, repetitions, lapses) Anki's cards hold.
_MAX_FACTOR, _MAX_COUNT = 2**16 - 1, 2**31 - 1

# Anki card types and queues (the marks' queues: see .anki_marks).
_NEW, _REVIEW, _SUSPENDED = 0, 2, SUSPENDED_QUEUE


class SchedulingState(Protocol):
    """A card's schedule as Anki's columns read it: the scheduler in use says how
    (:class:`zerodrill.srs.schedulers.AnkiCard`)."""

    @property
    def repetitions(self) -> int: ...
    @property
    def interval(self) -> int: ...
    @property
    def ease_permille(self) -> int: ...
    @property
    def due(self) -> date | None: ...
    @property
    def lapses(self) -> int: ...


class MarkedState(Protocol):
    """A progress entry that also carries the card's marks (``--with-progress``): suspended
    and buried cards arrive in Anki's suspended and buried queues, flags as Anki's flags, and
    a marked card's note with Anki's ``marked`` tag. Its ``due`` is None for a new card.
    One ``held`` (a sibling the drill holds for another day) arrives in Anki's queue of
    buried siblings, which Anki empties at its next day."""

    @property
    def marks(self) -> AnkiMarks: ...
    @property
    def held(self) -> bool: ...


def _marks_of(state: object) -> AnkiMarks | None:
    marks = getattr(state, "marks", None)
    return marks if isinstance(marks, AnkiMarks) else None


def _queue(queue: int, state: object) -> int:
    marks = _marks_of(state)
    marked = marks.queue(queue) if marks is not None else queue
    held = marked == queue != SUSPENDED_QUEUE and getattr(state, "held", False) is True
    return SIBLING_BURIED_QUEUE if held else marked


def collection(
    decks: Sequence[Deck],
    notes: Sequence[Note],
    records: Mapping[str, NoteRecord],
    notetypes: Mapping[str, NoteTypeRecord],
    progress: Mapping[str, SchedulingState],
) -> tuple[bytes, int, int]:
    """The collection's bytes, its number of cards and of cards with review progress.

    ``records`` gives each note's ID and modification time (by note key), ``notetypes`` each
    note type's modification time (by model ID); ``progress`` maps item keys (``deck/card``,
    ``deck/card#cN``) to their schedules, and a card without one arrives new. An entry with
    ``marks`` (:class:`MarkedState`) puts the card in Anki's suspended or buried queue, gives
    it its flag, and tags its note ``marked``.
    """
    conn = sqlite3.connect(":memory:")
    try:
        # Tables first and indexes after the rows: one sort per index instead of a B-tree
        # insert per row (the file stays deterministic either way).
        conn.executescript(TABLES)
        conn.executescript(COLLECTION_ROW)
        note_rows: list[tuple[object, ...]] = []
        card_rows: list[tuple[object, ...]] = []
        tail: tuple[object, ...]  # a card's row from its type on
        reviewed = 0
        for position, note in enumerate(notes, start=1):
            nid, _digest, mod = records[note.key]
            card, did = note.card, note.deck_id
            tags = f" {note.tags} "
            # Anki keeps a card's queue only on an import with scheduling: its default import
            # makes every card it adds new (rslib's ExchangeData::reset_cards).
            new_queue = _SUSPENDED if card.retired else _NEW
            for ord_, key in _card_keys(card):
                state = progress.get(key) if progress else None
                marks = _marks_of(state)
                flag = marks.flag if marks is not None else 0
                if marks is not None and marks.marked:
                    tags = f" {note.tags} {MARKED_TAG} "  # Anki's "marked" is a note tag
                if state is None or state.due is None:
                    # type queue due ivl factor reps lapses left odue odid flags data
                    tail = (_NEW, _queue(new_queue, state), position, 0, 0, 0, 0, 0, 0, 0, flag, "")
                else:
                    reviewed += 1
                    queue = _queue(_SUSPENDED if card.retired else _REVIEW, state)
                    tail = _review(state, queue, flag)
                # id nid did ord mod usn, then the tail
                card_rows.append((nid + ord_, nid, did, ord_, mod, -1, *tail))
            note_rows.append(
                (nid, note.guid, note.model_id, mod, -1, tags, note.fields, note.sort_field)
                + (0, 0, "")
            )
        conn.executemany("INSERT INTO notes VALUES(?,?,?,?,?,?,?,?,?,?,?)", note_rows)
        conn.executemany("INSERT INTO cards VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", card_rows)
        conn.executescript(INDEXES)
        models = {key: _model_json(key, rec.mod, decks) for key, rec in notetypes.items()}
        conn.execute(
            "UPDATE col SET crt=?, mod=?, scm=?, conf=?, models=?, decks=?",
            (
                _CREATED_STAMP,
                max((r.mod for r in records.values()), default=_CREATED_STAMP) * 1000,
                _CREATED_STAMP * 1000,
                json.dumps(_conf(len(notes)), sort_keys=True),
                json.dumps(models, sort_keys=True),
                json.dumps(_decks_json(conn, decks), sort_keys=True),
            ),
        )
        conn.commit()
        data = bytearray(conn.serialize())
    finally:
        conn.close()
    data[_SQLITE_VERSION_OFFSET : _SQLITE_VERSION_OFFSET + 4] = _PINNED_SQLITE_VERSION
    return bytes(data), len(card_rows), reviewed


def _card_keys(card: Card) -> list[tuple[int, str]]:
    """(template ordinal, item key) of each of the note's cards: one per cloze number."""
    if not card.kind.is_cloze:
        return [(0, card.key)]
    for ordinal in card.ordinals:
        if ordinal > ID_STRIDE:
            raise ExportError(
                f"{card.pos}: cloze number c{ordinal} is too large to export (at most c{ID_STRIDE})"
            )
    return [(ordinal - 1, f"{card.key}#c{ordinal}") for ordinal in card.ordinals]


def _review(state: SchedulingState, queue: int, flag: int) -> tuple[object, ...]:
    """A review card's row from its type on: type queue due ivl factor reps lapses ... data."""
    assert state.due is not None
    due = (state.due - CREATED).days
    # Anki refuses a whole package holding a value its card columns cannot store (factor is a
    # u16: SM-2's EF has no ceiling, and past 65.5 after some 630 perfect grades it would not
    # fit), so each is held to what Anki stores, which changes nothing a real schedule holds.
    ivl = min(max(1, int(state.interval)), _MAX_COUNT)
    factor = min(int(state.ease_permille), _MAX_FACTOR)
    reps, lapses = min(int(state.repetitions), _MAX_COUNT), min(int(state.lapses), _MAX_COUNT)
    return (_REVIEW, queue, due, ivl, factor, reps, lapses, 0, 0, 0, flag, "")


def _conf(note_count: int) -> dict[str, object]:
    conf: dict[str, object] = json.loads(DEFAULT_CONF)
    # A v2-scheduler collection with a UTC creation offset: Anki then counts its days on the
    # importing user's local calendar with this rollover hour (see the module docstring).
    conf.update(
        {"schedVer": 2, "rollover": ROLLOVER_HOUR, "creationOffset": 0, "nextPos": note_count + 1}
    )
    return conf


def _model_json(key: str, mod: int, decks: Sequence[Deck]) -> dict[str, object]:
    kind = next(k for k in kinds.registered() if str(k.anki.model_id) == key)
    # genanki's to_json stamps "did" with a deck; a fixed one keeps it stable.
    data: dict[str, object] = note_type(kind).model.to_json(mod, deck_anki_id(decks[0].id))
    return data


def _decks_json(conn: sqlite3.Connection, decks: Sequence[Deck]) -> dict[str, object]:
    (raw,) = conn.execute("SELECT decks FROM col").fetchone()
    out: dict[str, object] = json.loads(raw)
    for deck in decks:
        did = deck_anki_id(deck.id)
        g = genanki.Deck(did, deck.title, anki_description(deck))
        out[str(did)] = g.to_json()
    return out
