"""``anki sync``'s store events read ahead, beside Anki's first server sync
(:func:`zerodrill.anki_sync.store_bridge.read_ahead`): what the replay gets from them is what it
would read then, whatever was logged in between, and whichever cards it replays."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from zerodrill.anki_sync.store_bridge import Event, log_events, read_ahead
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import Grade
from zerodrill.srs.store import Store

AT = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
#: The clock as the events are added: none of theirs is held back for its time.
LATER = AT + timedelta(days=60)


def grade(origin: str, seq: int, key: str, days: int) -> ReviewEvent:
    at = AT + timedelta(days=days)
    return ReviewEvent(origin, seq, key, at, at.date(), Grade.GOOD, None, 900)


def identities(events: list[Event]) -> dict[str, list[tuple[str, int]]]:
    by_key: dict[str, list[tuple[str, int]]] = {}
    for e in events:
        by_key.setdefault(e.key, []).append((e.origin, e.seq))
    return {key: sorted(ids) for key, ids in by_key.items()}


def test_events_logged_after_the_read_ahead_are_replayed_too(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.db") as store:
        store.log.add_events([grade("m1", n, f"d/{n % 3}", n) for n in range(1, 10)], now=LATER)
        ahead = read_ahead(store, {"d/0", "d/1"})
        # Then, before the replay: another machine's events come in (the stream), a grade
        # of a card read ahead and one of a card not read ahead, and an undo of one read.
        store.log.add_events(
            [
                grade("m2", 1, "d/1", 20),
                grade("m2", 2, "d/2", 21),
                ReviewEvent("m1", 10, "d/0", AT, AT.date(), None, ("m1", 3)),
            ],
            now=LATER,
        )
        for keys in ({"d/0", "d/1", "d/2"}, {"d/1"}, {"d/2"}, {"d/0", "d/2"}):
            got = identities(log_events(store, keys, ahead))
            assert got == identities(log_events(store, keys)), keys
        assert ("m2", 1) in identities(log_events(store, {"d/1"}, ahead))["d/1"]
        assert ("m1", 10) in identities(log_events(store, {"d/0"}, ahead))["d/0"]


def test_a_card_read_ahead_but_not_replayed_is_left_out(tmp_path: Path) -> None:
    with Store.open(tmp_path / "r.db") as store:
        store.log.add_events([grade("m1", 1, "d/a", 1), grade("m1", 2, "d/b", 2)], now=LATER)
        ahead = read_ahead(store, {"d/a", "d/b"})
        assert identities(log_events(store, {"d/b"}, ahead)) == {"d/b": [("m1", 2)]}
