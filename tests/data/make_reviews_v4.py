"""How tests/data/reviews-v4.db and tests/data/sync-v4/ were written: with zerodrill at
0543b29 (review log schema 4, the last with card actions in a table of their own, numbered
apart from reviews, and interviews' brought-forward cards in a third, local table), not with
this zerodrill, which no longer has these APIs.

    git archive 0543b29 zerodrill | tar -x -C /tmp/zd-v4
    PYTHONPATH=/tmp/zd-v4 python tests/data/make_reviews_v4.py tests/data

It prints the marks and the brought-forward cards it left, which test_migrate_stream pins.
"""

# ruff: noqa
import shutil
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from zerodrill.srs.card_actions import Action, CardActionEvent
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.store import Store
from zerodrill.srs.sync.folder import FolderTransport
from zerodrill.srs.sync.exchange import sync

data = Path(sys.argv[1])
out = data / "reviews-v4.db"
folder = data / "sync-v4"
out.unlink(missing_ok=True)
shutil.rmtree(folder, ignore_errors=True)
folder.mkdir()
D = date(2025, 1, 1)
CET = timezone(timedelta(hours=1))


def at(day: date, h: int, m: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, h, m, tzinfo=CET)


with Store.open(out) as s:
    s.grade("zero/stage-1", 4, day=D, at=at(D, 9))
    s.grade("zero/stage-2", 3, day=D, at=at(D, 9, 5))
    g = s.grade("zero/stage-2", 1, day=D, at=at(D, 9, 6))
    s.undo(g.id, at=at(D, 9, 7))
    s.grade("zero/stage-3", 5, day=D, at=at(D, 9, 8))
    s.actions.record("zero/stage-1", Action.SUSPEND, at=at(D, 10), day=D)
    s.actions.record("zero/stage-2", Action.FLAG, at=at(D, 10, 1), day=D, flag=3)
    s.actions.record("zero/stage-2", Action.MARK, at=at(D, 10, 2), day=D)
    s.actions.record("zero/stage-3", Action.BURY, at=at(D, 10, 3), day=D)
    flag = s.actions.record("zero/stage-3", Action.FLAG, at=at(D, 10, 4), day=D, flag=1)
    s.actions.undo(flag.identity, at=at(D, 10, 5))
    s.actions.record("zero/stage-4", Action.SUSPEND, at=at(D, 10, 6), day=D)
    unsusp = s.actions.record("zero/stage-4", Action.UNSUSPEND, at=at(D, 10, 7), day=D)
    s.actions.undo(unsusp.identity, at=at(D, 10, 8))
    other = "0123456789abcdef"
    s.add_events(
        [ReviewEvent(other, 1, "zero/stage-5", at(D, 8), D, 4)],
        now=at(D, 12),  # type: ignore[arg-type]
    )
    s.actions.add_events(
        [
            CardActionEvent(other, 1, "zero/stage-5", at(D, 8, 1), D, Action.MARK),
            CardActionEvent(other, 2, "zero/stage-5", at(D, 8, 2), D, Action.FLAG, 5),
            CardActionEvent(other, 3, "zero/stage-5", at(D, 8, 3), D, Action.UNDO, 0, (other, 1)),
            CardActionEvent(
                "anki", 4611686018427387904, "zero/stage-6", at(D, 8, 4), D, Action.FLAG, 2
            ),
        ],
        now=at(D, 12),
    )
    # An interview that brought two cards forward, one of them graded after it since.
    a = s.attempts.start("zero", "talk", shape="x", at=at(D, 11), day=D)
    from zerodrill.srs.interview_steps import FinishStep

    with s.transaction():
        s.attempts.add_step(a.id, FinishStep(("stage-7",)), at=at(D, 11, 30))
        s.attempts.bring_forward(a.id, ["zero/stage-7", "zero/stage-8"], day=D)
    s.grade("zero/stage-8", 4, day=D, at=at(D, 11, 45))
    # The sync folder as today's zerodrill leaves it: action lines of their own kind.
    print(sync(s, FolderTransport(folder)))
    print("machine", s.machine)
    print("marks", {k: m for k, m in sorted(s.actions.marks().items())})
    print("forward", s.attempts.brought_forward(D))
    print("actions", [(e.origin, e.seq, e.action.value, e.undoes) for e in s.actions.events()])
