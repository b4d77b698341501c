"""The collection changed on a copy that replaces it only when every change is made, so a
run killed in the middle leaves it as it was, not half changed for the phone to receive.

The copy is in a folder beside the collection (same file system: the replacement is one
rename); its new media go into the collection's first (an extra image harms nothing, a
missing one would). :func:`one_run` keeps a second run from taking a live run's folder for a
killed run's leftover, and a leftover is removed only if it holds the mark
(:data:`_OWNED`) each work folder gets when it is made: nothing else beside a user's
collection is zerodrill's to remove. The collection is replaced only if it is, byte for
byte, what was copied (:func:`put_back`): an answer given in Anki meanwhile is never lost.
A dry run's copy is in a temporary folder elsewhere (:func:`scratch_folder`): it writes
nothing beside the collection.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import NamedTuple

from zerodrill.anki_sync.backend import AnkiSyncError

#: Not on Windows, where a link is no file to be opened through.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

_PREFIX = ".zerodrill-sync-"
#: Written into each work folder as it is made: the proof a leftover is zerodrill's.
_OWNED = ".zerodrill-work-folder"


def real_path(collection: Path) -> Path:
    """The file ``collection`` names, through any links: a symlinked collection is written
    through, its link kept."""
    try:
        return collection.expanduser().resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop, before 3.13
        raise AnkiSyncError(f"{collection}: not a collection file ({exc})") from None


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
    """Remove a killed run's work folders (those holding :data:`_OWNED`, or empty); whether
    there were any."""
    found = False
    for leftover in collection.parent.glob(f"{_PREFIX}{collection.name}-*"):
        if leftover.is_symlink() or not leftover.is_dir():
            continue
        if (leftover / _OWNED).is_file():
            shutil.rmtree(leftover, ignore_errors=True)
            found = True
        elif not any(leftover.iterdir()):
            # Killed between making it and marking it.
            leftover.rmdir()
            found = True
    return found


class Copy(NamedTuple):
    """A work copy of a collection, and the digest of the bytes it was copied from."""

    path: Path
    digest: str


def _copy(collection: Path, copy: Path) -> str:
    """Copy ``collection`` (and its -wal) to ``copy``; the digest of the collection's bytes."""
    wal = Path(f"{collection}-wal")
    if wal.is_file():
        # A collection Anki has open (read by a dry run): its -wal first, so that a
        # checkpoint meanwhile moves pages into the file copied after it.
        shutil.copyfile(wal, f"{copy}-wal")
    if not collection.exists():
        return ""
    return _digest(collection, copy)


def _digest(source: Path, copy: Path | None = None) -> str:
    """The SHA-256 of ``source``'s bytes, copied to ``copy`` on the way."""
    digest = hashlib.sha256()
    with source.open("rb") as src, ExitStack() as stack:
        dst = stack.enter_context(copy.open("wb")) if copy is not None else None
        while chunk := src.read(1 << 20):
            digest.update(chunk)
            if dst is not None:
                dst.write(chunk)
    return digest.hexdigest()


@contextmanager
def work_folder(collection: Path) -> Iterator[Path]:
    """The folder beside ``collection`` a run works in (its copy, the decks' package), removed
    on the way out whatever happened."""
    folder = collection.parent / f"{_PREFIX}{collection.name}-{os.getpid()}"
    try:
        folder.mkdir()
    except FileExistsError:
        raise AnkiSyncError(
            f"{folder} is in the way and is not zerodrill's: it is left as it is; move it away"
        ) from None
    except OSError as exc:
        raise AnkiSyncError(f"cannot copy {collection}: {exc.strerror or exc}") from None
    try:
        try:
            (folder / _OWNED).write_bytes(b"")
        except OSError as exc:
            raise AnkiSyncError(f"cannot copy {collection}: {exc.strerror or exc}") from None
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def scratch_folder(collection: Path) -> Iterator[Path]:
    """A dry run's folder, a temporary one away from ``collection`` (named as
    :func:`work_folder` names it, which a run takes in its place)."""
    with tempfile.TemporaryDirectory(prefix="zerodrill-dry-run-") as tmp:
        yield Path(tmp)


def copy_path(folder: Path, collection: Path) -> Path:
    """Where :func:`copy_into` puts its copy of ``collection`` in ``folder``."""
    return folder / collection.name


def copy_into(folder: Path, collection: Path) -> Copy:
    """A copy of ``collection`` in ``folder`` (:func:`work_folder`, :func:`scratch_folder`)."""
    copy = copy_path(folder, collection)
    try:
        return Copy(copy, _copy(collection, copy))
    except OSError as exc:
        raise AnkiSyncError(f"cannot copy {collection}: {exc.strerror or exc}") from None


def put_back(copy: Copy, collection: Path) -> None:
    """Replace ``collection`` with the changed ``copy``, unless it changed since it was
    copied (then :class:`AnkiSyncError`, and it is left as it is)."""
    try:
        if Path(f"{collection}-wal").exists():
            # A closed collection has none: something opened it since it was copied.
            raise AnkiSyncError(
                f"{collection} was opened (by Anki?) during the sync; it is unchanged: close "
                "Anki and run again"
            )
        if _digest(collection) != copy.digest:
            raise AnkiSyncError(
                f"{collection} changed during the sync (in Anki?); it is left as it is, "
                "nothing of it lost: run again"
            )
        _move_media(media_folder(copy.path), media_folder(collection))
        os.replace(copy.path, collection)
    except OSError as exc:
        raise AnkiSyncError(
            f"cannot replace {collection} with its updated copy: {exc.strerror or exc}; "
            "it is unchanged"
        ) from None


def move_media(copy: Copy, collection: Path) -> None:
    """The files added to ``copy``'s media since :func:`put_back` replaced ``collection``
    with it (a file of events written after) moved into the collection's media."""
    try:
        _move_media(media_folder(copy.path), media_folder(collection))
    except OSError as exc:
        raise AnkiSyncError(f"cannot move files into {media_folder(collection)}: {exc}") from None


def _move_media(source: Path, target: Path) -> None:
    """The copy's new media files (the decks' images, the event stream's files) moved into
    the collection's media folder, which is then given a later time: Anki's media sync looks
    for new files only in a folder whose time, in whole seconds, is not the one it saw last,
    which may be this very second (the run's first sync), or a second the last run's move
    set ahead. Later than both, the time is one Anki has not seen."""
    if not source.is_dir():
        return
    target.mkdir(exist_ok=True)
    before = int(target.stat().st_mtime)
    moved = False
    for item in source.iterdir():
        if item.is_file() and not item.is_symlink() and not os.path.lexists(target / item.name):
            os.replace(item, target / item.name)
            moved = True
    if moved:
        seconds = max(int(target.stat().st_mtime), before) + 1
        os.utime(target, (seconds, seconds))
