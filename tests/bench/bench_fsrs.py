"""Deriving every card from 100,000 events with FSRS, beside SM-2 on the same log: what a
switch of scheduler costs (the palette's command, ``--scheduler``) and what FSRS costs a sync.

Run by hand: ``python tests/bench/bench_fsrs.py``. It writes a throwaway database of 10,000
cards graded ten times each on the days SM-2 would have them due (through ``add_events``, as
a sync or an import adds them), then times, best and median of a few rounds: the whole cache
rebuilt by each scheduler (``store.schedule.rederive``), a switch there and back (the cache
rebuilt at the first read after each switch), the grade buttons' preview of one card under each, and
bench_events's receive of 100,000 events by sync under each (its longest write transaction).
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_events import LOCK_GOAL_MS, ORIGIN, LockClock, year_of_events  # noqa: E402
from bench_queue import items_of, make_decks  # noqa: E402

from zerodrill.srs.events import ReviewEvent  # noqa: E402
from zerodrill.srs.schedulers.fsrs import FsrsScheduler  # noqa: E402
from zerodrill.srs.schedulers.protocol import When, outcomes  # noqa: E402
from zerodrill.srs.schedulers.sm2 import Sm2Scheduler  # noqa: E402
from zerodrill.srs.sm2_formula import Sm2State, review  # noqa: E402
from zerodrill.srs.store import Store  # noqa: E402
from zerodrill.srs.sync.folder import sync_folder  # noqa: E402
from zerodrill.srs.sync.logfile import file_name, write_log  # noqa: E402

START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)


def events(cards: int, per_card: int, rng: random.Random) -> list[ReviewEvent]:
    """Each card graded ``per_card`` times, each time on the day SM-2 had it due."""
    made = []
    seq = 0
    for c in range(cards):
        key = f"deck/c{c}"
        state, day = Sm2State.new(), START.date() + timedelta(days=c % 60)
        for _ in range(per_card):
            grade = rng.choice((1, 3, 4, 4, 5, 5))
            seq += 1
            at = datetime.combine(day, START.timetz()) + timedelta(minutes=rng.randrange(600))
            made.append(ReviewEvent("bench", seq, key, at, day, grade))
            state = review(state, grade, day)
            assert state.due is not None
            day = state.due
    return made


def timed(fn: Callable[[], object], rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def receive_by_sync(scheduler: Any, events: int = 100_000) -> dict[str, float]:
    """bench_events's receive, with ``scheduler`` deriving: the whole sync, and its longest
    write transaction (how long a drill in another terminal can be kept waiting)."""
    rng = random.Random(2025)
    keys = [item.key for item in items_of(make_decks(10_000))]
    log = year_of_events(keys, events, rng)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "shared"
        folder.mkdir()
        write_log(folder / file_name(ORIGIN), ORIGIN, "", log)
        with Store.open(Path(tmp) / "b.db", scheduler=scheduler) as b:
            locks = LockClock()
            b._conn.set_trace_callback(locks)
            start = time.perf_counter()
            sync_folder(b, folder)
            seconds = time.perf_counter() - start
            b._conn.set_trace_callback(None)
    return {
        "s": seconds,
        "lock_ms_max": max(locks.held),
        "lock_ms_median": statistics.median(locks.held),
    }


def run(cards: int = 10_000, per_card: int = 10, rounds: int = 3) -> dict[str, Any]:
    rng = random.Random(21)
    log = events(cards, per_card, rng)
    sm2, fsrs = Sm2Scheduler(), FsrsScheduler()
    with tempfile.TemporaryDirectory() as tmp, Store.open(Path(tmp) / "bench.db") as store:
        start = time.perf_counter()
        store.log.add_events(log, now=log[-1].at + timedelta(days=1))
        fill_s = time.perf_counter() - start

        def rederive_with(scheduler: Any) -> None:
            store.scheduler = scheduler
            store.schedule.rederive()

        sm2_s = timed(lambda: rederive_with(sm2), rounds)
        fsrs_s = timed(lambda: rederive_with(fsrs), rounds)

        def there_and_back() -> None:
            for scheduler in (fsrs, sm2):
                store.scheduler = scheduler
                store.schedule.state("deck/c0")  # the first read rebuilds the cache

        # Each round starts, and ends, with the cache SM-2's: two whole rebuilds a round.
        store.scheduler = sm2
        store.schedule.state("deck/c0")
        switch_s = timed(there_and_back, rounds)

        when = When(log[-1].at, log[-1].day)
        previews = {}
        for name, scheduler in (("sm2", sm2), ("fsrs", fsrs)):
            store.scheduler = scheduler
            state = store.schedule.state("deck/c0")
            previews[name] = timed(lambda s=scheduler, st=state: outcomes(s, st, when), 200)

    receive = {
        name: receive_by_sync(scheduler) for name, scheduler in (("sm2", sm2), ("fsrs", fsrs))
    }
    return {
        **{
            f"receive_{name}_{k}": v
            for name, figures in receive.items()
            for k, v in figures.items()
        },
        "events": len(log),
        "cards": cards,
        "fill_s": fill_s,
        "rederive_sm2_s": min(sm2_s),
        "rederive_sm2_s_median": statistics.median(sm2_s),
        "rederive_fsrs_s": min(fsrs_s),
        "rederive_fsrs_s_median": statistics.median(fsrs_s),
        "fsrs_over_sm2": min(fsrs_s) / min(sm2_s),
        "switch_there_and_back_s": min(switch_s),
        "preview_sm2_us": statistics.median(previews["sm2"]) * 1e6,
        "preview_fsrs_us": statistics.median(previews["fsrs"]) * 1e6,
    }


if __name__ == "__main__":
    r = run()
    print(
        f"{r['events']:,} events on {r['cards']:,} cards (added in {r['fill_s']:.1f} s)\n"
        f"whole cache derived: SM-2 best {r['rederive_sm2_s']:.2f} s "
        f"(median {r['rederive_sm2_s_median']:.2f}), FSRS best {r['rederive_fsrs_s']:.2f} s "
        f"(median {r['rederive_fsrs_s_median']:.2f}): FSRS/SM-2 = {r['fsrs_over_sm2']:.2f}\n"
        f"switch to FSRS and back (two rebuilds): best {r['switch_there_and_back_s']:.2f} s\n"
        f"grade-button preview of one card: SM-2 {r['preview_sm2_us']:.0f} µs, "
        f"FSRS {r['preview_fsrs_us']:.0f} µs"
    )
    for name in ("sm2", "fsrs"):
        print(
            f"receive 100,000 events by sync under {name}: {r[f'receive_{name}_s']:.1f} s, "
            f"longest transaction {r[f'receive_{name}_lock_ms_max']:.0f} ms "
            f"(median {r[f'receive_{name}_lock_ms_median']:.0f} ms; goal <= {LOCK_GOAL_MS:.0f} ms)"
        )
