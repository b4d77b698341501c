"""The decks' notes brought up to date in a collection: the export's own package (with a
manifest of its own in the sync folder) imported by Anki's importer, which updates a note it
has by GUID when the deck's copy is newer, adds a new one and touches nothing else. It never
suspends a card it has already, so the cards of retired notes are suspended here.

"Newer" is by time alone: a terminal's first build of the same notes is newer than the
collection's, and the importer would rewrite them all, their times only, for every device to
download again. So a note whose content the import left as it was gets its time and sync
number back: a note is written only when its content changed.

The import itself is the most of a sync with nothing new on a large deck (``python
tests/bench/bench_anki_notes.py``), so the collection records, in its config, the digest of
the package each record last imported: the same bytes again, with every note still there,
would change nothing, and are not imported.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection as Collection_
from collections.abc import Container, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from zerodrill.anki_sync.backend import AnkiSyncError, db, insert_rows
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


#: The collection's config key: {record: digest of the package that record last imported}.
IMPORTED_KEY = "zerodrillImported"
#: Records kept in it (one per terminal and collection file; the oldest goes first).
_RECORDS_KEPT = 32


class Built(Struct, frozen=True):
    """The decks' package as written: the manifest to keep once it is imported, and the
    SHA-256 of its bytes."""

    manifest: Manifest
    digest: str


def build_package(decks: Sequence[Deck], manifest_file: Path, out: Path) -> Built:
    """Write the decks' package to ``out``."""
    try:
        package = apkg.build(decks, manifest=Manifest.load(manifest_file))
    except apkg.ExportError as exc:
        raise AnkiSyncError(str(exc)) from None
    try:
        out.write_bytes(package.data)
    except OSError as exc:
        raise AnkiSyncError(f"cannot write {out}: {exc.strerror or exc}") from None
    digest = hashlib.sha256(package.data).hexdigest()
    return Built(package.manifest, digest)


def bring_up_to_date(
    col: Collection, built: Built, package: Path, guids: Collection_[str], record: str
) -> tuple[int, int]:
    """Import ``package`` (as :func:`import_package`) unless ``record`` last imported these
    very bytes into this collection and every note of ``guids`` is still there: then the
    import would change nothing (Anki updates a note only from a newer copy, these are the
    copies it had, and it brings a note's images only with the note). The record travels
    with the collection, so a backup restored or a collection downloaded whole brings its
    own."""
    imported = _imported(col)
    if imported.get(record) == built.digest and _all_there(col, guids):
        return 0, 0
    done = import_package(col, package, guids)
    imported.pop(record, None)
    kept = [*imported.items()][-(_RECORDS_KEPT - 1) :]
    col.set_config(IMPORTED_KEY, {**dict(kept), record: built.digest})
    return done


def keep_manifest(manifest: Manifest, manifest_file: Path) -> None:
    try:
        write_together([(manifest_file, manifest.dumps().encode("utf-8"))])
    except OSError as exc:
        raise AnkiSyncError(f"cannot write {manifest_file}: {exc.strerror or exc}") from None


def _imported(col: Collection) -> dict[str, str]:
    """The collection's record of imports (another device may have written anything there)."""
    value = col.get_config(IMPORTED_KEY, None)
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}


def _all_there(col: Collection, guids: Collection_[str]) -> bool:
    have = {guid for (guid,) in db(col).all("SELECT guid FROM notes")}
    return all(guid in have for guid in guids)


def import_package(col: Collection, package: Path, guids: Container[str]) -> tuple[int, int]:
    """Import the package's notes (no scheduling), those of ``guids``; (added, updated)."""
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
    insert_rows(
        col,
        "WITH v(id, mod, usn) AS ({values}) "
        "UPDATE notes SET mod = v.mod, usn = v.usn FROM v WHERE notes.id = v.id",
        same,
    )
    # Their note types alike (the importer rewrites one whole, its templates included).
    for ntid, (content, stamps) in _notetypes(col).items():
        if ntid in kinds_before and kinds_before[ntid][0] == content:
            (mtime, usn), templates = kinds_before[ntid][1]
            if stamps != kinds_before[ntid][1]:
                sql = db(col).execute
                sql("UPDATE notetypes SET mtime_secs = ?, usn = ? WHERE id = ?", mtime, usn, ntid)
                for ord_, (t_mtime, t_usn) in templates:
                    sql(
                        "UPDATE templates SET mtime_secs = ?, usn = ? WHERE ntid = ? AND ord = ?",
                        t_mtime, t_usn, ntid, ord_,
                    )  # fmt: skip
    return len(done.log.new), len(done.log.updated) - len(same)


def _notes(
    col: Collection, guids: Container[str]
) -> dict[int, tuple[tuple[object, ...], tuple[int, int]]]:
    """The notes of ``guids``: id -> (what Anki shows of it, (its time, its sync number))."""
    rows = db(col).all("SELECT id, guid, mid, flds, tags, mod, usn FROM notes")
    return {
        nid: ((mid, flds, tags), (mod, usn))
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
    except ValueError:
        other = config.other
    config.other = b""
    return config.SerializeToString(deterministic=True), json.dumps(other, sort_keys=True)


def our_cards(col: Collection, notes: NoteKeys) -> dict[str, CardRow]:
    out: dict[str, CardRow] = {}
    rows = db(col).all(
        "SELECT n.guid, c.ord, c.id, c.type, c.queue, c.due, c.ivl, c.factor, c.reps, "
        "c.lapses, c.left, c.odid, c.odue, c.data FROM cards c JOIN notes n ON n.id = c.nid"
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
