"""Card actions through the sync folder: 20,000 of them (suspend, bury, flag, mark and undos).

Run by hand: ``python tests/bench/bench_sync_actions.py [ACTIONS]``. Machine A logs the
actions, then syncs (its file written); machine B, empty, syncs (every line read, every action
added), then syncs again (nothing new). Each of B's write transactions is timed from ``BEGIN
IMMEDIATE`` to ``COMMIT``: the longest is how long a drill in another terminal can be kept
waiting. Goal, as for reviews (bench_events.py): no transaction longer than 250 ms.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_events import LockClock  # noqa: E402

from zerodrill.srs.card_actions import Action  # noqa: E402
from zerodrill.srs.store import Store  # noqa: E402
from zerodrill.srs.sync.folder import sync_folder  # noqa: E402
from zerodrill.srs.sync.logfile import file_name  # noqa: E402

LOCK_GOAL_MS = 250.0
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def run(actions: int = 20_000, cards: int = 5_000) -> dict[str, float]:
    rng = random.Random(2026)
    keys = [f"bench/card-{n}" for n in range(cards)]
    kinds = [a for a in Action if a not in (Action.UNDO, Action.BRING_FORWARD)]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "shared"
        folder.mkdir()
        with Store.open(Path(tmp) / "a.db") as a:
            now, made = START, []
            with a.transaction():
                for _ in range(actions):
                    now += timedelta(seconds=30)
                    if made and rng.random() < 0.05:
                        a.actions.undo(made.pop(rng.randrange(len(made))), at=now)
                        continue
                    action = rng.choice(kinds)
                    flag = rng.randint(1, 7) if action is Action.FLAG else 0
                    event = a.actions.record(
                        rng.choice(keys), action, at=now, day=now.date(), flag=flag
                    )
                    made.append(event.identity)
            began = time.perf_counter()
            sent = sync_folder(a, folder).actions_sent
            send_ms = (time.perf_counter() - began) * 1000
            size = (folder / file_name(a.machine.id)).stat().st_size
        with Store.open(Path(tmp) / "b.db") as b:
            locks = LockClock()
            b._conn.set_trace_callback(locks)
            began = time.perf_counter()
            received = sync_folder(b, folder).actions_received
            receive_ms = (time.perf_counter() - began) * 1000
            b._conn.set_trace_callback(None)
            began = time.perf_counter()
            again = sync_folder(b, folder)
            again_ms = (time.perf_counter() - began) * 1000
            assert (again.actions_sent, again.actions_received) == (0, 0)
    return {
        "actions": float(sent),
        "received": float(received),
        "bytes_per_line": size / max(sent, 1),
        "send_ms": send_ms,
        "receive_ms": receive_ms,
        "again_ms": again_ms,
        "lock_ms_max": max(locks.held, default=0.0),
        "transactions": float(len(locks.held)),
    }


def main(actions: int = 20_000) -> None:
    r = run(actions)
    print(
        f"{r['actions']:,.0f} card actions ({r['bytes_per_line']:.0f} bytes a line): "
        f"sent in {r['send_ms']:,.0f} ms; received in {r['receive_ms']:,.0f} ms, "
        f"{r['transactions']:.0f} write transactions, longest {r['lock_ms_max']:,.1f} ms "
        f"(goal {LOCK_GOAL_MS:.0f} ms); a sync with nothing new {r['again_ms']:,.0f} ms"
    )


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:2]))
