"""The shared folder is hostile ground (issue 21, point 4): whoever can write to it, or a broken
sync tool, never makes sync write outside it, hang, stop a machine's reviews from syncing, or
decide this machine's review numbers; a killed sync leaves nothing for others to copy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cli_support import run_cli
from srs_support import grade, identities, reference_states, sm2_states

from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import Grade
from zerodrill.srs.store import Store
from zerodrill.srs.sync import logfile
from zerodrill.srs.sync.folder import sync_folder
from zerodrill.srs.sync.logfile import file_name, header, read_log, temp_path

REPO = Path(__file__).resolve().parent.parent
NOON = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
KEY = "zero/stage-1"
POSIX = pytest.mark.skipif(os.name != "posix", reason="POSIX links and FIFOs")


def sync(capsys: pytest.CaptureFixture[str], db: Path, folder: Path) -> tuple[int, str, str]:
    return run_cli(capsys, "sync", str(folder), "--db", str(db))


def line(origin: str, number: int, key: str = KEY, **change: object) -> str:
    """Review ``number`` of machine ``origin`` as it writes it, ``change`` made to its fields."""
    at = NOON + timedelta(days=number % 1000)
    record = {
        "origin": origin, "seq": number, "key": key, "kind": "grade", "at": at.isoformat(),
        "day": at.date().isoformat(), "grade": 4, "undoes": None, "answer_ms": 1200,
    }  # fmt: skip
    record.update(change)
    return json.dumps(record)


def plant(folder: Path, origin: str, *lines: str) -> Path:
    """Machine ``origin``'s log file, holding ``lines``."""
    path = folder / file_name(origin)
    path.write_text("".join(f"{text}\n" for text in (header(origin), *lines)))
    return path


# -- files that are not regular files, and sizes ---------------------------------------------


@POSIX
def test_a_link_planted_at_the_temporary_name_is_never_written_through(
    tmp_path: Path, folder: Path
) -> None:
    victim = tmp_path / "bashrc"
    victim.write_text("precious\n")
    with Store.open(tmp_path / "a.db") as a:
        grade(a, KEY, 4, NOON)
        own = folder / file_name(a.machine.id)
        # Planted before the sync, at the name this process writes its log as.
        temp_path(own, os.getpid()).symlink_to(victim)
        assert sync_folder(a, folder).sent == 1
    assert victim.read_text() == "precious\n"
    assert not own.is_symlink() and [e.key for e in read_log(own).entries] == [KEY]
    assert sorted(p.name for p in folder.iterdir()) == [own.name]


