"""A dry run's look at the server: what it holds that zerodrill's copy of the collection lacks.

Anki's backend offers no read-only sync, but its protocol is stateful: ``start`` opens a
transaction on the server, ``chunk`` hands over the server's changed review log, cards and
notes, and ``abort`` rolls the transaction back. So the dry run speaks the protocol itself
(zstd-compressed JSON over HTTP, as Anki's own client does), asks for the server's changes
only, sends none of the copy's, and always ends with ``abort``: the server keeps nothing of
the visit, not even a new modification time. The changes are merged into the dry run's
scratch copy as Anki's client merges them (a card or note changed on both sides since the last
sync is the newer one), so that the rest of the run counts what a real sync would move. So are
the server's decks and their presets, as Anki's client takes them (the copy's where it changed
them later): a card moved into a deck made on another device comes with it, and its preset is
the one the run reads (:mod:`.preset`). Note type and tag changes are left out: zerodrill reads
none of them.

The other machines' files of events (:mod:`.media_transport`) are fetched read-only too,
through Anki's media protocol, asking only for what changes nothing on the server (its
media's number, the list of its changes since the collection's media last synced, the files):
those the collection's media lack go into the scratch copy's media, never the user's, each
checked as any file of events is (its exact name, its size).
"""

from __future__ import annotations

import io
import json
import os
import secrets
import sqlite3
import sys
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

import msgspec

from zerodrill.anki_sync.backend import AnkiSyncError, Value, db, insert_rows
from zerodrill.anki_sync.login import HostKey
from zerodrill.anki_sync.media_transport import MAX_FILE_BYTES, is_event_file
from zerodrill.anki_sync.server import where
from zerodrill.anki_sync.workcopy import media_folder
from zerodrill.atomic_write import write_atomic

if TYPE_CHECKING:
    from anki.collection import Collection

#: Anki's sync protocol version (11 since Anki 2.1.57, still in 25.x and 26.x).
_VERSION = 11
_ANKIWEB = "https://sync.ankiweb.net/"
_TIMEOUT_S = 60
#: The most a reply may decompress to: the server's own ceiling for a payload (300 MB).
_MAX_REPLY = 300 * 1024 * 1024
#: The files the media protocol sends in one zip at most (Anki's own client asks for as many).
_FILES_IN_ZIP = 25
#: The most a zip's list of names may be: 25 names (the server's own ceiling is 50 kB).
_MAX_META_BYTES = 64 * 1024

T = TypeVar("T")


class _Meta(msgspec.Struct):
    mod: int
    scm: int
    usn: int
    cont: bool = True
    msg: str = ""


class _Graves(msgspec.Struct):
    cards: list[int] = []
    notes: list[int] = []


RevlogEntry = tuple[int, int, int, int, int, int, int, int, int]
# id nid did ord mod usn type queue due ivl factor reps lapses left odue odid flags data
CardEntry = tuple[
    int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, str
]
# id guid mid mod usn tags flds sfld csum flags data (sfld and csum are sent empty)
NoteEntry = tuple[int, str, int, int, int, str, str, Any, Any, int, str]


class _Chunk(msgspec.Struct):
    done: bool = False
    revlog: list[RevlogEntry] = []
    cards: list[CardEntry] = []
    notes: list[NoteEntry] = []


#: A deck or a preset as Anki's protocol sends it (the JSON of Anki's legacy API).
_Legacy = dict[str, Any]


class _Changes(msgspec.Struct):
    """The server's changes that are not chunked: of them zerodrill reads the decks and their
    presets (the note types and tags, not)."""

    decks: tuple[list[_Legacy], list[_Legacy]] = ([], [])


class _MediaBegin(msgspec.Struct):
    usn: int


class _MediaReply(msgspec.Struct):
    """A media call's reply: what it holds, or why not."""

    data: msgspec.Raw = msgspec.Raw(b"null")
    err: str = ""


#: A change of the server's media: the file's name, its number, its SHA-1 ("" once deleted).
MediaChange = tuple[str, int, str]


