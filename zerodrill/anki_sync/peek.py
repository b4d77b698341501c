"""A dry run's look at the server: what it holds that zerodrill's copy of the collection lacks.

Anki's backend offers no read-only sync, but its protocol is stateful: ``start`` opens a
transaction on the server, ``chunk`` hands over the server's changed review log, cards and
notes, and ``abort`` rolls the transaction back. So the dry run speaks the protocol itself
(zstd-compressed JSON over HTTP, as Anki's own client does), asks for the server's changes
only, sends none of the copy's, and always ends with ``abort``: the server keeps nothing of
the visit, not even a new modification time. The changes are merged into the dry run's
scratch copy as Anki's client merges them (a card or note changed on both sides since the last
sync is the newer one), so that the rest of the run counts what a real sync would move.
Deck and config changes are left out, and note types but those that carry the machines'
events (:mod:`.collection_transport`): zerodrill reads none of them.
"""

from __future__ import annotations

import json
import secrets
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

import msgspec

from zerodrill.anki_sync.backend import AnkiSyncError, Value, db, insert_rows
from zerodrill.anki_sync.login import HostKey
from zerodrill.anki_sync.server import where

if TYPE_CHECKING:
    from anki.collection import Collection

#: Anki's sync protocol version (11 since Anki 2.1.57, still in 25.x and 26.x).
_VERSION = 11
_ANKIWEB = "https://sync.ankiweb.net/"
_TIMEOUT_S = 60
#: The most a reply may decompress to: the server's own ceiling for a payload (300 MB).
_MAX_REPLY = 300 * 1024 * 1024

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


class _Changes(msgspec.Struct):
    """The server's changes that are not chunked: of them, zerodrill reads note types only."""

    models: list[dict[str, Any]] = []


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
        import zstandard

        header = {"v": _VERSION, "k": self.hkey, "c": self.client_version, "s": self.session}
        request = urllib.request.Request(
            f"{self.endpoint}sync/{method}",
            data=zstandard.ZstdCompressor().compress(json.dumps(body).encode()),
            headers={"anki-sync": json.dumps(header), "Content-Type": "application/octet-stream"},
        )
        try:
            with urllib.request.urlopen(request, timeout=_TIMEOUT_S) as reply:  # noqa: S310
                with zstandard.ZstdDecompressor().stream_reader(reply) as raw:
                    data = _read_capped(raw)
        except urllib.error.HTTPError as exc:
            if exc.code == 308 and method == "meta" and exc.headers.get("Location"):
                # AnkiWeb moved the account: asked there, not kept (a dry run saves nothing).
                self.endpoint = str(exc.headers["Location"])
                return self.call(method, body, into)
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
        try:
            return msgspec.json.decode(data or b"null", type=into)
        except msgspec.ValidationError as exc:
            raise AnkiSyncError(
                f"{self.server} sent a reply Anki's protocol has not: {exc}"
            ) from None

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
    _merge_logs(col, changes.models)
    return _merge(col, graves, chunks)


def _merge_logs(col: Collection, models: Sequence[dict[str, Any]]) -> None:
    """The machines' logs (:mod:`.collection_transport`) among the server's note types, into
    the copy: each one's styling, where the server's is the newer."""
    from zerodrill.anki_sync.collection_transport import PREFIX

    for model in models:
        name, css = model.get("name"), model.get("css")
        if not (isinstance(name, str) and name.startswith(PREFIX) and isinstance(css, str)):
            continue
        mine = col.models.by_name(name)
        if mine is None:
            new = col.models.new(name)
            col.models.add_field(new, col.models.new_field("Log"))
            template = col.models.new_template("Log")
            template["qfmt"] = template["afmt"] = "{{Log}}"
            col.models.add_template(new, template)
            new["css"] = css
            col.models.add_dict(new)
        elif int(mine.get("mod", 0)) < int(model.get("mod", 0)):
            mine["css"] = css
            col.models.update_dict(mine)


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
