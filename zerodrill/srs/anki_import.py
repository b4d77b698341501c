"""Anki's reviews of zerodrill's notes, read from a ``.colpkg``, an ``.apkg`` or a collection
file, always through a copy (:mod:`.anki_package`), never writing the user's file.

The answers to cards of zerodrill's notes (by GUID) become events of origin ``"anki"``
numbered by the revlog id, so importing the same file again adds nothing. So do the changes
made by hand (:attr:`AnkiReviews.by_hand`), as card actions: Anki writes a row of type 4
(Manual, ease 0) for a Set Due Date (``ivl`` the card's interval after it, ``factor`` its
ease, or under FSRS its difficulty) and for a Forget (``ivl`` and ``factor`` 0), and one of
type 5 (Rescheduled) for FSRS's reschedule (as a Set Due Date). The row holds no due day: it is
the card's, read where the row is the card's latest (a later row decides the schedule
anyway) and the card is as it left it (:func:`left_as`), else the row's interval on. Rows that
record neither are skipped and counted: answers in a filtered deck with rescheduling off
(type 3 with no ease factor: Anki's own test for "cramming", which moves no schedule in Anki
either), and any row whose ease is not a button.

The card's row is not always its latest answer's: Anki's sync keeps the newer of two rows of a
card, so an answer given on a phone offline while the drill changed the card (a suspend) is in
the revlog, but the card row is the drill's. An answer's decision is its revlog row's (type,
``ivl``: days, or seconds of a learning step; ``factor``); FSRS's memory state, which only the
card's ``data`` holds, is taken from there only where that row is as the answer left it
(:func:`left_as`), else it follows zerodrill's FSRS from the history. Every machine reading
the same collection so makes the same event.

The rows ``zerodrill anki sync`` wrote (:func:`is_marked`) are zerodrill's own answers, in its
store already: they are left out, so no path brings them back as Anki's.

Study days are the collection's (its rollover hour and UTC offset), not this machine's, so one
package gives the same events in Tokyo and in New York.

Anki's undo removes an answer from the revlog and puts the collection's modification time
back. :func:`withdrawals` gives an undo (origin :data:`UNDO_ORIGIN`, numbered by the revlog
id, the same on every machine) for each answer imported before that is gone since, but only
where the collection itself shows a later moment (a later answer or change): a file's or a
package's time proves nothing (an old copy copied today is new), and an answer that reached
another device by a sync is in no older copy.
"""

from __future__ import annotations

import json
import re
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from zerodrill.deck.model import MAX_DECK_ID_CHARS, RESERVED_DECK_IDS, SLUG_PATTERN
from zerodrill.srs.anki_package import AnkiImportError, copy_collection
from zerodrill.srs.card_actions import Action, CardActionEvent
from zerodrill.srs.days import DEFAULT_ROLLOVER_HOUR
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import ANKI_EASE_TO_GRADE, ANKI_LAYOUT
from zerodrill.srs.schedulers.decision import AnkiDecision, from_manual, from_revlog

__all__ = [
    "AnkiImportError",
    "AnkiReviews",
    "left_as",
    "read_copy",
    "read_reviews",
    "withdrawals",
]

ORIGIN = "anki"
#: The origin of the undos an import makes for answers undone in Anki since.
UNDO_ORIGIN = "anki-undo"
#: Collection schemas read: 11 (Anki 2.1 before 2.1.28, and every legacy export) to 18
#: (current Anki). The tables read (col, notes, cards, revlog) are alike in all of them.
MIN_SCHEMA, MAX_SCHEMA = 11, 18
#: The revlog types that are answers: learning, review, relearning, filtered deck.
_ANSWER_TYPES = (0, 1, 2, 3)
#: The revlog types of changes by hand: Manual (Set Due Date, Forget), Rescheduled (FSRS).
_MANUAL, _RESCHEDULED = 4, 5
_BY_HAND = (_MANUAL, _RESCHEDULED)
#: Anki's card types of a card learning, in review, relearning.
_LEARNING_CARD, _REVIEW_CARD, _RELEARNING_CARD = 1, 2, 3
#: Revlog type 3 with ease factor 0 is an answer with rescheduling off (Anki: is_cramming).
_FILTERED = 3
_TABLES = {"col", "notes", "cards", "revlog"}
#: The milliseconds both the id and the answer time of a revlog row zerodrill wrote end in
#: (see :mod:`zerodrill.anki_sync.revlog`).
MARK = 419

