"""The collection changed on a copy that replaces it only when every change is made, so a
run killed in the middle leaves it as it was, not half changed for the phone to receive.

The copy is in a folder beside the collection (same file system: the replacement is one
rename); its new media go into the collection's first (an extra image harms nothing, a
missing one would). :func:`one_run` keeps a second run from taking a live run's folder for a
killed run's leftover.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from zerodrill.anki_sync.backend import AnkiSyncError

#: Not on Windows, where a link is no file to be opened through.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

_PREFIX = ".zerodrill-sync-"


def media_folder(collection: Path) -> Path:
    return collection.with_name(collection.stem + ".media")


@contextmanager
def one_run(collection: Path) -> Iterator[None]:
    """Hold the sync of ``collection`` for this process (a lock the system releases if the
    process dies); :class:`AnkiSyncError` if another holds it."""
    lock = collection.parent / f"{_PREFIX}{collection.name}.lock"
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o600)
    except OSError as exc:
        raise AnkiSyncError(f"cannot sync {collection}: {exc.strerror or exc}") from None
    try:
        try:
            import fcntl
        except ImportError:  # Windows: Anki's own lock on the collection is the guard there
            yield
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise AnkiSyncError(
                f"another 'zerodrill anki sync' is running on {collection}: let it finish"
            ) from None
        try:
            yield
        finally:
            # Removed while still held: a run that opened it meanwhile fails to lock it, and
            # one that comes later makes a new one. Nothing is left beside the collection.
            lock.unlink(missing_ok=True)
    finally:
        os.close(fd)


def clear_leftovers(collection: Path) -> bool:
    """Remove a killed run's work folders; whether there were any."""
    found = False
    for leftover in collection.parent.glob(f"{_PREFIX}{collection.name}-*"):
        if leftover.is_dir() and not leftover.is_symlink():
            shutil.rmtree(leftover, ignore_errors=True)
            found = True
    return found


@contextmanager
def work_copy(collection: Path) -> Iterator[Path]:
    """A copy of ``collection`` to change, removed on the way out whatever happened."""
    folder = collection.parent / f"{_PREFIX}{collection.name}-{os.getpid()}"
    try:
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        copy = folder / collection.name
        wal = Path(f"{collection}-wal")
        if wal.is_file():
            # A collection Anki has open (read by a dry run): its -wal first, so that a
            # checkpoint meanwhile moves pages into the file copied after it.
            shutil.copyfile(wal, f"{copy}-wal")
        if collection.exists():
            shutil.copyfile(collection, copy)
    except OSError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise AnkiSyncError(f"cannot copy {collection}: {exc.strerror or exc}") from None
    try:
        yield copy
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def put_back(copy: Path, collection: Path) -> None:
    try:
        source, target = media_folder(copy), media_folder(collection)
        if source.is_dir():
            target.mkdir(exist_ok=True)
            for item in source.iterdir():
                if item.is_file() and not (target / item.name).exists():
                    os.replace(item, target / item.name)
        if Path(f"{collection}-wal").exists():
            # A closed collection has none: something opened it since it was copied.
            raise AnkiSyncError(
                f"{collection} was opened (by Anki?) during the sync; it is unchanged: close "
                "Anki and run again"
            )
        os.replace(copy, collection)
    except OSError as exc:
        raise AnkiSyncError(
            f"cannot replace {collection} with its updated copy: {exc.strerror or exc}; "
            "it is unchanged"
        ) from None
