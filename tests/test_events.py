"""ReviewEvent: one value for a review in the log, on the wire and from Anki."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from zerodrill.srs.events import ReviewEvent, time_order
from zerodrill.srs.grades import Grade
from zerodrill.srs.schedulers.decision import AnkiDecision
from zerodrill.srs.sync.wire import BadLine, parse_line

AT = datetime(2025, 1, 1, 9, 30, tzinfo=UTC)
DAY = date(2025, 1, 1)


def test_a_grade_and_an_undo() -> None:
    grade = ReviewEvent("m1", 1, "d/a", AT, DAY, 4, answer_ms=800, typed="x")  # type: ignore[arg-type]
    assert grade.grade is Grade.GOOD and not grade.is_undo and grade.identity == ("m1", 1)
    undo = ReviewEvent("m1", 2, "d/a", AT, DAY, None, ("m1", 1))
    assert undo.is_undo and undo.undoes == ("m1", 1)


@pytest.mark.parametrize(
    "bad",
    [
        dict(grade=6),
        dict(grade=None),  # neither a grade nor an undo
        dict(undoes=("m1", 1)),  # both
        dict(key=""),
        dict(answer_ms=-1),
        dict(at=datetime(2025, 1, 1, 9, 30)),  # no UTC offset
        dict(buttons=5),  # no layout
        dict(buttons=True),
        dict(buttons=4.0),
    ],
)
def test_what_no_event_can_say_is_refused(bad: dict[str, object]) -> None:
    fields: dict[str, object] = dict(
        origin="m1", seq=1, key="d/a", at=AT, day=DAY, grade=Grade.GOOD, undoes=None
    )
    with pytest.raises(ValueError):
        ReviewEvent(**{**fields, **bad})  # type: ignore[arg-type]


def test_the_wire_carries_everything_but_the_typed_text() -> None:
    tokyo = datetime(2025, 1, 1, 18, 30, tzinfo=timezone(timedelta(hours=9)))
    grade = ReviewEvent("m1", 7, "d/ü", tokyo, DAY, Grade.ALMOST, answer_ms=5, typed="secret")
    record = json.loads(grade.to_json())
    assert record == {
        "origin": "m1", "seq": 7, "key": "d/ü", "kind": "grade", "at": tokyo.isoformat(),
        "day": "2025-01-01", "grade": 2, "undoes": None, "answer_ms": 5,
    }  # fmt: skip
    # Read back (under a key a deck can give: the wire takes no other).
    back = parse_line(grade.to_json().replace("d/ü", "d/u"))
    assert back == ReviewEvent("m1", 7, "d/u", tokyo, DAY, Grade.ALMOST, answer_ms=5)
    undo = ReviewEvent("m1", 8, "d/ü", AT, DAY, None, ("m1", 7))
    assert json.loads(undo.to_json())["kind"] == "undo"


def test_a_line_is_the_bytes_earlier_versions_wrote_for_it() -> None:
    # A media file is named by the digest of its bytes: the same events, the same file.
    sm2, fsrs = AnkiDecision(3, 2500), AnkiDecision(11, 0, None, False, 9.5, 4.25)
    tokyo = datetime(2025, 1, 1, 18, 30, 5, 250, tzinfo=timezone(timedelta(hours=9)))
    events = [
        ReviewEvent("m1", 7, "d/ü", tokyo, DAY, Grade.ALMOST, answer_ms=5, typed="secret"),
        ReviewEvent("m1", 8, 'd/a"b', AT, DAY, None, ("m1", 7)),
        ReviewEvent("anki", 9, "d/a", AT, DAY, Grade.GOOD, buttons=4, decided=sm2),
        ReviewEvent("anki", 10, "d/a", AT, DAY, Grade.GOOD, decided=fsrs),
    ]
    for event in events:
        earlier = json.dumps(event.to_wire(), ensure_ascii=False, separators=(",", ":"))
        assert event.to_json() == earlier


def test_a_repeat_from_an_older_file_reads_as_a_grade() -> None:
    record = json.loads(ReviewEvent("m1", 1, "d/a", AT, DAY, Grade.HARD).to_json())
    event = parse_line(json.dumps({**record, "kind": "repeat"}))
    assert event == ReviewEvent("m1", 1, "d/a", AT, DAY, Grade.HARD)
    with pytest.raises(BadLine):
        parse_line(json.dumps({**record, "kind": "undo", "grade": None}))
    with pytest.raises(BadLine):
        parse_line(json.dumps({**record, "kind": "later"}))


def test_the_order_is_day_then_instant_then_identity() -> None:
    utc_noon = ReviewEvent("b", 1, "d/a", AT.replace(hour=12), DAY, Grade.GOOD)
    # 20:00 in Tokyo is 11:00 UTC: earlier as an instant, though later on its clock.
    tokyo = ReviewEvent(
        "a", 9, "d/a", datetime(2025, 1, 1, 20, tzinfo=timezone(timedelta(hours=9))), DAY,
        Grade.GOOD,
    )  # fmt: skip
    tie = ReviewEvent("a", 1, "d/a", AT.replace(hour=12), DAY, Grade.GOOD)
    yesterday = ReviewEvent("z", 1, "d/a", AT.replace(hour=23), DAY - timedelta(1), Grade.GOOD)
    events = [utc_noon, tokyo, tie, yesterday]
    assert sorted(events, key=time_order) == [yesterday, tokyo, tie, utc_noon]
