"""Decks → an Anki package (``.apkg``) that updates in place and builds reproducibly.

Two properties pull against each other here:

* **Update in place.** Anki matches an imported note to the user's copy by GUID, and replaces
  the user's copy only when the incoming note's modification time is *newer*. A package that
  stamps every note with one fixed time can therefore never deliver an edit.
* **Reproducible.** The same sources must give the same bytes, so no time may come from the
  clock at build time.

Both hold through the manifest kept beside each package (:mod:`zerodrill.export.manifest`),
which remembers each note's ID and time and gives a new time only to what changed. That new
time is the build's, or ``SOURCE_DATE_EPOCH`` when it is set (the reproducible-builds
convention, which a release sets to its commit's time), so that two builds of one release
commit from the same manifest are the same bytes, new notes' IDs included.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from msgspec import Struct

from zerodrill.atomic_write import write_together
from zerodrill.deck.control_chars import shown
from zerodrill.deck.model import RESERVED_DECK_IDS, Deck
from zerodrill.errors import ExportError
from zerodrill.export.collection import SchedulingState, collection
from zerodrill.export.formats import ExportStats
from zerodrill.export.manifest import (
    MAX_NOTE_ID,
    Manifest,
    manifest_path,
    note_records,
    notetype_records,
)
from zerodrill.export.notes import RETIRED_SEARCH, RETIRED_TAG, notes_of
from zerodrill.export.notetypes import note_type
from zerodrill.export.package import collect_media, package_zip

__all__ = [
    "RETIRED_SEARCH",
    "RETIRED_TAG",
    "ExportError",
    "Manifest",
    "Package",
    "Prepared",
    "SchedulingState",
    "build",
    "export",
    "manifest_path",
    "prepare",
]


class Package(Struct, frozen=True):
    """A built package: its bytes, the manifest to keep beside it, and what it holds."""

    data: bytes
    manifest: Manifest
    stats: ExportStats


def build(
    decks: Sequence[Deck],
    *,
    manifest: Manifest | None = None,
    clock: Callable[[], float] = time.time,
    progress: Mapping[str, SchedulingState] | None = None,
) -> Package:
    """Build one package holding ``decks`` (retired cards included, tagged, and suspended
    where Anki keeps it: see :mod:`zerodrill.export.notes`).

    ``manifest`` is the one kept beside the previous build; ``clock`` gives the time taken by
    notes and note types that are new or changed. ``progress`` maps item keys (``deck/card``,
    ``deck/card#cN``) to their schedules; cards without one arrive new.
    """
    return prepare(decks, manifest=manifest, clock=clock, progress=progress).package()


class Prepared:
    """A package's notes worked out, with the manifest to keep beside it; its bytes made only
    when :meth:`package` is asked. ``anki sync`` imports the package only when the collection
    lacks something of it, which the manifest alone tells: most syncs make none
    (bench_anki_notes.py, a sync with nothing newer)."""

    def __init__(self, manifest: Manifest, given: Manifest, make: Callable[[], Package]) -> None:
        self.manifest = manifest
        #: The manifest it was worked out against (kept beside the previous build).
        self.given = given
        self._make = make

    def package(self) -> Package:
        return self._make()


def prepare(
    decks: Sequence[Deck],
    *,
    manifest: Manifest | None = None,
    clock: Callable[[], float] = time.time,
    progress: Mapping[str, SchedulingState] | None = None,
) -> Prepared:
    """:func:`build`, its bytes left for :meth:`Prepared.package` to make."""
    given = manifest = manifest or Manifest()
    for deck in decks:
        if deck.id in RESERVED_DECK_IDS:
            raise ExportError(f"deck id '{deck.id}' is reserved for Anki tags; rename the deck")
    now = int(clock())
    media = collect_media(decks)
    notes = notes_of(decks, media.names)
    records = note_records({note.key: note.digest for note in notes}, manifest, now)
    kinds = sorted({note.card.kind for note in notes}, key=lambda kind: kind.name)
    notetypes = notetype_records(
        {str(note_type(kind).model.model_id): note_type(kind).digest for kind in kinds},
        manifest,
        now,
    )
    # The notes that left the decks stay in the manifest: their IDs are never given again, a
    # card that comes back gets its own back, and each export warns until it is retired.
    gone = {key: rec for key, rec in manifest.notes.items() if key not in records}
    kept = Manifest({**records, **gone}, notetypes)

    def make() -> Package:
        db, cards, reviewed = collection(decks, notes, records, notetypes, progress or {})
        ours = {f"{deck.id}/" for deck in decks}
        return Package(
            data=package_zip(db, media.files()),
            manifest=kept,
            stats=ExportStats(
                decks=len(decks),
                notes=len(notes),
                cards=cards,
                retired_notes=sum(1 for note in notes if note.card.retired),
                media=len(media.by_name),
                reviewed_cards=reviewed,
                vanished=tuple(sorted(k for k in gone if k[: k.find("/") + 1] in ours)),
            ),
        )

    return Prepared(kept, given, make)


def build_time() -> float:
    """``SOURCE_DATE_EPOCH`` (whole seconds since 1970) when set, else the time now."""
    given = os.environ.get("SOURCE_DATE_EPOCH")
    if given is None or given == "":
        return time.time()
    if not given.isdecimal() or not 0 < int(given) < MAX_NOTE_ID // 1000:
        raise ExportError(
            f"SOURCE_DATE_EPOCH={shown(given)}: give a time in whole seconds since 1970 "
            "(a release uses its commit's: git log -1 --format=%ct)"
        )
    return float(int(given))


def export(
    decks: Sequence[Deck],
    out: Path,
    *,
    clock: Callable[[], float] | None = None,
    progress: Mapping[str, SchedulingState] | None = None,
) -> ExportStats:
    """Build ``decks`` into ``out`` and update the manifest beside it, together.

    Both are written in full before either replaces its file, so a failed write (a full disk)
    changes neither. The manifest then goes first: it records the IDs and times the package
    is derived from, so an export killed between the two leaves a manifest from which a rerun
    on the same decks writes that very package (and the manifest again, unchanged). The other
    order would let a rerun give new notes IDs other than those in a package already out.
    """
    mpath = manifest_path(out)
    clock = clock or build_time
    package = build(decks, manifest=Manifest.load(mpath), clock=clock, progress=progress)
    try:
        write_together([(mpath, package.manifest.dumps().encode("utf-8")), (out, package.data)])
    except OSError as exc:
        raise ExportError(f"cannot write {exc.filename or out}: {exc.strerror or exc}") from exc
    return package.stats
