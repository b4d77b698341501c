"""The collection's media folder as a transport of the event stream (zerodrill/anki_sync/
media_transport.py): another machine's events arrive as its own, once; each write is a file
that never changes; a file is untrusted."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

from zerodrill.anki_sync.media_transport import PREFIX, MediaTransport
from zerodrill.srs.anki_import import ORIGIN as ANKI_ORIGIN
from zerodrill.srs.days import study_day
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import Grade
from zerodrill.srs.store import Store
from zerodrill.srs.sync.exchange import sync

KEY = "phone-deck/stage-1"


def graded(path: Path, days_ago: int) -> Store:
    store = Store.open(path)
    at = datetime.now().astimezone() - timedelta(days=days_ago)
    store.log.grade(KEY, 4, day=study_day(at), at=at)
    return store


def files(media: Path, machine: str) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(media.glob(f"{PREFIX}{machine}-*"))}


def test_another_machines_events_arrive_as_its_own_once(tmp_path: Path) -> None:
    media = tmp_path / "collection.media"
    with graded(tmp_path / "a.db", 3) as a, graded(tmp_path / "b.db", 2) as b:
        for store in (a, b, a, b, a):
            sync(store, MediaTransport(media, "one"))
        both = [sorted(e.identity for e in s.log.events()) for s in (a, b)]
        assert both[0] == both[1]
        assert {e.origin for e in b.log.events()} == {a.machine.id, b.machine.id}
        assert len(b.log.events()) == 2
        assert a.schedule.due_dates() == b.schedule.due_dates()
        assert sync(b, MediaTransport(media, "one")).received == 0


def test_each_write_is_a_new_file_and_a_written_file_never_changes(tmp_path: Path) -> None:
    media = tmp_path / "collection.media"
    with graded(tmp_path / "a.db", 3) as a:
        sync(a, MediaTransport(media, "one"))
        first = files(media, a.machine.id)
        at = datetime.now().astimezone() - timedelta(days=1)
        a.log.grade(KEY, 3, day=study_day(at), at=at)
        sync(a, MediaTransport(media, "one"))
        now = files(media, a.machine.id)
        assert len(now) == 2
        assert {k: now[k] for k in first} == first
        # Nothing new: nothing written.
        sync(a, MediaTransport(media, "one"))
        assert files(media, a.machine.id) == now


def test_a_work_copys_folder_writes_and_the_collections_is_read_too(tmp_path: Path) -> None:
    own, work = tmp_path / "collection.media", tmp_path / "work.media"
    with graded(tmp_path / "a.db", 3) as a, Store.open(tmp_path / "b.db") as b:
        sync(a, MediaTransport(own, "one"))
        sync(b, MediaTransport(work, "one", also=[own]))
        assert len(b.log.events()) == 1
        assert files(work, a.machine.id) == {}


def test_a_damaged_line_is_skipped_alone_and_a_lost_file_is_written_again(
    tmp_path: Path,
) -> None:
    media = tmp_path / "collection.media"
    with graded(tmp_path / "a.db", 3) as a, Store.open(tmp_path / "b.db") as b:
        sync(a, MediaTransport(media, "one"))
        sync(b, MediaTransport(media, "one"))
        ((name, text),) = files(media, a.machine.id).items()
        # Another file of a's, damaged: skipped line by line.
        (media / f"{PREFIX}{a.machine.id}-0-0.jsonl").write_text(
            "not an event\n" + text + "x" * 100_000 + "\n"
        )
        report = sync(b, MediaTransport(media, "one"))
        assert any("2 damaged lines skipped" in w for w in report.warnings), report.warnings
        assert len(b.log.events()) == 1
        # Deleted (Check Media of an older Anki, a user's hand): its machine writes it again.
        for path in media.glob(f"{PREFIX}{a.machine.id}-*"):
            path.unlink()
        assert sync(a, MediaTransport(media, "one")).sent == 1
        assert files(media, a.machine.id) == {name: text}


def test_answers_given_in_anki_are_not_carried_again(tmp_path: Path) -> None:
    """The revlog carries them, under the same identity, to every terminal."""
    media = tmp_path / "collection.media"
    with graded(tmp_path / "a.db", 3) as a:
        at = datetime.now().astimezone() - timedelta(days=2)
        phones = ReviewEvent(ANKI_ORIGIN, 1_700_000_000_123, KEY, at, study_day(at), Grade(4))
        a.log.add_events([phones])
        assert sync(a, MediaTransport(media, "one")).sent == 1  # its own grade only
        (text,) = files(media, a.machine.id).values()
        assert [json.loads(line)["origin"] for line in text.splitlines()] == [a.machine.id]
        later = ReviewEvent(ANKI_ORIGIN, 1_700_000_100_123, KEY, at, study_day(at), Grade(3))
        a.log.add_events([later])
        assert sync(a, MediaTransport(media, "one")).sent == 0
        assert len(files(media, a.machine.id)) == 1
