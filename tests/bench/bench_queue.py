"""Building today's queue from 10,000 cards and 100,000 logged reviews.

Run by hand: ``python tests/bench/bench_queue.py``. It writes a throwaway database (through
``record_grade``, in one transaction), then times :func:`build_queue` and a session's start, best
and median of several rounds, and one grade (a real, fsynced transaction).
"""

from __future__ import annotations

import heapq
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from zerodrill.deck.item_index import ItemIndex  # noqa: E402
from zerodrill.deck.kinds import BASIC, CLOZE  # noqa: E402
from zerodrill.deck.model import Card, Deck, Pos  # noqa: E402
from zerodrill.srs.queue import build_queue, items_of  # noqa: E402
from zerodrill.srs.sitting import Session, record_grade  # noqa: E402
from zerodrill.srs.store import Store  # noqa: E402

GOAL_MS = 100.0
TODAY = date(2025, 6, 1)
#: 9 am local time on TODAY, so that a session started then drills TODAY.
NOW = datetime(2025, 6, 1, 9, 0).astimezone()


def make_decks(cards: int) -> list[Deck]:
    """Ten decks; every fifth card a cloze with two deletions."""
    decks = []
    per_deck = cards // 10
    for d in range(10):
        deck_id = f"deck-{d}"
        pos = Pos(f"{deck_id}.yaml", 1, 1)
        made = []
        for i in range(per_deck):
            if i % 5 == 0:
                made.append(
                    Card(
                        deck_id,
                        f"c{i}",
                        CLOZE,
                        {"text": "{{c1::a}} {{c2::b}}"},
                        (),
                        (),
                        pos,
                        {},
                        (1, 2),
                    )
                )
            else:
                made.append(
                    Card(deck_id, f"b{i}", BASIC, {"front": "q", "back": "a"}, (), (), pos, {})
                )
        decks.append(Deck(deck_id, deck_id, "bench", tuple(made), Path(f"{deck_id}.yaml"), pos))
    return decks


def fill(store: Store, keys: list[str], reviews: int, rng: random.Random) -> int:
    """A learner's year: each day the due cards are graded, and new ones introduced, until
    ``reviews`` grades are logged by yesterday; then part of today's work, with a few undos.

    Returns the number of days simulated.
    """
    due: list[tuple[date, str]] = []
    fresh = iter(keys)
    new_per_day = 25
    logged = 0
    days = 0
    with store.transaction():
        day = TODAY - timedelta(days=375)
        while logged < reviews - 150 and day < TODAY:
            todays = []
            while due and due[0][0] <= day:
                todays.append(heapq.heappop(due)[1])
            todays.extend(key for _, key in zip(range(new_per_day), fresh, strict=False))
            for key in todays[: reviews - 150 - logged]:
                q = rng.choice((2, 3, 4, 4, 5, 5))
                record_grade(store, key, q, day=day, at=NOW)
                next_due = store.schedule.state(key).due
                assert next_due is not None
                heapq.heappush(due, (next_due, key))
                logged += 1
            day += timedelta(days=1)
            days += 1
        todays = [key for when, key in due if when <= TODAY][:150]
        for n, key in enumerate(todays):
            review = record_grade(store, key, rng.choice((1, 3, 4, 5)), day=TODAY, at=NOW)
            if n % 20 == 0:
                store.log.undo(review.id, at=NOW)
    return days


def timed(fn: Callable[[], object], rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times


def run(cards: int = 10_000, reviews: int = 100_000, rounds: int = 15) -> dict[str, float]:
    rng = random.Random(2025)
    decks = make_decks(cards)
    items = items_of(decks)
    with tempfile.TemporaryDirectory() as tmp, Store.open(Path(tmp) / "bench.db") as store:
        start = time.perf_counter()
        days = fill(store, [item.key for item in items], reviews, rng)
        fill_s = time.perf_counter() - start
        logged = sum(1 for _ in store.log.entries())

        # Over the index a sitting builds once and builds every queue over (Session).
        index = ItemIndex(decks)
        queue = build_queue(index, store, TODAY)
        build = timed(lambda: build_queue(index, store, TODAY), rounds)
        session = timed(lambda: Session(decks, store, clock=lambda: NOW).current, rounds)

        drill = Session(decks, store, clock=lambda: NOW)
        assert drill.current is not None
        grade_start = time.perf_counter()
        drill.grade(4)
        grade_ms = (time.perf_counter() - grade_start) * 1000

    return {
        "cards": cards,
        "items": len(items),
        "log_entries": logged,
        "due": len(queue.reviews),
        "new": len(queue.new),
        "repeats": len(queue.repeats),
        "fill_s": fill_s,
        "days": days,
        "build_ms_best": min(build),
        "build_ms_median": statistics.median(build),
        "session_start_ms_median": statistics.median(session),
        "grade_ms": grade_ms,
        "goal_ms": GOAL_MS,
    }


if __name__ == "__main__":
    r = run()
    print(
        f"{r['cards']:,} cards ({r['items']:,} items), {r['log_entries']:,} log entries "
        f"over {r['days']} days (written in {r['fill_s']:.1f} s)\n"
        f"today's queue: {r['due']:,} due, {r['new']} new, {r['repeats']} repeats\n"
        f"build_queue: best {r['build_ms_best']:.1f} ms, median {r['build_ms_median']:.1f} ms "
        f"(goal <= {GOAL_MS:.0f} ms)\n"
        f"Session start + next(): median {r['session_start_ms_median']:.1f} ms; "
        f"one grade (fsynced transaction): {r['grade_ms']:.1f} ms"
    )
