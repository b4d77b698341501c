"""Decks → an Anki package (``.apkg``) that updates in place and builds reproducibly.

Two properties pull against each other here:

* **Update in place.** Anki matches an imported note to the user's copy by GUID, and replaces
  the user's copy only when the incoming note's modification time is *newer*. A package that
  stamps every note with one fixed time can therefore never deliver an edit.
* **Reproducible.** The same sources must give the same bytes, so no time may come from the
  clock at build time.

Both hold through a *manifest* kept beside each package (``<name>.manifest.json``, committed
with it). For every note it records a digest of what Anki will store (fields as HTML, tags,
note type), the note's modification time and its note ID; for every note type, a digest of its
fields, templates and CSS, and its modification time. A build reuses the recorded time while a
digest is unchanged, and takes a new, strictly later one (from the injected clock) only for what
changed. Rebuilding unchanged sources is byte-identical at any clock time; an edited card gets a
newer time, so Anki updates it; a new card gets an ID and time once, and keeps them.

Everything else in the file is pinned too: the collection's creation day and config, deck and
note-type JSON, row order, card IDs (note ID + template ordinal), the SQLite header's
writer-version field, and the zip (fixed entry dates and attributes, sorted entries, stored
uncompressed so that zlib's version cannot change the bytes).

Scheduling (``--with-progress``): the package's collection is created on :data:`CREATED` with a
UTC creation offset and a 4 am rollover, so that Anki's "days elapsed" for it is the user's
local calendar day counted from that date. A review card's ``due`` is written as days from
:data:`CREATED` to its SM-2 due date. On import with scheduling, Anki shifts review due days by
(package's today - collection's today), which lands the card on the same calendar day.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import sqlite3
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from fractions import Fraction
from functools import partial
from hashlib import sha256
from json.encoder import encode_basestring
from pathlib import Path, PurePosixPath
from typing import NamedTuple, Protocol

import genanki
import genanki.util
from genanki.apkg_col import APKG_COL
from genanki.apkg_schema import APKG_SCHEMA

from zerodrill.deck.model import KIND_FIELDS, Card, Deck, Kind
from zerodrill.export import html
from zerodrill.export.notetypes import EXTRA_FIELDS, MODEL_IDS, note_type
from zerodrill.gcpause import gc_paused

#: Tags (Anki's ``::`` makes them a tree under "zerodrill" in the browser's sidebar):
#:   zerodrill::<deck-id>            every note of the deck
#:   zerodrill::<deck-id>::<tag>     the card's own tags, kept apart from the user's own tags
#:   zerodrill::kind::<kind>         basic, cloze, follow_up or red_flag
#:   zerodrill::retired              cards the deck has retired (find them: tag:zerodrill::retired)
TAG_ROOT = "zerodrill"
RETIRED_TAG = f"{TAG_ROOT}::retired"
RETIRED_SEARCH = f"tag:{RETIRED_TAG}"
#: Deck ids that would collide with the tags above.
RESERVED_DECK_IDS = frozenset({"kind", "retired"})

MANIFEST_FORMAT = 1
#: The package collection's creation day. Review ``due`` values count days from it.
CREATED = date(2020, 1, 1)
_CREATED_STAMP = int(datetime(2020, 1, 1, tzinfo=UTC).timestamp())
#: Anki's default day rollover; zerodrill's SM-2 days use the same local calendar.
ROLLOVER_HOUR = 4
#: Note IDs are spaced this far apart; a card's ID is its note's ID + its template ordinal.
_ID_STRIDE = 1000
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
#: SQLite writes its library version into the header; pin it so the bytes do not depend on it.
_SQLITE_VERSION_OFFSET = 96
_PINNED_SQLITE_VERSION = (3_037_000).to_bytes(4, "big")
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_-]+")

# Anki card types and queues.
_NEW, _REVIEW, _SUSPENDED = 0, 2, -1


class ExportError(Exception):
    """A deck cannot be exported as it is; the message says why."""


class SchedulingState(Protocol):
    """An SM-2 state as the review store keeps it (see ``zerodrill.srs``)."""

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


class NoteRecord(NamedTuple):
    """A note's ID, the digest of what Anki stores for it, and its modification time (s)."""

    id: int
    digest: str
    mod: int


