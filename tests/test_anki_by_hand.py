"""Set Due Date, Forget and FSRS's reschedule made in Anki come across as events (issue 35,
point 1): against Anki's real sync server, with a second Anki client playing the phone (the
fixtures and helpers of tests/test_anki_sync.py).

What Anki writes for each, as the ``anki`` package's backend does (revlog ``type``, ``ease``,
``ivl``, ``lastIvl``, ``factor``; the due day is on the card only): Set Due Date, a row of type
4 (Manual), ease 0, ``ivl`` the card's interval after it (unchanged without "!" under SM-2),
``factor`` its ease (under FSRS a difficulty); Forget, type 4 with ``ivl`` and ``factor`` 0;
FSRS's reschedule, type 5 (Rescheduled).
"""

# The fixtures are tests/test_anki_sync.py's, imported by name: a parameter naming one is no
# redefinition.
# ruff: noqa: F811

from __future__ import annotations

import json
import math
import sqlite3
from contextlib import closing
from datetime import date, datetime, timedelta
from pathlib import Path

import anki.collection  # noqa: F401  (Anki's modules import in this order only)
import pytest
from anki.cards import CardId
from anki.scheduler.v3 import CardAnswer
from anki_sync_support import Phone, SyncServer
from cli_support import run_cli
from test_anki_sync import (  # noqa: F401  (fixtures: pytest finds them by name)
    DECK_ID,
    account,
    assert_cache_is_the_replay,
    drill,
    drill_shows_today,
    first_sync,
    home,
    identities,
    noon,
    phone,
    phone_due,
    schedule_row,
    second_terminal,
    server,
    sync,
    zerodrill_due,
)

from zerodrill.srs.days import study_day
from zerodrill.srs.schedulers import Phase
from zerodrill.srs.store import Store

S1, S2 = f"{DECK_ID}/stage-1", f"{DECK_ID}/stage-2"


def today() -> date:
    return study_day(datetime.now().astimezone())


def by_hand(db: Path) -> list[tuple[str, int, str, str, str | None]]:
    """The changes made by hand in Anki the store holds: origin, seq, card, kind, decision."""
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute(
            "SELECT origin, seq, key, action, decided FROM event "
            "WHERE action IN ('set_due', 'forget') ORDER BY origin, seq"
        ).fetchall()


def set_due(phone: Phone, key: str, days: str) -> None:
    phone.col.sched.set_due_date([CardId(phone.card_of(DECK_ID, key.partition("/")[2]))], days)


def forget(phone: Phone, key: str) -> None:
    cid = CardId(phone.card_of(DECK_ID, key.partition("/")[2]))
    phone.col.sched.schedule_cards_as_new([cid], restore_position=True, reset_counts=False)


