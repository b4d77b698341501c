"""How tests/data/reviews-v6.db was written: with zerodrill at bb5bdf5 (review log schema 6, the
last before settings that travel became events of the log), not with this zerodrill.

    git archive bb5bdf5 zerodrill | tar -x -C /tmp/zd-v6
    PYTHONPATH=/tmp/zd-v6 python tests/data/make_reviews_v6.py tests/data

It holds grades of this machine's and Anki's (one with Anki's decision), an undo, card actions
(one undone), a brought-forward card, and FSRS parameters saved on this machine alone.
"""

# ruff: noqa
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from fsrs.scheduler import DEFAULT_PARAMETERS

from zerodrill.srs.card_actions import Action, CardActionEvent
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.schedulers.decision import AnkiDecision
from zerodrill.srs.store import Store

out = Path(sys.argv[1]) / "reviews-v6.db"
out.unlink(missing_ok=True)
D = date(2025, 3, 1)
CET = timezone(timedelta(hours=1))


def at(day: date, h: int, m: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, h, m, tzinfo=CET)


with Store.open(out) as s:
    s.settings.save("scheduler", "fsrs")
    weights = [0.5, 1.5, 3.0, 9.0, *DEFAULT_PARAMETERS[4:]]
    s.settings.save("fsrs_parameters", ",".join(map(repr, weights)))
    s.log.grade("zero/stage-1", 4, day=D, at=at(D, 9), buttons=4)
    s.log.grade("zero/stage-2", 1, day=D, at=at(D, 9, 5), buttons=4)
    wrong = s.log.grade("zero/stage-3", 2, day=D, at=at(D, 9, 10))
    s.log.undo(wrong.id, at=at(D, 9, 11))
    decided = AnkiDecision(interval=3, stability=3.2, difficulty=5.1)
    s.log.add_events(
        [
            ReviewEvent(
                "anki", 1740820000000, "zero/stage-4", at(D, 10), D, 4, buttons=4, decided=decided
            ),
            CardActionEvent("0123456789abcdef", 9, "zero/stage-5", at(D, 11), D, Action.FLAG, 3),
        ]
    )
    s.actions.record("zero/stage-1", Action.SUSPEND, at=at(D, 12), day=D)
    bury = s.actions.record("zero/stage-2", Action.BURY, at=at(D, 12, 1), day=D)
    s.actions.undo(bury.identity, at=at(D, 12, 2))
    print(s.machine.id)
