"""Property: machines in different time zones that grade, undo, import from Anki and sync in
any order, through one shared folder or through folder copies a sync tool delivers half-way,
with syncs that overlap, all end with the same log and the same schedule: nothing lost,
nothing doubled, the same state for every card and the same figures on every machine, equal
to a straight replay of all the events (:func:`srs_support.reference_states`, and a fresh
database given them all at once).

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
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from srs_support import reference_states, sm2_states

from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import Grade
from zerodrill.srs.sitting import record_grade
from zerodrill.srs.store import NotInEffect, Store, UndoConflict
from zerodrill.srs.sync.exchange import Plan, receive, send, survey
from zerodrill.srs.sync.folder import FolderTransport, sync_folder
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
# An answer given in Anki, and an import of every answer Anki has so far into a machine.
Answer = st.tuples(
    st.just("answer"), st.integers(0, 2), st.sampled_from(KEYS), st.integers(1, 4),
    st.integers(0, 24 * 60),
)  # fmt: skip
Import = st.tuples(st.just("import"), st.integers(0, 2))
Begin = st.tuples(st.just("begin"), st.integers(0, 2))
Finish = st.tuples(st.just("finish"), st.integers(0, 2))
# The sync tool copies a machine's file into another's folder, cut after `fraction` of it.
Deliver = st.tuples(
    st.just("deliver"), st.integers(0, 2), st.integers(0, 2), st.floats(0, 1), st.booleans()
)
Action = st.one_of(Grade_, Grade_, Undo, Undo, Begin, Finish, Finish, Deliver, Answer, Import)
#: The machines' time zones: Tokyo, London, New York (their study days differ).
ZONES = (timezone(timedelta(hours=9)), UTC, timezone(timedelta(hours=-5)))


def local_day(at: datetime, zone: timezone) -> date:
    """The study day of ``at`` on a machine in ``zone`` (rollover at 4 am)."""
    return (at.astimezone(zone).replace(tzinfo=None) - timedelta(hours=4)).date()


@dataclass
class Machine:
    store: Store
    folder: Path
    skew: timedelta
    zone: timezone
    #: Its own grades in effect, oldest first (a drill's undo stack).
    grades: list[int] = field(default_factory=list)
    #: Syncs begun (surveyed) and not finished, oldest first.
    pending: list[Plan] = field(default_factory=list)


class World:
    def __init__(self, root: Path, count: int, shared: bool, skews: list[int]) -> None:
        self.now = START
        self.shared = shared
        self.made: set[tuple[str, int]] = set()
        #: What Anki holds: answers given there, imported by any machine at any time.
        self.anki: list[ReviewEvent] = []
        self.machines = []
        for n in range(count):
            folder = root / ("shared" if shared else f"folder{n}")
            folder.mkdir(exist_ok=True)
            store = Store.open(root / f"m{n}.db")
            zone = ZONES[n % len(ZONES)]
            self.machines.append(Machine(store, folder, timedelta(minutes=skews[n]), zone))

    def close(self) -> None:
        for machine in self.machines:
            machine.store.close()

    def do(self, action: tuple[object, ...]) -> None:
        what, m = action[0], self.machines[int(action[1]) % len(self.machines)]  # type: ignore[call-overload]
        if what == "grade":
            _, _, key, q, minutes = action
            self.now += timedelta(minutes=int(minutes))  # type: ignore[call-overload]
            at = (self.now + m.skew).astimezone(m.zone)
            review = record_grade(m.store, str(key), int(q), day=local_day(at, m.zone), at=at)  # type: ignore[call-overload]
            self.made.add(review.identity)
            m.grades.append(review.id)
        elif what == "undo" and m.grades:
            try:
                undo = m.store.log.undo(m.grades.pop(), at=self.now + m.skew)
            except (UndoConflict, NotInEffect):
                return
            self.made.add(undo.identity)
        elif what == "answer":
            _, _, key, ease, minutes = action
            # Answered on a phone an hour or a day ago: older than what the machines know.
            at = self.now - timedelta(minutes=int(minutes))  # type: ignore[call-overload]
            seq = int(at.timestamp() * 1000) + len(self.anki)
            grade = Grade((1, 3, 4, 5)[int(ease) - 1])  # type: ignore[call-overload]
            self.anki.append(ReviewEvent("anki", seq, str(key), at, local_day(at, UTC), grade))
            self.made.add(("anki", seq))
        elif what == "import":
            m.store.log.add_events(self.anki, batch=2)
        elif what == "begin":
            if len(m.pending) == 2:
                self.finish(m)
            m.pending.append(survey(m.store, FolderTransport(m.folder)))
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
        receive(m.store, plan)

    def deliver(self, owner: Machine, dst: Machine, fraction: float) -> None:
        if owner is dst:
            return
        name = file_name(owner.store.machine.id)
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
        if self.anki:  # what Anki has reaches some machine, at least
            self.machines[0].store.log.add_events(self.anki)
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
        logs = [list(m.store.log.entries()) for m in world.machines]
        for log in logs:
            identities = [review.identity for review in log]
            assert len(identities) == len(set(identities)), "a review was merged twice"
            assert set(identities) == world.made, "a review was lost (or invented)"
        states = [m.store.schedule.states() for m in world.machines]
        assert all(state == states[0] for state in states)
        # What each grade was (the figures and the new-card limit read it), the same too.
        effects = [{r.identity: r.effect for r in log} for log in logs]
        assert all(e == effects[0] for e in effects)
        day = world.now.date()
        counts = [m.store.schedule.review_counts(day) for m in world.machines]
        assert all(c == counts[0] for c in counts)
        # Equal to a straight replay of every event: by the rules spelled out, and by a
        # database that was given them all at once, in one order.
        events = world.machines[0].store.log.events()
        assert sm2_states(world.machines[0].store) == reference_states(events)
        with Store.open(root / "straight.db") as straight:
            straight.log.add_events(sorted(events, key=lambda e: e.identity))
            assert straight.schedule.states() == states[0]
            assert {r.identity: r.effect for r in straight.log.entries()} == effects[0]
    finally:
        world.close()
        shutil.rmtree(root)
