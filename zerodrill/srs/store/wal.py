"""A WAL file that does not belong to its database, found before SQLite opens the pair.

SQLite replays ``PATH-wal`` into ``PATH`` on opening, whatever ``PATH`` is now: restore a
backup over a database that was killed mid-drill and the old WAL's pages are written over the
backup. Nothing in a WAL names its database, but its pages tell: a WAL that SQLite would
replay is the database's own when the database has not been written since the WAL was (a
crash), or when its pages equal the WAL's up to one of its commits (a checkpoint copied them
there, wholly or part way, before the crash or while another terminal drills). A database
written after its WAL whose pages match no commit of it was put there from elsewhere.
Limits: a restore that keeps the backup's older time (``cp -p``) is not told from a crash.
"""

from __future__ import annotations

import os
import struct
import sys
from array import array
from pathlib import Path
from typing import BinaryIO

_HEADER = struct.Struct(">IIIIIIII")
_FRAME = struct.Struct(">IIIIII")
#: The two WAL magic numbers: checksums over little- or big-endian words.
_MAGIC = {0x377F0682: "little", 0x377F0683: "big"}


def foreign_wal(path: Path, wal: Path) -> bool:
    """True if ``wal`` holds commits SQLite would replay into ``path`` and they are not the
    database's own (see the module's docstring). Only reads; any doubt answers False."""
    try:
        db_stat, wal_stat = os.stat(path), os.stat(wal)
    except OSError:
        return False
    if db_stat.st_mtime_ns <= wal_stat.st_mtime_ns or wal_stat.st_size <= _HEADER.size:
        return False
    try:
        with wal.open("rb") as w, path.open("rb") as db:
            return _matches_no_commit(w.read(), db)
    except OSError:
        return False


def _matches_no_commit(data: bytes, db: BinaryIO) -> bool:
    magic, _, page_size, _, salt1, salt2, ck1, ck2 = _HEADER.unpack_from(data)
    order = _MAGIC.get(magic)
    if order is None or (ck1, ck2) != _checksum(data[:24], order, 0, 0):
        return False  # SQLite ignores such a WAL
    frame_size = _FRAME.size + page_size
    if _all_in(data, db, page_size, (salt1, salt2)):
        return False
    seen: dict[int, int] = {}  # page number -> offset of its latest image
    pending: set[int] = set()
    differing: set[int] = set()
    commits = 0
    s1, s2 = ck1, ck2
    for offset in range(_HEADER.size, len(data) - frame_size + 1, frame_size):
        pgno, commit, f_salt1, f_salt2, f_ck1, f_ck2 = _FRAME.unpack_from(data, offset)
        if (f_salt1, f_salt2) != (salt1, salt2):
            break
        page_at = offset + _FRAME.size
        s1, s2 = _checksum(data[offset : offset + 8], order, s1, s2)
        s1, s2 = _checksum(data[page_at : page_at + page_size], order, s1, s2)
        if (s1, s2) != (f_ck1, f_ck2):
            break  # a torn write: SQLite stops here too
        seen[pgno] = page_at
        pending.add(pgno)
        if commit:
            commits += 1
            for page in pending:
                db.seek((page - 1) * page_size)
                if db.read(page_size) == data[seen[page] : seen[page] + page_size]:
                    differing.discard(page)
                else:
                    differing.add(page)
            pending.clear()
            if not differing:
                return False  # checkpointed this far: the database's own WAL
    return commits > 0


def _all_in(data: bytes, db: BinaryIO, page_size: int, salts: tuple[int, int]) -> bool:
    """The common case first, and fast: a checkpoint copied the whole WAL into the database
    (each page's last committed image is there). Checksums unchecked: a torn frame is never
    checkpointed, so a database holding it is no database SQLite checkpointed into."""
    frame_size = _FRAME.size + page_size
    last: dict[int, int] = {}
    pending: dict[int, int] = {}
    for offset in range(_HEADER.size, len(data) - frame_size + 1, frame_size):
        pgno, commit, salt1, salt2, _, _ = _FRAME.unpack_from(data, offset)
        if (salt1, salt2) != salts:
            break
        pending[pgno] = offset + _FRAME.size
        if commit:
            last.update(pending)
            pending.clear()
    for page, at in last.items():
        db.seek((page - 1) * page_size)
        if db.read(page_size) != data[at : at + page_size]:
            return False
    return bool(last)


def _checksum(chunk: bytes, order: str, s1: int, s2: int) -> tuple[int, int]:
    words = array("I" if array("I").itemsize == 4 else "L", chunk)
    if order != sys.byteorder:
        words.byteswap()
    mask = 0xFFFFFFFF
    for i in range(0, len(words), 2):
        s1 = (s1 + words[i] + s2) & mask
        s2 = (s2 + words[i + 1] + s1) & mask
    return s1, s2