class Pulled(msgspec.Struct, frozen=True):
    """What the server held that the copy lacked, merged into it."""

    reviews: int = 0
    cards: int = 0
    notes: int = 0
    #: The server needs a full sync: nothing was fetched (a real sync would download it).
    full_sync: bool = False


def _read_capped(raw: BinaryIO) -> bytes | None:
    """All of ``raw``; None past :data:`_MAX_REPLY`."""
    parts, size = [], 0
    while part := raw.read(1 << 20):
        size += len(part)
        if size > _MAX_REPLY:
            return None
        parts.append(part)
    return b"".join(parts)


def _platform() -> str:
    """The platform as Anki's own client names it in its version (Rust's OS names)."""
    return {"darwin": "macos", "win32": "windows"}.get(sys.platform, sys.platform)


class _Client:
    def __init__(self, key: HostKey) -> None:
        self.endpoint = key.endpoint or _ANKIWEB
        self.hkey = key.hkey
        self.server = where(key.endpoint)
        self.session = secrets.token_hex(4)
        from anki.buildinfo import version

        self.client_version = f"anki,{version} (zerodrill),{_platform()}"

    def call(self, method: str, body: object, into: type[T]) -> T:
        return self.decoded(self.fetch(f"sync/{method}", body), into)

    def decoded(self, data: bytes, into: type[T]) -> T:
        try:
            return msgspec.json.decode(data or b"null", type=into)
        except msgspec.ValidationError as exc:
            raise AnkiSyncError(
                f"{self.server} sent a reply Anki's protocol has not: {exc}"
            ) from None

    def media(self, method: str, body: object, into: type[T]) -> T:
        """A call of the media protocol, whose replies are wrapped with an error text."""
        reply = self.decoded(self.fetch(f"msync/{method}", body), _MediaReply)
        if reply.err:
            raise AnkiSyncError(f"{self.server} refused to list its media: {reply.err[:200]}")
        return self.decoded(reply.data, into)

    def fetch(self, path: str, body: object) -> bytes:
        """The reply to ``body`` sent to ``path`` under the endpoint, decompressed."""
        import zstandard

        header = {"v": _VERSION, "k": self.hkey, "c": self.client_version, "s": self.session}
        request = urllib.request.Request(
            f"{self.endpoint}{path}",
            data=zstandard.ZstdCompressor().compress(json.dumps(body).encode()),
            headers={"anki-sync": json.dumps(header), "Content-Type": "application/octet-stream"},
        )
        try:
            with urllib.request.urlopen(request, timeout=_TIMEOUT_S) as reply:  # noqa: S310
                with zstandard.ZstdDecompressor().stream_reader(reply) as raw:
                    data = _read_capped(raw)
        except urllib.error.HTTPError as exc:
            if exc.code == 308 and path == "sync/meta" and exc.headers.get("Location"):
                # AnkiWeb moved the account: asked there, not kept (a dry run saves nothing).
                self.endpoint = str(exc.headers["Location"])
                return self.fetch(path, body)
            if exc.code == 403:
                raise AnkiSyncError(
                    f"{self.server} no longer accepts zerodrill's login (it expired or the "
                    "password changed): run 'zerodrill anki login' again"
                ) from None
            raise AnkiSyncError(
                f"the sync server {self.server} failed while asked what changed "
                f"(HTTP {exc.code}); nothing was changed on either side"
            ) from None
        except (OSError, zstandard.ZstdError) as exc:
            raise AnkiSyncError(
                f"cannot reach the sync server {self.server} while asking what changed "
                f"({exc}); nothing was changed on either side: check the address and the "
                "connection"
            ) from None
        if data is None:
            raise AnkiSyncError(f"{self.server} sent more than a sync reply holds")
        return data

    @contextmanager
    def session_open(self, usn: int, local_is_newer: bool) -> Iterator[_Graves]:
        """The server's sync state opened (its transaction begun), always aborted after."""
        graves = self.call("start", {"minUsn": usn, "lnewer": local_is_newer}, _Graves)
        try:
            yield graves
        finally:
            self.call("abort", {}, type(None))