#: NoteRecord from a (id, digest, mod) tuple, without the Python-level ``__new__``.
_record: Callable[[tuple[int, str, int]], NoteRecord] = partial(tuple.__new__, NoteRecord)


class NoteTypeRecord(NamedTuple):
    digest: str
    mod: int


@dataclass(frozen=True)
class Manifest:
    """What a package holds and since when: the memory that makes builds reproducible."""

    notes: Mapping[str, NoteRecord] = field(default_factory=dict)
    notetypes: Mapping[str, NoteTypeRecord] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Manifest:
        """The manifest at ``path``; an empty one if there is none yet."""
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls()
        except OSError as exc:
            raise ExportError(f"cannot read manifest {path}: {exc.strerror or exc}") from exc
        except ValueError as exc:
            raise ExportError(f"cannot read manifest {path}: {exc}") from exc
        if not isinstance(raw, dict) or raw.get("format") != MANIFEST_FORMAT:
            raise ExportError(f"{path} is not a zerodrill export manifest (format 1)")
        try:
            notes = {
                k: NoteRecord(int(v["id"]), str(v["hash"]), int(v["mod"]))
                for k, v in raw["notes"].items()
            }
            notetypes = {
                k: NoteTypeRecord(str(v["hash"]), int(v["mod"]))
                for k, v in raw["notetypes"].items()
            }
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ExportError(f"{path}: malformed manifest ({exc})") from exc
        return cls(notes, notetypes)

    def dumps(self) -> str:
        """Stable JSON, one note per line: a rebuild's diff shows exactly the notes it bumped.

        (Written by hand because ``json.dumps(indent=...)`` falls back to the slow pure-Python
        encoder, which cost more than rendering a fifth of a 10,000-card deck.)
        """
        about = (
            "Written by `zerodrill export`; commit it with the package. It keeps note IDs "
            "and modification times stable, so rebuilds are byte-identical and edited notes "
            "update in place in Anki."
        )
        dump = json.dumps
        lines = [
            "{",
            f' "format": {MANIFEST_FORMAT},',
            f' "about": {dump(about)},',
            ' "notetypes": {',
        ]
        lines += _entries(
            f'  {dump(k)}: {{"hash": "{v.digest}", "mod": {v.mod}}}'
            for k, v in sorted(self.notetypes.items())
        )
        lines.append(" },")
        lines.append(' "notes": {')
        # json.encoder.encode_basestring is what dumps(k, ensure_ascii=False) calls for a
        # string, without building a JSONEncoder per note.
        quote = encode_basestring
        lines += _entries(
            f'  {quote(k)}: {{"id": {id_}, "hash": "{digest}", "mod": {mod}}}'
            for k, (id_, digest, mod) in sorted(self.notes.items())
        )
        lines.append(" }")
        lines.append("}")
        return "\n".join(lines) + "\n"


def _entries(rows: Iterable[str]) -> list[str]:
    out = list(rows)
    return [row + "," for row in out[:-1]] + out[-1:]


@dataclass(frozen=True)
class PackageStats:
    path: Path
    decks: int
    notes: int
    cards: int
    retired_notes: int
    media: int
    reviewed_cards: int = 0


@dataclass(frozen=True)
class Package:
    """A built package: its bytes, what it holds, and the manifest to keep beside it."""

    data: bytes
    manifest: Manifest
    decks: int
    notes: int
    cards: int
    retired_notes: int
    media: int
    reviewed_cards: int


def deck_anki_id(deck_id: str) -> int:
    """A stable Anki deck ID for a zerodrill deck id (kept below 2**53 for JavaScript)."""
    digest = hashlib.sha256(f"zerodrill deck {deck_id}".encode()).digest()
    return (1 << 32) + int.from_bytes(digest[:8], "big") % ((1 << 53) - (1 << 32))


def note_guid(deck_id: str, card_id: str) -> str:
    """genanki's ``guid_for(deck_id, card_id)``, computed without its per-digit Python loop
    (tests check the two agree)."""
    return _guid(f"{deck_id}__{card_id}")


