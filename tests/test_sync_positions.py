"""A sync reads each log file from where the last one stopped (issue 34, point 4): with nothing
new it reads no old line; a file replaced, rewritten or cut is read again from its start; this
machine's file is added to, never rewritten, and a cut last line left by a crash is completed;
overlapping and interleaved syncs lose nothing; a database restored from a backup, whose
positions are older than the folder, still sees the reviews it lacks."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from srs_support import grade, identities, reference_states, sm2_states

from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import Grade
from zerodrill.srs.store import SCHEMA_VERSION, Store
from zerodrill.srs.store.stream import EventLog
from zerodrill.srs.sync import logfile
from zerodrill.srs.sync.exchange import Carried, receive, send, survey
from zerodrill.srs.sync.folder import FolderTransport, sync_folder
from zerodrill.srs.sync.logfile import EDGE, file_name, header, read_log

NOON = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
KEY = "zero/stage-1"


def line(origin: str, number: int, key: str = KEY, **change: object) -> str:
    at = NOON + timedelta(days=number % 1000)
    record = {
        "origin": origin, "seq": number, "key": key, "kind": "grade", "at": at.isoformat(),
        "day": at.date().isoformat(), "grade": 4, "undoes": None, "answer_ms": 1200,
    }  # fmt: skip
    record.update(change)
    return json.dumps(record)


def plant(folder: Path, origin: str, *lines: str) -> Path:
    path = folder / file_name(origin)
    path.write_text("".join(f"{text}\n" for text in (header(origin), *lines)))
    return path


def add(path: Path, *lines: str) -> None:
    with open(path, "a", encoding="utf-8") as out:
        out.write("".join(f"{text}\n" for text in lines))


class Reads:
    """What syncs read of the files: lines parsed and bytes read."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.lines = 0
        self.bytes = 0
        parse, read_at = logfile.parse_line, logfile._read_at

        def counted_parse(text: str) -> object:
            self.lines += 1
            return parse(text)

        def counted_read(fd: int, start: int, count: int) -> bytes:
            data = read_at(fd, start, count)
            self.bytes += len(data)
            return data

        monkeypatch.setattr(logfile, "parse_line", counted_parse)
        monkeypatch.setattr(logfile, "_read_at", counted_read)

    def reset(self) -> None:
        self.lines = self.bytes = 0


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Reads:
    return Reads(monkeypatch)


@pytest.fixture
def machines(tmp_path: Path) -> Iterator[tuple[Store, Store]]:
    with Store.open(tmp_path / "a.db") as a, Store.open(tmp_path / "b.db") as b:
        yield a, b


# -- nothing new, nothing old read ---------------------------------------------------------


