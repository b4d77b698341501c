"""Anki's reviews of zerodrill's notes, read from what Anki exports or keeps.

:func:`read_reviews` takes a ``.colpkg`` or ``.apkg`` (a zip: ``collection.anki21b``,
zstd-compressed, in Anki 2.1.50 and later; ``collection.anki21`` or ``collection.anki2``
before; newer packages also hold a ``collection.anki2`` that only tells old Ankis to update,
so the newest member present is the one read), or a collection file itself
(``collection.anki2`` in Anki's profile folder). It never writes to the user's file: it reads
a copy made in a temporary folder, the file and its ``-wal`` together, so a collection that
Anki has open (and locked) reads as Anki last wrote it.

Of the review log (``revlog``) it keeps the answers given to cards of notes whose GUIDs are
zerodrill's, as reviews from origin ``"anki"`` numbered by the revlog id (so importing the same
file again adds nothing), graded by :data:`~zerodrill.srs.sm2.ANKI_EASE_TO_GRADE` and dated
on the local calendar with zerodrill's study-day rollover. Rows that record no answer are
skipped and counted: manual changes (revlog type 4, such as *Set due date* or *Forget*, and
type 5, rescheduled by FSRS or by a deck-options change) and any row whose ease is not a
button (0).
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from zerodrill.errors import UserError
from zerodrill.srs.days import study_day
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.sm2 import ANKI_EASE_TO_GRADE

ORIGIN = "anki"
#: Collection schemas read: 11 (Anki 2.1 before 2.1.28, and every legacy export) to 18
#: (current Anki). The tables read (col, notes, cards, revlog) are alike in all of them.
MIN_SCHEMA, MAX_SCHEMA = 11, 18
#: The newest package format known (the ``meta`` member's version: 3 is zstd, 2.1.50+).
MAX_PACKAGE_VERSION = 3
#: A package's collections, newest first.
_MEMBERS = ("collection.anki21b", "collection.anki21", "collection.anki2")
#: The revlog types that are answers: learning, review, relearning, filtered deck.
_ANSWER_TYPES = (0, 1, 2, 3)
_SQLITE_MAGIC = b"SQLite format 3\x00"
_ZIP_MAGIC = b"PK\x03\x04"
_TABLES = {"col", "notes", "cards", "revlog"}
_CHUNK = 1 << 20

#: A note GUID -> its template ordinals -> the item key each card is reviewed under.
NoteKeys = Mapping[str, Mapping[int, str]]


class AnkiImportError(UserError):
    """A file that cannot be read as an Anki collection; the message says which and why."""


@dataclass(frozen=True, slots=True)
class AnkiReviews:
    """What a collection holds for zerodrill."""

    #: Answers given to zerodrill's cards, oldest first, each with its identity.
    reviews: tuple[ReviewEvent, ...]
    #: Notes whose GUIDs are not zerodrill's (left alone).
    foreign_notes: int
    #: Answers to zerodrill notes whose card is in none of the decks (a deleted cloze
    #: deletion, say): no key to log them under.
    unmatched: int
    #: Revlog rows of zerodrill's cards that record no answer (see the module docstring).
    skipped: int


def read_reviews(path: Path, notes: NoteKeys) -> AnkiReviews:
    """The reviews of ``notes`` in the Anki collection or package at ``path``.

    :class:`AnkiImportError` (one line) for anything that is not a collection this reads.
    """
    with tempfile.TemporaryDirectory(prefix="zerodrill-import-") as tmp:
        copy = _copy_collection(path, Path(tmp))
        try:
            conn = sqlite3.connect(copy)
        except sqlite3.Error as exc:
            raise AnkiImportError(f"cannot read {path}: {exc}") from None
        try:
            return _read(conn, notes, path)
        except sqlite3.DatabaseError as exc:
            raise AnkiImportError(f"{path} is not an Anki collection ({exc})") from None
        finally:
            conn.close()


def _copy_collection(path: Path, folder: Path) -> Path:
    """A copy of the collection at ``path`` (taken out of a package) in ``folder``."""
    copy = folder / "collection.anki2"
    try:
        if path.is_dir():
            raise AnkiImportError(f"{path} is a folder, not an Anki collection or package")
        with path.open("rb") as f:
            head = f.read(len(_SQLITE_MAGIC))
        if head.startswith(_ZIP_MAGIC):
            _extract(path, copy)
        elif head == _SQLITE_MAGIC:
            # The -wal first: a checkpoint that runs meanwhile moves pages into the file,
            # which is copied after, so nothing committed is missed.
            wal = path.with_name(path.name + "-wal")
            if wal.is_file():
                shutil.copyfile(wal, folder / (copy.name + "-wal"))
            shutil.copyfile(path, copy)
        else:
            raise AnkiImportError(
                f"{path} is not an Anki collection or package (.colpkg, .apkg, collection.anki2)"
            )
    except FileNotFoundError:
        raise AnkiImportError(f"{path}: no such file") from None
    except OSError as exc:
        raise AnkiImportError(f"cannot read {path}: {exc.strerror or exc}") from None
    return copy


def _extract(package: Path, out: Path) -> None:
    try:
        with zipfile.ZipFile(package) as z:
            names = set(z.namelist())
            version = _package_version(z.read("meta")) if "meta" in names else 0
            if version > MAX_PACKAGE_VERSION:
                raise AnkiImportError(
                    f"{package} is from a newer Anki (package format {version}; zerodrill "
                    f"reads up to {MAX_PACKAGE_VERSION}): export it with 'Support older Anki "
                    "versions' ticked, or upgrade zerodrill"
                )
            member = next((m for m in _MEMBERS if m in names), None)
            if member is None:
                raise AnkiImportError(f"{package} is a zip file but holds no Anki collection")
            with z.open(member) as src, out.open("wb") as dst:
                if member.endswith("b"):
                    _unzstd(src, dst)
                else:
                    shutil.copyfileobj(src, dst, _CHUNK)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error) as exc:
        raise AnkiImportError(
            f"{package} is a damaged or incomplete package (cut short while copying?): {exc}"
        ) from None


def _unzstd(src: IO[bytes], dst: IO[bytes]) -> None:
    # Imported here: only packages from Anki 2.1.50 and later need it.
    import zstandard

    try:
        zstandard.ZstdDecompressor().copy_stream(src, dst, read_size=_CHUNK, write_size=_CHUNK)
    except zstandard.ZstdError as exc:
        raise zlib.error(f"its collection does not decompress ({exc})") from None


def _package_version(meta: bytes) -> int:
    """The version in a package's ``meta`` (a protobuf message: field 1, a varint)."""
    if not meta.startswith(b"\x08"):
        return 0
    version, shift = 0, 0
    for byte in meta[1:]:
        version |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    return version


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
    ours: dict[int, Mapping[int, str]] = {}
    foreign = 0
    for nid, guid in conn.execute("SELECT id, guid FROM notes"):
        keys = notes.get(guid)
        if keys is None:
            foreign += 1
        else:
            ours[nid] = keys
    cards: dict[int, str | None] = {}
    for cid, nid, ord_ in conn.execute("SELECT id, nid, ord FROM cards"):
        if nid in ours:
            cards[cid] = ours[nid].get(ord_)
    reviews, unmatched, skipped = [], 0, 0
    for rid, cid, ease, kind, taken in conn.execute(
        "SELECT id, cid, ease, type, time FROM revlog ORDER BY id"
    ):
        if cid not in cards:
            continue
        key = cards[cid]
        grade = ANKI_EASE_TO_GRADE.get(ease)
        if kind not in _ANSWER_TYPES or grade is None or not isinstance(rid, int) or rid <= 0:
            skipped += 1
            continue
        if key is None:
            unmatched += 1
            continue
        try:
            at = datetime.fromtimestamp(rid / 1000, tz=UTC).astimezone()
        except (OverflowError, OSError, ValueError):
            skipped += 1
            continue
        answer_ms = taken if isinstance(taken, int) and taken >= 0 else None
        reviews.append(ReviewEvent(ORIGIN, rid, key, at, study_day(at), grade, answer_ms=answer_ms))
    return AnkiReviews(tuple(reviews), foreign, unmatched, skipped)
