"""An Anki collection copied out of a package or a collection file into a temporary folder,
within a fixed memory and disk budget.

Newer packages hold a ``collection.anki2`` that only tells old Ankis to update, so the newest
member present is the one read. A collection file is copied with its ``-wal``, so one that
Anki has open reads as Anki last wrote it.

A package is someone else's file: a few kilobytes can claim, or decompress to, gigabytes. So
nothing is read whole (the zstd window held to :data:`MAX_WINDOW`), ``meta`` has a length
limit, and a collection is written out only as far as its SQLite header says it runs (never
past :data:`MAX_COLLECTION_BYTES`): a stream of zeros is refused at its first bytes, a header
that lies at the first byte past it.
"""

from __future__ import annotations

import os
import shutil
import stat
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO

from zerodrill.errors import UserError

#: The newest package format known (the ``meta`` member's version: 3 is zstd, 2.1.50+).
MAX_PACKAGE_VERSION = 3
#: Far above a heavy user's collection (hundreds of MB): the most written to the temp folder.
MAX_COLLECTION_BYTES = 2 << 30
#: zstd's default limit (libzstd's ``ZSTD_WINDOWLOG_LIMIT_DEFAULT``), set here on purpose:
#: a frame may ask for a 2 GiB window, which is memory.
MAX_WINDOW = 1 << 27
CHUNK = 1 << 20
#: A package's ``meta`` is a few bytes (a version, a flag); a longer one is not Anki's.
_MAX_META_BYTES = 1024
#: A package's collections, newest first.
_MEMBERS = ("collection.anki21b", "collection.anki21", "collection.anki2")
SQLITE_MAGIC = b"SQLite format 3\x00"
_ZIP_MAGIC = b"PK\x03\x04"
_HEADER_BYTES = 100


class AnkiImportError(UserError):
    """A file that is not an Anki collection this reads."""


def copy_collection(path: Path, folder: Path) -> Path:
    """The collection in ``path`` copied into ``folder``; its copy."""
    copy = folder / "collection.anki2"
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):
            raise AnkiImportError(f"{path} is a folder, not an Anki collection or package")
        if not stat.S_ISREG(mode):
            # A FIFO would wait for a writer for ever, a device never end.
            raise AnkiImportError(f"{path} is not a file, so not an Anki collection or package")
        with path.open("rb") as f:
            head = f.read(len(SQLITE_MAGIC))
        if head.startswith(_ZIP_MAGIC):
            _extract(path, copy)
        elif head == SQLITE_MAGIC:
            # The -wal first: a checkpoint that runs meanwhile moves pages into the file,
            # which is copied after, so nothing committed is missed.
            wal = path.with_name(path.name + "-wal")
            if wal.is_file():
                _copy_file(wal, folder / (copy.name + "-wal"))
            _copy_file(path, copy)
        else:
            raise AnkiImportError(
                f"{path} is not an Anki collection or package (.colpkg, .apkg, collection.anki2)"
            )
    except FileNotFoundError:
        raise AnkiImportError(f"{path}: no such file") from None
    except OSError as exc:
        raise AnkiImportError(f"cannot read {path}: {exc.strerror or exc}") from None
    return copy


def _copy_file(source: Path, target: Path) -> None:
    if source.stat().st_size > MAX_COLLECTION_BYTES:
        raise AnkiImportError(f"{source} is larger than {_size(MAX_COLLECTION_BYTES)}: refused")
    shutil.copyfile(source, target)


def _extract(package: Path, out: Path) -> None:
    """Take the collection out of ``package``."""
    try:
        with zipfile.ZipFile(package) as z:
            names = set(z.namelist())
            version = _package_version(_read_meta(z)) if "meta" in names else 0
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
                    _unzstd(src, dst, package)
                else:
                    _copy_collection_bytes(src.read, dst, package)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error) as exc:
        raise AnkiImportError(
            f"{package} is a damaged or incomplete package (cut short while copying?): {exc}"
        ) from None


def _read_meta(z: zipfile.ZipFile) -> bytes:
    with z.open("meta") as meta:
        data = meta.read(_MAX_META_BYTES + 1)
    if len(data) > _MAX_META_BYTES:
        raise zlib.error(f"its meta is longer than {_MAX_META_BYTES} bytes")
    return data


def _unzstd(src: IO[bytes], dst: IO[bytes], package: Path) -> None:
    # Imported here: only packages from Anki 2.1.50 and later need it.
    import zstandard

    try:
        decompressor = zstandard.ZstdDecompressor(max_window_size=MAX_WINDOW)
        with decompressor.stream_reader(src, read_size=CHUNK, read_across_frames=True) as reader:
            _copy_collection_bytes(reader.read, dst, package)
    except zstandard.ZstdError as exc:
        raise zlib.error(f"its collection does not decompress ({exc})") from None


def _copy_collection_bytes(read: Callable[[int], bytes], dst: IO[bytes], package: Path) -> None:
    """Copy a collection from ``read`` to ``dst``, as far as its SQLite header says it runs
    and never past :data:`MAX_COLLECTION_BYTES`."""
    head = b""
    while len(head) < _HEADER_BYTES and (chunk := read(_HEADER_BYTES - len(head))):
        head += chunk
    if not head.startswith(SQLITE_MAGIC):
        raise AnkiImportError(f"{package}: its collection is not an SQLite database: refused")
    limit = declared_size(head)
    if limit is not None and limit > MAX_COLLECTION_BYTES:
        raise AnkiImportError(
            f"{package}: its collection says it is {_size(limit)}, more than the "
            f"{_size(MAX_COLLECTION_BYTES)} a collection may be: refused"
        )
    limit = limit if limit is not None else MAX_COLLECTION_BYTES
    dst.write(head)
    written = len(head)
    while chunk := read(CHUNK):
        written += len(chunk)
        if written > limit:
            raise AnkiImportError(
                f"{package}: its collection runs on past the {_size(limit)} it says it is "
                "(a damaged or hostile package): refused"
            )
        dst.write(chunk)


def declared_size(header: bytes) -> int | None:
    """The size an SQLite file's header gives it (page size x page count), or None where the
    header does not vouch for its page count (see SQLite's file format, "in-header database
    size": valid when the version-valid-for number equals the change counter)."""
    if len(header) < _HEADER_BYTES:
        return None
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    valid = header[92:96] == header[24:28]
    if not valid or pages == 0 or page_size < 512 or page_size & (page_size - 1):
        return None
    return page_size * pages


def _package_version(meta: bytes) -> int:
    """The version in a package's ``meta`` (a protobuf message: field 1, a varint of at most
    ten bytes, as protobuf allows)."""
    if not meta.startswith(b"\x08"):
        return 0
    version = 0
    for n, byte in enumerate(meta[1:11]):
        version |= (byte & 0x7F) << (7 * n)
        if not byte & 0x80:
            return version
    raise zlib.error("its meta's version does not end")


def _size(n: int) -> str:
    return f"{n / (1 << 30):.1f} GiB" if n >= 1 << 30 else f"{n / (1 << 20):.1f} MiB"
