"""Anki's own sync server, run for the tests, and a second Anki client playing the phone.

:class:`SyncServer` runs ``python -m anki.syncserver`` (from the ``anki`` package) on
127.0.0.1 and a free port, with a throwaway ``SYNC_BASE`` and :data:`ACCOUNTS` accounts, so
each test takes an account of its own. :class:`Phone` is a collection on Anki's backend that
answers cards with Anki's scheduler and syncs as AnkiDroid does (a full upload or download
when the server asks, choosing as Anki's own dialog would).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from anki.cards import CardId
from anki.collection import Collection
from anki.scheduler.v3 import CardAnswer
from anki.sync import SyncAuth, SyncOutput

from zerodrill.export import ids
from zerodrill.srs.days import study_day

ACCOUNTS = 80
PASSWORD = "secret"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(port: int, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.05)


class SyncServer:
    """Anki's sync server in a child process."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.port = free_port()
        env = dict(os.environ, SYNC_BASE=str(base), SYNC_HOST="127.0.0.1")
        env["SYNC_PORT"] = str(self.port)
        env["RUST_LOG"] = "error"
        for n in range(1, ACCOUNTS + 1):
            env[f"SYNC_USER{n}"] = f"user{n}:{PASSWORD}"
        self.log = (base / "server.log").open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "anki.syncserver"], env=env, stdout=self.log, stderr=self.log
        )
        wait_for(self.port)
        self._next = 0
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def account(self) -> str:
        """An account no test has used yet."""
        with self._lock:
            self._next += 1
            assert self._next <= ACCOUNTS, "raise ACCOUNTS"
            return f"user{self._next}"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()


@dataclass
class Phone:
    """A second Anki client on the same account."""

    col: Collection
    auth: SyncAuth

    @classmethod
    def on(cls, folder: Path, server: SyncServer, user: str) -> Phone:
        folder.mkdir(parents=True, exist_ok=True)
        col = Collection(str(folder / "collection.anki2"))
        return cls(col, col.sync_login(user, PASSWORD, server.url))

    def sync(self, *, upload_on_conflict: bool = False) -> int:
        """Sync as Anki does; the full sync's kind (0 when none). When the server asks for
        a full sync, Anki asks the user which way: ``upload_on_conflict`` answers."""
        out = self.col.sync_collection(self.auth, sync_media=False)
        if out.required in (SyncOutput.NO_CHANGES, SyncOutput.NORMAL_SYNC):
            return 0
        upload = out.required == SyncOutput.FULL_UPLOAD or (
            out.required == SyncOutput.FULL_SYNC and upload_on_conflict
        )
        self.col.close_for_full_sync()
        try:
            self.col.full_upload_or_download(
                auth=self.auth, server_usn=out.server_media_usn, upload=upload
            )
        finally:
            self.col.reopen(after_full_sync=True)
        return int(out.required)

    def sync_media(self) -> None:
        """Fetch the server's media (Anki does it in the background; this waits)."""
        self.col.sync_media(self.auth)
        end = time.monotonic() + 60
        while self.col.media_sync_status().active:
            assert time.monotonic() < end, "media sync did not end"
            time.sleep(0.05)

    def add_own_note(self, front: str, deck: str = "My own deck") -> int:
        note = self.col.new_note(self.col.models.by_name("Basic"))
        note["Front"], note["Back"] = front, "an answer of mine"
        self.col.add_note(note, self.col.decks.id(deck))
        return int(note.id)

    def card_of(self, deck_id: str, card_id: str, ordinal: int = 0) -> int:
        guid = ids.note_guid(deck_id, card_id)
        cid = self.col.db.scalar(
            "SELECT c.id FROM cards c JOIN notes n ON n.id = c.nid WHERE n.guid = ? AND c.ord = ?",
            guid,
            ordinal,
        )
        assert cid, f"no card {deck_id}/{card_id} on the phone"
        return int(cid)

    def answer(self, cid: int, rating: CardAnswer.Rating.V) -> None:
        """Answer the card with Anki's scheduler, as a tap on the phone would."""
        card = self.col.get_card(CardId(cid))
        card.start_timer()
        states = self.col._backend.get_scheduling_states(card.id)
        self.col.sched.answer_card(
            self.col.sched.build_answer(card=card, states=states, rating=rating)
        )

    def due_date(self, cid: int) -> date | None:
        """The day the phone shows the card due; None for a new card."""
        type_, queue, due = self.col.db.first(
            "SELECT type, queue, due FROM cards WHERE id = ?", cid
        )
        if type_ == 0:
            return None
        today = study_day(datetime.now().astimezone())
        if queue in (1, 4):  # learning: due is a time stamp
            return study_day(datetime.fromtimestamp(due).astimezone())
        return today + timedelta(days=due - self.col.sched.today)

    def rows(self, sql: str, *args: object) -> list[list[object]]:
        return list(self.col.db.all(sql, *args))

    def close(self) -> None:
        self.col.close()


def own_rows(phone: Phone, nid: int) -> tuple[object, ...]:
    """Everything the phone keeps of a note of its own: note, cards, review log."""
    note = phone.rows(
        "SELECT id, guid, mid, mod, tags, flds, sfld, csum FROM notes WHERE id=?", nid
    )
    cards = phone.rows(
        "SELECT id, did, ord, mod, type, queue, due, ivl, factor, reps, lapses, left, odue, "
        "odid, flags, data FROM cards WHERE nid = ? ORDER BY id",
        nid,
    )
    revlog = phone.rows(
        "SELECT r.id, r.cid, r.ease, r.ivl, r.lastIvl, r.factor, r.time, r.type FROM revlog r "
        "JOIN cards c ON c.id = r.cid WHERE c.nid = ? ORDER BY r.id",
        nid,
    )
    return (note, cards, revlog)


class DroppingProxy:
    """A TCP proxy to the server that cuts the connection once a request for ``path`` starts
    (after ``skip`` such requests went through): the server failing mid-sync, as the client
    sees it. With ``hold``, the request first waits, unanswered, until ``hold`` is set (a
    server that does not answer; :attr:`holding` is set as it starts waiting), or 60 s, and
    is dropped then."""

    def __init__(
        self, target_port: int, path: bytes, *, skip: int = 0, hold: threading.Event | None = None
    ) -> None:
        self.target_port, self.path, self.skip, self.hold = target_port, path, skip, hold
        self.holding = threading.Event()
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen()
        self.port = int(self.listener.getsockname()[1])
        self.dropped = 0
        self.seen: list[bytes] = []
        self._stop = False
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def _serve(self) -> None:
        while not self._stop:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._pipe, args=(client,), daemon=True).start()

    def _pipe(self, client: socket.socket) -> None:
        upstream = socket.create_connection(("127.0.0.1", self.target_port))

        def back() -> None:
            try:
                while data := upstream.recv(65536):
                    client.sendall(data)
            except OSError:
                pass
            finally:
                client.close()

        threading.Thread(target=back, daemon=True).start()
        try:
            while data := client.recv(65536):
                self.seen.append(data[:60])
                if self.path in data:
                    if self.skip:
                        self.skip -= 1
                    else:
                        if self.hold is not None:
                            self.holding.set()
                            self.hold.wait(60)
                        self.dropped += 1
                        break
                upstream.sendall(data)
        except OSError:
            pass
        finally:
            client.close()
            upstream.close()

    def close(self) -> None:
        self._stop = True
        self.listener.close()