def _guid(text: str) -> str:
    # The first 8 bytes of the SHA-256 in base 91, most significant digit first, no leading
    # zeros: two digits per step (2**64 < 91**10, so five steps).
    n = int.from_bytes(sha256(text.encode()).digest()[:8], "big")
    n, e = divmod(n, 8281)
    n, d = divmod(n, 8281)
    n, c = divmod(n, 8281)
    a, b = divmod(n, 8281)
    pairs = _BASE91_PAIRS
    return (pairs[a] + pairs[b] + pairs[c] + pairs[d] + pairs[e]).lstrip(_BASE91[0])


_BASE91 = "".join(genanki.util.BASE91_TABLE)
assert len(_BASE91) == 91
_BASE91_PAIRS = [hi + lo for hi in _BASE91 for lo in _BASE91]


def tags_for(card: Card) -> list[str]:
    tags = [f"{TAG_ROOT}::{card.deck}", f"{TAG_ROOT}::kind::{card.kind.value}"]
    tags += [f"{TAG_ROOT}::{card.deck}::{tag}" for tag in card.tags]
    if card.retired:
        tags.append(RETIRED_TAG)
    return tags


def media_name(deck_id: str, rel_path: str, content: bytes) -> str:
    """The packed file name: unique per deck and content, safe in any media folder.

    The content hash in the name means an edited image is a new file for Anki (which never
    replaces a media file of the same name) and the note that shows it is updated to it.
    """
    p = PurePosixPath(rel_path)
    stem = _UNSAFE_NAME.sub("-", p.stem).strip("-")[:40] or "image"
    ext = _UNSAFE_NAME.sub("", p.suffix.lstrip(".")).lower()[:10]
    digest = hashlib.sha256(content).hexdigest()[:12]
    return f"zerodrill-{deck_id}-{stem}-{digest}" + (f".{ext}" if ext else "")


def build(
    decks: Sequence[Deck],
    *,
    manifest: Manifest | None = None,
    clock: Callable[[], float] = time.time,
    progress: Mapping[str, SchedulingState] | None = None,
) -> Package:
    """Build one package holding ``decks`` (retired cards included, tagged and suspended).

    ``manifest`` is the one kept beside the previous build; ``clock`` is read only when a
    note or note type is new or changed. ``progress`` maps item keys (``deck/card``,
    ``deck/card#cN``) to SM-2 states; cards without one arrive new.
    """
    manifest = manifest or Manifest()
    for deck in decks:
        if deck.id in RESERVED_DECK_IDS:
            raise ExportError(f"deck id '{deck.id}' is reserved for Anki tags; rename the deck")
    now = int(clock())
    media = _collect_media(decks)
    # No collector passes while a build makes its ~100,000 short-lived strings and tuples:
    # none of them forms a reference cycle, so the passes (15-30 ms on 10,000 cards, walking
    # every loaded deck object each time) would find nothing.
    with gc_paused():
        return _build(decks, manifest, now, media, progress or {})


class _NoteRow(NamedTuple):
    """A note as the collection stores it, before its ID and modification time are known."""

    key: str
    card: Card
    deck_id: int
    model_id: int
    guid: str
    tags: str  # space-separated, as in the digest
    fields: str  # joined with \x1f, as Anki stores them
    sort_field: str


