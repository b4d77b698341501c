"""Property: machines that grade, undo and sync in any order, through one shared folder or
through folder copies a sync tool delivers half-way, with syncs that overlap, all end with the
same log and the same schedule: nothing lost, nothing doubled, and the schedule a replay of the
union of their logs in time order gives.

A sync here is its three steps (:mod:`zerodrill.srs.sync.folder`), and a step of one machine's
sync may come between the steps of another's, or between its own two overlapping syncs; that
is what two machines syncing at once do. Grades and undos may come between them too (a drill
in another terminal).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sync_support import replayed, sm2_of

from zerodrill.srs.days import study_day
from zerodrill.srs.session import record_grade
from zerodrill.srs.store import NotInEffect, Store, UndoConflict
from zerodrill.srs.sync.folder import Plan, receive, send, survey, sync_folder
from zerodrill.srs.sync.logfile import file_name

HEAVY = bool(os.environ.get("ZERODRILL_HEAVY"))
START = datetime(2025, 3, 10, 8, 0, tzinfo=UTC)
KEYS = ("d/a", "d/b", "d/c#c1")

Grade_ = st.tuples(
    st.just("grade"),
    st.integers(0, 2),  # machine
    st.sampled_from(KEYS),
    st.integers(0, 5),
    st.integers(0, 2 * 24 * 60),  # minutes that pass first
)
Undo = st.tuples(st.just("undo"), st.integers(0, 2))
Begin = st.tuples(st.just("begin"), st.integers(0, 2))
Finish = st.tuples(st.just("finish"), st.integers(0, 2))
# The sync tool copies a machine's file into another's folder, cut after `fraction` of it.
Deliver = st.tuples(
    st.just("deliver"), st.integers(0, 2), st.integers(0, 2), st.floats(0, 1), st.booleans()
)
Action = st.one_of(Grade_, Grade_, Undo, Begin, Finish, Finish, Deliver)


@dataclass
class Machine:
    store: Store
    folder: Path
    skew: timedelta
    #: Its own grades in effect, oldest first (a drill's undo stack).
    grades: list[int] = field(default_factory=list)
    #: Syncs begun (surveyed) and not finished, oldest first.
    pending: list[Plan] = field(default_factory=list)


class World:
    def __init__(self, root: Path, count: int, shared: bool, skews: list[int]) -> None:
        self.now = START
        self.shared = shared
        self.made: set[tuple[str, int]] = set()
        self.machines = []
        for n in range(count):
            folder = root / ("shared" if shared else f"folder{n}")
            folder.mkdir(exist_ok=True)
            store = Store.open(root / f"m{n}.db")
            self.machines.append(Machine(store, folder, timedelta(minutes=skews[n])))

    def close(self) -> None:
        for machine in self.machines:
            machine.store.close()

    def do(self, action: tuple[object, ...]) -> None:
        what, m = action[0], self.machines[int(action[1]) % len(self.machines)]  # type: ignore[call-overload]
        if what == "grade":
            _, _, key, q, minutes = action
            self.now += timedelta(minutes=int(minutes))  # type: ignore[call-overload]
            at = self.now + m.skew
            review = record_grade(m.store, str(key), int(q), day=study_day(at), at=at)  # type: ignore[call-overload]
            self.made.add(review.identity)
            m.grades.append(review.id)
        elif what == "undo" and m.grades:
            try:
                undo = m.store.undo(m.grades.pop(), at=self.now + m.skew)
            except (UndoConflict, NotInEffect):
                return
            self.made.add(undo.identity)
        elif what == "begin":
            if len(m.pending) == 2:
                self.finish(m)
            m.pending.append(survey(m.store, m.folder))
        elif what == "finish" and m.pending:
            self.finish(m)
        elif what == "deliver" and not self.shared:
            _, owner, dst, fraction, whole = action
            self.deliver(
                self.machines[int(owner) % len(self.machines)],  # type: ignore[call-overload]
                self.machines[int(dst) % len(self.machines)],  # type: ignore[call-overload]
                1.0 if whole else float(fraction),  # type: ignore[arg-type]
            )

    def finish(self, m: Machine) -> None:
        plan = m.pending.pop(0)
        send(plan)
        receive(m.store, plan.incoming)

    def deliver(self, owner: Machine, dst: Machine, fraction: float) -> None:
        if owner is dst:
            return
        name = file_name(owner.store.machine)
        source = owner.folder / name
        if not source.exists():
            return
        data = source.read_bytes()
        # Written in place, byte range by byte range, as a sync tool does.
        (dst.folder / name).write_bytes(data[: round(len(data) * fraction)])

    def settle(self) -> None:
        """Every sync finishes, the sync tool delivers every file whole, and each machine
        syncs twice: once to write what it has, once to read what the others wrote."""
        for m in self.machines:
            while m.pending:
                self.finish(m)
        for _ in range(2):
            for m in self.machines:
                sync_folder(m.store, m.folder)
            for owner in self.machines:
                for dst in self.machines:
                    self.deliver(owner, dst, 1.0)


@settings(
    max_examples=400 if HEAVY else 40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    count=st.integers(2, 3),
    shared=st.booleans(),
    skews=st.lists(st.integers(-15, 15), min_size=3, max_size=3),
    actions=st.lists(Action, max_size=60 if HEAVY else 30),
)
def test_machines_that_sync_end_with_one_log_and_one_schedule(
    count: int, shared: bool, skews: list[int], actions: list[tuple[object, ...]]
) -> None:
    root = Path(tempfile.mkdtemp(prefix="zerodrill-sync-prop-"))
    world = World(root, count, shared, skews)
    try:
        for action in actions:
            world.do(action)
        world.settle()
        logs = [list(m.store.log()) for m in world.machines]
        for log in logs:
            identities = [review.identity for review in log]
            assert len(identities) == len(set(identities)), "a review was merged twice"
            assert set(identities) == world.made, "a review was lost (or invented)"
        states = [sm2_of(m.store) for m in world.machines]
        assert all(state == states[0] for state in states)
        assert states[0] == replayed(world.machines[0].store)
    finally:
        world.close()
        shutil.rmtree(root)
