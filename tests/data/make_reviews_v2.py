"""How tests/data/reviews-v2.db was written: with zerodrill at 7cc0083 (review log schema 2,
the last whose log kept SM-2 states), not with this zerodrill, which no longer has these APIs.

    git archive 7cc0083 zerodrill | tar -x -C /tmp/zd-main
    PYTHONPATH=/tmp/zd-main python tests/data/make_reviews_v2.py tests/data/reviews-v2.db

It prints the state table it left, which test_store pins after migration.
"""

# ruff: noqa
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from zerodrill.srs.scheduler import Review, ReviewKind
from zerodrill.srs.sitting import record_grade
from zerodrill.srs.grades import Grade
from zerodrill.srs.sm2_formula import Sm2State
from zerodrill.srs.store import Store

out = Path(sys.argv[1])
out.unlink(missing_ok=True)
D = date(2025, 1, 1)
CET = timezone(timedelta(hours=1))


def at(day: date, h: int, m: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, h, m, tzinfo=CET)


with Store.open(out) as s:
    # A card over several days, with a fail, a same-day repeat and typed answers.
    record_grade(s, "zero/stage-1", 4, day=D, at=at(D, 9), answer_ms=3000, typed="optimizer states")
    record_grade(
        s, "zero/stage-1", 2, day=D + timedelta(1), at=at(D + timedelta(1), 9), answer_ms=9000
    )
    record_grade(
        s, "zero/stage-1", 4, day=D + timedelta(1), at=at(D + timedelta(1), 9, 12)
    )  # repeat
    record_grade(s, "zero/stage-1", 5, day=D + timedelta(2), at=at(D + timedelta(2), 9))
    # A cloze card's deletions on different days.
    record_grade(s, "zero/stage-key#c1", 5, day=D, at=at(D, 9, 5))
    record_grade(s, "zero/stage-key#c2", 3, day=D + timedelta(1), at=at(D + timedelta(1), 9, 5))
    # A grade undone, and a repeat undone.
    g = record_grade(s, "comm/ring", 1, day=D, at=at(D, 10))
    s.undo(g.id, at=at(D, 10, 1))
    record_grade(s, "comm/ring", 4, day=D, at=at(D, 10, 2))
    r = record_grade(s, "comm/ring", 5, day=D, at=at(D, 10, 3))  # a repeat
    s.undo(r.id, at=at(D, 10, 4))
    # Reviews from another machine, one older than a local grade (merged after it).
    new = Sm2State.new()
    other = "0123456789abcdef"
    s.merge(
        [
            Review(
                "zero/stage-2",
                ReviewKind.GRADE,
                at(D + timedelta(2), 8),
                D + timedelta(2),
                Grade.PERFECT,
                new,
                new,
                origin=other,
                origin_seq=1,
            ),
            Review(
                "zero/stage-1",
                ReviewKind.GRADE,
                at(D, 8),
                D,
                Grade.HARD,
                new,
                new,
                origin=other,
                origin_seq=2,
            ),
            Review(
                "zero/stage-2",
                ReviewKind.UNDO,
                at(D + timedelta(2), 8, 1),
                D + timedelta(2),
                None,
                new,
                new,
                origin=other,
                origin_seq=3,
                undoes_ref=(other, 1),
            ),
            Review(
                "comm/allreduce",
                ReviewKind.GRADE,
                at(D + timedelta(3), 8),
                D + timedelta(3),
                Grade.GOOD,
                new,
                new,
                origin=other,
                origin_seq=4,
            ),
        ]
    )
    # An answer imported from Anki (origin "anki", numbered by its revlog id).
    s.merge(
        [
            Review(
                "comm/allreduce",
                ReviewKind.GRADE,
                datetime(2025, 1, 9, 7, tzinfo=timezone.utc),
                D + timedelta(8),
                Grade.GOOD,
                new,
                new,
                answer_ms=4000,
                origin="anki",
                origin_seq=1736406000000,
            )
        ]
    )
    # An interview that brought a card forward, and a setting.
    a = s.attempts.start(
        "zero", "explain-zero", shape="abc", at=at(D + timedelta(3), 12), day=D + timedelta(3)
    )
    s.attempts.add_step(
        a.id,
        "question",
        {"typed": None, "seconds": 60.0, "budget": 600},
        at=at(D + timedelta(3), 12, 1),
    )
    s.attempts.add_step(
        a.id, "points", {"covered": [0], "total": 2}, at=at(D + timedelta(3), 12, 2)
    )
    with s.transaction():
        s.attempts.add_step(a.id, "finish", {"missed": ["stage-3"]}, at=at(D + timedelta(3), 12, 3))
        s.attempts.bring_forward(a.id, ["zero/stage-3"], day=D + timedelta(3))
    s.save_setting("buttons", "4")
    print(
        sorted(
            (k, (v.repetitions, v.interval, v.ef_hundredths, v.due, v.lapses))
            for k, v in s.states().items()
        )
    )
