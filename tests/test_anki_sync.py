"""``zerodrill anki login|sync`` against Anki's real sync server, with a second Anki client
playing the phone (tests/anki_sync_support.py).

Each test has an account of its own on one server started for the session. The terminal's
side is the CLI, run in-process, on a review store and a deck in the test's folder.
"""

from __future__ import annotations

import errno
import gc
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Collection, Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anki.collection  # noqa: F401  (Anki's modules import in this order only)
import pytest
from anki.cards import Card, CardId
from anki.notes import NoteId
from anki.scheduler.v3 import CardAnswer
from anki.sync import SyncOutput
from anki_sync_support import DroppingProxy, Phone, SyncServer, free_port, own_rows
from cli_support import run_cli

from zerodrill.anki_sync import login as kept
from zerodrill.anki_sync import store_bridge, workcopy
from zerodrill.anki_sync.revlog import is_marked
from zerodrill.anki_sync.store_bridge import derive
from zerodrill.deck.load import load_file
from zerodrill.srs.card_actions import Action, CardMarks
from zerodrill.srs.days import study_day
from zerodrill.srs.queue import build_queue, items_of
from zerodrill.srs.store import Store
from zerodrill.words import plural

DECK_YAML = """\
deck: phone-deck
title: Phone deck
description: Cards synced with Anki in the tests.
retired: []
cards:
  - id: stage-2
    kind: basic
    front: What does ZeRO stage 2 partition?
    back: Optimizer states and gradients.
  - id: stage-1
    kind: basic
    front: What does ZeRO stage 1 partition?
    back: Optimizer states.
  - id: stage-3
    kind: basic
    front: What does ZeRO stage 3 partition?
    back: Parameters too.
  - id: stage-key
    kind: cloze
    text: "The stage is set by {{c1::zero_optimization}}.{{c2::stage}}."
"""
DECK_ID = "phone-deck"
KEYS = [f"{DECK_ID}/{c}" for c in ("stage-2", "stage-1", "stage-3")] + [
    f"{DECK_ID}/stage-key#c1",
    f"{DECK_ID}/stage-key#c2",
]


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SyncServer]:
    running = SyncServer(tmp_path_factory.mktemp("sync-base"))
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The terminal's side: its config folder (the login), the deck and the review store."""
    monkeypatch.setenv("ZERODRILL_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("ZERODRILL_ANKI_USER", raising=False)
    monkeypatch.delenv("ZERODRILL_ANKI_PASSWORD", raising=False)
    deck = tmp_path / "decks" / "phone.yaml"
    deck.parent.mkdir()
    deck.write_text(DECK_YAML)
    return tmp_path


@pytest.fixture
def account(server: SyncServer) -> str:
    return server.account()


@pytest.fixture
def phone(tmp_path: Path, server: SyncServer, account: str) -> Iterator[Phone]:
    """The phone, with a note of the user's own, reviewed, and synced up first (as a user who
    had Anki before zerodrill)."""
    p = Phone.on(tmp_path / "phone", server, account)
    try:
        p.own = p.add_own_note("a question of my own")  # type: ignore[attr-defined]
        p.col.decks.select(p.col.decks.id("My own deck"))
        p.answer(p.rows("SELECT id FROM cards")[0][0], CardAnswer.GOOD)  # type: ignore[arg-type]
        assert p.sync() == 4  # a full upload: the server is empty
        yield p
    finally:
        p.close()


def login(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    url: str,
    user: str,
    password: str = "secret",
) -> tuple[int, str, str]:
    monkeypatch.setenv("ZERODRILL_ANKI_USER", user)
    monkeypatch.setenv("ZERODRILL_ANKI_PASSWORD", password)
    return run_cli(capsys, "anki", "login", "--server", url)


def sync(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str, str]:
    return run_cli(capsys, "anki", "sync", str(home / "decks"), *args)


def synced(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> str:
    """A sync that works: what it printed."""
    code, out, err = sync(capsys, home, *args)
    assert code == 0, err
    return out


def answered_on_phone(phone: Phone, *answers: tuple[str, CardAnswer.Rating.V]) -> None:
    """The phone answers each card of the deck (its id, the button) and syncs them up."""
    for card, rating in answers:
        phone.answer(phone.card_of(DECK_ID, card), rating)
    phone.sync()


def noon(days_ago: int) -> datetime:
    today = study_day(datetime.now().astimezone())
    return (
        datetime.combine(today - timedelta(days=days_ago), datetime.min.time())
        .replace(hour=12)
        .astimezone()
    )


def drill(db: Path, key: str, grade: int, at: datetime) -> None:
    with Store.open(db) as store:
        store.log.grade(key, grade, day=study_day(at), at=at)


def derived_dues(store: Store) -> dict[str, object]:
    """The due days a replay of every event in the store gives, by the sync's own replay."""
    histories = derive(store.log.events(), [], KEYS, store.scheduler)
    return {key: h.due for key, h in histories.items() if h.due is not None}


def assert_cache_is_the_replay(db: Path) -> None:
    """The store's cache after a sync is what replaying its events gives (the sync hands the
    store the cards it replayed: :class:`zerodrill.srs.store.Replayed`)."""
    with Store.open(db) as store:
        cached = store.schedule.states(), store.log.entries()
        store.schedule.rederive()
        assert (store.schedule.states(), store.log.entries()) == cached


def zerodrill_due(db: Path) -> dict[str, object]:
    with Store.open(db) as store:
        return dict(store.schedule.due_dates())


def phone_due(phone: Phone) -> dict[str, object]:
    out = {}
    for key in KEYS:
        card, _, cloze = key.partition("/")[2].partition("#c")
        cid = phone.card_of(DECK_ID, card, int(cloze) - 1 if cloze else 0)
        due = phone.due_date(cid)
        if due is not None:
            out[key] = due
    return out


def test_terminal_and_phone_agree_on_every_due_date(
    home: Path,
    server: SyncServer,
    account: str,
    phone: Phone,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    _private_review_db: Path,
) -> None:
    db = _private_review_db
    drill(db, f"{DECK_ID}/stage-2", 4, noon(9))
    drill(db, f"{DECK_ID}/stage-2", 5, noon(3))
    drill(db, f"{DECK_ID}/stage-key#c1", 2, noon(1))
    mine = own_rows(phone, phone.own)  # type: ignore[attr-defined]

    code, out, err = login(capsys, monkeypatch, server.url, account)
    assert code == 0, err
    key_file = home / "config" / kept.FILE_NAME
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert "secret" not in key_file.read_text()

    out = synced(capsys, home)
    assert "First sync: your collection was downloaded from the server." in out
    assert "zerodrill → Anki: 3 reviews, 2 cards rescheduled" in out
    assert "Notes: 4 added" in out
    phone.sync()
    assert phone_due(phone) == zerodrill_due(db)
    assert len(zerodrill_due(db)) == 2
    # The phone's own note: untouched, byte for byte.
    assert own_rows(phone, phone.own) == mine  # type: ignore[attr-defined]
    # zerodrill's answers are in the phone's review log, marked as zerodrill's.
    ours = phone.rows("SELECT id, time FROM revlog WHERE cid != ?", mine[1][0][0])
    assert len(ours) == 3 and all(is_marked(rid, t) for rid, t in ours)  # type: ignore[arg-type]

    # The phone answers a new card and a due one; the next sync brings both into the drill.
    answered_on_phone(phone, ("stage-3", CardAnswer.GOOD), ("stage-2", CardAnswer.EASY))
    out = synced(capsys, home)
    assert "Anki → zerodrill: 2 reviews; zerodrill → Anki: 0 reviews" in out
    with Store.open(db) as store:
        origins = sorted(e.origin for e in store.log.events())
        assert origins.count("anki") == 2
        assert derived_dues(store) == store.schedule.due_dates()
    phone.sync()
    assert phone_due(phone) == zerodrill_due(db)
    assert set(zerodrill_due(db)) == {f"{DECK_ID}/{c}" for c in ("stage-2", "stage-3")} | {
        f"{DECK_ID}/stage-key#c1"
    }
    assert own_rows(phone, phone.own) == mine  # type: ignore[attr-defined]

    # Nothing new either side: nothing moves.
    out = synced(capsys, home)
    assert "Anki → zerodrill: 0 reviews; zerodrill → Anki: 0 reviews, 0 cards rescheduled" in out


def first_sync(
    home: Path,
    server: SyncServer,
    account: str,
    phone: Phone,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, _, err = login(capsys, monkeypatch, server.url, account)
    assert code == 0, err
    interval = sys.getswitchinterval()
    code, _, err = sync(capsys, home)
    assert code == 0, err
    # Lowered while work runs beside the run's thread (beside.Beside) only; the
    # cycle collector paused for the run only.
    assert sys.getswitchinterval() == interval and gc.isenabled()
    phone.sync()


def test_the_next_run_reads_ahead_no_card_for_ankis_answers_already_taken(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    _private_review_db: Path,
) -> None:  # fmt: skip
    """Answers given on the phone, taken by one run, are in the store as Anki's, which its
    revlog carries: the next run sends none of them, and reads ahead no history of their
    cards for a replay (it read every such card's whole history, for nothing)."""
    first_sync(home, server, account, phone, capsys, monkeypatch)
    answered_on_phone(phone, ("stage-1", CardAnswer.GOOD), ("stage-2", CardAnswer.AGAIN))
    out = synced(capsys, home)
    assert "Anki → zerodrill: 2 reviews" in out
    read: list[set[str]] = []
    read_ahead = store_bridge.read_ahead

    def recording(store: Store, keys: Collection[str]) -> store_bridge.ReadAhead:
        read.append(set(keys))
        return read_ahead(store, keys)

    monkeypatch.setattr(store_bridge, "read_ahead", recording)
    out = synced(capsys, home)
    assert read == [set()]
    assert "Anki → zerodrill: 0 reviews; zerodrill → Anki: 0 reviews" in out
    # A grade given here since is read ahead: the card it moves.
    drill(_private_review_db, f"{DECK_ID}/stage-3", 4, datetime.now().astimezone())
    out = synced(capsys, home)
    assert read[-1] == {f"{DECK_ID}/stage-3"}
    assert "zerodrill → Anki: 1 review" in out


def test_the_first_syncs_thread_copies_the_collection_once_it_has_closed_it(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """The run's copy of the collection is made by the first sync's own thread, as soon as
    that sync has closed the collection (no -wal beside it: what the server sent is in the
    file), while the run goes on; once a run, and the answers it brought are read from it."""
    first_sync(home, server, account, phone, capsys, monkeypatch)
    answered_on_phone(phone, ("stage-1", CardAnswer.GOOD))
    made: list[tuple[str, bool]] = []
    copy_into = workcopy.copy_into

    def watching(folder: Path, collection: Path) -> workcopy.Copy:
        made.append((threading.current_thread().name, Path(f"{collection}-wal").exists()))
        return copy_into(folder, collection)

    monkeypatch.setattr(workcopy, "copy_into", watching)
    out = synced(capsys, home)
    assert made == [("zerodrill-anki-sync", False)]
    assert "Anki → zerodrill: 1 review" in out


def test_a_run_leaves_the_collections_time_later_than_the_server_left_it(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """Anki syncs only a collection whose time differs from the server's, which a sync
    leaves it holding, to the millisecond. A run set it to the whole second of its clock:
    in the second of that sync it could be set back to the server's very time (when that
    fell on a whole second, one sync in a thousand), and the run's changes never left (the
    phone got none of them, now and then, in CI)."""
    from zerodrill.anki_sync import run as run_module
    from zerodrill.anki_sync import server as server_module

    before: list[int] = []
    after: list[int] = []
    sync_with = server_module.sync

    def noting(col: anki.collection.Collection, *args: Any, **kwargs: Any) -> object:
        before.append(col.db.scalar("SELECT mod FROM col"))
        done = sync_with(col, *args, **kwargs)
        after.append(col.db.scalar("SELECT mod FROM col"))
        return done

    monkeypatch.setattr(server_module, "sync", noting)
    # The run's clock in the second the first sync left as the collection's time.
    monkeypatch.setattr(
        run_module, "local_now", lambda: datetime.fromtimestamp(after[0] // 1000).astimezone()
    )
    first_sync(home, server, account, phone, capsys, monkeypatch)
    assert before[1] > after[0]  # what the first sync left, then the run's changes
    assert phone.card_of(DECK_ID, "stage-1")


def test_both_sides_review_the_same_card_between_syncs(
    home: Path,
    server: SyncServer,
    account: str,
    phone: Phone,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    _private_review_db: Path,
) -> None:
    db = _private_review_db
    drill(db, f"{DECK_ID}/stage-1", 4, noon(6))
    first_sync(home, server, account, phone, capsys, monkeypatch)
    # Both answer stage-1 today: the phone Again, the terminal a 5, an hour later.
    answered_on_phone(phone, ("stage-1", CardAnswer.AGAIN))
    drill(db, f"{DECK_ID}/stage-1", 5, datetime.now().astimezone() + timedelta(seconds=5))
    out = synced(capsys, home)
    assert "Anki → zerodrill: 1 review; zerodrill → Anki: 1 review" in out
    phone.sync()
    with Store.open(db) as store:
        # Both answers are kept; the replay of all of them is the schedule.
        assert len(store.log.events()) == 3
        assert derived_dues(store) == store.schedule.due_dates()
    assert_cache_is_the_replay(db)
    assert phone_due(phone) == zerodrill_due(db)
    # Anki's Again was first today: the terminal's later grade is that day's repeat.
    today = study_day(datetime.now().astimezone())
    assert zerodrill_due(db)[f"{DECK_ID}/stage-1"] == today + timedelta(days=1)
    cid = phone.card_of(DECK_ID, "stage-1")
    assert len(phone.rows("SELECT id FROM revlog WHERE cid = ?", cid)) == 3


def test_an_edited_note_updates_in_place_and_a_retired_card_is_suspended(
    home: Path,
    server: SyncServer,
    account: str,
    phone: Phone,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    _private_review_db: Path,
) -> None:
    drill(_private_review_db, f"{DECK_ID}/stage-3", 4, noon(2))
    first_sync(home, server, account, phone, capsys, monkeypatch)
    stage_3 = phone.card_of(DECK_ID, "stage-3")
    before = phone.rows("SELECT due, ivl, queue FROM cards WHERE id = ?", stage_3)
    notes_before = phone.rows("SELECT COUNT(*) FROM notes")
    deck = home / "decks" / "phone.yaml"
    text = deck.read_text().replace("Optimizer states.", "Optimizer states only.")
    deck.write_text(text.replace("retired: []", "retired: [stage-3]"))
    out = synced(capsys, home)
    assert "Notes: 0 added, 2 updated, 1 retired card suspended." in out
    phone.sync()
    nid = phone.rows("SELECT nid FROM cards WHERE id = ?", phone.card_of(DECK_ID, "stage-1"))
    (fields,) = phone.rows("SELECT flds FROM notes WHERE id = ?", nid[0][0])[0]
    assert "Optimizer states only." in str(fields)
    assert phone.rows("SELECT COUNT(*) FROM notes") == notes_before
    # Suspended where it stood: its schedule kept.
    due, ivl, queue = phone.rows("SELECT due, ivl, queue FROM cards WHERE id = ?", stage_3)[0]
    assert (due, ivl, queue) == (before[0][0], before[0][1], -1)
    # A second run suspends nothing more.
    code, out, err = sync(capsys, home)
    assert "Notes: 0 added, 0 updated, 0 retired cards suspended." in out


def test_a_dry_run_says_what_would_move_and_changes_nothing(
    home: Path,
    server: SyncServer,
    account: str,
    phone: Phone,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    _private_review_db: Path,
) -> None:
    db = _private_review_db
    first_sync(home, server, account, phone, capsys, monkeypatch)
    answered_on_phone(phone, ("stage-2", CardAnswer.GOOD))
    code, _, err = sync(capsys, home)  # the phone's answer reaches zerodrill's copy
    assert code == 0, err
    drill(db, f"{DECK_ID}/stage-1", 3, datetime.now().astimezone())

    def state() -> object:
        """zerodrill's folder for Anki, and the review database, to the byte and the ns."""
        names = sorted(p.name for p in db.parent.iterdir())
        return folder_state(home / "anki"), db.read_bytes(), db.stat().st_mtime_ns, names

    before = state()
    out = synced(capsys, home, "--dry-run")
    assert "zerodrill → Anki: 1 review, 1 card would be rescheduled" in out
    assert "Notes: 0 would be added, 0 would be updated" in out
    assert "Dry run: nothing was changed" in out
    assert state() == before


def test_a_dry_run_asks_the_server_read_only(
    home: Path,
    server: SyncServer,
    account: str,
    phone: Phone,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    _private_review_db: Path,
) -> None:
    """Answers the phone synced since the terminal's last sync are counted as coming in; the
    server keeps nothing of the look (the phone, which synced last, finds nothing new), and
    the real sync then brings exactly those answers."""
    db = _private_review_db
    drill(db, f"{DECK_ID}/stage-1", 4, noon(3))
    first_sync(home, server, account, phone, capsys, monkeypatch)
    for card in ("stage-2", "stage-3", "stage-1"):
        phone.answer(phone.card_of(DECK_ID, card), CardAnswer.GOOD)
    phone.col.set_user_flag_for_cards(2, [CardId(phone.card_of(DECK_ID, "stage-3"))])
    phone.add_own_note("a new note of mine", deck="A deck made on the phone")
    phone.sync()
    phone_answers = {r[0] for r in phone.rows("SELECT id FROM revlog")}

    def state() -> object:
        names = sorted(p.name for p in db.parent.iterdir())
        return folder_state(home / "anki"), db.read_bytes(), db.stat().st_mtime_ns, names

    def on_phone() -> object:
        return (
            phone.rows("SELECT * FROM revlog ORDER BY id"),
            phone.rows("SELECT * FROM cards ORDER BY id"),
            phone.rows("SELECT * FROM notes ORDER BY id"),
        )

    before, phone_before = state(), on_phone()
    out = synced(capsys, home, "--dry-run")
    assert "Anki → zerodrill: 3 reviews; zerodrill → Anki: 0 reviews" in out
    assert "1 change made in Anki would be brought back" in marks_line(out)
    assert "Dry run: nothing was changed" in out
    assert state() == before
    assert phone.col.sync_status(phone.auth).required == SyncOutput.NO_CHANGES
    assert phone.sync() == 0
    assert on_phone() == phone_before

    out = synced(capsys, home)
    assert "Anki → zerodrill: 3 reviews; zerodrill → Anki: 0 reviews" in out
    assert "1 change made in Anki brought back" in marks_line(out)
    with Store.open(db) as store:
        from_anki = {e.seq for e in store.log.events() if e.origin == "anki"}
    assert len(from_anki) == 3 and from_anki <= phone_answers


def test_a_dry_run_when_the_server_asks_for_a_full_sync(
    home: Path,
    server: SyncServer,
    account: str,
    phone: Phone,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    _private_review_db: Path,
) -> None:
    """The phone replaced the server's collection (a full upload): the dry run says a real
    sync would take it whole, fetches nothing, and the server stays as the phone left it."""
    first_sync(home, server, account, phone, capsys, monkeypatch)
    phone.answer(phone.card_of(DECK_ID, "stage-2"), CardAnswer.GOOD)
    phone.col.mod_schema(check=False)
    assert phone.sync(upload_on_conflict=True) != 0
    before, on_server = folder_state(home / "anki"), server_collection(server, account)
    out = synced(capsys, home, "--dry-run")
    assert "The server asks for a full sync (its collection was replaced)" in out
    assert "Anki → zerodrill: 0 reviews" in out
    assert folder_state(home / "anki") == before
    # Read from the server's own file: the phone's view of it (its sync status) also moves
    # with the phone's own clock and cache.
    assert server_collection(server, account) == on_server


def server_collection(server: SyncServer, account: str) -> object:
    """The server's collection of ``account``, read from a copy of its files (the server
    holds them locked): its times and numbers, and its cards and review log."""
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("collection.anki2", "collection.anki2-wal"):
            if (server.base / account / name).exists():
                shutil.copyfile(server.base / account / name, Path(tmp) / name)
        with closing(sqlite3.connect(Path(tmp) / "collection.anki2")) as conn:
            return (
                conn.execute("SELECT mod, usn, scm, ls FROM col").fetchall(),
                conn.execute("SELECT * FROM cards ORDER BY id").fetchall(),
                conn.execute("SELECT * FROM revlog ORDER BY id").fetchall(),
            )


def test_sync_with_a_collection_file(
    home: Path, capsys: pytest.CaptureFixture[str], _private_review_db: Path
) -> None:
    """``--collection``: the way to push terminal progress into a collection that already
    has the notes (which an import of ``export --with-progress`` cannot)."""
    from anki.collection import Collection

    db = _private_review_db
    path = home / "desktop" / "collection.anki2"
    path.parent.mkdir()
    col = Collection(str(path))
    col.close()
    drill(db, f"{DECK_ID}/stage-2", 4, noon(4))
    code, out, err = run_cli(capsys, "anki", "sync", str(home / "decks"), "--collection", str(path))
    assert code == 0, err
    drill(db, f"{DECK_ID}/stage-2", 5, noon(0))
    code, out, err = run_cli(capsys, "anki", "sync", str(home / "decks"), "--collection", str(path))
    assert code == 0, err
    assert "zerodrill → Anki: 1 review, 1 card rescheduled" in out
    with closing(Collection(str(path))) as col:
        desk = Phone(col, None)  # type: ignore[arg-type]
        assert phone_due(desk) == zerodrill_due(db)
    # Anki open on it: one line, and nothing changed; a dry run reads it all the same.
    with closing(Collection(str(path))) as col:
        drill(db, f"{DECK_ID}/stage-3", 4, noon(0))
        # In another process, as Anki is: a process that reads the file itself ends its own
        # POSIX locks on it (SQLite's, which are Anki's) when it closes it.
        dry = subprocess.run(
            [sys.executable, "-m", "zerodrill", "anki", "sync", str(home / "decks"),
             "--collection", str(path), "--dry-run"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert dry.returncode == 0, dry.stderr
        assert "zerodrill → Anki: 1 review, 1 card would be rescheduled" in dry.stdout
        size = path.stat().st_size
        done = subprocess.run(
            [sys.executable, "-m", "zerodrill", "anki", "sync", str(home / "decks"),
             "--collection", str(path)],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 1
        assert done.stderr.count("\n") == 1 and "open in Anki" in done.stderr, done.stderr
        assert path.stat().st_size == size


# -- nothing of the user's deleted or replaced (issue 35, point 5) --------------------------


def folder_state(folder: Path) -> dict[Path, tuple[bytes, int] | None]:
    """Every path under ``folder``: a file's bytes and modification time, None for a folder."""
    return {
        p: (p.read_bytes(), p.stat().st_mtime_ns) if p.is_file() else None
        for p in sorted(folder.rglob("*"))
    }


def test_a_collection_of_the_users_in_an_anki_folder_beside_the_database_is_left_alone(
    home: Path, server: SyncServer, account: str, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """zerodrill's own copy lives in ``anki/`` beside the review database; a collection found
    there that zerodrill did not make is the user's: neither a dry run nor a sync removes or
    writes anything of it."""
    from anki.collection import Collection

    code, _, err = login(capsys, monkeypatch, server.url, account)
    assert code == 0, err
    data = home / "data"
    db = data / "reviews.db"
    monkeypatch.setenv("ZERODRILL_DB", str(db))
    data.mkdir()
    drill(db, f"{DECK_ID}/stage-2", 4, noon(3))
    mine = data / "anki" / "collection.anki2"
    mine.parent.mkdir()
    col = Collection(str(mine))
    try:
        Phone(col, None).add_own_note("a question of mine")  # type: ignore[arg-type]
    finally:
        col.close()
    Path(f"{mine}-wal").write_bytes(b"what Anki had not yet folded in")
    (mine.parent / "collection.media").mkdir(exist_ok=True)
    (mine.parent / "collection.media" / "mine.png").write_bytes(b"\x89PNG mine")
    before = folder_state(data)
    for args in (["--dry-run"], []):
        code, out, err = sync(capsys, home, *args)
        assert code == 1, out
        assert "which zerodrill did not make: it is left as it is" in one_line(err)
        assert "collection.anki2, collection.anki2-wal, collection.media" in err
        assert folder_state(data) == before


def test_a_dry_run_on_a_database_of_an_earlier_zerodrill_migrates_nothing(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The dry run reads a migrated copy: the file stays as the earlier version left it, and
    nothing is written anywhere."""
    from anki.collection import Collection

    db = home / "data" / "reviews.db"
    db.parent.mkdir()
    shutil.copyfile(Path(__file__).parent / "data" / "reviews-v2.db", db)
    path = home / "desktop" / "collection.anki2"
    path.parent.mkdir()
    Collection(str(path)).close()
    before = folder_state(db.parent)
    code, out, err = sync(capsys, home, "--collection", str(path), "--db", str(db), "--dry-run")
    assert code == 0, err
    assert "Dry run: nothing was changed" in out
    assert folder_state(db.parent) == before
    assert not (home / "deck-cache").exists()  # the parsed-deck cache is not written either


def test_an_answer_given_in_anki_while_the_sync_runs_is_kept(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    _private_review_db: Path,
) -> None:  # fmt: skip
    """``--collection``: Anki opened, answered and closed between the copy and its putting
    back. The sync refuses rather than replace the collection; the next one brings the answer
    in."""
    from anki.collection import Collection

    from zerodrill.anki_sync import run

    db = _private_review_db
    path = home / "desktop" / "collection.anki2"
    path.parent.mkdir()
    Collection(str(path)).close()
    code, _, err = sync(capsys, home, "--collection", str(path))
    assert code == 0, err
    drill(db, f"{DECK_ID}/stage-1", 4, noon(0))
    applied = run._apply

    def answered_meanwhile(*args: Any, **kwargs: Any) -> Any:
        done = applied(*args, **kwargs)
        with closing(Collection(str(path))) as col:
            desk = Phone(col, None)  # type: ignore[arg-type]
            desk.answer(desk.card_of(DECK_ID, "stage-3"), CardAnswer.GOOD)
        return done

    monkeypatch.setattr(run, "_apply", answered_meanwhile)
    code, out, err = sync(capsys, home, "--collection", str(path))
    assert code == 1, out
    assert "changed during the sync" in one_line(err)
    with closing(sqlite3.connect(path)) as conn:
        answers = conn.execute("SELECT id, time FROM revlog").fetchall()
    assert [a for a in answers if not is_marked(*a)]  # the answer is there, nothing lost
    monkeypatch.setattr(run, "_apply", applied)
    code, out, err = sync(capsys, home, "--collection", str(path))
    assert code == 0, err
    assert "Anki → zerodrill: 1 review; zerodrill → Anki: 1 review" in out


def test_a_symlinked_collection_is_written_through_and_stays_a_link(
    home: Path, capsys: pytest.CaptureFixture[str], _private_review_db: Path
) -> None:
    from anki.collection import Collection

    db = _private_review_db
    path = home / "desktop" / "collection.anki2"
    path.parent.mkdir()
    Collection(str(path)).close()
    link = home / "link.anki2"
    link.symlink_to(path)
    # Named as a killed run's work folder, but not marked as one: not zerodrill's to remove.
    lookalike = path.parent / ".zerodrill-sync-collection.anki2-1" / "mine.txt"
    lookalike.parent.mkdir()
    lookalike.write_text("mine")
    drill(db, f"{DECK_ID}/stage-2", 4, noon(2))
    code, out, err = sync(capsys, home, "--collection", str(link))
    assert code == 0, err
    assert link.is_symlink() and link.resolve() == path
    assert lookalike.read_text() == "mine"
    assert "interrupted sync" not in out
    loop = home / "loop.anki2"
    loop.symlink_to(loop)
    code, out, err = sync(capsys, home, "--collection", str(loop))
    assert code == 1 and "not a collection file" in one_line(err)
    with closing(Collection(str(path))) as col:
        assert phone_due(Phone(col, None)) == zerodrill_due(db)  # type: ignore[arg-type]


def test_a_second_terminals_first_sync_rewrites_no_note(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """A note is written to Anki only when its content changed: another terminal's first
    sync builds the decks' notes afresh (newer, to Anki's importer) but they are the same,
    so no device downloads them again."""
    first_sync(home, server, account, phone, capsys, monkeypatch)
    ours = "SELECT id, mod, usn FROM notes WHERE id != ? ORDER BY id"
    notes_before = phone.rows(ours, phone.own)  # type: ignore[attr-defined]
    assert len(notes_before) == 4
    kinds = "SELECT id, mtime_secs, usn FROM notetypes ORDER BY id"
    kinds_before = phone.rows(kinds)
    # A build in a later second than the notes' own time: newer, as Anki's importer sees it.
    while int(time.time()) <= max(int(mod) for _, mod, _ in notes_before):  # type: ignore[call-overload]
        time.sleep(0.05)
    other = home / "second-terminal" / "reviews.db"
    other.parent.mkdir()
    code, out, err = sync(capsys, home, "--db", str(other))
    assert code == 0, err
    assert "First sync: your collection was downloaded from the server." in out
    assert "Notes: 0 added, 0 updated" in out
    phone.sync()
    assert phone.rows(ours, phone.own) == notes_before  # type: ignore[attr-defined]
    assert phone.rows(kinds) == kinds_before


# -- failures: each one line, and nothing half done ----------------------------------------


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and err.startswith("zerodrill: "), err
    return err


def snapshot(home: Path, db: Path) -> dict[Path, bytes]:
    """The terminal's side of a sync: its review store and its copy of the collection."""
    files = [db, home / "anki" / "collection.anki2"]
    return {p: p.read_bytes() for p in files if p.exists()}


def test_wrong_credentials_save_nothing(
    home: Path, server: SyncServer, account: str, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    code, out, err = login(capsys, monkeypatch, server.url, account, password="wrong")
    assert code == 1
    assert "refused the user name or password; nothing was saved" in one_line(err)
    assert not (home / "config" / kept.FILE_NAME).exists()


def test_login_asks_for_the_password_without_echoing_it(
    home: Path, server: SyncServer, account: str, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    prompts: list[tuple[str, bool]] = []

    def prompt(text: str, hide_input: bool = False, **_: object) -> str:
        prompts.append((text, hide_input))
        return account if not hide_input else "secret"

    monkeypatch.setattr("click.prompt", prompt)
    code, out, err = run_cli(capsys, "anki", "login", "--server", server.url)
    assert code == 0, err
    assert prompts == [("Anki user name", False), ("Password", True)]
    assert kept.load().endpoint == server.url


def test_an_unreachable_server_changes_nothing(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    first_sync(home, server, account, phone, capsys, monkeypatch)
    drill(_private_review_db, f"{DECK_ID}/stage-1", 4, datetime.now().astimezone())
    before = snapshot(home, _private_review_db)
    key = kept.load()
    kept.save(kept.HostKey(f"http://127.0.0.1:{free_port()}/", key.hkey))
    code, out, err = sync(capsys, home)
    assert code == 1
    assert "cannot reach the sync server" in one_line(err)
    assert "nothing was changed on either side" in err
    assert snapshot(home, _private_review_db) == before
    code, out, err = login(capsys, monkeypatch, f"http://127.0.0.1:{free_port()}/", account)
    assert code == 1 and "cannot reach" in one_line(err)


def test_an_expired_host_key_says_to_log_in_again(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    first_sync(home, server, account, phone, capsys, monkeypatch)
    drill(_private_review_db, f"{DECK_ID}/stage-1", 4, datetime.now().astimezone())
    before = _private_review_db.read_bytes()
    # A host key the server does not know (revoked, or its password changed since).
    kept.save(kept.HostKey(server.url, "0" * 40))
    code, out, err = sync(capsys, home)
    assert code == 1
    assert "no longer accepts zerodrill's login" in one_line(err)
    assert "run 'zerodrill anki login' again" in err
    assert _private_review_db.read_bytes() == before
    phone.sync()
    assert phone_due(phone) == {}
    kept.login_path().unlink()
    code, out, err = sync(capsys, home)
    assert code == 1 and "not logged in" in one_line(err)


def test_a_full_upload_only_when_asked(
    home: Path, server: SyncServer, account: str, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, _private_review_db: Path,
) -> None:  # fmt: skip
    """A new account: the server has no collection, and Anki sends one only whole."""
    db = _private_review_db
    drill(db, f"{DECK_ID}/stage-2", 4, noon(3))
    code, _, err = login(capsys, monkeypatch, server.url, account)
    assert code == 0, err
    with Store.open(db) as store:
        log_before = store.log.events()
    code, out, err = sync(capsys, home)
    assert code == 1
    assert "needs a full upload" in one_line(err)
    assert "run 'zerodrill anki sync --full-upload'" in err
    with Store.open(db) as store:
        assert store.log.events() == log_before
    out = synced(capsys, home, "--full-upload")
    # The refused run added the notes to zerodrill's copy already: this one adds none, and
    # says what the upload carried.
    assert "Notes: 0 added" in out
    phone = Phone.on(tmp_path / "new-phone", server, account)
    try:
        assert phone.sync() == 3  # a full download: the phone is new
        assert phone.col.note_count() > 0
        held = plural(phone.col.note_count(), "note")
        assert f"the server's collection is now this one, with zerodrill's {held}." in out
        assert phone_due(phone) == zerodrill_due(db) != {}
    finally:
        phone.close()


def test_a_full_sync_the_server_asks_for_takes_its_collection(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """The phone changed the collection's schema and uploaded it whole: zerodrill's copy is
    replaced by the server's, and its changes are made again on it."""
    db = _private_review_db
    first_sync(home, server, account, phone, capsys, monkeypatch)
    phone.answer(phone.card_of(DECK_ID, "stage-3"), CardAnswer.GOOD)
    phone.col.mod_schema(check=False)
    assert phone.sync(upload_on_conflict=True) == 2  # Anki asks the user: upload
    drill(db, f"{DECK_ID}/stage-1", 4, datetime.now().astimezone())
    out = synced(capsys, home)
    assert "The server asked for a full sync: took its collection whole" in out
    assert "Anki → zerodrill: 1 review; zerodrill → Anki: 1 review" in out
    phone.sync()
    assert phone_due(phone) == zerodrill_due(db)
    assert set(zerodrill_due(db)) == {f"{DECK_ID}/stage-1", f"{DECK_ID}/stage-3"}


def test_the_server_failing_mid_sync_leaves_nothing_half_done(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    db = _private_review_db
    first_sync(home, server, account, phone, capsys, monkeypatch)
    answered_on_phone(phone, ("stage-2", CardAnswer.GOOD))
    drill(db, f"{DECK_ID}/stage-1", 4, datetime.now().astimezone())
    before_log = phone.rows("SELECT id FROM revlog ORDER BY id")
    before_cards = phone.rows("SELECT id, due, ivl, queue FROM cards ORDER BY id")
    # The connection drops as the last sync (the second of the run) sends its changes.
    proxy = DroppingProxy(server.port, b"/sync/applyChanges", skip=1)
    key = kept.load()
    kept.save(kept.HostKey(proxy.url, key.hkey))
    try:
        with Store.open(db) as store:
            log_before = store.log.events()
        code, out, err = sync(capsys, home)
        assert code == 1, proxy.seen
        assert proxy.dropped == 1
        one_line(err)
        # The store took the phone's answer alone (the collection holds it already: it is
        # sent to the other machines in the run that reads it), and the phone sees nothing of
        # the run.
        with Store.open(db) as store:
            taken = [e for e in store.log.events() if e not in log_before]
            assert [(e.origin, e.key) for e in taken] == [("anki", f"{DECK_ID}/stage-2")]
        phone.sync()
        assert phone.rows("SELECT id FROM revlog ORDER BY id") == before_log
        assert phone.rows("SELECT id, due, ivl, queue FROM cards ORDER BY id") == before_cards
    finally:
        proxy.close()
    kept.save(key)
    out = synced(capsys, home)
    # The answer given in zerodrill was written into zerodrill's copy last time, and is sent
    # with this run's first sync; the phone's was taken last time.
    assert "Anki → zerodrill: 0 reviews; zerodrill → Anki: 0 reviews" in out
    phone.sync()
    cid = phone.card_of(DECK_ID, "stage-1")
    assert len(phone.rows("SELECT id FROM revlog WHERE cid = ?", cid)) == 1
    assert phone_due(phone) == zerodrill_due(db)


def _failing_as_the_store_logs_ankis_answers(
    monkeypatch: pytest.MonkeyPatch, failure: BaseException, first: threading.Event | None = None
) -> list[int]:
    """The store failing with ``failure`` as it is given Anki's answers (once ``first`` is
    set, if given): how many answers it was given, in a list that fills as it is called."""
    from zerodrill.anki_sync import store_bridge

    given: list[int] = []

    def failing(store: Store, reviews: Any, *args: Any, **kwargs: Any) -> tuple[str, ...]:
        given.append(len(reviews))
        if first is not None:
            assert first.wait(60)
        raise failure

    monkeypatch.setattr(store_bridge, "add_anki_reviews", failing)
    return given


def _sync_after_an_abort(phone: Phone) -> None:
    """The phone's sync right after one was stopped: Anki's client tells the server of the
    stop from a thread of its own once the call has returned, and a sync that meets it is
    told that another is in progress ("Only one copy of Anki can sync..."), as Anki's would
    be; it waits, and tries again."""
    from anki.errors import SyncError

    for _ in range(100):
        try:
            phone.sync()
            return
        except SyncError as exc:
            if "Only one copy of Anki" not in str(exc):
                raise
            time.sleep(0.1)
    phone.sync()


def test_ctrl_c_as_the_store_takes_ankis_answers_stops_the_last_sync_waiting_on_the_server(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """The store takes Anki's answers while the last sync with the server runs: Ctrl+C in it
    stops that sync too, as Anki stops one, not waiting on a server that does not answer."""
    db = _private_review_db
    first_sync(home, server, account, phone, capsys, monkeypatch)
    answered_on_phone(phone, ("stage-2", CardAnswer.GOOD))
    drill(db, f"{DECK_ID}/stage-1", 4, datetime.now().astimezone())
    before_cards = phone.rows("SELECT id, due, ivl, queue FROM cards ORDER BY id")
    # The server does not answer the last sync's changes until released.
    release = threading.Event()
    proxy = DroppingProxy(server.port, b"/sync/applyChanges", skip=1, hold=release)
    key = kept.load()
    kept.save(kept.HostKey(proxy.url, key.hkey))
    aborted: list[bool] = []
    abort_sync = anki.collection.Collection.abort_sync

    def stopping(col: anki.collection.Collection) -> None:
        aborted.append(proxy.dropped == 0)  # the server still not answering
        abort_sync(col)

    interval = sys.getswitchinterval()
    try:
        with monkeypatch.context() as patched:
            given = _failing_as_the_store_logs_ankis_answers(
                patched, KeyboardInterrupt(), first=proxy.holding
            )
            patched.setattr(anki.collection.Collection, "abort_sync", stopping)
            code, out, err = sync(capsys, home)
        assert (code, err.strip(), given) == (1, "Aborted.", [1])  # click's Ctrl+C
        assert sys.getswitchinterval() == interval  # lowered while work runs beside only
        assert gc.isenabled()  # paused for the run only
        # Stopped as Anki stops a sync, not waited for (Anki's client gives up after 30 s).
        assert aborted == [True]
    finally:
        release.set()
        proxy.close()
    kept.save(key)
    _sync_after_an_abort(phone)
    assert phone.rows("SELECT id, due, ivl, queue FROM cards ORDER BY id") == before_cards
    # The next run sends what the stopped one wrote into zerodrill's copy, and takes the
    # phone's answer.
    out = synced(capsys, home)
    assert "Anki → zerodrill: 1 review; zerodrill → Anki: 0 reviews" in out
    phone.sync()
    assert phone_due(phone) == zerodrill_due(db)
    assert set(zerodrill_due(db)) == {f"{DECK_ID}/stage-1", f"{DECK_ID}/stage-2"}


def test_the_store_failing_as_the_last_sync_runs_loses_nothing(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """A full disk as the store takes Anki's answers: one line, the collection synced all
    the same (the answers are in it), and the next run takes them."""
    from zerodrill.srs.store import StoreError

    db = _private_review_db
    first_sync(home, server, account, phone, capsys, monkeypatch)
    answered_on_phone(phone, ("stage-2", CardAnswer.GOOD))
    drill(db, f"{DECK_ID}/stage-1", 4, datetime.now().astimezone())
    with monkeypatch.context() as patched:
        full = StoreError(f"cannot write {db}: the disk is full", db)
        given = _failing_as_the_store_logs_ankis_answers(patched, full)
        code, out, err = sync(capsys, home)
    assert (code, given) == (1, [1])
    assert one_line(err) == f"zerodrill: cannot write {db}: the disk is full\n"
    phone.sync()
    assert phone_due(phone)[f"{DECK_ID}/stage-1"] == zerodrill_due(db)[f"{DECK_ID}/stage-1"]
    out = synced(capsys, home)
    assert "Anki → zerodrill: 1 review; zerodrill → Anki: 0 reviews" in out
    phone.sync()
    assert phone_due(phone) == zerodrill_due(db)


def test_a_full_disk_as_zerodrills_answers_are_written_into_anki_is_one_line(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """Anki's database failing as the revlog rows are written (in their thread, beside the
    replay): one line naming the collection, which is as it was, nothing left beside it; the
    next run writes them."""
    from anki.errors import DBError

    from zerodrill.anki_sync import backend, revlog

    db = _private_review_db
    first_sync(home, server, account, phone, capsys, monkeypatch)
    drill(db, f"{DECK_ID}/stage-1", 4, datetime.now().astimezone())
    cache = home / "anki" / "collection.anki2"
    before = cache_rows(cache)
    insert_rows = backend.insert_rows

    def full(col: Any, head: str, rows: Any) -> None:
        if head == revlog.INSERT:
            raise DBError("database or disk is full", None, None, None)
        insert_rows(col, head, rows)

    with monkeypatch.context() as patched:
        patched.setattr(backend, "insert_rows", full)
        code, _, err = sync(capsys, home)
    assert code == 1
    assert one_line(err) == (
        f"zerodrill: Anki could not write the sync's changes into its copy of {cache} "
        "(database or disk is full); the collection is unchanged: run again once that is "
        "mended\n"
    )
    assert cache_rows(cache) == before
    assert sorted(p.name for p in cache.parent.iterdir() if p.name.startswith(".zerodrill")) == []
    out = synced(capsys, home)
    assert "zerodrill → Anki: 1 review" in out
    phone.sync()
    assert phone_due(phone)[f"{DECK_ID}/stage-1"] == zerodrill_due(db)[f"{DECK_ID}/stage-1"]


def test_a_full_disk_as_the_first_syncs_thread_copies_the_collection_is_one_line(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """The run's copy of the collection failing (a full disk) in the first sync's thread,
    once that sync is done: one line naming the collection, a failed run, nothing left beside
    the collection, the store unchanged; the next run takes the phone's answer."""
    db = _private_review_db
    first_sync(home, server, account, phone, capsys, monkeypatch)
    answered_on_phone(phone, ("stage-2", CardAnswer.GOOD))
    cache = home / "anki" / "collection.anki2"
    with Store.open(db) as store:
        log_before = store.log.events()

    def full(collection: Path, into: Path) -> str:
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(workcopy, "_copy", full)
        code, _, err = sync(capsys, home)
    assert code == 1
    assert one_line(err) == f"zerodrill: cannot copy {cache}: No space left on device\n"
    assert sorted(p.name for p in cache.parent.iterdir() if p.name.startswith(".zerodrill")) == []
    with Store.open(db) as store:
        assert store.log.events() == log_before
    out = synced(capsys, home)
    assert "Anki → zerodrill: 1 review" in out


def cache_rows(cache: Path) -> tuple[list[object], list[object], list[object]]:
    with closing(sqlite3.connect(cache)) as conn:
        return (
            conn.execute("SELECT * FROM notes ORDER BY id").fetchall(),
            conn.execute("SELECT * FROM cards ORDER BY id").fetchall(),
            conn.execute("SELECT * FROM revlog ORDER BY id").fetchall(),
        )


def test_a_sync_killed_then_run_again(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    db = _private_review_db
    first_sync(home, server, account, phone, capsys, monkeypatch)
    drill(db, f"{DECK_ID}/stage-1", 4, datetime.now().astimezone())
    cache = home / "anki" / "collection.anki2"
    before = cache_rows(cache)
    run = subprocess.Popen(
        [sys.executable, "-m", "zerodrill", "anki", "sync", str(home / "decks")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        end = time.monotonic() + 60
        # The work copy made: the first sync has ended, and the run works on its copy.
        while not list(cache.parent.glob(".zerodrill-sync-*/collection.anki2")):
            if run.poll() is not None:
                assert run.stderr is not None
                raise AssertionError(f"the sync ended before it was killed: {run.stderr.read()!r}")
            assert time.monotonic() < end
            time.sleep(0.001)
        run.kill()
    finally:
        run.wait()
        assert run.stderr is not None
        run.stderr.close()
    assert run.returncode == -9
    # Killed while changing its work copy: the collection's cards and review log are as they
    # were (its first sync ran, and changed only the sync's own bookkeeping).
    assert cache_rows(cache) == before
    out = synced(capsys, home)
    assert "An interrupted sync had left a work copy: removed" in out
    assert "zerodrill → Anki: 1 review, 1 card rescheduled" in out
    assert not list(cache.parent.glob(".zerodrill-sync-*"))
    phone.sync()
    assert phone_due(phone) == zerodrill_due(db)


@pytest.mark.parametrize("command", [["login"], ["sync"], ["optimize"]])
def test_without_the_anki_package_one_line_says_what_to_install(command: list[str]) -> None:
    code = (
        "import sys\nsys.modules['anki'] = None\nfrom zerodrill.cli import main\n"
        f"main(['anki', *{command!r}])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr == (
        "zerodrill: zerodrill anki needs the anki package: pip install 'zerodrill[anki]'\n"
    )


def test_login_refuses_an_address_that_is_not_http(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = login(capsys, monkeypatch, "ftp://example.invalid/", "someone")
    assert code == 2
    assert "is not an http:// or https:// address" in err
    assert not (home / "config" / kept.FILE_NAME).exists()


def test_a_dry_run_before_any_sync(
    home: Path, server: SyncServer, account: str, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    code, _, err = login(capsys, monkeypatch, server.url, account)
    assert code == 0, err
    out = synced(capsys, home, "--dry-run")
    assert out == "Nothing synced yet: the first sync downloads your collection from the server.\n"
    assert not _private_review_db.exists()
    assert not (home / "anki").exists()


def test_an_undo_in_the_drill_reaches_the_phone(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """The drill's undo withdraws a grade the phone has: the card's schedule goes back to what
    the other grades make it (here, none: a new card), on the phone too."""
    db = _private_review_db
    drill(db, f"{DECK_ID}/stage-2", 4, noon(5))
    drill(db, f"{DECK_ID}/stage-1", 4, noon(8))
    drill(db, f"{DECK_ID}/stage-1", 3, noon(2))
    first_sync(home, server, account, phone, capsys, monkeypatch)
    assert set(phone_due(phone)) == {f"{DECK_ID}/stage-2", f"{DECK_ID}/stage-1"}
    with Store.open(db) as store:
        for key in (f"{DECK_ID}/stage-2", f"{DECK_ID}/stage-1"):
            last = [e for e in store.log.events() if e.key == key][-1]
            store.log.undo(last.identity, at=datetime.now().astimezone())
    out = synced(capsys, home)
    assert "2 cards rescheduled" in out
    phone.sync()
    assert (
        phone_due(phone)
        == zerodrill_due(db)
        == {f"{DECK_ID}/stage-1": noon(8).date() + timedelta(days=1)}
    )


def test_a_second_sync_at_once_is_refused(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """A run must not take a live run's work copy for a killed run's leftover."""
    from zerodrill.anki_sync.workcopy import one_run

    first_sync(home, server, account, phone, capsys, monkeypatch)
    cache = home / "anki" / "collection.anki2"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\nfrom pathlib import Path\n"
         "from zerodrill.anki_sync.workcopy import one_run\n"
         f"with one_run(Path({str(cache)!r})):\n    print('held', flush=True)\n    time.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        code, out, err = sync(capsys, home)
        assert code == 1
        assert "another 'zerodrill anki sync' is running" in one_line(err)
    finally:
        holder.kill()
        holder.wait()
        assert holder.stdout is not None
        holder.stdout.close()
    synced(capsys, home)
    with one_run(cache):
        pass
    assert not list(cache.parent.glob(".zerodrill-sync-*"))


def test_the_decks_images_reach_the_phone(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from zerodrill.export import ids

    media = Path(__file__).parent / "data" / "export" / "media"
    shutil.copytree(media, home / "decks" / "media")
    first_sync(home, server, account, phone, capsys, monkeypatch)
    phone.sync_media()
    image = (media / "img" / "dot.png").read_bytes()
    name = ids.media_name("export-media", "img/dot.png", image)
    assert (Path(phone.col.media.dir()) / name).read_bytes() == image
    assert not list((home / "anki").glob(".zerodrill-sync-*"))


def test_logging_in_to_another_account_starts_from_its_collection(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    _private_review_db: Path,
) -> None:  # fmt: skip
    """zerodrill's copy of the first account's collection is not synced into the second's."""
    first_sync(home, server, account, phone, capsys, monkeypatch)
    other = server.account()
    phone_b = Phone.on(tmp_path / "phone-b", server, other)
    try:
        own = phone_b.add_own_note("the other account's note")
        assert phone_b.sync() == 4
        code, _, err = login(capsys, monkeypatch, server.url, other)
        assert code == 0, err
        out = synced(capsys, home)
        assert "First sync: your collection was downloaded from the server." in out
        phone_b.sync()
        notes = phone_b.rows("SELECT id FROM notes ORDER BY id")
        assert len(notes) == 1 + 4  # its own, and the deck's four (the first account's not)
        assert own_rows(phone_b, own)[0][0][5] == "the other account's note\x1fan answer of mine"
    finally:
        phone_b.close()


# -- the cards' marks (issue 24, point 1) --------------------------------------------------
# Suspended, buried, flagged and marked cards reach the phone as Anki's own, by the export's
# mapping; cards suspended, flagged or marked on the phone come back as card actions from
# "anki", once.

S1, S2, S3 = (f"{DECK_ID}/stage-{n}" for n in (1, 2, 3))
C2 = f"{DECK_ID}/stage-key#c2"


def act(db: Path, key: str, action: Action, flag: int = 0) -> tuple[str, int]:
    """The drill's ``action`` on ``key``, logged now."""
    now = datetime.now().astimezone()
    with Store.open(db) as store:
        return store.actions.record(key, action, at=now, day=study_day(now), flag=flag).identity


def card(phone: Phone, card_id: str, ordinal: int = 0) -> Card:
    return phone.col.get_card(CardId(phone.card_of(DECK_ID, card_id, ordinal)))


def tagged_marked(phone: Phone, card_id: str) -> bool:
    return "marked" in card(phone, card_id).note().tags


def marks_line(out: str) -> str:
    return next((x for x in out.splitlines() if x.startswith("Suspended, buried")), "")


def test_the_phone_sees_zerodrills_suspended_buried_flagged_and_marked_cards(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    db = _private_review_db
    act(db, S1, Action.SUSPEND)
    act(db, S3, Action.BURY)
    flagged = act(db, C2, Action.FLAG, flag=3)
    act(db, S2, Action.MARK)
    first_sync(home, server, account, phone, capsys, monkeypatch)
    assert (card(phone, "stage-1").queue, card(phone, "stage-3").queue) == (-1, -3)
    assert card(phone, "stage-key", 1).flags == 3 and card(phone, "stage-key", 0).flags == 0
    assert tagged_marked(phone, "stage-2") and not tagged_marked(phone, "stage-1")
    # Anki's own searches find them as its own.
    assert len(phone.col.find_cards("is:suspended")) == 1
    # stage-3, and stage-key's second deletion held while the drill shows its first (as
    # Anki's own buried sibling: see test_siblings_the_drill_holds_...).
    assert len(phone.col.find_cards("is:buried")) == 2
    assert len(phone.col.find_cards("flag:3")) == 1
    assert len(phone.col.find_cards("tag:marked")) == 1

    # Once there, a second run sets nothing again and brings nothing back.
    out = synced(capsys, home)
    assert marks_line(out) == ""
    with Store.open(db) as store:
        assert {e.origin for e in store.actions.events()} == {store.machine.id}

    # The way back: unsuspended, the flag undone, unmarked in the drill; so on the phone.
    act(db, S1, Action.UNSUSPEND)
    act(db, S2, Action.UNMARK)
    with Store.open(db) as store:
        store.actions.undo(flagged, at=datetime.now().astimezone())
    out = synced(capsys, home, "--dry-run")
    assert "3 cards would be set in Anki; 0 changes made in Anki would be" in marks_line(out)
    out = synced(capsys, home)
    assert "3 cards set in Anki; 0 changes made in Anki brought back" in marks_line(out)
    phone.sync()
    assert card(phone, "stage-1").queue == 0  # new again, as before it was suspended
    assert card(phone, "stage-key", 1).flags == 0
    assert not tagged_marked(phone, "stage-2")
    assert card(phone, "stage-3").queue == -3  # still buried today


def test_cards_suspended_flagged_or_marked_on_the_phone_come_back_once(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    db = _private_review_db
    first_sync(home, server, account, phone, capsys, monkeypatch)
    phone.col.sched.suspend_cards([CardId(phone.card_of(DECK_ID, "stage-1"))])
    phone.col.set_user_flag_for_cards(2, [CardId(phone.card_of(DECK_ID, "stage-3"))])
    cloze = card(phone, "stage-key").nid
    phone.col.tags.bulk_add([NoteId(cloze)], "marked")
    phone.sync()

    out = synced(capsys, home)
    assert "0 cards set in Anki; 4 changes made in Anki brought back" in marks_line(out)
    with Store.open(db) as store:
        events = store.actions.events()
        assert {e.origin for e in events} == {"anki"} and len(events) == 4
        assert store.actions.marks() == {
            S1: CardMarks(suspended=True),
            S3: CardMarks(flag=2),
            f"{DECK_ID}/stage-key#c1": CardMarks(marked=True),
            C2: CardMarks(marked=True),
        }

    # Idempotent: the next run brings back nothing, and leaves the phone's marks as they are.
    out = synced(capsys, home)
    assert marks_line(out) == ""
    with Store.open(db) as store:
        assert len(store.actions.events()) == 4
    phone.sync()
    assert card(phone, "stage-1").queue == -1 and card(phone, "stage-3").flags == 2
    assert "marked" in phone.col.get_note(NoteId(cloze)).tags

    # The phone unsuspends; the drill unflags: each side's change reaches the other. (Anki
    # times a card's change to the second: two changes of one mark within one second come
    # back in no particular order, which a person at the phone does not make.)
    time.sleep(1)
    phone.col.sched.unsuspend_cards([CardId(phone.card_of(DECK_ID, "stage-1"))])
    phone.sync()
    act(db, S3, Action.FLAG, flag=0)
    out = synced(capsys, home)
    assert "1 card set in Anki; 1 change made in Anki brought back" in marks_line(out)
    phone.sync()
    assert card(phone, "stage-1").queue == 0 and card(phone, "stage-3").flags == 0
    with Store.open(db) as store:
        assert S1 not in store.actions.marks() and S3 not in store.actions.marks()


def test_a_card_suspended_on_the_phone_is_not_unsuspended_by_a_machine_that_never_saw_it(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
    tmp_path: Path,
) -> None:  # fmt: skip
    # Two terminals (two review stores) sync with one account; the second has not had the
    # first's card actions through the sync folder. Each keeps its own record of the marks,
    # so the second takes the phone's suspension for Anki's change, not its own unsuspend.
    first_sync(home, server, account, phone, capsys, monkeypatch)
    phone.col.sched.suspend_cards([CardId(phone.card_of(DECK_ID, "stage-1"))])
    phone.sync()
    assert sync(capsys, home)[0] == 0
    other = tmp_path / "other.db"
    code, out, err = sync(capsys, home, "--db", str(other))
    assert code == 0, err
    with Store.open(other) as store, Store.open(_private_review_db) as first:
        assert store.actions.marks() == {S1: CardMarks(suspended=True)}
        # The same change makes the same event on both: a folder sync would keep one.
        assert store.actions.events() == first.actions.events()
    phone.sync()
    assert card(phone, "stage-1").queue == -1


def test_the_phone_syncing_its_own_settings_does_not_make_the_drills_change_look_like_its(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    # Anki's sync gives one side's whole config to the other, whichever was modified last: a
    # record of the marks kept there came back from the phone as an earlier run's, and the
    # drill's unmark then read as a mark made on the phone.
    db = _private_review_db
    act(db, S1, Action.SUSPEND)
    first_sync(home, server, account, phone, capsys, monkeypatch)
    act(db, S2, Action.MARK)
    assert sync(capsys, home)[0] == 0
    # The phone, not synced since, answers a card and changes a setting of its own.
    phone.answer(phone.card_of(DECK_ID, "stage-3"), CardAnswer.GOOD)
    phone.col.set_config("activeCols", ["noteFld", "template"])
    phone.sync()
    act(db, S2, Action.UNMARK)
    out = synced(capsys, home)
    assert "1 card set in Anki; 0 changes made in Anki brought back" in marks_line(out)
    with Store.open(db) as store:
        assert {e.origin for e in store.actions.events()} == {store.machine.id}
    phone.sync()
    assert not tagged_marked(phone, "stage-2") and card(phone, "stage-1").queue == -1


def test_a_mark_made_in_anki_dated_far_ahead_is_held_back_and_left_alone(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    # A phone whose clock runs a month ahead: its suspend would win over every change until
    # then. It is not brought back, and the card is not unsuspended either.
    db = _private_review_db
    first_sync(home, server, account, phone, capsys, monkeypatch)
    cid = phone.card_of(DECK_ID, "stage-1")
    phone.col.sched.suspend_cards([CardId(cid)])
    ahead = int((datetime.now() + timedelta(days=30)).timestamp())
    phone.col.db.execute("UPDATE cards SET mod = ? WHERE id = ?", ahead, cid)
    phone.sync()
    for _ in range(2):
        out = synced(capsys, home)
        assert "1 card suspended, flagged or marked in Anki at a time more than a day ahead" in out
        assert marks_line(out) == ""
        with Store.open(db) as store:
            assert store.actions.events() == []
    phone.sync()
    assert card(phone, "stage-1").queue == -1


def drill_shows_today(home: Path, db: Path) -> set[str]:
    """The keys the drill's queue shows today over the test's deck (due, new and repeats)."""
    deck, problems = load_file(home / "decks" / "phone.yaml")
    assert deck is not None, problems
    today = study_day(datetime.now().astimezone())
    with Store.open(db) as store:
        queue = build_queue(items_of([deck]), store, today)
    return {*queue.review_keys, *(i.key for i in (*queue.new, *queue.repeats))}


def anki_shows_today(phone: Phone) -> set[str]:
    """The keys the phone's Anki queues today in the test's deck (its new, learning and
    review cards, as its counts go)."""
    by_cid = {}
    for key in KEYS:
        card_id, _, cloze = key.partition("/")[2].partition("#c")
        by_cid[phone.card_of(DECK_ID, card_id, int(cloze) - 1 if cloze else 0)] = key
    did = phone.rows("SELECT did FROM cards WHERE id = ?", next(iter(by_cid)))[0][0]
    phone.col.decks.select(did)  # type: ignore[arg-type]
    queued = phone.col.sched.get_queued_cards(fetch_limit=1000, intraday_learning_only=False)
    return {by_cid[c.card.id] for c in queued.cards if c.card.id in by_cid}


def test_siblings_the_drill_holds_for_another_day_are_not_due_in_anki(
    home: Path,
    server: SyncServer,
    account: str,
    phone: Phone,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    _private_review_db: Path,
) -> None:
    """A cloze card's deletions, and cards the deck says teach the same thing, never share a
    day in the drill: Anki shows due what the drill shows, and holds the rest (as its own
    buried siblings, which no mark reads as the user's bury)."""
    db = _private_review_db
    deck = home / "decks" / "phone.yaml"
    # stage-2 teaches what stage-1 does: it waits while stage-1 is due.
    deck.write_text(
        DECK_YAML.replace(
            "    back: Optimizer states and gradients.\n",
            "    back: Optimizer states and gradients.\n    siblings: [stage-1]\n",
        )
    )
    # Both deletions and stage-1 are overdue; the drill shows stage-1, one deletion, stage-3.
    for key in (f"{DECK_ID}/stage-key#c1", f"{DECK_ID}/stage-key#c2", f"{DECK_ID}/stage-1"):
        drill(db, key, 4, noon(8))
    shown = drill_shows_today(home, db)
    assert shown == {f"{DECK_ID}/{c}" for c in ("stage-1", "stage-key#c1", "stage-3")}
    # The phone last opened its queue yesterday: today's first look puts back what was
    # buried before today, not what the sync buries today.
    phone.col.set_config("lastUnburied", phone.col.sched.today - 1)
    phone.sync()
    first_sync(home, server, account, phone, capsys, monkeypatch)
    assert anki_shows_today(phone) == shown
    # The terminal grades the deletion it showed: the other still waits, on both sides.
    drill(db, f"{DECK_ID}/stage-key#c1", 4, datetime.now().astimezone())
    out = synced(capsys, home)
    assert "made in Anki" not in out  # Anki's buried siblings are no mark of the user's
    phone.sync()
    shown = drill_shows_today(home, db)
    assert shown == {f"{DECK_ID}/{c}" for c in ("stage-1", "stage-3")}
    assert anki_shows_today(phone) == shown
    # Nothing new: nothing moves, and nothing is held again.
    out = synced(capsys, home)
    assert "0 cards rescheduled" in out and "Siblings held" not in out, out


def test_under_fsrs_anki_keeps_each_cards_memory_state_and_check_database_adds_nothing(
    home: Path, capsys: pytest.CaptureFixture[str], _private_review_db: Path
) -> None:
    """Under FSRS on both sides, each card zerodrill schedules carries its memory state
    (stability, difficulty), desired retention and last review time as Anki keeps them:
    Anki's Check Database finds nothing to add."""
    import json

    from anki.collection import Collection

    from zerodrill.srs.settings import save_scheduler_name

    db = _private_review_db
    with Store.open(db) as store:
        save_scheduler_name(store, "fsrs")
    path = home / "desktop" / "collection.anki2"
    path.parent.mkdir()
    col = Collection(str(path))
    col.db.execute("UPDATE col SET crt = crt - 30 * 86400")  # a collection a month old
    col.set_config("fsrs", True)
    col.close()
    drill(db, f"{DECK_ID}/stage-2", 4, noon(9))
    drill(db, f"{DECK_ID}/stage-2", 3, noon(3))
    drill(db, f"{DECK_ID}/stage-key#c1", 1, noon(1))
    code, out, err = run_cli(capsys, "anki", "sync", str(home / "decks"), "--collection", str(path))
    assert code == 0, err
    with Store.open(db) as store:
        states = store.schedule.states()
    with closing(Collection(str(path))) as col:
        desk = Phone(col, None)  # type: ignore[arg-type]
        for key, state in states.items():
            card_id, _, cloze = key.partition("/")[2].partition("#c")
            cid = desk.card_of(DECK_ID, card_id, int(cloze) - 1 if cloze else 0)
            data = json.loads(str(col.db.scalar("SELECT data FROM cards WHERE id = ?", cid)))
            # As Anki keeps them: stability to four places, difficulty to three.
            assert data["s"] == pytest.approx(state.stability, abs=5e-5), key  # type: ignore[attr-defined]
            assert data["d"] == pytest.approx(state.difficulty, abs=5e-4), key  # type: ignore[attr-defined]
            assert data["dr"] == pytest.approx(0.9), key
            assert data["lrt"] == int(state.last_review.timestamp()), key  # type: ignore[attr-defined]
        report, _ = col.fix_integrity()
        assert "last review" not in report.lower() and "memory" not in report.lower(), report


def desktop_collection(home: Path, *, fsrs: bool, retention: float = 0.9, params5=()) -> Path:  # type: ignore[no-untyped-def]
    """A collection a month old, FSRS on or off, its default preset given ``retention`` and
    FSRS-5 parameters ``params5`` (none: Anki's defaults)."""
    from anki.collection import Collection

    path = home / "desktop" / "collection.anki2"
    path.parent.mkdir(exist_ok=True)
    with closing(Collection(str(path))) as col:
        col.db.execute("UPDATE col SET crt = crt - 30 * 86400")
        col.set_config("fsrs", fsrs)
        conf = col.decks.config_dict_for_deck_id(1)  # type: ignore[arg-type]
        conf["desiredRetention"] = retention
        conf["fsrsParams5"] = list(params5)
        col.decks.update_config(conf)
    return path


def test_under_fsrs_the_drill_takes_the_model_of_ankis_preset(
    home: Path, capsys: pytest.CaptureFixture[str], _private_review_db: Path
) -> None:
    """Both sides on FSRS: the parameters and desired retention are those of the deck's
    preset in Anki, in Anki and in the drill alike."""
    from anki.collection import Collection
    from fsrs.scheduler import DEFAULT_PARAMETERS

    from zerodrill.srs.settings import save_scheduler_name

    db = _private_review_db
    with Store.open(db) as store:
        save_scheduler_name(store, "fsrs")
    # FSRS-5's 19 weights: the key both Anki 25.2 and later keep (FSRS-6's 21 are later's).
    params5 = [round(w * 1.2, 4) if n < 4 else w for n, w in enumerate(DEFAULT_PARAMETERS[:19])]
    weights = [*params5, 0.0, 0.5]  # as FSRS-6's: no short-term term, FSRS-5's decay
    path = desktop_collection(home, fsrs=True, retention=0.8, params5=params5)
    # Easy graduates a new card at once: its intervals are the model's.
    drill(db, f"{DECK_ID}/stage-2", 5, noon(30))
    drill(db, f"{DECK_ID}/stage-2", 4, noon(12))
    drill(db, f"{DECK_ID}/stage-1", 5, noon(9))
    with Store.open(db) as store:
        before = store.schedule.due_dates()
    code, out, err = run_cli(capsys, "anki", "sync", str(home / "decks"), "--collection", str(path))
    assert code == 0, err
    assert "FSRS schedules" not in out
    with Store.open(db) as store:
        assert store.scheduler.desired_retention == 0.8  # type: ignore[attr-defined]
        assert f"w={','.join(repr(float(w)) for w in weights)}" in store.scheduler.fingerprint
        after = store.schedule.due_dates()
    assert after != before  # a lower retention, larger first stabilities: later due days
    with closing(Collection(str(path))) as col:
        assert phone_due(Phone(col, None)) == after  # type: ignore[arg-type]
        data = col.db.list("SELECT data FROM cards WHERE data LIKE '%\"dr\"%'")
        assert len(data) == 2 and all('"dr":0.8' in d for d in data)


def test_under_fsrs_a_fit_newer_than_the_preset_goes_into_it_and_a_newer_preset_wins(
    home: Path, capsys: pytest.CaptureFixture[str], _private_review_db: Path
) -> None:
    """Parameters kept by 'zerodrill anki optimize' after the preset last changed are
    written into the preset, so that the phone schedules with them; a preset changed in Anki
    after that is taken again."""
    from anki.collection import Collection
    from fsrs.scheduler import DEFAULT_PARAMETERS

    from zerodrill.srs.schedulers.fsrs import PARAMETERS
    from zerodrill.srs.settings import save_option, save_scheduler_name, saved_option

    db = _private_review_db
    with Store.open(db) as store:
        save_scheduler_name(store, "fsrs")
    path = desktop_collection(home, fsrs=True)
    with closing(Collection(str(path))) as col:
        col.db.execute("UPDATE deck_config SET mtime_secs = mtime_secs - 86400")
    # FSRS-5's tail (no short-term term, decay 0.5): Anki 25.2 keeps FSRS-5's 19 alone.
    first = DEFAULT_PARAMETERS[:19]
    fitted = (*(round(w * 1.5, 4) if n < 4 else w for n, w in enumerate(first)), 0.0, 0.5)
    with Store.open(db) as store:
        save_option(store, PARAMETERS, fitted, at=datetime.now(UTC) - timedelta(hours=1))
    drill(db, f"{DECK_ID}/stage-2", 5, noon(9))
    sync = ("anki", "sync", str(home / "decks"), "--collection", str(path))
    code, _, err = run_cli(capsys, *sync)
    assert code == 0, err
    with closing(Collection(str(path))) as col:
        assert preset_weights(col) == pytest.approx(fitted, rel=1e-6)
        assert phone_due(Phone(col, None)) == zerodrill_due(db)  # type: ignore[arg-type]
    with Store.open(db) as store:
        assert saved_option(store, PARAMETERS) == pytest.approx(fitted, rel=1e-6)
    # Optimized again in Anki, later: the drill takes the phone's.
    phones = (*(round(w * 0.8, 4) if n < 4 else w for n, w in enumerate(fitted[:19])), 0.0, 0.5)
    with closing(Collection(str(path))) as col:
        conf = col.decks.config_dict_for_deck_id(1)  # type: ignore[arg-type]
        key = "fsrsParams6" if "fsrsParams6" in conf else "fsrsParams5"
        conf[key] = list(phones if key == "fsrsParams6" else phones[:19])
        col.decks.update_config(conf)
    code, _, err = run_cli(capsys, *sync)
    assert code == 0, err
    with Store.open(db) as store:
        assert saved_option(store, PARAMETERS) == pytest.approx(phones, rel=1e-6)
    with closing(Collection(str(path))) as col:
        assert preset_weights(col) == pytest.approx(phones, rel=1e-6)


def preset_weights(col: Any) -> list[float]:
    """The default preset's FSRS weights, as FSRS-6's."""
    conf = col.decks.config_dict_for_deck_id(1)
    return list(conf.get("fsrsParams6") or [*conf["fsrsParams5"], 0.0, 0.5])


@pytest.mark.parametrize("fsrs_in_anki", [True, False])
def test_fsrs_on_one_side_only_is_said_once(
    home: Path, capsys: pytest.CaptureFixture[str], _private_review_db: Path, fsrs_in_anki: bool
) -> None:
    from zerodrill.srs.settings import save_scheduler_name

    db = _private_review_db
    if not fsrs_in_anki:
        with Store.open(db) as store:
            save_scheduler_name(store, "fsrs")
    path = desktop_collection(home, fsrs=fsrs_in_anki)
    drill(db, f"{DECK_ID}/stage-2", 4, noon(9))
    said = []
    for _ in range(3):
        code, out, err = run_cli(
            capsys, "anki", "sync", str(home / "decks"), "--collection", str(path)
        )
        assert code == 0, err
        said.append([line for line in out.splitlines() if "FSRS schedules" in line])
    assert len(said[0]) == 1 and said[1:] == [[], []], said
    side = "in Anki" if fsrs_in_anki else "in zerodrill"
    assert f"FSRS schedules {side}" in said[0][0]


def test_a_preset_fsrs_cannot_read_leaves_the_defaults(
    home: Path, capsys: pytest.CaptureFixture[str], _private_review_db: Path
) -> None:
    """A collection is untrusted: parameters out of FSRS's bounds in its preset read as none
    (Anki's defaults, FSRS-6's), with no traceback; its retention is still taken."""
    from anki.collection import Collection
    from fsrs.scheduler import DEFAULT_PARAMETERS

    from zerodrill.srs.settings import save_scheduler_name

    db = _private_review_db
    with Store.open(db) as store:
        save_scheduler_name(store, "fsrs")
    path = desktop_collection(home, fsrs=True)
    with closing(Collection(str(path))) as col:
        conf = col.decks.config_dict_for_deck_id(1)  # type: ignore[arg-type]
        conf["fsrsParams5"] = [1e9] * 19
        conf["desiredRetention"] = 0.85
        col.decks.update_config(conf)
        kept = col.decks.config_dict_for_deck_id(1)  # type: ignore[arg-type]
        assert kept["fsrsParams5"][0] == 1e9  # Anki keeps them
    drill(db, f"{DECK_ID}/stage-2", 5, noon(9))
    code, out, err = run_cli(capsys, "anki", "sync", str(home / "decks"), "--collection", str(path))
    assert code == 0, err
    with Store.open(db) as store:
        assert store.scheduler.desired_retention == 0.85  # type: ignore[attr-defined]
        assert f"w={','.join(repr(float(w)) for w in DEFAULT_PARAMETERS)}" in (
            store.scheduler.fingerprint
        )


def test_a_card_whose_deck_the_collection_lacks_reads_ankis_default_preset(
    home: Path, capsys: pytest.CaptureFixture[str], _private_review_db: Path
) -> None:
    """A collection is untrusted: a card of zerodrill's naming a deck that is not there (a
    damaged collection; Anki's Check Database would move it) is scheduled by Anki with the
    default preset, and so is it read: it was an internal error, Anki's bare assert on a
    missing deck ("AssertionError: ")."""
    from anki.collection import Collection

    from zerodrill.srs.settings import save_scheduler_name

    db = _private_review_db
    with Store.open(db) as store:
        save_scheduler_name(store, "fsrs")
    path = desktop_collection(home, fsrs=True, retention=0.85)
    drill(db, f"{DECK_ID}/stage-2", 5, noon(9))
    sync = ("anki", "sync", str(home / "decks"), "--collection", str(path))
    code, _, err = run_cli(capsys, *sync)
    assert code == 0, err
    with closing(Collection(str(path))) as col:
        col.db.execute("UPDATE cards SET did = 4242 WHERE did != 1")
    with Store.open(db) as store:
        save_scheduler_name(store, "fsrs")
    for dry in (("--dry-run",), ()):
        code, _, err = run_cli(capsys, *sync, *dry)
        assert code == 0, err
    with Store.open(db) as store:
        assert store.scheduler.desired_retention == 0.85  # type: ignore[attr-defined]


def test_a_dry_run_after_the_phone_moved_the_cards_to_a_deck_of_its_own_counts_as_the_sync(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """zerodrill's cards moved on the phone into a deck made there, with a preset of its own:
    the dry run's look at the server takes the deck and its preset with the cards, as the
    sync does (the cards came without their deck: an internal error, Anki's bare assert on a
    missing deck), and says what the sync then does."""
    from zerodrill.srs.settings import save_scheduler_name

    db = _private_review_db
    with Store.open(db) as store:
        save_scheduler_name(store, "fsrs")
    phone.col.set_config("fsrs", True)
    phone.sync()
    drill(db, f"{DECK_ID}/stage-2", 5, noon(9))
    first_sync(home, server, account, phone, capsys, monkeypatch)
    moved = phone.col.decks.id("Moved on the phone")
    preset = phone.col.decks.add_config_returning_id("The phone's preset")
    conf = phone.col.decks.get_config(preset)
    conf["desiredRetention"] = 0.8
    phone.col.decks.update_config(conf)
    deck = phone.col.decks.get(moved)
    deck["conf"] = preset
    phone.col.decks.save(deck)
    ours = []
    for key in KEYS:
        card_id, _, cloze = key.partition("/")[2].partition("#c")
        ours.append(CardId(phone.card_of(DECK_ID, card_id, int(cloze) - 1 if cloze else 0)))
    phone.col.set_deck(ours, moved)
    phone.sync()

    code, dry, err = sync(capsys, home, "--dry-run")
    assert code == 0, err
    with Store.open(db) as store:
        assert store.scheduler.desired_retention == 0.9  # type: ignore[attr-defined]
    out = synced(capsys, home)
    with Store.open(db) as store:
        assert store.scheduler.desired_retention == 0.8  # type: ignore[attr-defined]
    said = [line.replace("would be ", "") for line in dry.splitlines() if "Dry run" not in line]
    assert said == out.splitlines()
    phone.sync()
    assert {card(phone, k).did for k in ("stage-1", "stage-2", "stage-3")} == {moved}


def test_a_dry_runs_look_takes_the_servers_decks_and_presets_as_ankis_client_does(
    tmp_path: Path,
) -> None:
    """The server's decks and presets go into the dry run's copy, each unless the copy's is
    newer, with the server's times (a preset's time decides whose model a run takes); what no
    Anki sends is one line."""
    from anki.collection import Collection

    from zerodrill.anki_sync import peek
    from zerodrill.anki_sync.backend import AnkiSyncError

    with closing(Collection(str(tmp_path / "phone.anki2"))) as there:
        made = there.decks.id("Made on the phone")
        preset_id = there.decks.add_config_returning_id("The phone's preset")
        preset = there.decks.get_config(preset_id)
        assert made is not None and preset is not None
        preset["desiredRetention"] = 0.8
        there.decks.update_config(preset)
        there.db.execute("UPDATE deck_config SET mtime_secs = 1700000000 WHERE id = ?", preset_id)
        deck = there.decks.get(made)
        assert deck is not None
        deck["conf"] = preset_id
        there.decks.save(deck)
        deck, preset = there.decks.get(made), there.decks.get_config(preset_id)
        default = there.decks.get_config(1)
    assert deck is not None and preset is not None and default is not None
    with closing(Collection(str(tmp_path / "copy.anki2"))) as copy:
        # The copy's default preset was changed after the server's: it stays.
        mine = copy.decks.get_config(1)
        assert mine is not None
        mine["desiredRetention"] = 0.7
        copy.decks.update_config(mine)
        older = {**default, "desiredRetention": 0.95, "mod": default["mod"] - 60}
        peek._merge_decks(copy, peek._Changes(decks=([deck], [preset, older])), "the server")
        taken = copy.decks.config_dict_for_deck_id(made)
        assert (taken["name"], taken["desiredRetention"], taken["mod"]) == (
            "The phone's preset",
            0.8,
            1700000000,
        )
        assert copy.decks.config_dict_for_deck_id(1)["desiredRetention"] == 0.7  # type: ignore[arg-type]
        for decks, presets in (([{**deck, "id": str(made)}], []), ([], [{"id": 5, "mod": 1}])):
            with pytest.raises(AnkiSyncError, match="^the server sent a deck Anki's protocol"):
                peek._merge_decks(copy, peek._Changes(decks=(decks, presets)), "the server")
        with pytest.raises(AnkiSyncError, match="^the server sent a deck Anki's protocol"):
            broken = {"id": 77, "mod": 1, "usn": 1, "name": ["not a name"]}
            peek._merge_decks(copy, peek._Changes(decks=([broken], [])), "the server")


def test_with_an_interview_near_the_deletions_the_drill_lets_share_a_day_are_due_in_anki(
    home: Path, capsys: pytest.CaptureFixture[str], _private_review_db: Path
) -> None:
    """An interview date relaxes the sibling rule (a cloze card's deletions may share a day):
    Anki then holds back none of them either."""
    from anki.collection import Collection

    from zerodrill.deck.item_index import ItemIndex
    from zerodrill.srs.interview_plan import plan_for, queue_apart
    from zerodrill.srs.queue import Apart
    from zerodrill.srs.settings import save_interview

    db = _private_review_db
    today = study_day(datetime.now().astimezone())
    with Store.open(db) as store:
        save_interview(store, today + timedelta(days=10))
    for key in (f"{DECK_ID}/stage-key#c1", f"{DECK_ID}/stage-key#c2"):
        drill(db, key, 4, noon(8))
    deck, _ = load_file(home / "decks" / "phone.yaml")
    assert deck is not None
    with Store.open(db) as store:
        plan = plan_for(ItemIndex([deck]), store, today, today + timedelta(days=10), new_limit=20)
        apart = queue_apart(plan)
        queue = build_queue(items_of([deck]), store, today, apart=apart)
    assert apart is not Apart.ALL
    assert {f"{DECK_ID}/stage-key#c1", f"{DECK_ID}/stage-key#c2"} <= set(queue.review_keys)
    path = desktop_collection(home, fsrs=False)
    code, out, err = run_cli(capsys, "anki", "sync", str(home / "decks"), "--collection", str(path))
    assert code == 0, err
    with closing(Collection(str(path))) as col:
        desk = Phone(col, None)  # type: ignore[arg-type]
        for ordinal in (0, 1):
            cid = desk.card_of(DECK_ID, "stage-key", ordinal)
            assert desk.rows("SELECT queue FROM cards WHERE id = ?", cid) == [[2]]


# -- whoever answers a card decides its next interval (issue 35, point 1) -------------------


def schedule_row(phone: Phone, key: str) -> tuple[object, ...]:
    """The card's schedule in Anki: type, queue, due, interval, ease."""
    cid = phone.card_of(DECK_ID, key.partition("/")[2])
    ((type_, queue, due, ivl, factor),) = phone.rows(
        "SELECT type, queue, due, ivl, factor FROM cards WHERE id = ?", cid
    )
    return type_, queue, due, ivl, factor


def test_an_answer_given_on_the_phone_keeps_ankis_interval_ease_and_due(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """The phone answers three known cards Good, Again and Easy: each keeps what Anki gave it
    on the phone and in the drill, the failed one in relearning; the terminal's next grade of
    it goes on from Anki's state and the phone shows that decision."""
    db = _private_review_db
    good, again, easy = (f"{DECK_ID}/{c}" for c in ("stage-1", "stage-2", "stage-3"))
    for key in (good, again, easy):
        drill(db, key, 4, noon(6))
        drill(db, key, 4, noon(5))
    first_sync(home, server, account, phone, capsys, monkeypatch)
    for key, rating in (
        (good, CardAnswer.GOOD),
        (again, CardAnswer.AGAIN),
        (easy, CardAnswer.EASY),
    ):
        phone.answer(phone.card_of(DECK_ID, key.partition("/")[2]), rating)
    anki = {key: schedule_row(phone, key) for key in (good, again, easy)}
    phone.sync()
    out = synced(capsys, home)
    assert "Anki → zerodrill: 3 reviews; zerodrill → Anki: 0 reviews" in out
    assert_cache_is_the_replay(db)
    phone.sync()
    # The phone's cards are as Anki scheduled them: nothing rewrote them.
    assert {key: schedule_row(phone, key) for key in anki} == anki
    (type_, queue, *_), factor = anki[again], anki[again][4]
    assert (type_, queue) == (3, 1)  # relearning, in the learning queue
    today = study_day(datetime.now().astimezone())
    with Store.open(db) as store:
        for key in (good, easy):
            _, _, due, ivl, factor = anki[key]
            state = store.schedule.state(key)
            assert (state.interval, state.due) == (ivl, today + timedelta(days=ivl))
            assert state.sm2.ef_hundredths * 10 == factor  # type: ignore[attr-defined]
            assert due == phone.col.sched.today + ivl  # type: ignore[operator]
        failed = store.schedule.state(again)
        assert failed.again_on == today and failed.due == today
        assert failed.sm2.ef_hundredths * 10 == anki[again][4]  # type: ignore[attr-defined]
        assert failed.step_due is not None
        assert failed.step_due - datetime.now().astimezone() <= timedelta(minutes=10)
    # The drill shows the cards on Anki's days: the failed one today, the others later.
    shown = drill_shows_today(home, db)
    assert again in shown and good not in shown and easy not in shown
    assert phone_due(phone) == {**zerodrill_due(db), again: today}

    # The terminal grades the failed card Good: SM-2 goes on from Anki's state (its ease, no
    # pass in a row yet), one day, and writes that decision to the phone.
    drill(db, again, 4, datetime.now().astimezone() + timedelta(seconds=5))
    out = synced(capsys, home)
    assert "zerodrill → Anki: 1 review" in out
    phone.sync()
    type_, queue, due, ivl, factor = schedule_row(phone, again)
    assert (type_, queue, ivl, factor) == (2, 2, 1, anki[again][4])
    assert due == phone.col.sched.today + 1  # type: ignore[operator]
    # The others still keep Anki's own decision.
    assert schedule_row(phone, good) == anki[good] and schedule_row(phone, easy) == anki[easy]


def test_a_new_card_failed_on_the_phone_stays_in_learning(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    db = _private_review_db
    key = f"{DECK_ID}/stage-1"
    first_sync(home, server, account, phone, capsys, monkeypatch)
    phone.answer(phone.card_of(DECK_ID, "stage-1"), CardAnswer.AGAIN)
    before = schedule_row(phone, key)
    assert before[:2] == (1, 1)  # learning
    phone.sync()
    code, _, err = sync(capsys, home)
    assert code == 0, err
    phone.sync()
    assert schedule_row(phone, key) == before
    today = study_day(datetime.now().astimezone())
    with Store.open(db) as store:
        state = store.schedule.state(key)
        assert (state.phase.value, state.again_on, state.due) == ("learning", today, today)
    assert key in drill_shows_today(home, db)


def test_under_fsrs_two_terminals_read_the_phones_answer_alike(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """A reads the phone's answer while it is the card's latest, then grades the card and
    syncs; B reads the same answer after, when the card row no longer holds Anki's memory
    state: one event, A's, which travels with A's events (found by tests/test_anki_fuzz.py:
    each kept its own reading, and their due days differed)."""
    a, b = terminals_on_fsrs(_private_review_db, home, phone)
    first_sync(home, server, account, phone, capsys, monkeypatch)
    answered_on_phone(phone, ("stage-1", CardAnswer.GOOD))
    assert sync(capsys, home)[0] == 0
    drill(a, S1, 4, datetime.now().astimezone() + timedelta(seconds=5))
    assert sync(capsys, home)[0] == 0
    assert sync(capsys, home, "--db", str(b))[0] == 0

    def decided(db: Path) -> list[object]:
        with Store.open(db) as store:
            return [e.decided for e in store.log.events() if e.origin == "anki"]

    assert decided(a) == decided(b)
    assert zerodrill_due(a) == zerodrill_due(b)


def test_under_fsrs_an_answer_on_the_phone_keeps_ankis_memory_state_and_interval(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """FSRS on both sides: the phone's answer keeps the stability and difficulty Anki kept in
    the card's data, its interval and due day; the failed card relearns, due that day."""
    import json

    from zerodrill.srs.settings import save_scheduler_name

    db = _private_review_db
    with Store.open(db) as store:
        save_scheduler_name(store, "fsrs")
    phone.col.set_config("fsrs", True)
    phone.sync()
    good, again = f"{DECK_ID}/stage-1", f"{DECK_ID}/stage-2"
    for key in (good, again):
        drill(db, key, 4, noon(9))
        drill(db, key, 4, noon(4))
    first_sync(home, server, account, phone, capsys, monkeypatch)
    phone.answer(phone.card_of(DECK_ID, "stage-1"), CardAnswer.GOOD)
    phone.answer(phone.card_of(DECK_ID, "stage-2"), CardAnswer.AGAIN)

    def anki_side(key: str) -> tuple[tuple[object, ...], str]:
        cid = phone.card_of(DECK_ID, key.partition("/")[2])
        return schedule_row(phone, key), str(
            phone.col.db.scalar("SELECT data FROM cards WHERE id = ?", cid)
        )

    anki = {key: anki_side(key) for key in (good, again)}
    phone.sync()
    code, _, err = sync(capsys, home)
    assert code == 0, err
    phone.sync()
    assert {key: anki_side(key) for key in anki} == anki
    today = study_day(datetime.now().astimezone())
    with Store.open(db) as store:
        for key, ((type_, _, _, ivl, _), data) in anki.items():
            memory = json.loads(data)
            state = store.schedule.state(key)
            assert state.stability == pytest.approx(memory["s"], abs=1e-4)  # type: ignore[attr-defined]
            assert state.difficulty == pytest.approx(memory["d"], abs=1e-4)  # type: ignore[attr-defined]
            if key == good:
                assert (state.phase.value, state.interval) == ("review", ivl)
                assert state.due == today + timedelta(days=ivl)  # type: ignore[operator]
            else:
                assert type_ == 3
                assert (state.phase.value, state.due, state.again_on) == (
                    "relearning",
                    today,
                    today,
                )


# -- Anki carries the whole event stream: terminals on `anki sync` alone converge ---------------


def second_terminal(home: Path) -> Path:
    db = home / "second-terminal" / "reviews.db"
    db.parent.mkdir(exist_ok=True)
    return db


def terminals_on_fsrs(db: Path, home: Path, phone: Phone) -> tuple[Path, Path]:
    """``db`` and a second terminal's database, both on FSRS, as the phone is."""
    from zerodrill.srs.settings import save_scheduler_name

    a, b = db, second_terminal(home)
    for each in (a, b):
        with Store.open(each) as store:
            save_scheduler_name(store, "fsrs")
    phone.col.set_config("fsrs", True)
    phone.sync()
    return a, b


def identities(db: Path) -> list[tuple[str, int]]:
    with Store.open(db) as store:
        return sorted(
            [e.identity for e in store.log.events()] + [e.identity for e in store.actions.events()]
        )


def machine_of(db: Path) -> str:
    with Store.open(db) as store:
        return store.machine.id


def test_two_terminals_on_anki_sync_alone_converge_with_each_other_and_the_phone(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """No folder: each terminal reads the other's grades from Anki as that machine's events
    (its identity, each once), and every side shows the same due days."""
    a, b = _private_review_db, second_terminal(home)
    drill(a, f"{DECK_ID}/stage-2", 4, noon(9))
    drill(a, f"{DECK_ID}/stage-2", 3, noon(4))
    drill(b, f"{DECK_ID}/stage-1", 5, noon(6))
    drill(b, f"{DECK_ID}/stage-2", 5, noon(2))
    first_sync(home, server, account, phone, capsys, monkeypatch)
    for db in (b, a, b):
        code, out, err = sync(capsys, home, "--db", str(db))
        assert code == 0, err
    phone.sync()

    both = identities(a)
    assert both == identities(b) and len(both) == len(set(both)) == 4
    assert {origin for origin, _ in both} == {machine_of(a), machine_of(b)}
    assert zerodrill_due(a) == zerodrill_due(b) == phone_due(phone)
    with Store.open(a) as store:
        assert derived_dues(store) == store.schedule.due_dates()
    assert len(zerodrill_due(a)) == 2

    # Neither terminal's later sync moves the phone's due days: both derive them alike.
    before = phone_due(phone)
    for db in (b, a):
        code, out, err = sync(capsys, home, "--db", str(db))
        assert code == 0, err
        assert "0 cards rescheduled" in out
        phone.sync()
        assert phone_due(phone) == before
    assert identities(a) == identities(b) == both
    # The log rides in the media, one file a write: the user's note types are theirs alone.
    phone.sync_media()
    carried = {p.name.split("-")[1] for p in Path(phone.col.media.dir()).glob("_zerodrill-*")}
    assert carried == {machine_of(a), machine_of(b)}
    assert [n.name for n in phone.col.models.all_names_and_ids() if "event log" in n.name] == []


def test_a_terminals_card_action_is_read_by_another_as_that_terminals_not_the_phones(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    a, b = _private_review_db, second_terminal(home)
    first_sync(home, server, account, phone, capsys, monkeypatch)
    code, _, err = sync(capsys, home, "--db", str(b))
    assert code == 0, err
    flagged = act(a, S3, Action.FLAG, flag=3)
    act(a, S1, Action.SUSPEND)
    code, _, err = sync(capsys, home)
    assert code == 0, err

    def media_state() -> object:
        """b's folder for Anki, and the server's media (its collection, which SQLite may
        touch when the protocol opens it, is test_a_dry_run_asks_the_server_read_only's)."""
        on_server = folder_state(server.base / account)
        media = {p: v for p, v in on_server.items() if not p.name.startswith("collection.")}
        return folder_state(b.parent / "anki"), media

    # The dry run fetches a's file of events from the server, and keeps it nowhere.
    before = media_state()
    code, out, err = sync(capsys, home, "--db", str(b), "--dry-run")
    assert code == 0, err
    assert "2 from other machines would be taken in" in out
    assert "brought back" not in marks_line(out)
    assert identities(b) == []
    assert media_state() == before
    code, out, err = sync(capsys, home, "--db", str(b))
    assert code == 0, err
    assert "2 from other machines taken in" in out
    assert "brought back" not in marks_line(out)
    with Store.open(b) as store:
        events = store.actions.events()
        assert {e.origin for e in events} == {machine_of(a)}
        assert flagged in {e.identity for e in events} and len(events) == 2
        assert store.actions.marks() == {
            S1: CardMarks(suspended=True),
            S3: CardMarks(flag=3),
        }
    phone.sync()
    assert card(phone, "stage-1").queue == -1 and card(phone, "stage-3").flags == 3


def test_an_answer_on_a_phone_whose_clock_runs_ahead_neither_schedules_nor_counts(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """The store holds back an event dated more than a day ahead: so does what the sync writes
    to Anki, and what it says came in."""
    db = _private_review_db
    first_sync(home, server, account, phone, capsys, monkeypatch)
    drill(db, S3, 4, noon(1))
    phone.answer(phone.card_of(DECK_ID, "stage-3"), CardAnswer.EASY)
    phone.col.db.execute("UPDATE revlog SET id = id + ? WHERE usn = -1", 3 * 86_400_000)
    phone.sync()
    out = synced(capsys, home)
    assert "Anki → zerodrill: 0 reviews" in out
    assert "1 answer in Anki dated more than a day ahead held back until then" in out
    with Store.open(db) as store:
        assert {e.origin for e in store.log.events()} == {machine_of(db)}
        assert derived_dues(store) == store.schedule.due_dates()
    phone.sync()
    assert phone_due(phone)[S3] == zerodrill_due(db)[S3]


def test_a_flag_changed_on_the_phone_after_the_drill_flagged_the_card_holds(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """Anki leaves a card's modification time as it was when a flag is set: the phone's later
    flag must not be timed before the drill's, which would put the drill's back."""
    db = _private_review_db
    first_sync(home, server, account, phone, capsys, monkeypatch)
    time.sleep(1)
    act(db, S3, Action.FLAG, flag=1)
    code, _, err = sync(capsys, home)
    assert code == 0, err
    phone.sync()
    assert card(phone, "stage-3").flags == 1
    time.sleep(1)
    phone.col.set_user_flag_for_cards(2, [CardId(phone.card_of(DECK_ID, "stage-3"))])
    phone.sync()
    out = synced(capsys, home)
    assert "1 change made in Anki brought back" in marks_line(out)
    with Store.open(db) as store:
        assert store.actions.marks()[S3] == CardMarks(flag=2)
    phone.sync()
    assert card(phone, "stage-3").flags == 2


def test_a_folder_only_machines_events_reach_a_terminal_on_anki_sync_alone_as_its_own(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """A on the folder and on Anki, B on Anki alone, C on the folder alone: C's grade reaches
    B by A, with C's identity, and A, which has it by both ways, holds it once."""
    a, b = _private_review_db, second_terminal(home)
    c = home / "third-terminal.db"
    folder = home / "shared"
    folder.mkdir()
    drill(c, f"{DECK_ID}/stage-1", 4, noon(3))
    first_sync(home, server, account, phone, capsys, monkeypatch)
    for db in (c, a):
        code, _, err = run_cli(capsys, "sync", str(folder), "--db", str(db))
        assert code == 0, err
    for db in (a, b, a):
        code, _, err = sync(capsys, home, "--db", str(db))
        assert code == 0, err
    code, _, err = run_cli(capsys, "sync", str(folder), "--db", str(a))
    assert code == 0, err
    theirs = identities(c)
    assert len(theirs) == 1 and theirs[0][0] == machine_of(c)
    assert identities(a) == identities(b) == theirs
    phone.sync()
    assert zerodrill_due(a) == zerodrill_due(b) == zerodrill_due(c) == phone_due(phone)


def test_a_terminals_undo_reaches_another_terminal_on_anki_sync_alone(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """A grade, then its undo, each reach the other terminal through Anki: both withdraw it,
    and the phone and both terminals show the card's schedule without it."""
    a, b = _private_review_db, second_terminal(home)
    drill(a, f"{DECK_ID}/stage-1", 4, noon(8))
    drill(a, f"{DECK_ID}/stage-1", 3, noon(2))
    first_sync(home, server, account, phone, capsys, monkeypatch)
    code, _, err = sync(capsys, home, "--db", str(b))
    assert code == 0, err
    assert zerodrill_due(b) == zerodrill_due(a)
    with Store.open(a) as store:
        last = [e for e in store.log.events() if e.key == f"{DECK_ID}/stage-1"][-1]
        store.log.undo(last.identity, at=datetime.now().astimezone())
    for db in (a, b):
        code, _, err = sync(capsys, home, "--db", str(db))
        assert code == 0, err
    phone.sync()
    expected = {f"{DECK_ID}/stage-1": noon(8).date() + timedelta(days=1)}
    assert zerodrill_due(a) == expected
    assert zerodrill_due(b) == expected
    assert phone_due(phone) == expected
    assert identities(a) == identities(b)


def test_a_card_failed_in_the_drill_is_learning_in_anki_too(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """The mirror of a failure on the phone: the drill shows the card again today, and so
    must Anki (found by tests/test_anki_fuzz.py: it went to Anki as a review due the next
    day). Answered there, it leaves learning as Anki has it."""
    db = _private_review_db
    key = f"{DECK_ID}/stage-1"
    first_sync(home, server, account, phone, capsys, monkeypatch)
    drill(db, key, 0, datetime.now().astimezone())
    with Store.open(db) as store:
        assert store.schedule.state(key).phase.value == "learning"
    assert key in drill_shows_today(home, db)
    code, _, err = sync(capsys, home)
    assert code == 0, err
    phone.sync()
    assert schedule_row(phone, key)[:2] == (1, 1)  # learning, in the learning queue
    assert key in anki_shows_today(phone)
    # The phone answers it Good: Anki's own learning steps decide, on both sides.
    answered_on_phone(phone, ("stage-1", CardAnswer.GOOD))
    code, _, err = sync(capsys, home)
    assert code == 0, err
    phone.sync()
    assert zerodrill_due(db)[key] == phone_due(phone)[key]


def test_new_cards_and_reviews_the_drill_gave_today_count_in_ankis_counts_of_the_day(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """Two new cards introduced in the drill today count among the day's new cards of their
    deck in Anki, as the same answers on another device would: with a limit of 3 a day, the
    phone offers 1 more, not 3 again (nor the 2 the deck has left). A review given today
    counts among the day's reviews; a card introduced on an earlier day counts nothing, and
    a second sync counts nothing twice."""
    db = _private_review_db
    first_sync(home, server, account, phone, capsys, monkeypatch)
    now = datetime.now().astimezone()
    drill(db, f"{DECK_ID}/stage-1", 3, now)
    drill(db, f"{DECK_ID}/stage-2", 4, now)
    drill(db, f"{DECK_ID}/stage-3", 3, noon(2))
    drill(db, f"{DECK_ID}/stage-3", 4, now)  # its review, due since yesterday
    synced(capsys, home)
    phone.sync()
    did = phone.rows("SELECT did FROM cards WHERE id = ?", phone.card_of(DECK_ID, "stage-1"))[0][0]
    deck = phone.col.decks.get(did)  # type: ignore[arg-type]
    assert deck is not None
    assert deck["newToday"] == [phone.col.sched.today, 2]
    assert deck["revToday"] == [phone.col.sched.today, 1]
    config = phone.col.decks.config_dict_for_deck_id(did)  # type: ignore[arg-type]
    config["new"]["perDay"] = 3
    phone.col.decks.save(config)
    phone.col.decks.select(did)  # type: ignore[arg-type]
    assert phone.col.sched.counts()[0] == 1
    synced(capsys, home)
    phone.sync()
    deck = phone.col.decks.get(did)  # type: ignore[arg-type]
    assert deck is not None
    assert (deck["newToday"], deck["revToday"]) == (
        [phone.col.sched.today, 2],
        [phone.col.sched.today, 1],
    )


def test_an_answer_on_a_phone_offline_while_the_drill_changed_the_card_holds(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """The phone answers a new card Good, not synced; meanwhile the drill suspends it and
    syncs. Anki's sync keeps the newer card row (the drill's: new, suspended) and the phone's
    answer in the review log: that answer, the card's latest, is Anki's decision, so the card
    must be as it left it (the drill has it so)."""
    db = _private_review_db
    first_sync(home, server, account, phone, capsys, monkeypatch)
    phone.answer(phone.card_of(DECK_ID, "stage-1"), CardAnswer.GOOD)
    time.sleep(1)
    act(db, S1, Action.SUSPEND)
    assert sync(capsys, home)[0] == 0
    phone.sync()
    assert sync(capsys, home)[0] == 0
    phone.sync()
    with Store.open(db) as store:
        assert store.schedule.state(S1).phase.value == "learning"
    # Learning, as the phone's answer left it; suspended, as the drill did.
    assert schedule_row(phone, S1)[:2] == (1, -1)


def test_a_card_suspended_on_a_phone_that_had_not_synced_keeps_the_drills_schedule(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """The drill grades a new card and syncs; the phone, not synced since, suspends it: Anki's
    sync keeps the phone's newer row, new. The drill's grade stands: the card is suspended
    where it stood, a review, on the phone too."""
    db = _private_review_db
    first_sync(home, server, account, phone, capsys, monkeypatch)
    drill(db, S1, 4, datetime.now().astimezone())
    assert sync(capsys, home)[0] == 0
    time.sleep(1)
    phone.col.sched.suspend_cards([CardId(phone.card_of(DECK_ID, "stage-1"))])
    phone.sync()
    assert sync(capsys, home)[0] == 0
    phone.sync()
    with Store.open(db) as store:
        assert store.actions.marks()[S1] == CardMarks(suspended=True)
    assert schedule_row(phone, S1)[:2] == (2, -1)  # a review, suspended
    assert phone_due(phone)[S1] == zerodrill_due(db)[S1]


def test_a_dry_run_counts_a_stale_phones_row_as_the_sync_rewrites_it(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """The row a stale phone's suspend put back (new) is counted by the dry run as a card
    rescheduled, as the real sync then counts it; a sync after that finds nothing to move."""
    db = _private_review_db
    first_sync(home, server, account, phone, capsys, monkeypatch)
    drill(db, S1, 4, datetime.now().astimezone())
    assert sync(capsys, home)[0] == 0
    time.sleep(1)
    phone.col.sched.suspend_cards([CardId(phone.card_of(DECK_ID, "stage-1"))])
    phone.sync()
    moved = "zerodrill → Anki: 0 reviews, 1 card "
    out = synced(capsys, home, "--dry-run")
    assert moved + "would be rescheduled" in out
    out = synced(capsys, home)
    assert moved + "rescheduled" in out
    out = synced(capsys, home)
    assert "zerodrill → Anki: 0 reviews, 0 cards rescheduled" in out


def test_a_repeat_the_drill_no_longer_owes_is_not_due_in_anki_either(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """A card failed in a same-day repeat yesterday and synced today: the drill owes that
    repeat no more and shows the card on its due day; so does Anki (a review on that day,
    not a learning step due since yesterday)."""
    db = _private_review_db
    key = f"{DECK_ID}/stage-1"
    first_sync(home, server, account, phone, capsys, monkeypatch)
    yesterday = datetime.now().astimezone() - timedelta(days=1)
    drill(db, key, 4, yesterday - timedelta(days=3))
    drill(db, key, 4, yesterday - timedelta(days=2))
    drill(db, key, 4, yesterday)
    drill(db, key, 2, yesterday + timedelta(minutes=1))  # a repeat the same day, failed
    assert key not in drill_shows_today(home, db)
    code, _, err = sync(capsys, home)
    assert code == 0, err
    phone.sync()
    assert schedule_row(phone, key)[:2] == (2, 2)  # a review
    assert key not in anki_shows_today(phone)
    assert phone_due(phone)[key] == zerodrill_due(db)[key]
    out = synced(capsys, home)
    assert "0 cards rescheduled" in out


def test_under_fsrs_a_card_the_drill_scheduled_is_not_rewritten_by_every_later_sync(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """Anki's sync carries a card's memory state at its own precision (difficulty to three
    places): a terminal that took the rounded figures for a change rewrote the card at each
    sync that replays it, each terminal in turn, and every device downloaded it again. A
    withdrawn grade keeps its row in Anki (its sync deletes none), so its card is replayed at
    every sync (found by tests/test_anki_fuzz.py, seed 34 under FSRS)."""
    import json

    a, b = terminals_on_fsrs(_private_review_db, home, phone)
    key = f"{DECK_ID}/stage-2"
    for grade, days_ago in ((4, 9), (3, 4), (1, 2)):
        drill(a, key, grade, noon(days_ago))
    first_sync(home, server, account, phone, capsys, monkeypatch)
    with Store.open(a) as store:
        last = [e for e in store.log.events() if e.key == key][-1]
        store.log.undo(last.identity, at=datetime.now().astimezone())
    for db in (a, b, a, b):
        code, out, err = sync(capsys, home, "--db", str(db))
        assert code == 0, err
    # Settled: no sync of either terminal moves a card.
    for db in (a, b, a, b):
        code, out, err = sync(capsys, home, "--db", str(db))
        assert code == 0, err
        assert "0 cards rescheduled" in out, out
    phone.sync()
    cid = phone.card_of(DECK_ID, "stage-2")
    data = json.loads(str(phone.col.db.scalar("SELECT data FROM cards WHERE id = ?", cid)))
    with Store.open(a) as store:
        state = store.schedule.state(key)
    # The model's figures as Anki keeps them: to three places at least.
    assert data["s"] == pytest.approx(state.stability, abs=5e-4)  # type: ignore[attr-defined]
    assert data["d"] == pytest.approx(state.difficulty, abs=5e-4)  # type: ignore[attr-defined]
    assert phone_due(phone) == zerodrill_due(a) == zerodrill_due(b)