def _build(
    decks: Sequence[Deck],
    manifest: Manifest,
    now: int,
    media: _Media,
    progress: Mapping[str, SchedulingState],
) -> Package:
    note_rows: list[_NoteRow] = []
    new_keys: list[str] = []
    records: dict[str, NoteRecord] = {}
    previous = manifest.notes
    for deck in decks:
        did = deck_anki_id(deck.id)
        names = media.names[deck.id]
        # tags_for's tags, joined, with the parts every card of the deck shares made once.
        deck_tag = f"{TAG_ROOT}::{deck.id}"
        kind_tags = {kind: f"{deck_tag} {TAG_ROOT}::kind::{kind.value}" for kind in Kind}
        key_prefix, guid_prefix = f"{deck.id}/", f"{deck.id}__"
        for card in deck.cards:
            key = key_prefix + card.id
            fields = _note_fields(card, names)
            tags = kind_tags[card.kind]
            if card.tags:
                tags += "".join([f" {deck_tag}::{tag}" for tag in card.tags])
            if card.retired:
                tags += " " + RETIRED_TAG
            guid = _guid(guid_prefix + card.id)
            model_id = MODEL_IDS[card.kind]
            joined = "\x1f".join(fields)
            digest = sha256(f"{model_id}\x1e{guid}\x1e{tags}\x1e{joined}".encode()).hexdigest()
            prev = previous.get(key)
            if prev is None:
                new_keys.append(key)
                records[key] = _record((0, digest, now))
            elif prev.digest == digest:
                records[key] = prev
            else:
                records[key] = _record((prev.id, digest, max(now, prev.mod + 1)))
            note_rows.append(_NoteRow(key, card, did, model_id, guid, tags, joined, fields[0]))
    _allocate_ids(records, new_keys, now)

    notetypes: dict[str, NoteTypeRecord] = {}
    for kind in sorted({row.card.kind for row in note_rows}, key=lambda k: k.value):
        nt = note_type(kind)
        key = str(nt.model.model_id)
        prev_nt = manifest.notetypes.get(key)
        if prev_nt is not None and prev_nt.digest == nt.digest:
            notetypes[key] = prev_nt
        else:
            notetypes[key] = NoteTypeRecord(nt.digest, max(now, prev_nt.mod + 1 if prev_nt else 0))

    db, cards, reviewed = _collection(decks, note_rows, records, notetypes, progress)
    data = _zip(db, media.files())
    retired = sum(1 for row in note_rows if row.card.retired)
    return Package(
        data=data,
        manifest=Manifest(records, notetypes),
        decks=len(decks),
        notes=len(note_rows),
        cards=cards,
        retired_notes=retired,
        media=len(media.by_name),
        reviewed_cards=reviewed,
    )


def manifest_path(package_path: Path) -> Path:
    """Where a package's manifest lives: beside it, ``<name>.manifest.json``."""
    return package_path.with_name(package_path.stem + ".manifest.json")


def export(
    decks: Sequence[Deck],
    out: Path,
    *,
    clock: Callable[[], float] = time.time,
    progress: Mapping[str, SchedulingState] | None = None,
) -> PackageStats:
    """Build ``decks`` into ``out`` and update the manifest beside it (both atomically)."""
    mpath = manifest_path(out)
    package = build(decks, manifest=Manifest.load(mpath), clock=clock, progress=progress)
    _write_atomic(out, package.data)
    _write_atomic(mpath, package.manifest.dumps().encode("utf-8"))
    return PackageStats(
        out,
        package.decks,
        package.notes,
        package.cards,
        package.retired_notes,
        package.media,
        package.reviewed_cards,
    )


# --- notes -------------------------------------------------------------------------------------


# _note_fields writes the kind's fields, then these two, in this order.
assert EXTRA_FIELDS == ("extra", "sources")


def _note_fields(card: Card, media: Mapping[str, str]) -> list[str]:
    """The note's fields as HTML, in the note type's order (the kind's own, extra, sources)."""
    given = card.fields
    render = html.render
    if card.kind is Kind.CLOZE:
        out = [render(given["text"], media=media, cloze_field=True)]
    else:
        out = [render(given.get(name, ""), media=media) for name in KIND_FIELDS[card.kind]]
    extra = given.get("extra")
    out.append(render(extra, media=media) if extra else "")
    out.append(_sources(card.refs) if card.refs else "")
    return out


def _sources(refs: Iterable[str]) -> str:
    items = []
    for ref in refs:
        text = html.escape(ref)
        if ref[:8].lower().startswith(("http://", "https://")):
            items.append(f'<li><a href="{text}" rel="noopener noreferrer">{text}</a></li>')
        else:
            items.append(f"<li>{text}</li>")
    return f"<ul>{''.join(items)}</ul>" if items else ""


def _allocate_ids(records: dict[str, NoteRecord], new_keys: list[str], now: int) -> None:
    """Give new notes IDs: creation times in ms, in deck order, clear of every existing ID.

    They are spaced :data:`_ID_STRIDE` apart because a card's ID is its note's ID plus its
    template ordinal, and they end at the build time because Anki refuses IDs from the future.
    """
    if not new_keys:
        return
    taken = [r.id for r in records.values() if r.id]
    start = now * 1000 - len(new_keys) * _ID_STRIDE
    if taken:
        start = max(start, max(taken) + _ID_STRIDE)
    for i, key in enumerate(new_keys):
        _id, digest, mod = records[key]
        records[key] = _record((start + i * _ID_STRIDE, digest, mod))