#: Not a decision: a shape not met yet.
_UNSEEN: Any = object()

#: A note GUID -> its template ordinals -> the item key each card is reviewed under.
NoteKeys = Mapping[str, Mapping[int, str]]


class AnkiReviews(Struct, frozen=True):
    """What a collection holds for zerodrill."""

    #: Answers given to zerodrill's cards, oldest first, each with its identity.
    reviews: tuple[ReviewEvent, ...]
    #: Notes whose GUIDs are not zerodrill's (left alone).
    foreign_notes: int
    #: Answers to zerodrill notes whose card is in none of the decks (a deleted cloze
    #: deletion, say): no key to log them under.
    unmatched: int
    #: Revlog rows of zerodrill's cards that record no grade (see the module docstring).
    skipped: int
    #: The item keys of zerodrill's cards the collection holds.
    keys: frozenset[str] = frozenset()
    #: The latest moment the collection itself shows, in ms since the epoch: an answer
    #: before it that it does not hold was undone (see :func:`_horizon`).
    horizon: int = 0
    #: Notes zerodrill exported (tagged ``zerodrill::<deck>``) from decks not among those
    #: read: deck id -> notes. Left alone too, but not the user's own notes.
    other_decks: Mapping[str, int] = field(default_factory=dict)
    #: Rows ``zerodrill anki sync`` wrote (:func:`is_marked`): left out.
    own: int = 0
    #: Set Due Date, FSRS's reschedule and Forget made in Anki, as card actions, oldest first.
    by_hand: tuple[CardActionEvent, ...] = ()


def is_marked(rid: int, taken_ms: object) -> bool:
    """A revlog row zerodrill wrote: its id and answer time both end in :data:`MARK` ms."""
    return rid % 1000 == MARK and isinstance(taken_ms, int) and taken_ms % 1000 == MARK


def read_reviews(path: Path, notes: NoteKeys) -> AnkiReviews:
    """The reviews of ``notes`` at ``path``; :class:`AnkiImportError` for anything else."""
    with tempfile.TemporaryDirectory(prefix="zerodrill-import-") as tmp:
        return read_copy(copy_collection(path, Path(tmp)), notes, path)


def read_copy(copied: Path, notes: NoteKeys, shown: Path | None = None) -> AnkiReviews:
    """:func:`read_reviews` of ``copied``, a collection file zerodrill copied itself and that
    nothing else has open (``anki sync``'s work copy before Anki opens it): read where it is,
    not copied again (a long-time user's collection is hundreds of megabytes). ``shown``: the
    file named in errors (``copied`` unless given)."""
    shown = copied if shown is None else shown
    try:
        conn = sqlite3.connect(copied)
    except sqlite3.Error as exc:
        raise AnkiImportError(f"cannot read {shown}: {exc}") from None
    try:
        return _read(conn, notes, shown)
    except sqlite3.DatabaseError as exc:
        raise AnkiImportError(f"{shown} is not an Anki collection ({exc})") from None
    finally:
        conn.close()


