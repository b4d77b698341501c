"""An ordinary sync with Anki's sync server (AnkiWeb, or ``python -m anki.syncserver``).

A full *download* is always safe: the collection synced is zerodrill's own copy, and all that
zerodrill writes into it is derived again from the review store on every run. A full *upload*
replaces the collection on the server, and every device's: only with ``--full-upload``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from zerodrill.anki_sync.backend import AnkiSyncError, open_collection
from zerodrill.anki_sync.beside import Beside
from zerodrill.anki_sync.login import HostKey

if TYPE_CHECKING:
    from anki.collection import Collection
    from anki.sync import SyncAuth

ANKIWEB = ""
_T = TypeVar("_T")
#: How often a run asks whether the media sync has ended: each wait past its end is the run's
#: own; 50 ms cost bench_anki_sync.py's two-way sync 40 ms of its 3x of Anki's own syncs.
_MEDIA_POLL_S = 0.005


class FullSync(Enum):
    NONE = "none"
    #: The first sync of zerodrill's copy: the server's collection, whole.
    FIRST_DOWNLOAD = "first download"
    DOWNLOADED = "downloaded"
    UPLOADED = "uploaded"


def where(endpoint: str) -> str:
    return endpoint or "AnkiWeb"


def _one_line(exc: BaseException) -> str:
    # Anki's messages hold Unicode isolation marks around details, and run over lines.
    text = str(exc).replace("\u2068", "").replace("\u2069", "")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " ".join(lines)[:300] or type(exc).__name__


@contextmanager
def translated(endpoint: str, doing: str, *, logging_in: bool = False) -> Iterator[None]:
    from anki.errors import BackendError, Interrupted, NetworkError, SyncError, SyncErrorKind

    server = where(endpoint)
    try:
        yield
    except NetworkError as exc:
        raise AnkiSyncError(
            f"cannot reach the sync server {server} while {doing} ({_one_line(exc)}); "
            "nothing was changed on either side: check the address and the connection"
        ) from None
    except SyncError as exc:
        if exc.kind is SyncErrorKind.AUTH:
            if logging_in:
                raise AnkiSyncError(
                    f"{server} refused the user name or password; nothing was saved"
                ) from None
            raise AnkiSyncError(
                f"{server} no longer accepts zerodrill's login (it expired or the password "
                "changed): run 'zerodrill anki login' again"
            ) from None
        raise AnkiSyncError(
            f"the sync server {server} failed while {doing} ({_one_line(exc)}); nothing "
            "half done is kept: run again later"
        ) from None
    except Interrupted:
        raise KeyboardInterrupt from None
    except BackendError as exc:
        raise AnkiSyncError(
            f"Anki's sync with {server} failed while {doing}: {_one_line(exc)}"
        ) from None


def log_in(col: Collection, user: str, password: str, endpoint: str) -> HostKey:
    with translated(endpoint, "logging in", logging_in=True):
        auth = col.sync_login(user, password, endpoint or None)
    return HostKey(endpoint, auth.hkey)


def sync(
    col: Collection,
    key: HostKey,
    *,
    first: bool,
    full_upload: bool,
    on_new_endpoint: Callable[[str], None],
) -> FullSync:
    """One ordinary sync of ``col`` (reopened after a full sync); what full sync ran.

    The ``first`` sync of a run takes the server's collection whole when asked (zerodrill's
    changes are made again on it) and leaves an upload for the last. ``on_new_endpoint``
    keeps the address AnkiWeb may move an account to.
    """
    from anki.sync import SyncAuth, SyncOutput

    auth = SyncAuth(hkey=key.hkey, endpoint=key.endpoint or None)
    with translated(key.endpoint, "syncing"):
        out = col.sync_collection(auth, sync_media=False)
    if out.new_endpoint:
        on_new_endpoint(out.new_endpoint)
        auth = SyncAuth(hkey=key.hkey, endpoint=out.new_endpoint)
    required = out.required
    if required in (SyncOutput.NO_CHANGES, SyncOutput.NORMAL_SYNC):
        return FullSync.NONE
    server = where(key.endpoint)
    if first and required == SyncOutput.FULL_UPLOAD:
        return FullSync.NONE
    if first or required == SyncOutput.FULL_DOWNLOAD:
        _full(col, auth, out.server_media_usn, upload=False, endpoint=key.endpoint)
        return FullSync.DOWNLOADED
    if required in (SyncOutput.FULL_UPLOAD, SyncOutput.FULL_SYNC):
        if not full_upload:
            why = (
                "the server's collection has no cards yet (a new account, or it was reset)"
                if required == SyncOutput.FULL_UPLOAD
                else "the collection's note types changed, which Anki sends only whole"
            )
            raise AnkiSyncError(
                f"{server} needs a full upload, which replaces the collection on the server "
                f"and on every device that syncs with it: {why}; sync every device first, "
                "then run 'zerodrill anki sync --full-upload'"
            )
        _full(col, auth, out.server_media_usn, upload=True, endpoint=key.endpoint)
        return FullSync.UPLOADED
    raise AnkiSyncError(f"{server} asked for a sync zerodrill does not know ({required})")


class Background(Beside[FullSync]):
    """In a thread from now until the ``with`` block's end, as Anki's own client would: the
    collection at ``collection`` opened, :func:`sync` of it, its media synced (beside the
    collection's sync; with ``media_after_block``, once the block has ended without an error,
    as the block adds media), and closed. Anki's backend leaves Python's lock as it works, so
    the block runs meanwhile (bench_anki_sync.py's two-way sync: the goal of 3x Anki's own
    syncs). ``after``: more work for the thread once the collection is closed after a sync
    that worked (the run's copy of it, made while the block's Python goes on: a file copied
    leaves Python's lock too). The block's end waits for the thread; then :meth:`wait` gives
    what full sync ran, or its error is raised (the block's own, if it failed too, goes
    first). Ctrl+C, in the block or while waiting, stops it as Anki stops a sync, and is
    raised once it has stopped."""

    def __init__(
        self,
        collection: Path,
        key: HostKey,
        *,
        first: bool,
        full_upload: bool,
        on_new_endpoint: Callable[[str], None],
        media_after_block: bool,
        after: Callable[[], None] | None = None,
    ) -> None:
        self._col: Collection | None = None
        self._lock = threading.Lock()  # between a stop and the next step's start
        self._stopped = False
        self._block_ended = threading.Event()
        self._block_failed = False

        def step(do: Callable[[], _T]) -> _T:
            with self._lock:
                if self._stopped:
                    raise KeyboardInterrupt
            return do()

        def run() -> FullSync:
            col = self._col = step(lambda: open_collection(collection))
            try:
                if not media_after_block:
                    step(lambda: start_media(col, key))
                full = step(
                    lambda: sync(
                        col,
                        key,
                        first=first,
                        full_upload=full_upload,
                        on_new_endpoint=on_new_endpoint,
                    )
                )
                if media_after_block:
                    self._block_ended.wait()
                    if self._block_failed:
                        return full
                    step(lambda: start_media(col, key))
                wait_for_media(col, key)
            finally:
                col.close()
            if after is not None:
                step(after)
            return full

        super().__init__(run, "anki-sync", end=self._block_end, stop=self._stop_sync)

    def _block_end(self, failed: bool) -> None:
        self._block_failed = failed
        self._block_ended.set()

    def _stop_sync(self) -> None:
        with self._lock:
            self._stopped = True
            if self._col is not None:
                self._col.abort_sync()
                self._col.abort_media_sync()


def _full(col: Collection, auth: SyncAuth, media_usn: int, *, upload: bool, endpoint: str) -> None:
    col.close_for_full_sync()
    try:
        with translated(endpoint, "doing a full sync"):
            col.full_upload_or_download(auth=auth, server_usn=media_usn, upload=upload)
    finally:
        # The backend has the collection open again whether the transfer worked or not.
        col.reopen(after_full_sync=True)


def start_media(col: Collection, key: HostKey) -> None:
    """Start the sync of the media (the decks' images, the files of events) in Anki's
    background, as Anki starts it; a sync of the collection may run meanwhile (a full one
    stops it, and starts it again once done)."""
    from anki.sync import SyncAuth

    with translated(key.endpoint, "syncing media"):
        col.sync_media(SyncAuth(hkey=key.hkey, endpoint=key.endpoint or None))


def wait_for_media(col: Collection, key: HostKey) -> None:
    """Wait for the media sync Anki runs in the background to end: it holds the collection
    until then."""
    with translated(key.endpoint, "syncing media"):
        try:
            while col.media_sync_status().active:
                time.sleep(_MEDIA_POLL_S)
        except KeyboardInterrupt:
            col.abort_media_sync()
            raise