# --- media -------------------------------------------------------------------------------------


@dataclass
class _Media:
    #: deck id -> {path relative to the deck folder -> packed name}
    names: dict[str, dict[str, str]] = field(default_factory=dict)
    #: packed name -> file content
    by_name: dict[str, bytes] = field(default_factory=dict)

    def files(self) -> list[tuple[str, bytes]]:
        return sorted(self.by_name.items())


def _collect_media(decks: Sequence[Deck]) -> _Media:
    media = _Media()
    for deck in decks:
        folder = deck.folder.resolve()
        names = media.names.setdefault(deck.id, {})
        for card in deck.cards:
            for rel in card.media:
                if rel in names:
                    continue
                source = (folder / rel).resolve()
                # The loader checks this too; the exporter never packs a file from outside.
                if not source.is_relative_to(folder):
                    raise ExportError(f"{deck.path}: image '{rel}' is outside the deck's folder")
                try:
                    content = source.read_bytes()
                except OSError as exc:
                    raise ExportError(
                        f"{deck.path}: cannot read image '{rel}': {exc.strerror or exc}"
                    ) from exc
                name = media_name(deck.id, rel, content)
                names[rel] = name
                media.by_name[name] = content
    return media


# --- the collection ----------------------------------------------------------------------------


def _collection(
    decks: Sequence[Deck],
    note_rows: list[_NoteRow],
    records: Mapping[str, NoteRecord],
    notetypes: Mapping[str, NoteTypeRecord],
    progress: Mapping[str, SchedulingState],
) -> tuple[bytes, int, int]:
    """The package's ``collection.anki2`` (schema 11, as genanki writes it), built in memory."""
    conn = sqlite3.connect(":memory:")
    try:
        # Tables first and indexes after the rows: one sort per index instead of a B-tree
        # insert per row (the file stays deterministic either way).
        tables, indexes = _SCHEMA
        conn.executescript(tables)
        conn.executescript(APKG_COL)
        notes: list[tuple[object, ...]] = []
        cards: list[tuple[object, ...]] = []
        add_note, add_card = notes.append, cards.append
        reviewed = 0
        for position, (key, card, did, model_id, guid, tags, fields, sort_field) in enumerate(
            note_rows, start=1
        ):
            nid, _digest, mod = records[key]
            add_note((nid, guid, model_id, mod, -1, f" {tags} ", fields, sort_field, 0, 0, ""))
            # One card per template (cloze: per deletion number), looked up by Card.items()'s
            # key; a card the review store has never graded arrives new.
            cloze = card.kind is Kind.CLOZE
            new_queue = _SUSPENDED if card.retired else _NEW
            for ordinal in card.ordinals if cloze else (1,):
                ord_ = ordinal - 1
                if ord_ >= _ID_STRIDE:
                    raise _cloze_too_large(card, ordinal)
                state = progress.get(f"{key}#c{ordinal}" if cloze else key) if progress else None
                if state is None or state.due is None:
                    add_card(
                        (nid + ord_, nid, did, ord_, mod, -1, _NEW, new_queue, position)
                        + _NEW_CARD_TAIL
                    )
                else:
                    reviewed += 1
                    add_card(_review_row(nid + ord_, nid, did, ord_, mod, state, card.retired))
        conn.executemany("INSERT INTO notes VALUES(?,?,?,?,?,?,?,?,?,?,?)", notes)
        conn.executemany("INSERT INTO cards VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", cards)
        conn.executescript(indexes)
        models = {key: _model_json(key, rec.mod, decks) for key, rec in notetypes.items()}
        conn.execute(
            "UPDATE col SET crt=?, mod=?, scm=?, conf=?, models=?, decks=?",
            (
                _CREATED_STAMP,
                max((r.mod for r in records.values()), default=_CREATED_STAMP) * 1000,
                _CREATED_STAMP * 1000,
                json.dumps(_conf(len(note_rows)), sort_keys=True),
                json.dumps(models, sort_keys=True),
                json.dumps(_decks_json(conn, decks), sort_keys=True),
            ),
        )
        conn.commit()
        data = bytearray(conn.serialize())
    finally:
        conn.close()
    data[_SQLITE_VERSION_OFFSET : _SQLITE_VERSION_OFFSET + 4] = _PINNED_SQLITE_VERSION
    return bytes(data), len(cards), reviewed


