"""The decks' notes brought up to date in a collection: the export's own package (with a
manifest of its own in the sync folder) imported by Anki's importer, which updates a note it
has by GUID when the deck's copy is newer, adds a new one and touches nothing else. It never
suspends a card it has already, so the cards of retired notes are suspended here.

"Newer" is by time alone: a terminal's first build of the same notes is newer than the
collection's, and the importer would rewrite them all, their times only, for every device to
download again. So a note whose content the import left as it was gets its time and sync
number back: a note is written only when its content changed.

Anki updates a note (or note type) only from a copy whose time is later than its own. So when
every note of the package is in the collection with a time no earlier than the package's (and
every note type likewise), the import would change nothing and is not run: it was most of a
sync with nothing new on a large deck (``python tests/bench/bench_anki_notes.py``). A note
whose time was given back after an import is kept in the manifest with that time, so the
next build carries it and the next run finds nothing newer.
"""

from __future__ import annotations

import json
from collections.abc import Container, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from zerodrill.anki_sync.backend import AnkiSyncError, db, update_rows
from zerodrill.atomic_write import write_together
from zerodrill.deck.model import Deck
from zerodrill.export import apkg
from zerodrill.export.manifest import Manifest
from zerodrill.srs.anki_import import NoteKeys as NoteKeys

if TYPE_CHECKING:
    from anki.collection import Collection


class CardRow(Struct, frozen=True):
    key: str
    cid: int
    type: int
    queue: int
    due: int
    ivl: int
    factor: int
    reps: int
    lapses: int
    left: int
    odid: int
    odue: int
    #: Anki's JSON of the card's other facts (FSRS's memory state among them).
    data: str = ""


def prepare_package(decks: Sequence[Deck], manifest_file: Path) -> apkg.Prepared:
    """The decks' package worked out against the manifest kept in ``manifest_file``: the
    manifest to keep once it is imported, its file made by :func:`bring_up_to_date` only if
    the collection lacks something of it."""
    try:
        return apkg.prepare(decks, manifest=Manifest.load(manifest_file))
    except apkg.ExportError as exc:
        raise AnkiSyncError(str(exc)) from None


def _write_package(prepared: apkg.Prepared, out: Path) -> None:
    try:
        data = prepared.package().data
    except apkg.ExportError as exc:
        raise AnkiSyncError(str(exc)) from None
    try:
        out.write_bytes(data)
    except OSError as exc:
        raise AnkiSyncError(f"cannot write {out}: {exc.strerror or exc}") from None


def bring_up_to_date(
    col: Collection, prepared: apkg.Prepared, package: Path, notes: NoteKeys
) -> tuple[int, int, Manifest]:
    """Import the decks' package (:func:`prepare_package`, written to ``package`` first),
    holding the notes of ``notes``, as :func:`import_package` does, unless nothing in it is
    newer than the collection's copy; (added, updated, the manifest to keep)."""
    manifest = prepared.manifest
    guids = _note_keys(notes)
    if not _anything_newer(col, manifest, guids):
        return 0, 0, manifest
    _write_package(prepared, package)
    added, updated, kept_notes, kept_kinds = import_package(col, package, guids)
    records = dict(manifest.notes)
    for guid, mod in kept_notes.items():
        record = records[guids[guid]]
        records[guids[guid]] = record._replace(mod=min(record.mod, mod))
    kinds = dict(manifest.notetypes)
    for ntid, mtime in kept_kinds.items():
        if (kind := kinds.get(str(ntid))) is not None:
            kinds[str(ntid)] = kind._replace(mod=min(kind.mod, mtime))
    return added, updated, Manifest(records, kinds)


def _note_keys(notes: NoteKeys) -> dict[str, str]:
    """Each note's GUID -> its key in the manifest (``deck/card``: a cloze deletion's item
    key without its ``#cN``)."""
    return {
        guid: next(iter(ords.values())).partition("#")[0] for guid, ords in notes.items() if ords
    }


def _anything_newer(col: Collection, manifest: Manifest, guids: Mapping[str, str]) -> bool:
    """Whether the import would change something: a note (or note type) of the package that
    the collection lacks or holds with an earlier time."""
    have: dict[str, int] = {guid: mod for guid, mod in db(col).all("SELECT guid, mod FROM notes")}
    for guid, key in guids.items():
        record = manifest.notes.get(key)
        if record is None or have.get(guid, -1) < record.mod:
            return True
    kinds: dict[int, int] = {
        ntid: mtime for ntid, mtime in db(col).all("SELECT id, mtime_secs FROM notetypes")
    }
    return any(kinds.get(int(ntid), -1) < record.mod for ntid, record in manifest.notetypes.items())


def keep_manifest(manifest: Manifest, manifest_file: Path) -> None:
    try:
        write_together([(manifest_file, manifest.dumps().encode("utf-8"))])
    except OSError as exc:
        raise AnkiSyncError(f"cannot write {manifest_file}: {exc.strerror or exc}") from None


