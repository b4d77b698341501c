"""The sync folder's log files: written whole and renamed in, read up to the last complete line,
and a file from a newer zerodrill (or no zerodrill) skipped with one warning."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import force_setattr

from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import Grade
from zerodrill.srs.sync.logfile import (
    FORMAT_VERSION,
    file_name,
    header,
    log_files,
    read_log,
    write_log,
)
from zerodrill.srs.sync.wire import LogEntry, parse_line

AT = datetime(2025, 3, 10, 12, 0, tzinfo=timezone(timedelta(hours=1)))


def entry(seq: int, *, kind: str = "grade", grade: int | None = 4, origin: str = "m1") -> LogEntry:
    undoes = (origin, seq - 1) if kind == "undo" else None
    grade, answer_ms = (None, None) if kind == "undo" else (grade, 1200)
    at = AT + timedelta(seconds=seq)
    return ReviewEvent(origin, seq, "zero/stage-1", at, date(2025, 3, 10), grade, undoes, answer_ms)  # type: ignore[arg-type]


def test_written_file_reads_back_the_same_entries(tmp_path: Path) -> None:
    path = tmp_path / file_name("m1")
    entries = [entry(1), entry(2, kind="repeat", grade=2), entry(3, kind="undo")]
    assert write_log(path, "m1", "", entries) == 3
    log = read_log(path)
    assert (log.origin, log.entries, log.warning) == ("m1", entries, None)
    assert path.read_text().splitlines()[0] == header("m1")


def test_a_second_write_keeps_the_lines_as_they_were_and_adds(tmp_path: Path) -> None:
    path = tmp_path / file_name("m1")
    write_log(path, "m1", "", [entry(1)])
    before = path.read_bytes()
    write_log(path, "m1", read_log(path).text, [entry(2)])
    assert path.read_bytes().startswith(before)
    assert [e.seq for e in read_log(path).entries] == [1, 2]


def test_no_temporary_file_is_left_and_none_is_taken_for_a_log(tmp_path: Path) -> None:
    write_log(tmp_path / file_name("m1"), "m1", "", [entry(1)])
    assert [p.name for p in tmp_path.iterdir()] == ["zerodrill-m1.jsonl"]
    (tmp_path / ".zerodrill-m2.jsonl.123.tmp").write_text(header("m2") + "\n")
    (tmp_path / "notes.txt").write_text("x")
    assert [p.name for p in log_files(tmp_path)] == ["zerodrill-m1.jsonl"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / file_name("m1")
    write_log(path, "m1", "", [entry(1)])
    before = path.read_bytes()
    bad = ReviewEvent("m1", 2, "k", AT, date(2025, 3, 10), Grade.GOOD)
    force_setattr(bad, "at", object())  # to_json fails half-way through the lines
    with pytest.raises(AttributeError):
        write_log(path, "m1", read_log(path).text, [entry(2), bad])
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["zerodrill-m1.jsonl"]


@settings(max_examples=60, deadline=None)
@given(cut=st.integers(min_value=0))
def test_a_cut_file_reads_up_to_its_last_complete_line(
    tmp_path_factory: pytest.TempPathFactory, cut: int
) -> None:
    folder = tmp_path_factory.mktemp("cut")
    path = folder / file_name("m1")
    entries = [entry(n) for n in range(1, 6)]
    write_log(path, "m1", "", entries)
    whole = path.read_bytes()
    cut %= len(whole) + 1
    path.write_bytes(whole[:cut])
    log = read_log(path)
    assert log.warning is None
    complete = whole[:cut].count(b"\n")
    assert log.entries == entries[: max(complete - 1, 0)]
    # What is kept to write on is exactly the complete lines.
    assert log.text.encode() == whole[: len(log.text.encode())]
    assert log.text.count("\n") == complete


def test_a_file_from_a_newer_zerodrill_is_skipped_with_one_warning(tmp_path: Path) -> None:
    path = tmp_path / file_name("m9")
    newer = {"zerodrill": "review-log", "version": FORMAT_VERSION + 1, "origin": "m9"}
    path.write_text(json.dumps(newer) + "\n" + '{"whatever": "new"}\n')
    log = read_log(path)
    assert log.entries == []
    assert log.warning is not None and "newer zerodrill" in log.warning
    assert "\n" not in log.warning


@pytest.mark.parametrize(
    "content, says",
    [
        (b"hello world\n", "not a zerodrill review log"),
        (b"\xff\xfe\n", "not UTF-8"),
        (b'{"zerodrill": "review-log", "origin": "m1"}\n', "no format version"),
        (b'{"zerodrill": "review-log", "version": 1, "origin": "../x"}\n', "no machine id"),
    ],
)
def test_a_file_that_is_no_log_is_skipped_with_one_warning(
    tmp_path: Path, content: bytes, says: str
) -> None:
    path = tmp_path / file_name("m1")
    path.write_bytes(content)
    log = read_log(path)
    assert log.entries == [] and log.text == ""
    assert log.warning is not None and says in log.warning


def test_a_damaged_line_is_skipped_alone_with_one_warning(tmp_path: Path) -> None:
    path = tmp_path / file_name("m1")
    write_log(path, "m1", "", [entry(1)])
    with open(path, "a") as out:
        out.write('{"kind": "grade"}\n' + entry(3).to_json() + "\n" + "x" * 70_000 + "\n")
        out.write(entry(4).to_json() + "\n")
    log = read_log(path)
    assert [e.seq for e in log.entries] == [1, 3, 4]
    assert log.warning == (
        f"{path}:3: damaged review line (key must be a card key); skipped (and 1 more damaged line)"
    )
    # Written on as it is, damaged lines too: the file's lines are never rewritten.
    assert log.text == path.read_text()


def test_a_vanished_file_reads_as_empty(tmp_path: Path) -> None:
    log = read_log(tmp_path / file_name("gone"))
    assert (log.entries, log.warning) == ([], None)


@pytest.mark.parametrize(
    "change, says",
    [
        ({"kind": "reschedule"}, "kind"),
        ({"key": ""}, "key"),
        ({"at": "2025-03-10T12:00:00"}, "UTC offset"),
        ({"day": "March"}, "ISO"),
        ({"grade": 6}, "0-5"),
        ({"grade": True}, "grade"),
        ({"seq": 0}, "seq"),
        ({"origin": "a b"}, "origin"),
        ({"undoes": ["m1", 1]}, "only an undo"),
        ({"answer_ms": -5}, "answer_ms"),
        ({"kind": "undo", "grade": None}, "[origin, seq]"),
    ],
)
def test_each_field_is_checked(change: dict[str, object], says: str) -> None:
    record = json.loads(entry(1).to_json())
    record.update(change)
    with pytest.raises(ValueError, match=says.replace("[", r"\[").replace("]", r"\]")):
        parse_line(json.dumps(record))
