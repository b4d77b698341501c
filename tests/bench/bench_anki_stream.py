"""What one sync costs when the event stream rides in Anki's collection, by carrier.

Run by hand: ``python tests/bench/bench_anki_stream.py [EVENTS ...]`` (default 10,000 and
100,000). Figures only, never asserted.

Anki's own sync server runs on 127.0.0.1 behind a proxy that counts the bytes each way. Two
Anki clients share an account: the terminal, whose log already holds EVENTS events, and the
phone, which has synced them once. Then the terminal adds :data:`NEW` events (a day's
answers) and syncs up, and the phone syncs down: timed, and the bytes on the wire counted,
for each carrier side by side:

- ``anki sync``: the wired path, ``zerodrill anki sync`` itself (:mod:`zerodrill.anki_sync.run`)
  on a review store of the repository's decks, whose EVENTS events came from a folder-only
  machine (so the terminal carries them all): its syncs of the collection and the media, and
  everything else it does (the new answers written to Anki's revlog, their cards
  rescheduled); then the phone's syncs of both;
- ``media files``: the carrier alone (:mod:`zerodrill.anki_sync.media_transport`): one
  immutable file per write in the media folder, which Anki's media sync sends only once;
- the floor: Anki's own sync of the same :data:`NEW` answers as revlog rows.

(The note type each machine's log rode in before, ``collection_transport.py``, is gone: it
sent the whole log at every change; its figures are in tests/bench/RESULTS.md.)
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
for _p in (str(HERE.parents[1]), str(HERE.parent)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import anki.collection  # noqa: E402, F401  (Anki's modules import in this order only)
from anki.collection import Collection  # noqa: E402
from anki_sync_support import PASSWORD, Phone, SyncServer  # noqa: E402

from zerodrill.anki_sync import login  # noqa: E402
from zerodrill.anki_sync import run as anki_sync  # noqa: E402
from zerodrill.anki_sync.backend import insert_rows  # noqa: E402
from zerodrill.anki_sync.media_transport import MediaTransport  # noqa: E402
from zerodrill.cli.common import load_decks, usable_decks  # noqa: E402
from zerodrill.cli.import_progress import note_keys  # noqa: E402
from zerodrill.srs.days import study_day  # noqa: E402
from zerodrill.srs.events import ReviewEvent  # noqa: E402
from zerodrill.srs.grades import Grade  # noqa: E402
from zerodrill.srs.store import Store  # noqa: E402

#: The events added between two syncs: a day's answers.
NEW = 100
MACHINE = "terminal-one"


class CountingProxy:
    """A TCP proxy to the server that counts the bytes sent each way."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen()
        self.port = int(self.listener.getsockname()[1])
        self.up = self.down = 0
        self._lock = threading.Lock()
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def reset(self) -> None:
        with self._lock:
            self.up = self.down = 0

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, up: bool) -> None:
        try:
            while data := src.recv(65536):
                with self._lock:
                    if up:
                        self.up += len(data)
                    else:
                        self.down += len(data)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.listener.close()


def _events(first: int, count: int, keys: list[str] | None = None) -> list[ReviewEvent]:
    """``count`` answers numbered from ``first``, a minute apart up to now, on ``keys`` in
    turn (made-up keys without)."""
    now = datetime.now(UTC)
    out = []
    for seq in range(first, first + count):
        at = (now - timedelta(minutes=count - seq + first)).astimezone()
        key = keys[seq % len(keys)] if keys else f"zero-deck/card-{seq % 500}"
        out.append(ReviewEvent(MACHINE, seq, key, at, study_day(at), Grade(4), None, 8000))
    return out


def _media(col: Collection, first: int, count: int) -> None:
    transport = MediaTransport(Path(col.media.dir()), "bench")
    transport.write(MACHINE, _events(first, count), None)


def _revlog(col: Collection, first: int, count: int) -> None:
    cid = col.db.scalar("SELECT id FROM cards LIMIT 1")  # type: ignore[union-attr]
    now_ms = int(time.time() * 1000)
    rows = [(now_ms - 1000 * (first + n), cid, -1, 3, 3, 1, 2500, 6000, 1) for n in range(count)]
    insert_rows(col, "INSERT INTO revlog {values}", rows)
    col.db.execute("UPDATE col SET mod = ?", now_ms)  # type: ignore[union-attr]


def _both_sync(terminal: Phone, phone: Phone, media: bool) -> None:
    terminal.sync()
    if media:
        terminal.sync_media()
    phone.sync()
    if media:
        phone.sync_media()