def import_package(
    col: Collection, package: Path, guids: Container[str]
) -> tuple[int, int, dict[str, int], dict[int, int]]:
    """Import the package's notes (no scheduling), those of ``guids``; (added, updated, and
    the times given back: by GUID for notes, by id for note types)."""
    from anki.collection import ImportAnkiPackageOptions, ImportAnkiPackageRequest
    from anki.errors import BackendError
    from anki.import_export_pb2 import IMPORT_ANKI_PACKAGE_UPDATE_CONDITION_IF_NEWER as IF_NEWER

    options = ImportAnkiPackageOptions(
        merge_notetypes=False,
        update_notes=IF_NEWER,
        update_notetypes=IF_NEWER,
        with_scheduling=False,
        with_deck_configs=False,
    )
    before, kinds_before = _notes(col, guids), _notetypes(col)
    try:
        done = col.import_anki_package(
            ImportAnkiPackageRequest(package_path=str(package), options=options)
        )
    except BackendError as exc:
        raise AnkiSyncError(f"Anki could not import the decks' notes: {exc}") from None
    after = _notes(col, guids)
    same = [
        (nid, *before[nid][1])
        for nid, (content, stamp) in after.items()
        if nid in before and before[nid][0] == content and before[nid][1] != stamp
    ]
    kept_notes: dict[str, int] = {str(before[nid][0][0]): mod for nid, mod, _ in same}
    update_rows(col, "notes", ("mod", "usn"), same)
    # Their note types alike (the importer rewrites one whole, its templates included).
    kept_kinds: dict[int, int] = {}
    for ntid, (content, stamps) in _notetypes(col).items():
        if ntid in kinds_before and kinds_before[ntid][0] == content:
            (mtime, usn), templates = kinds_before[ntid][1]
            if stamps != kinds_before[ntid][1]:
                kept_kinds[ntid] = mtime
                sql = db(col).execute
                sql("UPDATE notetypes SET mtime_secs = ?, usn = ? WHERE id = ?", mtime, usn, ntid)
                for ord_, (t_mtime, t_usn) in templates:
                    sql(
                        "UPDATE templates SET mtime_secs = ?, usn = ? WHERE ntid = ? AND ord = ?",
                        t_mtime, t_usn, ntid, ord_,
                    )  # fmt: skip
    return len(done.log.new), len(done.log.updated) - len(same), kept_notes, kept_kinds


def _notes(
    col: Collection, guids: Container[str]
) -> dict[int, tuple[tuple[object, ...], tuple[int, int]]]:
    """The notes of ``guids``: id -> ((its GUID and what Anki shows of it), (its time, its
    sync number))."""
    rows = db(col).all("SELECT id, guid, mid, flds, tags, mod, usn FROM notes")
    return {
        nid: ((guid, mid, flds, tags), (mod, usn))
        for nid, guid, mid, flds, tags, mod, usn in rows
        if guid in guids
    }


_Stamps = tuple[tuple[int, int], tuple[tuple[int, tuple[int, int]], ...]]


def _notetypes(col: Collection) -> dict[int, tuple[tuple[object, ...], _Stamps]]:
    """Every note type: id -> (what it holds, (its time and sync number, and each template's
    by ordinal))."""
    from anki.notetypes_pb2 import Notetype

    fields: dict[int, list[object]] = {}
    for ntid, ord_, name, config in db(col).all(
        "SELECT ntid, ord, name, config FROM fields ORDER BY ord"
    ):
        fields.setdefault(ntid, []).append((ord_, name, _config(Notetype.Field.Config, config)))
    templates: dict[int, list[object]] = {}
    template_stamps: dict[int, list[tuple[int, tuple[int, int]]]] = {}
    for ntid, ord_, name, config, mtime, usn in db(col).all(
        "SELECT ntid, ord, name, config, mtime_secs, usn FROM templates ORDER BY ord"
    ):
        content = (ord_, name, _config(Notetype.Template.Config, config))
        templates.setdefault(ntid, []).append(content)
        template_stamps.setdefault(ntid, []).append((ord_, (mtime, usn)))
    return {
        ntid: (
            (
                name,
                _config(Notetype.Config, config),
                tuple(fields.get(ntid, ())),
                tuple(templates.get(ntid, ())),
            ),
            ((mtime, usn), tuple(template_stamps.get(ntid, ()))),
        )
        for ntid, name, config, mtime, usn in db(col).all(
            "SELECT id, name, config, mtime_secs, usn FROM notetypes"
        )
    }


def _config(kind: Any, blob: bytes | list[int]) -> tuple[bytes, object]:
    """A note type's (or its field's, or template's) config as compared: Anki writes the JSON
    of its ``other`` part with its keys in any order."""
    config = kind()
    config.ParseFromString(bytes(blob))
    try:
        other = json.loads(config.other) if config.other else None
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
        other = config.other
    config.other = b""
    return config.SerializeToString(deterministic=True), json.dumps(other, sort_keys=True)


def our_cards(col: Collection, notes: NoteKeys) -> dict[str, CardRow]:
    out: dict[str, CardRow] = {}
    # Each card's note looked up by its id, not joined: Anki's statistics of a collection
    # filled since they were taken call both tables tiny, and SQLite then scans every note
    # for each card (bench_anki_sync.py's collection).
    rows = db(col).all(
        "SELECT (SELECT guid FROM notes WHERE id = c.nid), c.ord, c.id, c.type, c.queue, "
        "c.due, c.ivl, c.factor, c.reps, c.lapses, c.left, c.odid, c.odue, c.data FROM cards c"
    )
    for guid, ord_, *rest in rows:
        key = notes.get(guid, {}).get(ord_)
        if key is not None:
            out[key] = CardRow(key, *rest)
    return out


def suspend_retired(col: Collection, cards: Mapping[str, CardRow], retired: set[str]) -> int:
    """Suspend the cards of retired notes not suspended yet; how many."""
    ids = [row.cid for key, row in cards.items() if key in retired and row.queue != -1]
    if ids:
        from anki.cards import CardId

        col.sched.suspend_cards([CardId(cid) for cid in ids])
    return len(ids)


def retired_keys(decks: Sequence[Deck]) -> set[str]:
    return {item.key for d in decks for card in d.cards if card.retired for item in card.items()}