# A new card's row after its position: ivl factor reps lapses left odue odid flags data.
_NEW_CARD_TAIL = (0, 0, 0, 0, 0, 0, 0, 0, "")


def _cloze_too_large(card: Card, ordinal: int) -> ExportError:
    return ExportError(
        f"{card.pos}: cloze number c{ordinal} is too large to export (at most c{_ID_STRIDE})"
    )


def _review_row(
    card_id: int,
    note_id: int,
    deck_id: int,
    ord_: int,
    mod: int,
    state: SchedulingState,
    retired: bool,
) -> tuple[object, ...]:
    # id nid did ord mod usn type queue due ivl factor reps lapses left odue odid flags data
    assert state.due is not None
    queue = _SUSPENDED if retired else _REVIEW
    due = (state.due - CREATED).days
    ivl, factor = max(1, int(state.interval)), int(state.ease_permille)
    reps, lapses = int(state.repetitions), int(state.lapses)
    head = (card_id, note_id, deck_id, ord_, mod, -1, _REVIEW, queue, due)
    return (*head, ivl, factor, reps, lapses, 0, 0, 0, 0, "")


def ease_permille(easiness: Fraction | float) -> int:
    """SM-2's EF as Anki's ``factor``: 2.5 -> 2500, exactly (EF moves in hundredths).

    The review store's states carry this as ``Sm2State.ease_permille``; this is the same
    conversion for an EF given alone.
    """
    from zerodrill.srs.sm2 import Sm2State

    # Sm2State reads a float EF as the decimal it prints as (2.36, not 2.35999...).
    return Sm2State(easiness=easiness).ease_permille  # type: ignore[arg-type]


def _conf(note_count: int) -> dict[str, object]:
    conf = json.loads(_APKG_COL_JSON[0])
    # A v2-scheduler collection with a UTC creation offset: Anki then counts its days on the
    # importing user's local calendar with this rollover hour (see the module docstring).
    conf.update(
        {"schedVer": 2, "rollover": ROLLOVER_HOUR, "creationOffset": 0, "nextPos": note_count + 1}
    )
    return conf


def _model_json(key: str, mod: int, decks: Sequence[Deck]) -> dict[str, object]:
    kind = next(k for k, model_id in MODEL_IDS.items() if str(model_id) == key)
    # genanki's to_json stamps "did" with a deck; a fixed one keeps it stable.
    data: dict[str, object] = note_type(kind).model.to_json(mod, deck_anki_id(decks[0].id))
    return data


def _decks_json(conn: sqlite3.Connection, decks: Sequence[Deck]) -> dict[str, object]:
    (raw,) = conn.execute("SELECT decks FROM col").fetchone()
    out: dict[str, object] = json.loads(raw)
    for deck in decks:
        did = deck_anki_id(deck.id)
        g = genanki.Deck(did, deck.title, html.render(deck.description))
        out[str(did)] = g.to_json()
    return out


# genanki's schema, split into its tables and its indexes.
_SCHEMA = (
    APKG_SCHEMA[: APKG_SCHEMA.index("CREATE INDEX")],
    APKG_SCHEMA[APKG_SCHEMA.index("CREATE INDEX") :],
)
# genanki's default collection config, parsed once from its INSERT statement.
_APKG_COL_JSON: list[str] = re.findall(r"'(\{.*?\})'", APKG_COL, re.DOTALL)[:1]


# --- the zip -----------------------------------------------------------------------------------


def _zip(collection: bytes, media: Sequence[tuple[str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        _zip_entry(z, "collection.anki2", collection)
        index = {str(i): name for i, (name, _data) in enumerate(media)}
        _zip_entry(z, "media", json.dumps(index, sort_keys=True).encode())
        for i, (_name, data) in enumerate(media):
            _zip_entry(z, str(i), data)
    return buf.getvalue()


def _zip_entry(z: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
    info.compress_type = zipfile.ZIP_STORED
    info.create_system = 3
    info.external_attr = 0o100644 << 16
    z.writestr(info, data)


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        # mkstemp makes the file private; a package is meant to be shared.
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