def _wired(root: Path, events: int) -> dict[str, float]:
    """``zerodrill anki sync`` on a store of ``events`` answers, :data:`NEW` more, and the
    phone's syncs."""
    os.environ["ZERODRILL_CACHE_DIR"] = str(root / "deck-cache")
    decks = usable_decks(load_decks([]))
    notes = note_keys(decks)
    keys = [key for ords in notes.values() for key in ords.values()]
    (root / "base").mkdir()
    server = SyncServer(root / "base")
    proxy = CountingProxy(server.port)
    try:
        user = server.account()
        phone = Phone(*_login(root / "phone", proxy.url, user))
        try:
            phone.add_own_note("the phone's own note")
            phone.sync()
            key = login.HostKey(proxy.url, phone.auth.hkey)
            folder = root / "terminal" / "anki"
            folder.mkdir(parents=True)
            target = anki_sync.Target(anki_sync.cache_for(folder, key), key)
            manifest = folder / "decks.manifest.json"
            with Store.open(root / "terminal" / "reviews.db") as store:
                store.log.add_events(_events(1, events, keys))
                anki_sync.sync(target, decks, notes, store, manifest, full_upload=True)
                phone.sync()
                phone.sync_media()
                store.log.add_events(_events(events + 1, NEW, keys))
                proxy.reset()
                start = time.perf_counter()
                moved = anki_sync.sync(target, decks, notes, store, manifest)
                phone.sync()
                phone.sync_media()
                ms = (time.perf_counter() - start) * 1000
            assert moved.events_sent == NEW, moved
            return {"ms": ms, "up": proxy.up, "down": proxy.down}
        finally:
            phone.close()
    finally:
        proxy.close()
        server.stop()


def _one(root: Path, carrier: str, events: int) -> dict[str, float]:
    if carrier == "anki sync":
        return _wired(root, events)
    writes: dict[str, Callable[[Collection, int, int], None]] = {
        "media files": _media,
        "Anki's revlog": _revlog,
    }
    write = writes[carrier]
    media = carrier == "media files"
    (root / "base").mkdir()
    server = SyncServer(root / "base")
    proxy = CountingProxy(server.port)
    try:
        user = server.account()
        terminal = Phone(*_login(root / "terminal", proxy.url, user))
        phone = Phone(*_login(root / "phone", proxy.url, user))
        try:
            terminal.add_own_note("a note, so a card exists")
            terminal.sync()
            terminal.sync_media()
            phone.sync()
            phone.sync_media()
            write(terminal.col, 1, events)
            _both_sync(terminal, phone, media)
            proxy.reset()
            write(terminal.col, events + 1, NEW)
            start = time.perf_counter()
            _both_sync(terminal, phone, media)
            ms = (time.perf_counter() - start) * 1000
            return {"ms": ms, "up": proxy.up, "down": proxy.down}
        finally:
            terminal.close()
            phone.close()
    finally:
        proxy.close()
        server.stop()


def _login(folder: Path, url: str, user: str) -> tuple[Collection, object]:
    folder.mkdir(parents=True)
    col = Collection(str(folder / "collection.anki2"))
    return col, col.sync_login(user, PASSWORD, url)


#: Each carrier's name, and the slug of its figures in :func:`run`'s result.
CARRIERS = {"anki sync": "wired", "media files": "media", "Anki's revlog": "revlog"}


def run(events: int = 10_000) -> dict[str, float]:
    """``<slug>_ms``, ``<slug>_up`` and ``<slug>_down`` (bytes) for each carrier."""
    out: dict[str, float] = {"events": events, "new": NEW}
    for carrier, slug in CARRIERS.items():
        with tempfile.TemporaryDirectory(prefix="zerodrill-bench-stream-") as tmp:
            r = _one(Path(tmp), carrier, events)
        out.update({f"{slug}_{k}": v for k, v in r.items()})
    return out


def main(sizes: list[int]) -> None:
    for events in sizes:
        print(f"{events:,} events in the log, {NEW} new, synced up by one client, down by another")
        r = run(events)
        for carrier, slug in CARRIERS.items():
            print(
                f"  {carrier:<14} {r[slug + '_ms']:>8,.0f} ms   {r[slug + '_up']:>12,.0f} B up  "
                f"{r[slug + '_down']:>12,.0f} B down"
            )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10_000, 100_000])
