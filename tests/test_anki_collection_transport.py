"""The collection as a transport of the event stream (zerodrill/anki_sync/
collection_transport.py), on a local collection: what another machine wrote there arrives as
that machine's, and a log there is untrusted."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import anki.collection  # noqa: F401  (Anki's modules import in this order only)
import pytest
from anki.collection import Collection

from zerodrill.anki_sync.collection_transport import PREFIX, CollectionTransport
from zerodrill.srs.anki_import import ORIGIN as ANKI_ORIGIN
from zerodrill.srs.days import study_day
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import Grade
from zerodrill.srs.store import Store
from zerodrill.srs.sync.exchange import sync

KEY = "phone-deck/stage-1"


@pytest.fixture
def col(tmp_path: Path) -> Iterator[Collection]:
    opened = Collection(str(tmp_path / "collection.anki2"))
    try:
        yield opened
    finally:
        opened.close()


def graded(path: Path, days_ago: int) -> Store:
    store = Store.open(path)
    at = datetime.now().astimezone() - timedelta(days=days_ago)
    store.log.grade(KEY, 4, day=study_day(at), at=at)
    return store


def log_text(col: Collection, machine: str) -> str:
    kind = col.models.by_name(PREFIX + machine)
    assert kind is not None
    return str(kind["css"])


def set_log(col: Collection, machine: str, text: str) -> None:
    kind = col.models.by_name(PREFIX + machine)
    assert kind is not None
    kind["css"] = text
    col.models.update_dict(kind)


def test_another_machines_events_arrive_as_its_own_once(col: Collection, tmp_path: Path) -> None:
    with graded(tmp_path / "a.db", 3) as a, graded(tmp_path / "b.db", 2) as b:
        for store in (a, b, a, b, a):
            sync(store, CollectionTransport(col, "one"))
        both = [sorted(e.identity for e in s.log.events()) for s in (a, b)]
        assert both[0] == both[1]
        assert {e.origin for e in b.log.events()} == {a.machine.id, b.machine.id}
        assert len(b.log.events()) == 2
        assert a.schedule.due_dates() == b.schedule.due_dates()
        assert sync(b, CollectionTransport(col, "one")).received == 0


def test_a_damaged_line_is_skipped_alone_and_a_log_not_as_left_is_written_again(
    col: Collection, tmp_path: Path
) -> None:
    with graded(tmp_path / "a.db", 3) as a, Store.open(tmp_path / "b.db") as b:
        sync(a, CollectionTransport(col, "one"))
        sync(b, CollectionTransport(col, "one"))
        first = log_text(col, a.machine.id)
        # Rewritten: read again from its start, the damaged line skipped alone.
        set_log(col, a.machine.id, "not an event\n" + first)
        report = sync(b, CollectionTransport(col, "one"))
        assert any("1 damaged line skipped" in w for w in report.warnings), report.warnings
        assert len(b.log.events()) == 1
        # Emptied (a work copy thrown away, a collection taken whole): its machine writes
        # what it lacks again.
        set_log(col, a.machine.id, "")
        assert sync(a, CollectionTransport(col, "one")).sent == 1
        assert log_text(col, a.machine.id) == first


def test_answers_given_in_anki_are_not_carried_again(col: Collection, tmp_path: Path) -> None:
    """The revlog carries them, under the same identity, to every terminal."""
    with graded(tmp_path / "a.db", 3) as a:
        at = datetime.now().astimezone() - timedelta(days=2)
        phones = ReviewEvent(ANKI_ORIGIN, 1_700_000_000_123, KEY, at, study_day(at), Grade(4))
        a.log.add_events([phones])
        sync(a, CollectionTransport(col, "one"))
        lines = log_text(col, a.machine.id).splitlines()
        assert [json.loads(line)["origin"] for line in lines] == [a.machine.id]
