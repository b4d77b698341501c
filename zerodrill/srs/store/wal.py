"""A WAL file that does not belong to its database, found before SQLite opens the pair.

SQLite replays ``PATH-wal`` into ``PATH`` on opening, whatever ``PATH`` is now: restore a
backup over a database that was killed mid-drill and the old WAL's pages are written over the
backup. Nothing in a WAL names its database, but the files tell. A WAL is the database's own
when the database has not been written since the WAL was (a crash); or when a checkpoint of
this WAL wrote it: then either the database holds each page's last committed image already,
or the WAL index (``PATH-shm``, left by the same process) counts frames copied from this WAL
(a checkpoint held back part way by a reader). A database written after its WAL in any other
way was put there from elsewhere. Limits: a restore that keeps the backup's older time
(``cp -p``), or one over a database that a checkpoint had written, is not told from a crash.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import BinaryIO

_HEADER = struct.Struct(">IIIIIIII")
_FRAME = struct.Struct(">IIIIII")
_MAGIC = (0x377F0682, 0x377F0683)
#: In the -shm: the WAL index header (the WAL's salts at byte 32) and, after its two copies,
#: the checkpoint info, which starts with nBackfill, the frames copied into the database.
_CHECKPOINT_INFO = 96


def foreign_wal(path: Path, wal: Path, shm: Path) -> bool:
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
            data = w.read()
            if _checkpointed_whole(data, db) is not False:
                return False
    except OSError:
        return False
    try:
        # Read only now, and rarely: a process that has the database open holds locks on
        # this file, and closing any descriptor of it would drop them.
        with shm.open("rb") as f:
            index = f.read(_CHECKPOINT_INFO + 4)
    except FileNotFoundError:
        return True  # no index: nothing says a checkpoint of this WAL wrote the database
    except OSError:
        return False
    return not _checkpointed_part(index, data)


def _checkpointed_whole(data: bytes, db: BinaryIO) -> bool | None:
    """Whether the database holds each page's image as of the WAL's last commit; None if
    the WAL holds no commit SQLite would replay (a bad header, or frames of an older WAL)."""
    magic, _, page_size, _, salt1, salt2, _, _ = _HEADER.unpack_from(data)
    if magic not in _MAGIC:
        return None
    frame_size = _FRAME.size + page_size
    committed: dict[int, int] = {}  # page number -> offset of its last committed image
    pending: dict[int, int] = {}
    for offset in range(_HEADER.size, len(data) - frame_size + 1, frame_size):
        pgno, commit, f_salt1, f_salt2, _, _ = _FRAME.unpack_from(data, offset)
        if (f_salt1, f_salt2) != (salt1, salt2):
            break
        pending[pgno] = offset + _FRAME.size
        if commit:
            committed.update(pending)
            pending.clear()
    if not committed:
        return None
    for page, at in committed.items():
        db.seek((page - 1) * page_size)
        if db.read(page_size) != data[at : at + page_size]:
            return False
    return True


def _checkpointed_part(index: bytes, data: bytes) -> bool:
    """The -shm is this WAL's (same salts) and counts frames a checkpoint copied."""
    if len(index) < _CHECKPOINT_INFO + 4 or index[32:40] != data[16:24]:
        return False
    backfilled: int = struct.unpack_from("=I", index, _CHECKPOINT_INFO)[0]
    return backfilled > 0
