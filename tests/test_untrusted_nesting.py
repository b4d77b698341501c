"""JSON nested deeper than a parser goes, from another machine (a line of a sync folder's log
or of Anki's media, a card's data in a collection, a record kept in a collection): damage,
skipped or read as absent, never a RecursionError out of the sync.

Python's json and msgspec both raise RecursionError, not a ValueError, for a line of brackets
that fits any length cap (60,000 characters here, under the stream's 64 KiB a line)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from zerodrill.anki_sync import marks
from zerodrill.anki_sync.media_transport import PREFIX, MediaTransport
from zerodrill.anki_sync.schedule import memory_data
from zerodrill.srs import anki_import
from zerodrill.srs.days import study_day
from zerodrill.srs.schedulers.protocol import AnkiCard
from zerodrill.srs.store import Store
from zerodrill.srs.sync.exchange import sync
from zerodrill.srs.sync.logfile import _header_machine
from zerodrill.srs.sync.wire import BadLine, parse_line

DEEP_ARRAY = "[" * 30_000 + "]" * 30_000
DEEP_OBJECT = '{"a":' * 12_000 + "1" + "}" * 12_000


@pytest.mark.parametrize("text", [DEEP_ARRAY, DEEP_OBJECT], ids=["array", "object"])
def test_a_line_nested_too_deep_is_a_bad_line(text: str) -> None:
    with pytest.raises(BadLine, match="not JSON"):
        parse_line(text)
    with pytest.raises(BadLine, match="not a zerodrill review log"):
        _header_machine(text.encode())


def test_a_lone_surrogate_is_a_bad_line() -> None:
    with pytest.raises(BadLine, match="not JSON"):
        parse_line('"\ud800"')


@pytest.mark.parametrize("text", [DEEP_ARRAY, DEEP_OBJECT], ids=["array", "object"])
def test_a_cards_data_nested_too_deep_holds_no_memory_state(text: str) -> None:
    assert anki_import._memory(text) is None
    assert anki_import._last_review(text) is None
    card = AnkiCard(date(2026, 12, 9), 4, 2500, 2, 0, stability=3.0, difficulty=5.0)
    assert memory_data(text, card) == text
    assert marks.load_record(text, date(2026, 12, 5)) == {}


def test_a_media_file_line_nested_too_deep_is_skipped_alone(tmp_path: Path) -> None:
    media = tmp_path / "collection.media"
    with Store.open(tmp_path / "a.db") as a, Store.open(tmp_path / "b.db") as b:
        at = datetime.now().astimezone() - timedelta(days=1)
        a.log.grade("deck/card", 4, day=study_day(at), at=at)
        sync(a, MediaTransport(media, "one"))
        (written,) = media.glob(f"{PREFIX}{a.machine.id}-*")
        (media / f"{PREFIX}{a.machine.id}-0-0-{'0' * 12}.jsonl").write_text(
            DEEP_ARRAY + "\n" + written.read_text()
        )
        report = sync(b, MediaTransport(media, "one"))
        assert any("1 damaged line skipped" in w for w in report.warnings), report.warnings
        assert len(b.log.events()) == 1
