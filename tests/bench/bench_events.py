"""The event log at the size of a learner's year: 100,000 events.

Run by hand: ``python tests/bench/bench_events.py [EVENTS]``, or through ``run.py --only
events``. Machine A's log is made in memory (a year of daily reviews of 10,000 cards, graded
as SM-2 schedules them, with a few undos), written to A's file in a sync folder, then:

- **receive**: machine B, empty, syncs (``sync_folder``): every event read and added, every
  card derived. Timed whole, and each write transaction timed from ``BEGIN IMMEDIATE`` to
  ``COMMIT`` (SQLite's statement trace): the longest is how long a drill in another terminal
  can be kept waiting. Goal: no transaction longer than 250 ms.
- **derive**: the whole cache dropped and derived again from the events
  (``Store.schedule.rederive``), best and median of a few rounds, under SM-2 and then under FSRS.
  Goals: under 1 s under SM-2, under 2 s under FSRS.
"""

from __future__ import annotations

import heapq
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_queue import TODAY, items_of, make_decks  # noqa: E402

from zerodrill.srs import sm2_formula as sm2  # noqa: E402
from zerodrill.srs.events import ReviewEvent  # noqa: E402
from zerodrill.srs.grades import Grade  # noqa: E402
from zerodrill.srs.schedulers.fsrs import FsrsScheduler  # noqa: E402
from zerodrill.srs.sm2_formula import Sm2State
from zerodrill.srs.store import Store  # noqa: E402
from zerodrill.srs.sync.folder import sync_folder  # noqa: E402
from zerodrill.srs.sync.logfile import file_name, write_log  # noqa: E402

DERIVE_GOAL_MS = 1000.0
DERIVE_FSRS_GOAL_MS = 2000.0
LOCK_GOAL_MS = 250.0
ORIGIN = "a0a0a0a0a0a0a0a0"


def year_of_events(keys: list[str], count: int, rng: random.Random) -> list[ReviewEvent]:
    """``count`` events: each day the due cards graded and 25 new ones, as SM-2 schedules
    them; one grade in fifty undone at once, as a learner taking back a slip."""
    due: list[tuple[date, str]] = []
    states: dict[str, Sm2State] = {}
    fresh = iter(keys)
    events: list[ReviewEvent] = []
    day = TODAY - timedelta(days=400)
    while len(events) < count and day < TODAY:
        todays = []
        while due and due[0][0] <= day:
            todays.append(heapq.heappop(due)[1])
        todays.extend(key for _, key in zip(range(25), fresh, strict=False))
        at = datetime(day.year, day.month, day.day, 8, tzinfo=UTC)
        for key in todays:
            if len(events) >= count:
                break
            q = Grade(rng.choice((2, 3, 4, 4, 5, 5)))
            at += timedelta(seconds=rng.randint(5, 40))
            events.append(ReviewEvent(ORIGIN, len(events) + 1, key, at, day, q, answer_ms=4000))
            if rng.random() < 0.02 and len(events) < count:
                undone = events[-1]
                at += timedelta(seconds=2)
                events.append(
                    ReviewEvent(ORIGIN, len(events) + 1, key, at, day, None, undone.identity)
                )
            else:
                states[key] = sm2.review(states.get(key, Sm2State()), q, day)
            state = states.get(key)
            heapq.heappush(due, (state.due if state and state.due else day + timedelta(1), key))
        day += timedelta(days=1)
    return events


class LockClock:
    """Each write transaction's length, from SQLite's statement trace of one connection."""

    def __init__(self) -> None:
        self.held: list[float] = []
        self._began: float | None = None

    def __call__(self, statement: str) -> None:
        if statement.startswith("BEGIN IMMEDIATE"):
            self._began = time.perf_counter()
        elif statement.startswith(("COMMIT", "ROLLBACK")) and self._began is not None:
            self.held.append((time.perf_counter() - self._began) * 1000)
            self._began = None


def rederive(store: Store, rounds: int) -> list[float]:
    """Each round's ``Store.schedule.rederive`` with the store's scheduler, in ms."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        store.schedule.rederive()
        times.append((time.perf_counter() - start) * 1000)
    return times


def run(events: int = 100_000, cards: int = 10_000, rounds: int = 3) -> dict[str, float]:
    rng = random.Random(2025)
    keys = [item.key for item in items_of(make_decks(cards))]
    log = year_of_events(keys, events, rng)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "shared"
        folder.mkdir()
        write_log(folder / file_name(ORIGIN), ORIGIN, "", log)
        with Store.open(Path(tmp) / "b.db") as b:
            locks = LockClock()
            b._conn.set_trace_callback(locks)
            start = time.perf_counter()
            report = sync_folder(b, folder)
            receive_s = time.perf_counter() - start
            b._conn.set_trace_callback(None)
            assert report.received == len(log), report
            derive = rederive(b, rounds)
            known = len(b.schedule.due_dates())
            b.use(FsrsScheduler())
            derive_fsrs = rederive(b, rounds)
    return {
        "events": len(log),
        "cards": known,
        "receive_s": receive_s,
        "transactions": len(locks.held),
        "lock_ms_max": max(locks.held),
        "lock_ms_median": statistics.median(locks.held),
        "lock_goal_ms": LOCK_GOAL_MS,
        "derive_ms_best": min(derive),
        "derive_ms_median": statistics.median(derive),
        "derive_goal_ms": DERIVE_GOAL_MS,
        "derive_fsrs_ms_best": min(derive_fsrs),
        "derive_fsrs_ms_median": statistics.median(derive_fsrs),
        "derive_fsrs_goal_ms": DERIVE_FSRS_GOAL_MS,
    }


def main(events: int = 100_000) -> None:
    r = run(events)
    print(f"{r['events']:,} events, {r['cards']:,} cards known")
    print(
        f"receive by sync: {r['receive_s']:.1f} s in {r['transactions']:,} transactions; "
        f"longest {r['lock_ms_max']:,.0f} ms (median {r['lock_ms_median']:,.0f} ms; "
        f"goal <= {LOCK_GOAL_MS:.0f} ms)"
    )
    print(
        f"derive the whole cache: best {r['derive_ms_best']:,.0f} ms, median "
        f"{r['derive_ms_median']:,.0f} ms (goal < {DERIVE_GOAL_MS:.0f} ms)"
    )
    print(
        f"derive it under FSRS: best {r['derive_fsrs_ms_best']:,.0f} ms, median "
        f"{r['derive_fsrs_ms_median']:,.0f} ms (goal < {DERIVE_FSRS_GOAL_MS:.0f} ms)"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