def pull(col: Collection, key: HostKey) -> Pulled:
    """Merge into ``col`` (a dry run's scratch copy of zerodrill's collection) what the server
    holds that it lacks, leaving the server as it was."""
    client = _Client(key)
    usn, mod, scm = db(col).first("SELECT usn, mod, scm FROM col") or (0, 0, 0)
    meta = client.call("meta", {"v": _VERSION, "cv": client.client_version}, _Meta)
    if not meta.cont:
        raise AnkiSyncError(f"{client.server} refused the sync: {meta.msg}")
    if meta.mod == mod:
        return Pulled()
    if meta.scm != scm:
        return Pulled(full_sync=True)
    chunks = []
    with client.session_open(usn, mod > meta.mod) as graves:
        # The copy's own changes are not sent: the server's come back all the same.
        none: dict[str, list[Any]] = {"models": [], "decks": [[], []], "tags": []}
        changes = client.call("applyChanges", {"changes": none}, _Changes)
        while True:
            chunk = client.call("chunk", {}, _Chunk)
            chunks.append(chunk)
            if chunk.done:
                break
    _merge_decks(col, changes, client.server)
    return _merge(col, graves, chunks)


def pull_media(key: HostKey, collection: Path, into: Path) -> int:
    """Fetch into ``into`` (a dry run's scratch copy's media folder) the files of events
    (:mod:`.media_transport`) the server holds that ``collection``'s media lack; how many.
    The server is only asked; ``collection`` and its media are only read."""
    client = _Client(key)
    begin = client.media("begin", {"v": client.client_version}, _MediaBegin)
    usn = _media_usn(collection)
    own = media_folder(collection)
    wanted: dict[str, None] = {}
    while usn < begin.usn:
        changes = client.media("mediaChanges", {"lastUsn": usn}, list[MediaChange])
        if not changes or changes[-1][1] <= usn:
            break  # the end, or a server that counts backwards: not asked again
        usn = changes[-1][1]
        for name, _, sha1 in changes:
            if sha1 and is_event_file(name) and not os.path.lexists(own / name):
                wanted[name] = None
            else:
                wanted.pop(name, None)
    pending, fetched = list(wanted), 0
    while pending:
        # A server may send fewer files than asked (AnkiWeb caps a zip's size): the rest are
        # asked again, as Anki's own client does.
        batch = pending[:_FILES_IN_ZIP]
        zipped = client.fetch("msync/downloadFiles", {"files": batch})
        sent, kept = _unzip(zipped, set(batch), into, client.server)
        if not sent:
            break  # none of them: not asked again
        fetched += kept
        pending = [name for name in pending if name not in sent]
    return fetched


def _media_usn(collection: Path) -> int:
    """How far the collection's media last synced (0 if it cannot say: everything is listed,
    and what the media hold is left out by name). Read without writing anything, not even
    SQLite's shared memory file, so an older number may come back: only more is listed."""
    path = collection.with_name(collection.stem + ".media.db2")
    if not path.is_file():
        return 0
    try:
        with closing(sqlite3.connect(f"{path.as_uri()}?immutable=1", uri=True)) as con:
            row = con.execute("SELECT lastUsn FROM meta").fetchone()
    except sqlite3.Error:
        return 0
    return int(row[0]) if row and isinstance(row[0], int) else 0


