"""``zerodrill sync DIR``: machines share one review log through a folder, idempotently, with
undo records, cut files, newer files, clock skew, and a folder that cannot be used."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from cli_support import run_cli
from srs_support import grade, identities, reference_states, sm2_states

from zerodrill import atomic_write
from zerodrill.srs import sm2_formula as sm2
from zerodrill.srs.days import study_day
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import Grade
from zerodrill.srs.sm2_formula import Sm2State
from zerodrill.srs.store import Store
from zerodrill.srs.sync.folder import sync_folder
from zerodrill.srs.sync.logfile import FORMAT_VERSION, file_name, read_log

REPO = Path(__file__).resolve().parent.parent
NOON = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
KEY = "zero/stage-1"


@pytest.fixture
def machines(tmp_path: Path) -> Iterator[tuple[Store, Store]]:
    with Store.open(tmp_path / "a.db") as a, Store.open(tmp_path / "b.db") as b:
        yield a, b


def sync(capsys: pytest.CaptureFixture[str], db: Path, folder: Path) -> tuple[int, str, str]:
    return run_cli(capsys, "sync", str(folder), "--db", str(db))


class _Any(str):
    def __eq__(self, other: object) -> bool:
        return isinstance(other, str)

    __hash__ = str.__hash__


#: Any output at all, where a test asserts on the exit code and errors only.
ANY_OUT = _Any()


def test_reviews_made_on_one_machine_reach_the_other(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store.open(tmp_path / "a.db") as a:
        grade(a, KEY, 4, NOON)
        grade(a, "zero/stage-2", 2, NOON + timedelta(minutes=1))
    code, out, err = sync(capsys, tmp_path / "a.db", folder)
    assert (code, err) == (0, "")
    assert "Sent 2 reviews" in out and "received 0 reviews" in out
    code, out, err = sync(capsys, tmp_path / "b.db", folder)
    assert (code, err) == (0, "")
    assert "received 2 reviews from 1 other machine; 2 cards rescheduled" in out
    with Store.open(tmp_path / "a.db") as a, Store.open(tmp_path / "b.db") as b:
        assert identities(a) == identities(b)
        assert a.schedule.states() == b.schedule.states() and sm2_states(a) == reference_states(
            a.log.events()
        )
        assert b.schedule.state(KEY).interval == 1


def test_syncing_again_adds_nothing(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store.open(tmp_path / "a.db") as a:
        grade(a, KEY, 4, NOON)
    for db in ("a.db", "b.db", "a.db", "b.db"):
        sync(capsys, tmp_path / db, folder)
    for db in ("a.db", "b.db"):
        code, out, _ = sync(capsys, tmp_path / db, folder)
        assert "Sent 0 reviews" in out and "received 0 reviews" in out
    with Store.open(tmp_path / "b.db") as b:
        assert len(list(b.log.entries())) == 1
    a_file = read_log(folder / file_name(Store.open(tmp_path / "a.db").machine.id))
    assert len(a_file.entries) == 1


def test_reviews_from_both_machines_interleave_in_time_order(
    machines: tuple[Store, Store], folder: Path
) -> None:
    a, b = machines
    grade(a, KEY, 5, NOON)  # day 1 on A
    grade(b, KEY, 1, NOON + timedelta(days=1))  # day 2 on B: a lapse
    grade(a, KEY, 5, NOON + timedelta(days=3))  # day 4 on A, before A has heard of B's
    for store in (a, b, a):
        sync_folder(store, folder)
    assert identities(a) == identities(b)
    expected = reference_states(a.log.events())
    assert a.schedule.states() == b.schedule.states() and sm2_states(b) == expected
    # 5 on day 1, the lapse on day 2, 5 on day 4: one day again after the lapse.
    assert expected[KEY].interval == 1 and expected[KEY].lapses == 1


def test_an_undo_reaches_the_other_machine(machines: tuple[Store, Store], folder: Path) -> None:
    a, b = machines
    grade(a, KEY, 4, NOON)
    sync_folder(a, folder)
    sync_folder(b, folder)
    assert KEY in b.schedule.states()
    wrong = grade(a, "zero/other", 0, NOON + timedelta(days=1))
    a.log.undo(grade(a, KEY, 5, NOON + timedelta(days=1)).id, at=NOON + timedelta(days=1))
    a.log.undo(wrong.id, at=NOON + timedelta(days=1))
    report = sync_folder(a, folder)
    assert report.sent == 4
    report = sync_folder(b, folder)
    assert (report.received, report.cards) == (4, 2)
    assert a.schedule.states() == b.schedule.states() and sm2_states(a) == reference_states(
        b.log.events()
    )
    assert b.schedule.state(KEY).interval == 1 and "zero/other" not in b.schedule.states()


def test_the_events_sync_reads_say_what_the_full_log_says(
    machines: tuple[Store, Store],
) -> None:
    # Sync reads the events (Store.log.events): the same reviews, fields and identities as the
    # full log, undos naming what they undo, Anki's reviews included.
    a, _ = machines
    grade(a, KEY, 4, NOON)
    wrong = grade(a, "zero/other", 0, NOON + timedelta(days=1))
    a.log.undo(wrong.id, at=NOON + timedelta(days=1))
    anki = ReviewEvent(
        "anki", 7, KEY, NOON - timedelta(days=2), date(2025, 3, 8), Grade.PERFECT, None, 2500
    )
    a.log.add_events([anki])
    assert a.log.events() == [r.event for r in a.log.entries()]
    assert [e.to_wire()["kind"] for e in a.log.events()] == ["grade", "grade", "undo", "grade"]
    assert a.log.events()[2].undoes == wrong.identity and a.log.events()[3] == anki


def test_a_cut_last_line_waits_for_the_rest(machines: tuple[Store, Store], folder: Path) -> None:
    a, b = machines
    for n in range(3):
        grade(a, f"zero/c{n}", 4, NOON + timedelta(minutes=n))
    sync_folder(a, folder)
    path = folder / file_name(a.machine.id)
    whole = path.read_bytes()
    path.write_bytes(whole[:-10])  # the sync tool has delivered all but the last 10 bytes
    report = sync_folder(b, folder)
    assert (report.received, report.warnings) == (2, ())
    path.write_bytes(whole)
    assert sync_folder(b, folder).received == 1
    assert identities(a) == identities(b) and a.schedule.states() == b.schedule.states()


def test_a_file_from_a_newer_zerodrill_is_one_warning_and_the_rest_merge(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store.open(tmp_path / "a.db") as a:
        grade(a, KEY, 4, NOON)
    sync(capsys, tmp_path / "a.db", folder)
    newer = {"zerodrill": "review-log", "version": FORMAT_VERSION + 1, "origin": "c0ffee"}
    (folder / file_name("c0ffee")).write_text(json.dumps(newer) + "\n{}\n")
    code, out, err = sync(capsys, tmp_path / "b.db", folder)
    assert code == 0
    assert err.count("\n") == 1 and "written by a newer zerodrill" in err
    assert "received 1 review" in out


def test_reviews_imported_from_anki_travel_too(machines: tuple[Store, Store], folder: Path) -> None:
    a, b = machines
    anki = ReviewEvent(
        "anki", 1741608000000, KEY, NOON, date(2025, 3, 10), Grade.GOOD, answer_ms=3000
    )
    a.log.add_events([anki])
    assert sync_folder(a, folder).sent == 1
    assert sync_folder(b, folder).received == 1
    assert b.schedule.states() == a.schedule.states() and identities(b) == {("anki", 1741608000000)}


def test_a_database_restored_from_a_backup_takes_a_new_machine_id_and_loses_nothing(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The backup is taken, a review is made and synced, the disk dies, the backup comes back
    # and the learner drills before syncing: the new review gets the number the synced one
    # has, under the same machine id. Before the fix, every sync after that was refused.
    Store.open(tmp_path / "a.db").close()
    shutil.copy(tmp_path / "a.db", tmp_path / "backup.db")
    with Store.open(tmp_path / "a.db") as a:
        old = a.machine.id
        first = grade(a, KEY, 4, NOON)
    assert sync(capsys, tmp_path / "a.db", folder)[0] == 0
    for leftover in tmp_path.glob("a.db*"):
        leftover.unlink()
    shutil.copy(tmp_path / "backup.db", tmp_path / "a.db")
    with Store.open(tmp_path / "a.db") as a:
        assert list(a.log.entries()) == []
        again = grade(a, "zero/stage-2", 3, NOON + timedelta(days=1))
        assert again.identity == first.identity  # the number is used twice
    code, out, err = sync(capsys, tmp_path / "a.db", folder)
    assert code == 0, err
    assert err.count("\n") == 1 and "restored from a backup or copied" in err
    assert "Nothing was lost" in err and "received 1 review" in out
    with Store.open(tmp_path / "a.db") as a:
        assert a.machine.id != old
        assert identities(a) == {first.identity, (a.machine.id, 1)}
        assert set(a.schedule.states()) == {KEY, "zero/stage-2"} and sm2_states(
            a
        ) == reference_states(a.log.events())
        # Numbered after its own reviews under the new id: no identity is used twice.
        assert grade(a, KEY, 4, NOON + timedelta(days=2)).identity == (a.machine.id, 2)
    code, out, err = sync(capsys, tmp_path / "a.db", folder)
    assert (code, err) == (0, "") and "Sent 1 review " in out
    assert sync(capsys, tmp_path / "b.db", folder)[0] == 0
    with Store.open(tmp_path / "a.db") as a, Store.open(tmp_path / "b.db") as b:
        assert identities(a) == identities(b) and len(identities(b)) == 3
        assert a.schedule.states() == b.schedule.states() and sm2_states(a) == reference_states(
            b.log.events()
        )


def test_clocks_minutes_apart_agree_on_one_order(
    machines: tuple[Store, Store], folder: Path
) -> None:
    a, b = machines
    # B's clock runs 10 minutes slow: its grade, given 5 minutes after A's, is stamped 5
    # minutes before it. Both are on one day, so the first by timestamp moves the schedule
    # and the other is a same-day repeat, on both machines.
    grade(a, KEY, 5, NOON)
    grade(b, KEY, 1, NOON + timedelta(minutes=5) - timedelta(minutes=10))
    for store in (a, b, a):
        sync_folder(store, folder)
    assert a.schedule.states() == b.schedule.states() and sm2_states(a) == reference_states(
        a.log.events()
    )
    ef = sm2_states(a)[KEY]
    assert ef.lapses == 0 and ef.ef_hundredths < 250  # B's 1 came first


@pytest.mark.parametrize("copy_drills_first", [False, True])
def test_a_copied_database_is_told_apart_at_its_first_sync(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str], copy_drills_first: bool
) -> None:
    # A database copied to a second machine carries the first one's machine id. Whichever
    # syncs second finds reviews of its id it lacks in its file, and takes a new id. Before
    # the fix: refused with no way out once both had drilled, and merged under one id (the
    # numbers then naming two reviews) when only one had.
    with Store.open(tmp_path / "a.db") as a:
        grade(a, KEY, 4, NOON)
    shutil.copy(tmp_path / "a.db", tmp_path / "clone.db")
    with Store.open(tmp_path / "a.db") as a, Store.open(tmp_path / "clone.db") as clone:
        grade(a, "zero/stage-2", 4, NOON + timedelta(days=1))
        if copy_drills_first:
            grade(clone, "zero/stage-3", 2, NOON + timedelta(days=1))
            # An undo among the reviews renumbered: it must name its review's new number.
            wrong = grade(clone, "zero/stage-5", 0, NOON + timedelta(days=1))
            clone.log.undo(wrong.identity, at=NOON + timedelta(days=1))
    assert sync(capsys, tmp_path / "a.db", folder) == (0, ANY_OUT, "")
    code, out, err = sync(capsys, tmp_path / "clone.db", folder)
    assert code == 0 and err.count("\n") == 1 and "copied from another machine" in err
    with Store.open(tmp_path / "clone.db") as clone:
        grade(clone, "zero/stage-4", 5, NOON + timedelta(days=2))
    for db in ("clone.db", "a.db", "clone.db"):
        code, _, err = sync(capsys, tmp_path / db, folder)
        assert (code, err) == (0, "")
    with Store.open(tmp_path / "a.db") as a, Store.open(tmp_path / "clone.db") as clone:
        assert a.machine.id != clone.machine.id
        assert identities(a) == identities(clone)
        assert len(identities(a)) == 3 + 3 * copy_drills_first
        assert a.schedule.states() == clone.schedule.states() and sm2_states(a) == reference_states(
            a.log.events()
        )
        assert "zero/stage-5" not in a.schedule.states()


@pytest.mark.parametrize("what", ["missing", "a file"])
def test_a_folder_that_cannot_be_used_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str
) -> None:
    target = tmp_path / "nowhere"
    if what == "a file":
        target.write_text("x")
    code, out, err = sync(capsys, tmp_path / "a.db", target)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert str(target) in err


@pytest.mark.parametrize("blocked", ["log file", "temporary file"])
def test_a_log_file_that_cannot_be_written_is_one_line_and_nothing_is_merged(
    tmp_path: Path,
    folder: Path,
    capsys: pytest.CaptureFixture[str],
    blocked: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with Store.open(tmp_path / "a.db") as a:
        grade(a, KEY, 4, NOON)
    sync(capsys, tmp_path / "a.db", folder)
    with Store.open(tmp_path / "b.db") as b:
        own = folder / file_name(b.machine.id)
    # A folder where B's log file, or the file it is written as first, should go.
    if blocked == "log file":
        own.mkdir()
    else:
        # The writer draws its temporary names at random: here every draw is the one taken.
        monkeypatch.setattr(atomic_write.secrets, "token_hex", lambda _n: "0000")
        (folder / f".{own.name}.{os.getpid()}.0000.tmp").mkdir()
    code, out, err = sync(capsys, tmp_path / "b.db", folder)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert ("cannot read it" if blocked == "log file" else "cannot write it") in err
    with Store.open(tmp_path / "b.db") as b:
        assert list(b.log.entries()) == []


NOBODY = 65534


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_a_read_only_folder_is_one_line() -> None:
    box = Path(tempfile.mkdtemp(prefix="zerodrill-sync-test-"))
    try:
        box.chmod(0o777)
        shared = box / "shared"
        shared.mkdir(mode=0o555)
        shared.chmod(0o555)
        # Everything imported first: user nobody may not read the interpreter's folders.
        code = "import os, sys, zerodrill.cli.sync, zerodrill.srs.sync.folder\n"
        code += "import zerodrill.srs.settings, zerodrill.srs.schedulers.sm2\n"
        code += "from zerodrill.cli import main\n"
        if os.geteuid() == 0:
            # Root ignores permissions: the command runs as user nobody.
            code += f"os.setgid({NOBODY})\nos.setuid({NOBODY})\n"
        code += "main(sys.argv[1:])\n"
        done = subprocess.run(
            [sys.executable, "-c", code, "sync", str(shared), "--db", str(box / "b.db")],
            env={**os.environ, "PYTHONPATH": str(REPO)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 1 and done.stdout == ""
        assert (
            done.stderr == f"zerodrill: {shared}: cannot write to this folder (permission denied)\n"
        )
    finally:
        shutil.rmtree(box)


def test_two_machines_syncing_at_once_through_one_folder(tmp_path: Path, folder: Path) -> None:
    dbs = [tmp_path / "a.db", tmp_path / "b.db"]
    for n, db in enumerate(dbs):
        with Store.open(db) as store:
            for day in range(5):
                grade(
                    store,
                    f"zero/c{day % 3}",
                    2 + n + day % 3,
                    NOON + timedelta(days=day, minutes=n),
                )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "zerodrill", "sync", str(folder), "--db"]
    for _ in range(3):
        # Both at once: each reads the other's file while it may be being renamed in.
        running = [
            subprocess.Popen([*command, str(db)], env=env, stderr=subprocess.PIPE) for db in dbs
        ]
        for process in running:
            _, err = process.communicate(timeout=60)
            assert process.returncode == 0 and err == b""
    with Store.open(dbs[0]) as a, Store.open(dbs[1]) as b:
        for store in (a, b, a):
            sync_folder(store, folder)
        assert identities(a) == identities(b) and len(identities(a)) == 10
        assert len(list(a.log.entries())) == len(list(b.log.entries())) == 10
        assert a.schedule.states() == b.schedule.states() and sm2_states(a) == reference_states(
            a.log.events()
        )


def test_an_undo_after_a_sync_withdraws_only_the_grade_it_names(
    machines: tuple[Store, Store], folder: Path
) -> None:
    a, b = machines
    mine = grade(a, KEY, 4, NOON)
    for store in (a, b):
        sync_folder(store, folder)
    theirs = grade(b, KEY, 5, NOON + timedelta(days=2))  # B's later grade of the same card
    for store in (b, a):
        sync_folder(store, folder)
    undo = a.log.undo(mine.id, at=NOON + timedelta(days=2, hours=1))
    assert undo.undoes == mine.identity
    # B's grade stays, now the card's first: the card is what it alone makes it.
    alone = sm2.review(Sm2State.new(), 5, study_day(theirs.at))
    assert sm2_states(a)[KEY] == alone
    for store in (a, b, a):
        sync_folder(store, folder)
    for store in (a, b):
        by_identity = {r.identity: r for r in store.log.entries()}
        assert not by_identity[mine.identity].in_effect
        assert by_identity[theirs.identity].introduced
        assert sm2_states(store) == {KEY: alone} == reference_states(store.log.events())


def test_a_review_from_a_clock_decades_ahead_is_held_back_with_a_warning(
    machines: tuple[Store, Store], folder: Path
) -> None:
    a, b = machines
    grade(b, KEY, 4, NOON)
    ahead = grade(b, KEY, 5, NOON.replace(year=2070))  # b's clock is wrong by decades
    sync_folder(b, folder)
    report = sync_folder(a, folder)
    assert report.received == 1
    assert report.warnings == (
        f"1 review from {b.machine.id} dated more than a day ahead (up to 2070-03-10) held back "
        "until then: is that machine's clock wrong?",
    )
    assert ahead.identity not in identities(a)
    assert sm2_states(a)[KEY] == sm2.review(Sm2State.new(), 4, study_day(NOON))
    assert sync_folder(a, folder).warnings == report.warnings  # until its time comes


def test_a_drill_open_while_a_sync_renews_the_machine_id_grades_under_the_new_one(
    tmp_path: Path, folder: Path
) -> None:
    Store.open(tmp_path / "a.db").close()
    shutil.copy(tmp_path / "a.db", tmp_path / "clone.db")
    with Store.open(tmp_path / "a.db") as a:
        grade(a, KEY, 4, NOON)
        sync_folder(a, folder)
    with Store.open(tmp_path / "clone.db") as drill, Store.open(tmp_path / "clone.db") as syncer:
        old = drill.machine.id
        report = sync_folder(syncer, folder)
        assert "copied from another machine" in report.warnings[0]
        # The drill's connection was open before: its next grade is the new id's, not a
        # number of the old one that the original machine may use too.
        graded = grade(drill, "zero/stage-2", 3, NOON + timedelta(days=1))
        assert graded.identity == (syncer.machine.id, 1) and syncer.machine.id != old
