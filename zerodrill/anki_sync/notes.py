"""The decks' notes brought up to date in a collection: the export's own package (with a
manifest of its own in the sync folder) imported by Anki's importer, which updates a note it
has by GUID when the deck's copy is newer, adds a new one and touches nothing else. It never
suspends a card it has already, so the cards of retired notes are suspended here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct

from zerodrill.anki_sync.backend import AnkiSyncError, db
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


def build_package(decks: Sequence[Deck], manifest_file: Path, out: Path) -> Manifest:
    """Write the decks' package to ``out``; the manifest to keep once it is imported."""
    try:
        package = apkg.build(decks, manifest=Manifest.load(manifest_file))
    except apkg.ExportError as exc:
        raise AnkiSyncError(str(exc)) from None
    try:
        out.write_bytes(package.data)
    except OSError as exc:
        raise AnkiSyncError(f"cannot write {out}: {exc.strerror or exc}") from None
    return package.manifest


def keep_manifest(manifest: Manifest, manifest_file: Path) -> None:
    try:
        write_together([(manifest_file, manifest.dumps().encode("utf-8"))])
    except OSError as exc:
        raise AnkiSyncError(f"cannot write {manifest_file}: {exc.strerror or exc}") from None


def import_package(col: Collection, package: Path) -> tuple[int, int]:
    """Import the package's notes (no scheduling); (added, updated)."""
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
    try:
        done = col.import_anki_package(
            ImportAnkiPackageRequest(package_path=str(package), options=options)
        )
    except BackendError as exc:
        raise AnkiSyncError(f"Anki could not import the decks' notes: {exc}") from None
    return len(done.log.new), len(done.log.updated)


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