def test_a_sync_with_nothing_new_reads_no_old_line(
    machines: tuple[Store, Store], folder: Path, reads: Reads, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = machines
    for n in range(40):
        grade(a, f"zero/c{n}", 4, NOON + timedelta(minutes=n))
        grade(b, f"zero/c{n}", 3, NOON + timedelta(minutes=n, seconds=30))
    for store in (a, b, a, b):
        sync_folder(store, folder)
    sizes = {path.name: path.stat().st_size for path in folder.iterdir()}
    assert len(sizes) == 2 and min(sizes.values()) > 10 * EDGE
    # Nor is the local log read whole to know what to send.
    monkeypatch.setattr(EventLog, "events", lambda _: pytest.fail("the whole log was read"))
    # The databases and their logs (-wal), not SQLite's index of the log (-shm), which
    # readers mark too.
    databases = sorted({*folder.parent.glob("*.db"), *folder.parent.glob("*.db-wal")})
    written = [path.read_bytes() for path in databases]
    for store in (a, b):
        reads.reset()
        report = sync_folder(store, folder)
        assert (report.sent, report.received, report.machines) == (0, 0, 1)
        # Not a line parsed; of each file only the bytes at its two ends that tell it is the
        # file read before.
        assert reads.lines == 0 and reads.bytes <= 2 * 2 * EDGE
    assert {path.name: path.stat().st_size for path in folder.iterdir()} == sizes
    # Nor is anything written: the positions kept are where they were.
    assert [path.read_bytes() for path in databases] == written


def test_a_sync_reads_only_what_was_added_since(
    machines: tuple[Store, Store], folder: Path, reads: Reads
) -> None:
    a, b = machines
    for n in range(30):
        grade(a, f"zero/c{n}", 4, NOON + timedelta(minutes=n))
    for store in (a, b):
        sync_folder(store, folder)
    grade(a, "zero/new", 5, NOON + timedelta(days=1))
    sync_folder(a, folder)
    reads.reset()
    assert sync_folder(b, folder).received == 1
    assert reads.lines == 1
    assert identities(a) == identities(b) and a.schedule.states() == b.schedule.states()


# -- a file that is not the one read: from its start ----------------------------------------


def test_a_file_rewritten_before_where_the_last_sync_stopped_is_read_from_its_start(
    tmp_path: Path, folder: Path, reads: Reads
) -> None:
    # The sync tool delivers another version of b0b's file: a line where the last sync had
    # read one already, which reading on from there would never see.
    path = plant(folder, "b0b", line("b0b", 1), line("b0b", 2, "zero/s2"))
    with Store.open(tmp_path / "a.db") as a:
        assert sync_folder(a, folder).received == 2
        plant(folder, "b0b", line("b0b", 1), line("b0b", 5, "zero/s5"), line("b0b", 2, "zero/s2"))
        assert path.stat().st_size > 0
        reads.reset()
        report = sync_folder(a, folder)
        assert (report.received, report.warnings) == (1, ())
        assert reads.lines == 3
        assert identities(a) == {("b0b", 1), ("b0b", 2), ("b0b", 5)}


def test_a_file_cut_is_read_from_its_start(tmp_path: Path, folder: Path, reads: Reads) -> None:
    path = plant(folder, "b0b", *(line("b0b", n, f"zero/c{n}") for n in range(1, 5)))
    with Store.open(tmp_path / "a.db") as a:
        assert sync_folder(a, folder).received == 4
        plant(folder, "b0b", line("b0b", 1, "zero/c1"))  # a backup of it restored, say
        reads.reset()
        assert sync_folder(a, folder).received == 0 and reads.lines == 1
        add(path, line("b0b", 7, "zero/d7"))
        assert sync_folder(a, folder).received == 1
        assert len(identities(a)) == 5


def test_a_file_cut_and_grown_past_where_the_last_sync_stopped_is_read_from_its_start(
    tmp_path: Path, folder: Path, reads: Reads
) -> None:
    # Longer than when it was read, yet not that file grown: its lines differ.
    path = plant(folder, "b0b", *(line("b0b", n, f"zero/c{n}") for n in range(1, 5)))
    size = path.stat().st_size
    with Store.open(tmp_path / "a.db") as a:
        assert sync_folder(a, folder).received == 4
        plant(folder, "b0b", *(line("b0b", n, f"zero/d{n}") for n in range(7, 13)))
        assert path.stat().st_size > size
        reads.reset()
        assert sync_folder(a, folder).received == 6
        assert reads.lines == 6
        assert sm2_states(a) == reference_states(a.log.events())


def test_reviews_only_a_file_gone_carried_are_sent_by_a_machine_that_holds_them(
    machines: tuple[Store, Store], folder: Path
) -> None:
    # B's file goes (deleted by hand); A holds B's reviews, which no file carries now: A
    # sends them, as it always did, so that a third machine still gets them.
    a, b = machines
    grade(b, KEY, 4, NOON)
    for store in (b, a):
        sync_folder(store, folder)
    (folder / file_name(b.machine.id)).unlink()
    assert sync_folder(a, folder).sent == 1
    with Store.open(folder.parent / "c.db") as c:
        assert sync_folder(c, folder).received == 1
        assert identities(c) == identities(b)


# -- this machine's file: added to ------------------------------------------------------------


def test_this_machines_file_is_added_to_and_its_lines_never_written_again(
    machines: tuple[Store, Store], folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = machines
    grade(a, KEY, 4, NOON)
    sync_folder(a, folder)
    own = folder / file_name(a.machine.id)
    before, inode = own.read_bytes(), own.stat().st_ino
    monkeypatch.setattr(logfile, "write_atomic", lambda *_a, **_k: pytest.fail("rewritten"))
    grade(a, "zero/stage-2", 3, NOON + timedelta(days=1))
    assert sync_folder(a, folder).sent == 1
    assert own.read_bytes().startswith(before) and own.stat().st_ino == inode
    monkeypatch.undo()  # B's first sync writes its file whole, as every first one does
    assert sync_folder(b, folder).received == 2


def test_a_cut_last_line_left_by_a_crash_is_written_whole_by_the_next_sync(
    machines: tuple[Store, Store], folder: Path, reads: Reads
) -> None:
    a, b = machines
    grade(a, KEY, 4, NOON)
    sync_folder(a, folder)
    own = folder / file_name(a.machine.id)
    # Killed half-way through adding its next review: the line is cut.
    graded = grade(a, "zero/stage-2", 3, NOON + timedelta(days=1))
    with open(own, "ab") as out:
        out.write(graded.event.to_json().encode()[:40])
    assert sync_folder(b, folder).received == 1  # the cut line waits
    assert sync_folder(a, folder).sent == 1
    log = read_log(own)
    assert log.damaged == [] and [e.key for e in log.entries] == [KEY, "zero/stage-2"]
    assert log.text == own.read_text()  # nothing cut is left in it
    reads.reset()
    assert sync_folder(b, folder).received == 1 and reads.lines == 1
    assert identities(a) == identities(b) and a.schedule.states() == b.schedule.states()


def test_lines_added_after_a_line_still_on_its_way_are_read_once_it_is_whole(
    tmp_path: Path, folder: Path, reads: Reads
) -> None:
    # The sync tool copies byte ranges: a file arrives with its last line cut; then the rest
    # of it, and more lines after it.
    whole = [line("b0b", n, f"zero/c{n}") for n in range(1, 7)]
    path = folder / file_name("b0b")
    text = "".join(f"{t}\n" for t in (header("b0b"), *whole))
    cut = text.index(whole[3]) + 25
    path.write_text(text[:cut])
    with Store.open(tmp_path / "a.db") as a:
        assert sync_folder(a, folder).received == 3
        path.write_text(text)
        reads.reset()
        report = sync_folder(a, folder)
        assert (report.received, report.warnings) == (3, ())
        assert reads.lines == 3
        assert identities(a) == {("b0b", n) for n in range(1, 7)}


@pytest.mark.skipif(os.name != "posix", reason="POSIX hard links")
def test_a_hard_link_planted_at_this_machines_file_is_never_written_through(
    tmp_path: Path, folder: Path
) -> None:
    victim = tmp_path / "bashrc"
    victim.write_text("precious\n")
    with Store.open(tmp_path / "a.db") as a:
        own = folder / file_name(a.machine.id)
        grade(a, KEY, 4, NOON)
        sync_folder(a, folder)
        kept = own.read_text()
        own.unlink()
        os.link(victim, own)  # someone who can write to the folder swaps the file for a link
        victim.write_text(kept)  # the link reads as this machine's file
        grade(a, "zero/stage-2", 3, NOON + timedelta(days=1))
        assert sync_folder(a, folder).sent == 1
    assert victim.read_text() == kept
    assert own.stat().st_ino != victim.stat().st_ino and own.stat().st_nlink == 1
    assert [e.key for e in read_log(own).entries] == [KEY, "zero/stage-2"]


# -- syncs that overlap or interleave -----------------------------------------------------------


def test_a_sync_surveyed_before_another_machine_adds_reads_that_later(
    machines: tuple[Store, Store], folder: Path
) -> None:
    a, b = machines
    grade(b, KEY, 4, NOON)
    sync_folder(b, folder)
    plan = survey(a, FolderTransport(folder))
    # B adds to its file between A's survey and the end of A's sync.
    grade(b, "zero/stage-2", 3, NOON + timedelta(days=1))
    sync_folder(b, folder)
    send(plan)
    receive(a, plan)
    assert identities(a) == {(b.machine.id, 1)}
    assert sync_folder(a, folder).received == 1
    assert identities(a) == identities(b) and a.schedule.states() == b.schedule.states()


def test_two_overlapping_syncs_of_one_machine_lose_nothing(
    machines: tuple[Store, Store], folder: Path
) -> None:
    a, b = machines
    grade(a, KEY, 4, NOON)
    first = survey(a, FolderTransport(folder))
    grade(a, "zero/stage-2", 3, NOON + timedelta(days=1))
    second = survey(a, FolderTransport(folder))
    send(first)
    send(second)  # both add what they found to send; the first's line is there twice
    receive(a, second)
    receive(a, first)
    grade(a, "zero/stage-3", 2, NOON + timedelta(days=2))
    for store in (a, b, a, b):
        sync_folder(store, folder)
    assert identities(a) == identities(b) and len(identities(b)) == 3
    assert a.schedule.states() == b.schedule.states() and sm2_states(b) == reference_states(
        b.log.events()
    )


def test_an_undo_read_before_its_review_arrives_is_taken_once_it_does(
    tmp_path: Path, folder: Path
) -> None:
    undo = line("c0c", 1, kind="undo", grade=None, undoes=["b0b", 1])
    plant(folder, "c0c", undo, line("c0c", 2, "zero/s2"))
    with Store.open(tmp_path / "a.db") as a:
        assert sync_folder(a, folder).received == 1
        plant(folder, "b0b", line("b0b", 1))
        report = sync_folder(a, folder)
        assert (report.received, report.warnings) == (2, ())
        assert a.schedule.states() == {
            "zero/s2": a.schedule.state("zero/s2")
        }  # the review is withdrawn


# -- the positions live in the database -----------------------------------------------------------


def test_a_database_restored_from_a_backup_taken_after_a_sync_still_takes_a_new_id(
    tmp_path: Path, folder: Path
) -> None:
    # The backup holds the position of its own file as it was then; the file has grown since
    # with a review the restored database lacks: that is read, and told apart.
    with Store.open(tmp_path / "a.db") as a:
        grade(a, KEY, 4, NOON)
        sync_folder(a, folder)
        old = a.machine.id
    shutil.copy(tmp_path / "a.db", tmp_path / "backup.db")
    with Store.open(tmp_path / "a.db") as a:
        lost = grade(a, "zero/stage-2", 3, NOON + timedelta(days=1))
        sync_folder(a, folder)
    for leftover in tmp_path.glob("a.db*"):
        leftover.unlink()
    shutil.copy(tmp_path / "backup.db", tmp_path / "a.db")
    with Store.open(tmp_path / "a.db") as a:
        grade(a, "zero/stage-3", 2, NOON + timedelta(days=1))
        report = sync_folder(a, folder)
        assert "restored from a backup or copied" in report.warnings[0]
        assert a.machine.id != old and lost.identity in identities(a)
        assert sync_folder(a, folder).warnings == ()
    with Store.open(tmp_path / "b.db") as b:
        sync_folder(b, folder)
        assert len(identities(b)) == 3


def test_a_database_gains_its_sync_positions_only_when_it_first_syncs(
    tmp_path: Path, folder: Path
) -> None:
    db = tmp_path / "a.db"
    with Store.open(db) as a:
        grade(a, KEY, 4, NOON)
    with Store.open(db) as a:
        assert a.sync.saved(FolderTransport(folder).name, a.machine.id) == {}
    assert not _tables(db) & {"sync_position"}
    with Store.open(db) as a:
        sync_folder(a, folder)
        kept = a.sync.saved(FolderTransport(folder).name, a.machine.id)
        assert set(kept) == {a.machine.id}
    # Not a new database version: an older zerodrill, in another terminal or on another
    # machine, still opens the file (and reads every log whole, as it always did).
    assert "sync_position" in _tables(db) and _version(db) == SCHEMA_VERSION
    # Kept under the folder itself, however it is named.
    with Store.open(db) as a:
        alias = tmp_path / "alias"
        alias.symlink_to(folder)
        assert a.sync.saved(FolderTransport(alias).name, a.machine.id) == kept


def test_a_position_that_does_not_read_is_a_read_from_the_start(
    tmp_path: Path, folder: Path
) -> None:
    plant(folder, "b0b", line("b0b", 1))
    with Store.open(tmp_path / "a.db") as a:
        sync_folder(a, folder)
        name = FolderTransport(folder).name
        a.sync.save(name, a.machine.id, {"b0b": ("{not a position", "[]")}, [])
        add(folder / file_name("b0b"), line("b0b", 2, "zero/s2"))
        assert sync_folder(a, folder).received == 1
        assert identities(a) == {("b0b", 1), ("b0b", 2)}


def _tables(db: Path) -> set[str]:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return {name for (name,) in conn.execute("SELECT name FROM sqlite_schema")}


def _version(db: Path) -> int:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])


def test_what_an_origin_carries_is_kept_as_runs_of_numbers_however_they_arrive() -> None:
    at = datetime(2025, 3, 10, 12, tzinfo=UTC)
    events = [
        ReviewEvent(origin, seq, "d/a", at, at.date(), Grade.GOOD)
        for origin, seq in [("m1", 5), ("m1", 3), ("m2", 1), ("m1", 4), ("m1", 9), ("m1", 3)]
    ]
    carried = Carried({"m1": [(1, 2), (12, 12)]}).add(events)
    assert carried.numbers == {"m1": [(1, 5), (9, 9), (12, 12)], "m2": [(1, 1)]}
