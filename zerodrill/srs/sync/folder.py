"""The shared folder as a transport (:mod:`.transport`): ``zerodrill sync DIR``.

Each machine's events are in its own log file in DIR (:mod:`.logfile`), written by it alone
and only ever added to. The folder's origins are its log files, named by the machine id in
their names; a copy a sync tool made of one on a conflict
(``zerodrill-<id>.sync-conflict-....jsonl``) is an origin of its own, read like any other. A
position is a :class:`~.logfile.Cursor`: how far the file was read, with digests that tell it
is still that file, grown; a file replaced, rewritten or cut is read again from its start.
This machine's events are added at the end of its own file (:func:`~.logfile.append_log`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from itertools import chain
from pathlib import Path

import msgspec

from zerodrill.srs.store import Store
from zerodrill.srs.sync.exchange import SyncReport, sync
from zerodrill.srs.sync.logfile import (
    PREFIX,
    SUFFIX,
    Cursor,
    LogPage,
    append_log,
    damaged_warning,
    file_name,
    log_files,
    read_pages,
    remove_stale_temps,
)
from zerodrill.srs.sync.transport import Event, Line, Page, SyncError


def check_folder(folder: Path) -> None:
    """:class:`SyncError` unless ``folder`` is a folder zerodrill can list and write in."""
    if not folder.exists():
        raise SyncError(
            f"{folder}: no such folder (give the folder your sync tool shares between machines)"
        )
    if not folder.is_dir():
        raise SyncError(f"{folder}: not a folder")
    if not os.access(folder, os.R_OK | os.W_OK | os.X_OK):
        raise SyncError(f"{folder}: cannot write to this folder (permission denied)")


class FolderTransport:
    """A folder the user's sync tool keeps the same on every machine."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.title = str(folder)
        # The folder itself, however it is named: positions are kept by it.
        self.name = f"folder:{os.path.realpath(folder)}"
        self.native_origins: frozenset[str] = frozenset()

    def native(self, event: Event) -> bool:
        return False  # a folder carries every event in a machine's file

    def origins(self) -> list[str]:
        check_folder(self.folder)
        try:
            paths = log_files(self.folder)
        except OSError as exc:
            raise SyncError(f"{self.folder}: cannot list it ({exc.strerror or exc})") from exc
        return [path.name[len(PREFIX) : -len(SUFFIX)] for path in paths]

    def where(self, origin: str) -> str:
        return str(self.folder / file_name(origin))

    def read(self, origin: str, position: str | None) -> Iterator[Page]:
        path = self.folder / file_name(origin)
        damaged: list[tuple[int, str]] = []
        cursor = _cursor(position)
        pages = read_pages(path, cursor)
        page: LogPage | None = next(pages)
        # A position that names no cursor is read from the start, as one that no longer fits.
        restarted = position is not None and cursor is None
        # One warning for all the damaged lines of the file, with the last page.
        for following in chain(pages, [None]):
            assert page is not None
            damaged += page.damaged
            warning = damaged_warning(path, damaged) if following is None else None
            yield Page(
                page.cursor.machine if page.cursor is not None else None,
                page.events,
                _position(page.cursor),
                page.restarted or restarted,
                f"{path}{page.problem}" if page.problem is not None else None,
                [warning] if warning is not None else [],
            )
            page, restarted = following, False

    def write(self, origin: str, events: Sequence[Line], position: str | None) -> str | None:
        try:
            # Left by a sync of this machine that was killed: a sync tool would copy them.
            remove_stale_temps(self.folder, origin)
        except OSError:
            pass  # litter, not a reason to stop the sync
        path = self.folder / file_name(origin)
        lines = [event.line for event in events]
        return _position(append_log(path, origin, lines, _cursor(position)))


def _position(cursor: Cursor | None) -> str | None:
    return msgspec.json.encode(cursor).decode() if cursor is not None else None


def _cursor(position: str | None) -> Cursor | None:
    """The cursor a position names; None (read from the start) if it names none."""
    if position is None:
        return None
    try:
        return msgspec.json.decode(position, type=Cursor)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def sync_folder(store: Store, folder: Path) -> SyncReport:
    """``zerodrill sync DIR``: the three steps of :mod:`.exchange` through ``folder``."""
    return sync(store, FolderTransport(folder))
