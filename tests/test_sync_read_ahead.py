"""What a sync sends, read from the log before the transport can be read (while Anki's server
sync brings the media, :func:`~zerodrill.srs.sync.exchange.read_ahead`): used only while it
holds, so that the sync sends what one reading the log at its survey would."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from srs_support import grade, identities
from test_sync_positions import NOON

from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import Grade
from zerodrill.srs.store import Store
from zerodrill.srs.store.sync_state import SyncState
from zerodrill.srs.sync.exchange import read_ahead, sync
from zerodrill.srs.sync.folder import FolderTransport, sync_folder
from zerodrill.srs.sync.logfile import file_name, read_log


@pytest.fixture
def machines(tmp_path: Path) -> Iterator[tuple[Store, Store]]:
    with Store.open(tmp_path / "a.db") as a, Store.open(tmp_path / "b.db") as b:
        yield a, b


def _grades(store: Store, count: int, start: int = 0) -> None:
    for n in range(start, start + count):
        grade(store, f"zero/c{n}", 4, NOON + timedelta(minutes=n))


def _received_by_a_new_machine(folder: Path) -> set[tuple[str, int]]:
    with Store.open(folder.parent / "new.db") as new:
        sync_folder(new, folder)
        return identities(new)


def test_what_was_read_ahead_is_sent_without_the_log_read_again(
    machines: tuple[Store, Store], folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = machines
    _grades(a, 5)
    _grades(b, 3)
    for store in (a, b):
        sync_folder(store, folder)
    _grades(a, 4, start=10)
    transport = FolderTransport(folder)
    ahead = read_ahead(a, transport)
    with monkeypatch.context() as patched:
        patched.setattr(SyncState, "outside", lambda *_, **__: pytest.fail("read again"))
        assert sync(a, transport, ahead).sent == 4
    assert _received_by_a_new_machine(folder) == identities(a)


@pytest.mark.parametrize("by", ["this connection", "another terminal"])
def test_a_grade_logged_after_the_read_ahead_is_sent_too(
    machines: tuple[Store, Store], folder: Path, tmp_path: Path, by: str
) -> None:
    a, _ = machines
    _grades(a, 3)
    transport = FolderTransport(folder)
    ahead = read_ahead(a, transport)
    if by == "this connection":
        _grades(a, 1, start=20)
    else:
        with Store.open(tmp_path / "a.db") as terminal:
            _grades(terminal, 1, start=20)
    assert sync(a, transport, ahead).sent == 4
    assert _received_by_a_new_machine(folder) == identities(a)


def test_events_an_origin_came_to_carry_after_the_read_ahead_are_not_sent_again(
    machines: tuple[Store, Store], folder: Path, tmp_path: Path
) -> None:
    # A holds B's grades from another folder; B brings them here itself before A's survey.
    a, b = machines
    other = tmp_path / "other"
    other.mkdir()
    _grades(b, 3)
    for store in (b, a):
        sync_folder(store, other)
    _grades(a, 2, start=10)
    transport = FolderTransport(folder)
    ahead = read_ahead(a, transport)
    assert len(ahead.outside) == 5
    sync_folder(b, folder)
    assert sync(a, transport, ahead).sent == 2  # its own; B's file carries the rest
    assert _received_by_a_new_machine(folder) == identities(a)


def test_a_file_gone_after_the_read_ahead_has_its_events_sent_again(
    machines: tuple[Store, Store], folder: Path
) -> None:
    # B's file goes (deleted by hand) between A's read ahead and A's survey: A holds B's
    # grade, which no file carries now, and sends it, as a sync reading the log would.
    a, b = machines
    grade(b, "zero/c0", 4, NOON)
    for store in (b, a):
        sync_folder(store, folder)
    transport = FolderTransport(folder)
    ahead = read_ahead(a, transport)
    assert ahead.outside == []
    (folder / file_name(b.machine.id)).unlink()
    assert sync(a, transport, ahead).sent == 1
    assert _received_by_a_new_machine(folder) == identities(b)


def test_events_no_line_may_carry_are_not_sent_from_what_was_read_ahead(
    machines: tuple[Store, Store], folder: Path
) -> None:
    a, _ = machines
    me = a.machine.id
    at = NOON.astimezone()
    day = at.date()
    late = ReviewEvent(me, 1, "zero/stage-1", at, day + timedelta(days=3), Grade.GOOD)
    fine = ReviewEvent(me, 2, "zero/stage-2", at, day, Grade.GOOD)
    a.log.add_events([late, fine])
    transport = FolderTransport(folder)
    report = sync(a, transport, read_ahead(a, transport))
    assert report.sent == 1 and len(report.warnings) == 1
    assert "1 event in this database that no log file may carry" in report.warnings[0]
    assert [e.identity for e in read_log(folder / file_name(me)).entries] == [fine.identity]
