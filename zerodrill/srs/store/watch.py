"""The file a store opened, watched: the path must still name it before each write.

``rm reviews.db`` mid-drill leaves the connection writing into a file no path leads to; a
file moved over it would inherit this connection's WAL. :class:`Watch` notices (the path's
(st_dev, st_ino), and the -wal's and -shm's, against those on opening), saves what only this
connection can still reach, and raises :class:`FileGone`: nothing more is written.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import suppress
from pathlib import Path

from zerodrill.srs.store.file import FileGone, sidecars

#: What identifies the file opened: (st_dev, st_ino) of what its path names, links followed.
Identity = tuple[int, int]


def identity(path: Path) -> Identity | None:
    """The identity of the file ``path`` names now; None if it names none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def gone(conn: sqlite3.Connection, path: Path, opened: Identity | None) -> FileGone | None:
    """None if ``path`` still names the file opened; else the error saying what happened to
    it and where what it held was copied (:func:`rescue`), since ``conn`` is the last way to
    it."""
    what = _what_became_of(path, opened) if opened is not None else None
    if what is None:
        return None
    return _copied_aside(conn, path, what)


def sidecar_gone(
    conn: sqlite3.Connection, path: Path, opened: dict[Path, Identity | None]
) -> FileGone | None:
    """None if SQLite's files beside ``path`` are the ones it had on opening. Else (one was
    deleted or replaced: another terminal would start a new one, and a crash would lose
    what only this connection's copy holds) the grades are folded into ``path`` itself, or
    copied aside if that cannot be done, and the error says so."""
    for side, was in opened.items():
        if was is None or identity(side) == was:
            continue
        what = f"its {side.name} was deleted or replaced during the drill"
        try:
            busy, frames, folded = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error:
            busy, frames, folded = 1, 0, 0
        if busy or folded != frames:
            return _copied_aside(conn, path, what)
        return FileGone(
            f"stopped saving to {path}: {what}; every grade given before is in {path}: "
            "start again to go on",
            path,
        )
    return None


def _copied_aside(conn: sqlite3.Connection, path: Path, what: str) -> FileGone:
    try:
        copy = rescue(conn, path)
        saved = f"everything it held, this drill's grades included, is in {copy}"
        advice = f"; move that to {path} to go on"
    except (sqlite3.Error, OSError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else None
        saved = f"its grades could not be copied elsewhere ({reason or exc})"
        advice = ""
    return FileGone(f"stopped saving to {path}: {what}; {saved}{advice}", path)


def _what_became_of(path: Path, opened: Identity) -> str | None:
    now = identity(path)
    if now == opened:
        return None
    if now is None:
        if not path.parent.is_dir():
            return f"its folder {path.parent} was removed during the drill"
        return "it was deleted or moved away during the drill"
    return "it was replaced by another file during the drill (left as it is)"


def rescue(conn: sqlite3.Connection, path: Path) -> Path:
    """Copy the database ``conn`` still has open, whole, into a new file beside ``path`` (or
    in the working folder if that folder is gone); the copy's path. Never overwrites a file.
    """
    folder = path.parent if path.parent.is_dir() else Path.cwd()
    stem, suffix = Path(path.name).stem, Path(path.name).suffix
    for n in range(1, 100):
        copy = folder / f"{stem}-rescued{'' if n == 1 else f'-{n}'}{suffix}"
        if copy.exists() or copy.is_symlink():
            continue
        # VACUUM INTO refuses a file that exists and is not empty, so a race loses nothing.
        conn.execute("VACUUM INTO ?", (str(copy),))
        return copy
    raise OSError(f"no free name for a copy in {folder}")


class Watch:
    """What the path named when the connection opened, and what became of it since."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.opened = identity(path)
        self.real = Path(os.path.realpath(path))
        # SQLite's files beside it: once the database is gone, this connection's leftovers,
        # which a file put at the path later must not inherit.
        self.beside = {p: identity(p) for p in sidecars(path)}
        # Set once something is found gone: the one line every later write repeats.
        self.gone: FileGone | None = None

    def check(self, conn: sqlite3.Connection) -> None:
        """Raise :class:`FileGone` if the path no longer names the file opened (deleted,
        moved, replaced, its folder removed) or its -wal or -shm went; the first time, what
        only ``conn`` can still reach is saved first."""
        if self.gone is None:
            self.gone = gone(conn, self.path, self.opened) or sidecar_gone(
                conn, self.path, self.beside
            )
            if self.gone is None:
                return
        raise self.gone

    def close(self, conn: sqlite3.Connection) -> None:
        """Close ``conn``; after a loss, fold its WAL into the file opened, wherever that is
        now (SQLite skips it on closing a moved file), and remove the -wal and -shm it left
        beside a database that is gone."""
        if self.gone is not None:
            with suppress(sqlite3.Error):
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
        if self.gone is not None and identity(self.real) != self.opened:
            for path, opened in self.beside.items():
                if opened is not None and identity(path) == opened:
                    path.unlink(missing_ok=True)