@POSIX
def test_links_fifos_and_folders_in_the_folder_are_skipped_with_a_warning(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A log file outside the folder, linked in; a FIFO no one writes to (reading it would
    # wait for ever); a folder with a log's name.
    outside = plant(tmp_path, "0ff51de", line("0ff51de", 1))
    (folder / file_name("0ff51de")).symlink_to(outside)
    os.mkfifo(folder / file_name("f1f0"))
    (folder / file_name("d1")).mkdir()
    plant(folder, "b0b", line("b0b", 1, "zero/stage-2"))
    done = subprocess.run(
        [sys.executable, "-m", "zerodrill", "sync", str(folder), "--db", str(tmp_path / "a.db")],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    warnings = done.stderr.splitlines()
    assert len(warnings) == 3
    assert any("0ff51de.jsonl: cannot read it (a link, not a file)" in w for w in warnings)
    assert any("f1f0.jsonl: cannot read it (a FIFO, not a file)" in w for w in warnings)
    assert any("d1.jsonl: cannot read it (a folder, not a file)" in w for w in warnings)
    assert "received 1 review" in done.stdout
    with Store.open(tmp_path / "a.db") as a:
        assert identities(a) == {("b0b", 1)}


def test_a_file_past_its_size_cap_is_skipped_with_a_warning(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = plant(folder, "b16", *(line("b16", n) for n in range(1, 60)))
    plant(folder, "5a11", line("5a11", 1))
    monkeypatch.setattr(logfile, "MAX_FILE_BYTES", big.stat().st_size - 1)
    with Store.open(tmp_path / "a.db") as a:
        report = sync_folder(a, folder)
        assert identities(a) == {("5a11", 1)}
    assert len(report.warnings) == 1 and "b16.jsonl: larger than" in report.warnings[0]


def test_a_line_past_its_size_cap_is_skipped_alone(tmp_path: Path, folder: Path) -> None:
    # Valid JSON, a valid review but for a field no zerodrill writes, 100 KB of it.
    plant(folder, "b0b", line("b0b", 1, pad="x" * 100_000), line("b0b", 2))
    with Store.open(tmp_path / "a.db") as a:
        report = sync_folder(a, folder)
        assert identities(a) == {("b0b", 2)}
    path = folder / file_name("b0b")
    assert report.warnings == (
        f"{path}:2: damaged review line (longer than 65,536 characters); skipped",
    )


# -- one bad line is skipped alone ----------------------------------------------------------


def test_a_key_as_long_as_a_deck_that_validates_can_give_is_carried(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    card = "c" * 1_500
    deck = tmp_path / "long.yaml"
    deck.write_text(
        "deck: long\ntitle: Long\ndescription: A long card id.\ncards:\n"
        f"  - id: {card}\n    kind: basic\n    front: Q?\n    back: A.\n"
    )
    code, _, err = run_cli(capsys, "validate", str(deck))
    assert code == 0, err
    key = f"long/{card}"
    with Store.open(tmp_path / "a.db") as a:
        grade(a, key, 4, NOON)
        grade(a, KEY, 4, NOON + timedelta(minutes=1))
    assert sync(capsys, tmp_path / "a.db", folder)[0] == 0
    code, out, err = sync(capsys, tmp_path / "b.db", folder)
    assert (code, err) == (0, "") and "received 2 reviews" in out
    with Store.open(tmp_path / "b.db") as b:
        assert set(b.schedule.states()) == {key, KEY}


BAD_LINES = {
    "a date in year 9999": dict(at="9999-12-31T12:00:00+00:00", day="9999-12-31"),
    "a day far ahead of its time": dict(day="2031-01-01"),
    "a number past SQLite's": dict(seq=2**64),
    "an answer time past SQLite's": dict(answer_ms=2**63),
    "a key no deck can give": dict(key="zero/\x1b[2J"),
}


@pytest.mark.parametrize("change", BAD_LINES.values(), ids=BAD_LINES.keys())
def test_one_bad_line_is_skipped_alone_with_one_warning(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str], change: dict[str, object]
) -> None:
    plant(folder, "b0b", line("b0b", 1), line("b0b", 2, **change), line("b0b", 3, "zero/s2"))
    code, out, err = sync(capsys, tmp_path / "a.db", folder)
    assert code == 0 and err.count("\n") == 1
    assert f"{file_name('b0b')}:3: damaged review line" in err and "skipped" in err
    assert "received 2 reviews" in out
    with Store.open(tmp_path / "a.db") as a:
        assert identities(a) == {("b0b", 1), ("b0b", 3)}
        assert sm2_states(a) == reference_states(a.log.events())
    # Its later lines keep coming: the next sync merges what was added since.
    with open(folder / file_name("b0b"), "a") as out_file:
        out_file.write(line("b0b", 4, "zero/s3") + "\n")
    code, out, _ = sync(capsys, tmp_path / "a.db", folder)
    assert code == 0 and "received 1 review" in out


def test_an_undo_carries_the_day_of_the_grade_it_withdraws_whenever_it_was_made(
    tmp_path: Path, folder: Path
) -> None:
    # A grade's day is its time's (give or take time zones and the rollover); an undo's is
    # the day of the grade it withdraws, which may be long before the undo.
    late_undo = undo("b0b", 2, ("b0b", 1))
    record = json.loads(late_undo)
    record["at"] = (NOON + timedelta(days=40)).isoformat()
    plant(folder, "b0b", line("b0b", 1), json.dumps(record))
    with Store.open(tmp_path / "a.db") as a:
        report = sync_folder(a, folder)
        assert (report.received, report.warnings) == (2, ())
        assert a.schedule.states() == {}


def undo(origin: str, seq: int, target: tuple[str, int], key: str = KEY) -> str:
    return line(origin, seq, key, kind="undo", grade=None, undoes=list(target))


UNDOS = {
    # b0b:2 and b0b:3 undo one review; c0c:1 undoes an undo; c0c:2 undoes a review of
    # another card.
    "two undos of one review": [
        ("b0b", [line("b0b", 1), undo("b0b", 2, ("b0b", 1)), undo("b0b", 3, ("b0b", 1))]),
    ],
    "an undo of an undo": [
        ("b0b", [line("b0b", 1), undo("b0b", 2, ("b0b", 1))]),
        ("c0c", [undo("c0c", 1, ("b0b", 2))]),
    ],
    "an undo of another card's review": [
        ("b0b", [line("b0b", 1)]),
        ("c0c", [undo("c0c", 1, ("b0b", 1), "zero/s2")]),
    ],
}


@pytest.mark.parametrize("files", UNDOS.values(), ids=UNDOS.keys())
def test_an_undo_that_can_never_merge_is_skipped_alone(
    tmp_path: Path,
    folder: Path,
    capsys: pytest.CaptureFixture[str],
    files: list[tuple[str, list[str]]],
) -> None:
    for origin, lines in files:
        plant(folder, origin, *lines, line(origin, 10, "zero/later"))
    code, out, err = sync(capsys, tmp_path / "a.db", folder)
    assert code == 0 and err.count("\n") == 1 and "skipped" in err, err
    with Store.open(tmp_path / "a.db") as a:
        # Every other line merged, the later review of each machine among them.
        assert {i for i in identities(a) if i[1] == 10} == {(o, 10) for o, _ in files}
        assert len(identities(a)) == sum(len(lines) + 1 for _, lines in files) - 1
        assert sm2_states(a) == reference_states(a.log.events())
    # Once merged, a second undo arriving later is skipped as well, and nothing else stops.
    code, _, err = sync(capsys, tmp_path / "a.db", folder)
    assert code == 0


def test_an_undo_arriving_after_the_review_it_undoes_was_undone_here_is_skipped(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plant(folder, "b0b", line("b0b", 1), undo("b0b", 2, ("b0b", 1)))
    assert sync(capsys, tmp_path / "a.db", folder)[0] == 0
    plant(folder, "c0c", undo("c0c", 1, ("b0b", 1)), line("c0c", 2, "zero/s2"))
    code, out, err = sync(capsys, tmp_path / "a.db", folder)
    assert code == 0 and err.count("\n") == 1 and "undone already, skipped" in err
    assert "received 1 review" in out


def test_a_review_no_log_may_carry_is_not_sent_and_never_again(
    tmp_path: Path, folder: Path
) -> None:
    # A key no deck can give, in the database by a way other than a drill: written, every
    # machine would skip the line, and this one would send it again at every sync.
    with Store.open(tmp_path / "a.db") as a:
        grade(a, KEY, 4, NOON)
        a.log.add_events([ReviewEvent("0dd", 1, "Not A Key", NOON, NOON.date(), Grade.GOOD)])
        own = folder / file_name(a.machine.id)
        first = sync_folder(a, folder)
        assert first.sent == 1 and len(first.warnings) == 1
        assert "1 event in this database that no log file may carry" in first.warnings[0]
        written = own.read_bytes()
        again = sync_folder(a, folder)
        assert again.sent == 0 and own.read_bytes() == written
    assert read_log(own).warning is None


# -- this machine's identity --------------------------------------------------------------


def test_a_forged_line_with_this_machines_identity_is_ignored(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store.open(tmp_path / "a.db") as a:
        victim = a.machine.id
        grade(a, KEY, 4, NOON)
    # Another machine's file claims a review of the victim's with the largest number.
    plant(folder, "b0b", line(victim, 2**63 - 1, "zero/s2"), line("b0b", 1, "zero/s3"))
    code, out, err = sync(capsys, tmp_path / "a.db", folder)
    assert code == 0 and err.count("\n") == 1
    assert f"claiming to be this machine's events (machine {victim})" in err
    with Store.open(tmp_path / "a.db") as a:
        assert identities(a) == {(victim, 1), ("b0b", 1)}
        # Its next review is numbered from its own database, and saved and synced.
        assert grade(a, KEY, 3, NOON + timedelta(days=1)).identity == (victim, 2)
    code, out, _ = sync(capsys, tmp_path / "a.db", folder)
    assert code == 0 and "Sent 1 review" in out


# -- a killed sync's leftovers -------------------------------------------------------------


def test_a_killed_syncs_temporary_file_is_removed_by_the_next_sync(
    tmp_path: Path, folder: Path
) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], stdout=-1)
    dead = int(gone.stdout)
    with Store.open(tmp_path / "a.db") as a:
        own = folder / file_name(a.machine.id)
        left = temp_path(own, dead)
        left.write_text(header(a.machine.id) + "\n")  # what a sync killed before its rename leaves
        theirs = temp_path(folder / file_name("b0b"), dead)
        theirs.write_text("another machine's, not this one's to judge\n")
        sync_folder(a, folder)
    assert not left.exists() and theirs.exists()