def known_on_both_sides(
    db: Path, home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """S1 and S2 graded twice in the terminal, then the first sync: known on the phone too."""
    for key in (S1, S2):
        drill(db, key, 4, noon(7))
        drill(db, key, 4, noon(6))
    first_sync(home, server, account, phone, capsys, monkeypatch)


def test_a_due_date_set_on_the_phone_is_the_drills_and_stays_the_phones(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    db = _private_review_db
    known_on_both_sides(db, home, server, account, phone, capsys, monkeypatch)
    set_due(phone, S1, "9")
    set_due(phone, S2, "0")
    ((kind, ease, ivl, factor),) = phone.rows(
        "SELECT type, ease, ivl, factor FROM revlog WHERE cid = ? ORDER BY id DESC LIMIT 1",
        phone.card_of(DECK_ID, "stage-1"),
    )
    assert (kind, ease) == (4, 0)  # Manual, no button: no answer
    anki = {key: schedule_row(phone, key) for key in (S1, S2)}
    phone.sync()
    code, out, err = sync(capsys, home)
    assert code == 0, err
    assert "Anki → zerodrill: 0 reviews" in out  # no grade came: no review counted
    assert "Due dates set and cards forgotten in Anki: 2 changes brought back." in out
    assert_cache_is_the_replay(db)  # the sync's replay, handed to the store, is the store's
    # The drill shows Anki's due days, and the interval and ease set with them.
    assert zerodrill_due(db) == {S1: today() + timedelta(days=9), S2: today()}
    assert S2 in drill_shows_today(home, db) and S1 not in drill_shows_today(home, db)
    with Store.open(db) as store:
        state = store.schedule.state(S1)
        assert (state.interval, state.sm2.ef_hundredths * 10) == (ivl, factor)  # type: ignore[attr-defined]
        assert [e.grade for e in store.log.events()].count(None) == 0
        assert len(store.log.events()) == 4  # the terminal's grades alone
    # Anki keeps what the phone set: the sync wrote nothing back.
    phone.sync()
    assert {key: schedule_row(phone, key) for key in anki} == anki
    assert phone_due(phone) == zerodrill_due(db)

    # The terminal's next grade goes on from the state set: SM-2's ⌈I × EF⌉ from Anki's
    # interval and ease, written to the phone.
    drill(db, S2, 4, datetime.now().astimezone() + timedelta(seconds=5))
    code, out, err = sync(capsys, home)
    assert code == 0, err
    assert "zerodrill → Anki: 1 review" in out
    phone.sync()
    ivl2, factor2 = anki[S2][3], anki[S2][4]
    expected = math.ceil(ivl2 * factor2 / 1000)  # type: ignore[operator]
    assert schedule_row(phone, S2)[3] == expected
    assert zerodrill_due(db)[S2] == today() + timedelta(days=expected)
    assert phone_due(phone) == zerodrill_due(db)
    assert schedule_row(phone, S1) == anki[S1]


def test_a_card_forgotten_on_the_phone_is_new_in_the_drill_and_its_next_grade_its_first(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    db = _private_review_db
    known_on_both_sides(db, home, server, account, phone, capsys, monkeypatch)
    forget(phone, S1)
    ((kind, ease, ivl, factor),) = phone.rows(
        "SELECT type, ease, ivl, factor FROM revlog WHERE cid = ? ORDER BY id DESC LIMIT 1",
        phone.card_of(DECK_ID, "stage-1"),
    )
    assert (kind, ease, ivl, factor) == (4, 0, 0, 0)
    phone.sync()
    code, _, err = sync(capsys, home)
    assert code == 0, err
    assert S1 not in zerodrill_due(db) and S2 in zerodrill_due(db)
    assert_cache_is_the_replay(db)
    with Store.open(db) as store:
        assert store.schedule.state(S1).phase is Phase.NEW
    assert S1 in drill_shows_today(home, db)  # among the new cards
    phone.sync()
    assert schedule_row(phone, S1)[:2] == (0, 0)  # new on the phone too: nothing echoed back

    # Its next grade is its first: a new card's, one day under SM-2, on both sides.
    drill(db, S1, 4, datetime.now().astimezone() + timedelta(seconds=5))
    with Store.open(db) as store:
        (graded,) = [e for e in store.log.reviews_on(today()) if e.key == S1]
        assert graded.introduced
    code, _, err = sync(capsys, home)
    assert code == 0, err
    assert zerodrill_due(db)[S1] == today() + timedelta(days=1)
    phone.sync()
    assert phone_due(phone) == zerodrill_due(db)


def test_every_terminal_takes_each_change_once_by_its_identity_and_the_folder_carries_it(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """Two terminals on `anki sync` read the same revlog rows as the same events (Anki's
    identity, one each); a machine on the folder alone gets them from there."""
    a, b = _private_review_db, second_terminal(home)
    c = home / "folder-only.db"
    folder = home / "shared"
    folder.mkdir()
    known_on_both_sides(a, home, server, account, phone, capsys, monkeypatch)
    code, _, err = sync(capsys, home, "--db", str(b))
    assert code == 0, err
    set_due(phone, S1, "12")
    forget(phone, S2)
    rids = [
        r[0] for r in phone.rows("SELECT id FROM revlog WHERE type = 4 AND usn = -1 ORDER BY id")
    ]
    phone.sync()
    for db in (a, b, a):
        code, _, err = sync(capsys, home, "--db", str(db))
        assert code == 0, err
    made = by_hand(a)
    assert made == by_hand(b)
    assert [(origin, seq, key, kind) for origin, seq, key, kind, _ in made] == [
        ("anki", rids[0], S1, "set_due"),
        ("anki", rids[1], S2, "forget"),
    ]
    assert json.loads(made[0][4])["due"] == 12
    for db in (a, c, a, b):
        code, _, err = run_cli(capsys, "sync", str(folder), "--db", str(db))
        assert code == 0, err
    assert by_hand(a) == by_hand(b) == by_hand(c) == made
    expected = zerodrill_due(a)
    assert expected[S1] == today() + timedelta(days=12) and S2 not in expected
    assert zerodrill_due(b) == zerodrill_due(c) == expected
    phone.sync()
    assert phone_due(phone) == expected


def test_under_fsrs_a_due_date_set_and_a_forget_on_the_phone_are_the_drills(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    from zerodrill.srs.settings import save_scheduler_name

    db = _private_review_db
    with Store.open(db) as store:
        save_scheduler_name(store, "fsrs")
    phone.col.set_config("fsrs", True)
    phone.sync()
    known_on_both_sides(db, home, server, account, phone, capsys, monkeypatch)
    phone.answer(phone.card_of(DECK_ID, "stage-1"), CardAnswer.GOOD)
    set_due(phone, S1, "20!")
    forget(phone, S2)
    cid = phone.card_of(DECK_ID, "stage-1")
    memory = json.loads(str(phone.col.db.scalar("SELECT data FROM cards WHERE id = ?", cid)))
    anki = schedule_row(phone, S1)
    phone.sync()
    code, _, err = sync(capsys, home)
    assert code == 0, err
    assert zerodrill_due(db) == {S1: today() + timedelta(days=20)}
    with Store.open(db) as store:
        state = store.schedule.state(S1)
        assert (state.phase, state.interval) == (Phase.REVIEW, anki[3])
        assert state.stability == pytest.approx(memory["s"], abs=1e-4)  # type: ignore[attr-defined]
        assert store.schedule.state(S2).phase is Phase.NEW
    phone.sync()
    assert schedule_row(phone, S1) == anki
    assert schedule_row(phone, S2)[:2] == (0, 0)
    assert phone_due(phone) == zerodrill_due(db)


def test_zerodrills_own_forget_in_anki_is_not_read_back_as_the_phones(
    home: Path, server: SyncServer, account: str, phone: Phone,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, _private_review_db: Path,
) -> None:  # fmt: skip
    """A card whose every grade the drill undid is made new in Anki by Anki's own Forget: its
    revlog row is zerodrill's, so no terminal reads it as a Forget made on the phone (which
    would wipe a grade another machine gave before it)."""
    a, b = _private_review_db, second_terminal(home)
    drill(a, S1, 4, noon(3))
    first_sync(home, server, account, phone, capsys, monkeypatch)
    with Store.open(a) as store:
        (graded,) = store.log.events()
        store.log.undo(graded.identity, at=datetime.now().astimezone())
    for db in (a, b, a, b):
        code, _, err = sync(capsys, home, "--db", str(db))
        assert code == 0, err
    phone.sync()
    assert schedule_row(phone, S1)[:2] == (0, 0)  # new in Anki
    assert phone.rows("SELECT count(*) FROM revlog WHERE type = 4") == [[1]]
    assert by_hand(a) == by_hand(b) == []
    assert S1 not in zerodrill_due(a)
    assert identities(a) == identities(b)
    assert S1 not in zerodrill_due(b)