def _read(conn: sqlite3.Connection, notes: NoteKeys, path: Path) -> AnkiReviews:
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_schema")}
    if not _TABLES <= tables:
        raise AnkiImportError(f"{path} is an SQLite file but not an Anki collection")
    (schema,) = conn.execute("SELECT ver FROM col").fetchone() or (None,)
    if not isinstance(schema, int) or not MIN_SCHEMA <= schema <= MAX_SCHEMA:
        age = "an older" if isinstance(schema, int) and schema < MIN_SCHEMA else "a newer"
        raise AnkiImportError(
            f"{path} is from {age} Anki (collection schema {schema}; zerodrill reads "
            f"{MIN_SCHEMA} to {MAX_SCHEMA}): open it in a current Anki and export it again"
        )
    calendar = Calendar.of(conn, "config" in tables)
    ours: dict[int, Mapping[int, str]] = {}
    foreign = 0
    other_decks: dict[str, int] = {}
    for nid, guid, tags in conn.execute("SELECT id, guid, tags FROM notes"):
        keys = notes.get(guid)
        if keys is not None:
            ours[nid] = keys
            continue
        # A note zerodrill exported carries its deck's tag (export/notes.py): one of a deck
        # not named on the command line is zerodrill's, and the fix is to name that deck.
        deck = _exported_deck(tags)
        if deck is None:
            foreign += 1
        else:
            other_decks[deck] = other_decks.get(deck, 0) + 1
    cards: dict[int, str | None] = {}
    memories: dict[int, tuple[float, float] | None] = {}
    #: Each card's type, interval and data, to tell whether its row is its latest answer's.
    rows: dict[int, tuple[object, object, object]] = {}
    #: The day number a card in review is due on (Anki's, from the collection's creation).
    due_numbers: dict[int, int] = {}
    every = 0
    for cid, nid, ord_, data, type_, due, odue, odid, ivl in conn.execute(
        "SELECT id, nid, ord, data, type, due, odue, odid, ivl FROM cards"
    ):
        every += 1
        if nid in ours:
            cards[cid] = ours[nid].get(ord_)
            memories[cid] = _memory(data)
            rows[cid] = (type_, ivl, data)
            number = odue if odid else due
            if type_ == _REVIEW_CARD and isinstance(number, int):
                due_numbers[cid] = number
    # SQLite picks zerodrill's cards' rows out of the review log (a temporary table is in
    # memory, not in the file): a long-time user's million rows never reach Python.
    conn.execute("CREATE TEMP TABLE zerodrill_cards (id INTEGER PRIMARY KEY)")
    conn.executemany("INSERT INTO temp.zerodrill_cards VALUES (?)", ((cid,) for cid in cards))
    ours_only = "WHERE cid IN (SELECT id FROM temp.zerodrill_cards)"
    # The card's data holds the memory state after its latest answer (of any kind) only.
    latest = dict(conn.execute(f"SELECT cid, max(id) FROM revlog {ours_only} GROUP BY cid"))
    columns = "r.id, r.cid, r.ease, r.type, r.factor, r.time, r.ivl"
    if 2 * len(cards) >= every:
        # Most of the collection's cards are zerodrill's (bench_anki_sync.py's): the log read
        # in id order, each row's card looked up, not each card's rows found and then sorted.
        answers = (
            f"SELECT {columns} FROM revlog r CROSS JOIN temp.zerodrill_cards z ON z.id = r.cid"
        )
    else:
        answers = f"SELECT {columns} FROM revlog r {ours_only}"
    reviews: list[ReviewEvent] = []
    unmatched, skipped, own = 0, 0, 0
    shapes: dict[tuple[object, ...], AnkiDecision | None] = {}
    by_hand: list[CardActionEvent] = []
    when_of = calendar.reader()
    # Looked up once, not for each of the rows (bench_anki_sync.py reads 10,000).
    grade_of, append = ANKI_EASE_TO_GRADE.get, reviews.append
    for rid, cid, ease, kind, factor, taken, ivl in conn.execute(f"{answers} ORDER BY r.id"):
        key = cards[cid]
        if kind in _BY_HAND and isinstance(rid, int) and rid > 0:
            if key is None:
                unmatched += 1
            elif is_marked(rid, taken):
                own += 1
            else:
                bare = from_manual(ivl, factor, None, None)
                latest_row = (
                    latest[cid] == rid
                    and bare is not None
                    and left_as(bare, *rows[cid], rid, by_hand=True)
                )
                due = due_numbers.get(cid) if latest_row else None
                memory = memories[cid] if latest_row else None
                made = _by_hand(rid, key, kind, ivl, factor, memory, due, calendar)
                if made is None:
                    skipped += 1
                else:
                    by_hand.append(made)
            continue
        grade = grade_of(ease)
        if (
            grade is None
            or kind not in _ANSWER_TYPES
            or (kind == _FILTERED and factor == 0)
            or not isinstance(rid, int)
            or rid <= 0
        ):
            skipped += 1
            continue
        if key is None:
            unmatched += 1
            continue
        if rid % 1000 == MARK and is_marked(rid, taken):
            own += 1
            continue
        when = when_of(rid)
        if when is None:
            skipped += 1
            continue
        # Most rows share their (ivl, factor, type): one decision each, made once (the types
        # too, so that a float 3.0 is not taken for the int 3).
        shape = (ivl, type(ivl), factor, type(factor), kind)
        decided = shapes.get(shape, _UNSEEN)
        if decided is _UNSEEN:
            decided = shapes[shape] = from_revlog(ivl, factor, kind, None)
        if decided is not None and latest[cid] == rid and left_as(decided, *rows[cid], rid):
            decided = from_revlog(ivl, factor, kind, memories[cid])
        # Positional, in the fields' order (undoes and typed None): one for each answer.
        append(
            ReviewEvent(
                ORIGIN,
                rid,
                key,
                *when,
                grade,
                None,
                taken if isinstance(taken, int) and taken >= 0 else None,
                None,
                ANKI_LAYOUT,
                decided,
            )
        )
    held = frozenset(key for key in cards.values() if key is not None)
    horizon = _horizon(conn)
    return AnkiReviews(
        tuple(reviews),
        foreign,
        unmatched,
        skipped,
        held,
        horizon,
        other_decks,
        own,
        tuple(by_hand),
    )


