"""The lines a sync sends are the events' own (issue 35 point 7): SQLite writes a review's line
from its row (:data:`zerodrill.srs.store.sync_state._LINE`) byte for byte as
:meth:`ReviewEvent.to_json` would, and the rules a line read is held to
(:func:`~zerodrill.srs.sync.wire.unfit`) still keep from the wire what no machine would take."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from zerodrill.srs.card_actions import Action, CardActionEvent
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import Grade
from zerodrill.srs.schedulers.decision import AnkiDecision
from zerodrill.srs.store import Store, StoreError
from zerodrill.srs.store.migrations import instant_us
from zerodrill.srs.sync import wire
from zerodrill.srs.sync.folder import sync_folder
from zerodrill.srs.sync.logfile import file_name, read_log

AT = datetime(2026, 3, 1, 9, 30, 15, 250000, tzinfo=UTC)
DAY = AT.date()


def every_shape(machine: str) -> list[ReviewEvent | CardActionEvent]:
    """A review of each shape a line takes, and the events SQLite leaves to Python."""
    india, pacific = timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))
    return [
        ReviewEvent(machine, 1, "zero/stage-1", AT, DAY, Grade.GOOD, answer_ms=5300),
        ReviewEvent(machine, 2, "zero/stage-2#c3", AT.replace(microsecond=0), DAY, Grade.WRONG),
        ReviewEvent(machine, 3, "zero/stage-3", AT.astimezone(india), DAY, Grade.HARD, buttons=4),
        ReviewEvent(machine, 4, "zero/stage-2#c3", AT.astimezone(pacific), DAY, None, (machine, 2)),
        # Not a key a deck has (never sent), but its line must still be to_json's.
        ReviewEvent(machine, 5, 'Ünï "quoted" \\ \t\u2028 key', AT, DAY, Grade.PERFECT, None, 0),
        ReviewEvent(machine, 6, "zero/stage-3", AT, DAY, None, (machine, 3)),
        CardActionEvent(machine, 7, "zero/stage-1", AT, DAY, Action.FLAG, flag=3),
        ReviewEvent(
            "anki",
            1_772_357_415_250,
            "zero/stage-4",
            AT,
            DAY,
            Grade.GOOD,
            answer_ms=8000,
            buttons=4,
            decided=AnkiDecision(11, 2650, stability=9.5, difficulty=4.25),
        ),
    ]


def test_the_line_sqlite_writes_is_the_events_own(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.db") as store:
        made = every_shape(store.machine.id)
        store.log.add_events(made)
        outside = store.sync.outside({})
        logged = store.sync.events(o.identity for o in outside)
    assert len(outside) == len(made)
    assert [o.line for o in outside] == [logged[o.identity].to_json() for o in outside]
    # Only the reviews without a decision of Anki's are left unread as events.
    assert {o.seq for o in outside if o.event is not None} == {7, made[-1].seq}


def test_a_review_no_log_may_carry_by_its_day_is_not_sent(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    with Store.open(tmp_path / "a.db") as store:
        me = store.machine.id
        late = ReviewEvent(me, 1, "zero/stage-1", AT, DAY + timedelta(days=3), Grade.GOOD)
        early = ReviewEvent(me, 2, "zero/stage-1", AT, date(1969, 12, 31), Grade.GOOD)
        fine = ReviewEvent(me, 3, "zero/stage-2", AT, DAY, Grade.GOOD)
        store.log.add_events([late, early, fine])
        report = sync_folder(store, folder)
    assert report.sent == 1 and len(report.warnings) == 1
    assert "2 events in this database that no log file may carry" in report.warnings[0]
    assert [e.identity for e in read_log(folder / file_name(me)).entries] == [fine.identity]


@pytest.mark.parametrize("day", ["2026-02-30", "not a day"])
def test_a_review_whose_stored_day_is_no_date_is_damage_not_a_line(
    tmp_path: Path, day: str
) -> None:
    # Its line is never read as an event to send: the check of its day says it is no date.
    folder = tmp_path / "shared"
    folder.mkdir()
    with Store.open(tmp_path / "a.db") as store:
        me = store.machine.id
        # Not by the store's own writing: a database edited by hand.
        with store._conn:
            store._conn.execute(
                "INSERT INTO event (origin, seq, key, at, at_us, day, grade) "
                "VALUES (?, 1, 'zero/stage-1', ?, ?, ?, 4)",
                (me, AT.isoformat(), instant_us(AT), day),
            )
        with pytest.raises(StoreError, match="it is damaged"):
            sync_folder(store, folder)
    assert read_log(folder / file_name(me)).entries == []


def test_long_keys_are_checked_every_time_not_kept(tmp_path: Path) -> None:
    # A hostile file of long keys must not fill the cache of keys checked.
    folder = tmp_path / "shared"
    folder.mkdir()
    long_fit, long_unfit = "zero/" + "a" * 300, "zero/" + "A" * 300
    with Store.open(tmp_path / "a.db") as store:
        me = store.machine.id
        store.log.add_events(
            [
                ReviewEvent(me, 1, long_fit, AT, DAY, Grade.GOOD),
                ReviewEvent(me, 2, long_unfit, AT, DAY, Grade.GOOD),
            ]
        )
        report = sync_folder(store, folder)
    assert report.sent == 1 and "1 event in this database" in report.warnings[0]
    assert [e.key for e in read_log(folder / file_name(me)).entries] == [long_fit]
    # Neither long key is among those kept (the cache holds keys as its arguments).
    wire._short_key_unfit.cache_clear()
    assert wire._key_unfit(long_fit) is None and wire._key_unfit(long_unfit) is not None
    assert wire._short_key_unfit.cache_info().currsize == 0