def _unzip(zipped: bytes, wanted: set[str], into: Path, server: str) -> tuple[set[str], int]:
    """The files of events asked for, out of the server's zip (its ``_meta`` maps the names
    in the zip to the files' own), written into ``into``: the names of those it holds, and
    how many were written. Any other name is left out, and so is a file too large for one
    zerodrill wrote, as the transport would skip it."""
    sent: set[str] = set()
    count = 0
    try:
        with zipfile.ZipFile(io.BytesIO(zipped)) as archive:
            meta = archive.getinfo("_meta")
            if meta.file_size > _MAX_META_BYTES:
                raise ValueError("its list of names is too large")
            names = json.loads(archive.read(meta))
            if not isinstance(names, dict):
                raise ValueError("its list of names is no map")
            for inner, name in names.items():
                if not (isinstance(name, str) and name in wanted and is_event_file(name)):
                    continue
                info = archive.getinfo(inner)
                sent.add(name)
                if info.file_size > MAX_FILE_BYTES:
                    continue
                with archive.open(info) as file:
                    data = file.read(MAX_FILE_BYTES + 1)
                if len(data) <= MAX_FILE_BYTES:
                    write_atomic(into / name, data, make_folder=True)
                    count += 1
    except (zipfile.BadZipFile, KeyError, ValueError, EOFError, RecursionError) as exc:
        raise AnkiSyncError(f"{server} sent media files Anki's protocol has not: {exc}") from None
    except OSError as exc:
        raise AnkiSyncError(f"cannot keep the server's media files for a dry run: {exc}") from None
    return sent, count


def _merge_decks(col: Collection, changes: _Changes, server: str) -> None:
    """The server's presets and decks, each where the copy's is not newer (Anki's client's
    rule), with the times and numbers the server gave them."""
    from anki.errors import BackendError

    decks, presets = changes.decks
    try:
        for preset in presets:
            preset_id, mod, usn = _stamps(preset)
            # Anki gives the default preset for one it lacks.
            kept = col.decks.get_config(preset_id)
            if kept is None or kept.get("id") != preset_id or _stamps(kept)[1] <= mod:
                col.decks.update_config(preset)
                # Anki's call stamps it now: a preset changed now is one the run would take.
                db(col).execute(
                    "UPDATE deck_config SET mtime_secs = ?, usn = ? WHERE id = ?",
                    mod,
                    usn,
                    preset_id,
                )
        for deck in decks:
            did, mod, _ = _stamps(deck)
            had = col.decks.get(did, default=False)
            if had is None or _stamps(had)[1] <= mod:
                col.decks.update(deck, preserve_usn=True)
    except (BackendError, ValueError, TypeError) as exc:
        raise AnkiSyncError(f"{server} sent a deck Anki's protocol has not: {exc}") from None


def _stamps(legacy: _Legacy) -> tuple[Any, int, int]:
    """A deck's or preset's id, time and sync number, each a whole number (``ValueError``)."""
    ident, mod, usn = legacy.get("id"), legacy.get("mod"), legacy.get("usn")
    if type(ident) is not int or type(mod) is not int or type(usn) is not int:
        raise ValueError("its id, mod and usn must be whole numbers")
    return ident, mod, usn


def _merge(col: Collection, graves: _Graves, chunks: Sequence[_Chunk]) -> Pulled:
    """As Anki's client applies them: deletions, then review rows (those it has are kept),
    then cards and notes, the copy's own kept where it changed them later (usn -1)."""
    proxy = db(col)
    for table, ids in (("cards", graves.cards), ("notes", graves.notes)):
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            proxy.execute(f"DELETE FROM {table} WHERE id IN ({','.join('?' * len(part))})", *part)
    pending: dict[str, dict[int, int]] = {
        table: {int(i): int(m) for i, m in proxy.all(f"SELECT id, mod FROM {table} WHERE usn = -1")}
        for table in ("cards", "notes")
    }
    revlog = [row for chunk in chunks for row in chunk.revlog]
    cards: list[Sequence[Value]] = [
        row for chunk in chunks for row in chunk.cards if pending["cards"].get(row[0], -1) < row[4]
    ]
    notes: list[Sequence[Value]] = [
        # Anki fills the sort field and checksum in; zerodrill reads neither.
        (*row[:7], row[6].split("\x1f", 1)[0], 0, *row[9:])
        for chunk in chunks
        for row in chunk.notes
        if pending["notes"].get(row[0], -1) < row[3]
    ]
    insert_rows(col, "INSERT OR IGNORE INTO revlog {values}", list(revlog))
    insert_rows(col, "INSERT OR REPLACE INTO cards {values}", cards)
    insert_rows(col, "INSERT OR REPLACE INTO notes {values}", notes)
    return Pulled(reviews=len(revlog), cards=len(cards), notes=len(notes))