def _by_hand(
    rid: int,
    key: str,
    kind: object,
    ivl: object,
    factor: object,
    memory: tuple[float, float] | None,
    due: int | None,
    calendar: Calendar,
) -> CardActionEvent | None:
    """The card action of a revlog row of a change by hand (see the module docstring);
    ``due`` the card's due day number where the row is its latest. None for values no Anki
    writes."""
    when = calendar.when(rid)
    if when is None:
        return None
    at, day = when
    if kind == _MANUAL and ivl == 0 and factor == 0:
        return CardActionEvent(ORIGIN, rid, key, at, day, Action.FORGET)
    due_days = None
    if due is not None:
        due_day = calendar.day_numbered(due)
        due_days = max((due_day - day).days, 0) if due_day is not None else None
    decided = from_manual(ivl, factor, memory, due_days)
    if decided is None:
        return None
    return CardActionEvent(ORIGIN, rid, key, at, day, Action.SET_DUE, decided=decided)


def left_as(
    decided: AnkiDecision,
    card_type: object,
    card_ivl: object,
    data: object,
    rid: int,
    *,
    by_hand: bool = False,
) -> bool:
    """Whether a card row (its ``type``, ``ivl`` and ``data``) is as the answer, or the change
    made by hand (``by_hand``), with revlog id ``rid`` and decision ``decided`` left it: a
    learning step leaves the card learning or relearning, days leave it in review with that
    interval, and an answer (not a change by hand, which sets none) is its last review time
    where the data keeps one. Marks (a suspend, a flag) do not count: they move no schedule."""
    if not isinstance(card_type, int) or not isinstance(card_ivl, int):
        return False
    if decided.step_seconds is not None:
        if card_type not in (_LEARNING_CARD, _RELEARNING_CARD):
            return False
    elif card_type != _REVIEW_CARD or max(card_ivl, 1) != decided.interval:
        return False
    reviewed = None if by_hand else _last_review(data)
    # Anki stamps both with the answer's moment; a revlog id taken moves on by a millisecond.
    return reviewed is None or abs(reviewed - rid // 1000) <= 1


def _last_review(data: object) -> int | None:
    """The last review's time (seconds) in a card's ``data`` JSON, where Anki keeps it."""
    try:
        found = json.loads(data) if isinstance(data, str) and data else None
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
        return None
    lrt = found.get("lrt") if isinstance(found, dict) else None
    return lrt if isinstance(lrt, int) and not isinstance(lrt, bool) else None


def _memory(data: object) -> tuple[float, float] | None:
    """FSRS's stability and difficulty in a card's ``data`` JSON, where Anki keeps them."""
    try:
        found = json.loads(data) if isinstance(data, str) and data else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(found, dict):
        return None
    s, d = found.get("s"), found.get("d")
    if isinstance(s, bool) or isinstance(d, bool):
        return None
    if not isinstance(s, (int, float)) or not isinstance(d, (int, float)):
        return None
    return float(s), float(d)


def _horizon(conn: sqlite3.Connection) -> int:
    """The latest moment the collection itself shows, in ms: its last change (``mod``, which
    Anki's undo puts back as it was) or its latest revlog id, whichever is later. Undoing
    the last answer so leaves no trace until the next answer or change; that is the price of
    never taking an older copy's missing answers for undone ones."""
    (mod,) = conn.execute("SELECT mod FROM col").fetchone() or (0,)
    (latest,) = conn.execute("SELECT max(id) FROM revlog").fetchone()
    mod = mod if isinstance(mod, int) else 0
    # Collections before Anki 2.1 kept mod in seconds.
    return max(mod * 1000 if 0 < mod < 10**11 else mod, latest if isinstance(latest, int) else 0)


_MS = timedelta(milliseconds=1)
_EPOCH_DAY = date(1970, 1, 1).toordinal()


class Calendar(Struct, frozen=True):
    """How a collection counts study days (Anki's ``sched_timing_today``): the day turns at
    the rollover hour in the collection's UTC offset; with no offset recorded (Anki's first
    scheduler), a day is each 24 hours from the collection's creation."""

    rollover: int
    #: The collection's UTC offset; None for days counted from :attr:`created`.
    zone: tzinfo | None
    #: The collection's creation time, seconds since the epoch.
    created: int

    @classmethod
    def of(cls, conn: sqlite3.Connection, has_config_table: bool) -> Calendar:
        config = _config(conn, has_config_table)
        rollover = config.get("rollover")
        if not isinstance(rollover, int) or isinstance(rollover, bool) or not 0 <= rollover < 24:
            rollover = DEFAULT_ROLLOVER_HOUR
        zone = None
        for name in ("localOffset", "creationOffset"):
            west = config.get(name)
            # Minutes west of UTC, as JavaScript's getTimezoneOffset gives them.
            if isinstance(west, int) and not isinstance(west, bool) and abs(west) <= 24 * 60:
                zone = timezone(timedelta(minutes=-west))
                break
        (created,) = conn.execute("SELECT crt FROM col").fetchone() or (0,)
        return cls(rollover, zone, created if isinstance(created, int) else 0)

    def day_numbered(self, number: int) -> date | None:
        """The study day of Anki's day number ``number`` (a card's due day in review: the days
        from the collection's creation day); None past the calendar."""
        created = self.when(self.created * 1000)
        try:
            return created[1] + timedelta(days=number) if created is not None else None
        except OverflowError:
            return None

    def when(self, rid: int) -> tuple[datetime, date] | None:
        """The time and study day of the answer with revlog id ``rid``; None if it is not a
        time a calendar holds."""
        return self.reader()(rid)

    def reader(self) -> Callable[[int], tuple[datetime, date] | None]:
        """:meth:`when`, with what is alike for every answer worked out once: a sync reads
        each of the phone's answers (bench_anki_sync.py's 10,000 spent 14 ms here, 9 of them
        on the offset and the day's arithmetic)."""
        zone, created = self.zone, self.created
        if zone is None:
            start = _utc_day(created)

            def utc(rid: int) -> tuple[datetime, date] | None:
                try:
                    at = datetime.fromtimestamp(rid / 1000, tz=UTC)
                    if start is None:
                        return None
                    return at, start + timedelta(days=(rid // 1000 - created) // 86_400)
                except (OverflowError, OSError, ValueError):
                    return None

            return utc
        # Wall-clock arithmetic, as in zerodrill.srs.days.study_day, in whole milliseconds
        # (the offset is fixed): a day number, not two datetimes made per answer.
        shift = (zone.utcoffset(None) or timedelta(0)) // _MS - self.rollover * 3_600_000
        fromtimestamp, fromordinal = datetime.fromtimestamp, date.fromordinal

        def zoned(rid: int) -> tuple[datetime, date] | None:
            try:
                # tz given by position: as a keyword, the call costs half again as much.
                at = fromtimestamp(rid / 1000, zone)
                return at, fromordinal(_EPOCH_DAY + (rid + shift) // 86_400_000)
            except (OverflowError, OSError, ValueError):
                return None

        return zoned


def _utc_day(created: int) -> date | None:
    """The UTC day of the moment ``created`` (seconds); None past the calendar."""
    try:
        return datetime.fromtimestamp(created, tz=UTC).date()
    except (OverflowError, OSError, ValueError):
        return None


def _config(conn: sqlite3.Connection, has_config_table: bool) -> dict[str, Any]:
    """The collection's settings read here: ``config`` rows (schema 14 and later), else the
    JSON in ``col.conf``. What does not parse reads as unset."""
    names = ("rollover", "localOffset", "creationOffset")
    try:
        if has_config_table:
            rows = conn.execute("SELECT key, val FROM config WHERE key IN (?, ?, ?)", names)
            return {name: json.loads(value) for name, value in rows}
        (text,) = conn.execute("SELECT conf FROM col").fetchone() or ("{}",)
        conf = json.loads(text or "{}")
        return (
            {name: conf[name] for name in names if name in conf} if isinstance(conf, dict) else {}
        )
    except (ValueError, TypeError, RecursionError, sqlite3.Error):
        return {}


def withdrawals(found: AnkiReviews, logged: Iterable[ReviewEvent]) -> list[ReviewEvent]:
    """An undo for each answer imported from Anki before that ``found`` shows was undone
    there since: its card is in the collection, the collection's own content is newer than
    the answer, and its revlog holds it no more (or no longer as a grade)."""
    events = list(logged)
    undone = {e.undoes for e in events if e.undoes is not None}
    kept = {review.seq for review in found.reviews}
    return [
        ReviewEvent(UNDO_ORIGIN, e.seq, e.key, e.at, e.day, None, e.identity)
        for e in events
        if e.origin == ORIGIN
        and e.grade is not None
        and e.identity not in undone
        and e.key in found.keys
        and e.seq < found.horizon
        and e.seq not in kept
    ]


_SLUG = re.compile(SLUG_PATTERN)


def _exported_deck(tags: object) -> str | None:
    """The deck id of the ``zerodrill::<deck-id>`` tag among a note's ``tags``, if any."""
    if not isinstance(tags, str):
        return None
    for tag in tags.split():
        root, _, deck = tag.partition("::")
        if (
            root == "zerodrill"
            and "::" not in deck
            and len(deck) <= MAX_DECK_ID_CHARS
            and deck not in RESERVED_DECK_IDS
            and _SLUG.fullmatch(deck)
        ):
            return deck
    return None
