"""A sync over a transport (:mod:`.transport`): this machine's new events out to its own origin,
the other origins' new events in, and the cards they touch rebuilt.

A sync is three steps, which the tests interleave between machines as a concurrent sync would:

1. :func:`survey`: read each origin from where the last sync stopped (the store keeps it:
   :attr:`~zerodrill.srs.store.Store.sync`), looking up in the local log only the events
   read; decide what to receive (events some origin carries that the local log lacks) and
   what to send (local events no origin carries: this machine's, and any it holds that none
   carries, such as reviews imported from Anki). What each origin carries is kept with its
   position as runs of numbers (:class:`Carried`), so that no old event is read to know it.
2. :func:`send`: add those to this machine's own origin. Nothing is merged before this
   succeeds, so a transport that cannot be written changes nothing.
3. :func:`receive`: add the received events to the local log, keyed by their identity (one
   already there is skipped, so the order of syncs and repeats do not matter), and re-derive
   each affected card, in short transactions that a drill can come between; then keep where
   each origin was read to. An event that cannot be taken yet (an undo whose event has not
   arrived, one dated more than a day ahead) keeps its origin's position before the page it
   is on, so that it is read again at the next sync.

Undo entries travel like any review and name what they undo by identity. Card actions
(suspend, bury, flag, mark, and their undos) travel beside the reviews, by the same rules, and
are added by :meth:`~zerodrill.srs.store.actions.ActionLog.add_events`.

What an origin holds is not trusted: a line that claims this machine's identity is ignored, as
this machine's events come from its own database only; a review another origin contradicts
keeps the version of its own machine's origin, and the local one wins over both. An undo that
can never be added (of an undo, of another card, a second one) is the store's to skip
(:meth:`Store.add_events`). A database whose own origin holds events of its machine id that
it lacks (a restored backup, a copy) takes a new machine id before anything else, and reads
every origin again under it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

import msgspec
from msgspec import Struct, field

from zerodrill.srs.card_actions import CardActionEvent
from zerodrill.srs.events import Identity, ReviewEvent
from zerodrill.srs.store import Merged, Store
from zerodrill.srs.store.eventlog import HOLD_AHEAD
from zerodrill.srs.sync.transport import Event, SyncError, Transport
from zerodrill.srs.sync.wire import action_unfit, unfit
from zerodrill.words import plural

#: Runs of sequence numbers, each ``(first, last)``, ascending and apart.
Runs = list[tuple[int, int]]
_E = TypeVar("_E", ReviewEvent, CardActionEvent)


class Carried(Struct):
    """The events an origin was seen to carry, as runs of their numbers by origin: reviews
    and card actions apart, as they are numbered apart."""

    reviews: dict[str, Runs] = field(default_factory=dict)
    actions: dict[str, Runs] = field(default_factory=dict)

    def add(self, events: Iterable[Event]) -> Carried:
        """A copy with ``events`` added."""
        added = Carried(dict(self.reviews), dict(self.actions))
        numbers: dict[tuple[bool, str], list[tuple[int, int]]] = {}
        for event in events:
            kind = (isinstance(event, CardActionEvent), event.origin)
            numbers.setdefault(kind, []).append((event.seq, event.seq))
        for (action, origin), seqs in numbers.items():
            runs = added.actions if action else added.reviews
            runs[origin] = _merged(runs.get(origin, []), seqs)
        return added

    @classmethod
    def union(cls, many: Iterable[Carried]) -> Carried:
        both = Carried()
        for carried in many:
            for runs, theirs in ((both.reviews, carried.reviews), (both.actions, carried.actions)):
                for origin, more in theirs.items():
                    runs[origin] = _merged(runs.get(origin, []), more)
        return both


def _merged(runs: Runs, more: Runs) -> Runs:
    """``runs`` and ``more`` as one list of runs."""
    merged: Runs = []
    for first, last in sorted(runs + more):
        if merged and first <= merged[-1][1] + 1:
            if last > merged[-1][1]:
                merged[-1] = (merged[-1][0], last)
        else:
            merged.append((first, last))
    return merged


#: Where an origin was read to, and what it carries up to there.
Reached = tuple[str | None, Carried]


class Plan(Struct):
    """What one sync will do, as :func:`survey` found it."""

    transport: Transport
    #: This machine's id as the origins were read: the name of its own origin.
    machine: str
    #: The time events are judged by: those dated more than a day after it wait.
    now: datetime
    #: Local reviews no origin carries, oldest first.
    outgoing: list[ReviewEvent] = field(default_factory=list)
    #: Reviews some origin carries and the local log lacks (each once).
    incoming: list[ReviewEvent] = field(default_factory=list)
    #: The other machines whose origins were read (by their own account).
    machines: set[str] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)
    #: Card actions (suspend, bury, flag, mark) to send and to receive, as reviews.
    outgoing_actions: list[CardActionEvent] = field(default_factory=list)
    incoming_actions: list[CardActionEvent] = field(default_factory=list)
    #: For each origin read: what to keep of it once the incoming events are in.
    reached: dict[str, Reached] = field(default_factory=dict)
    #: Origins kept from an earlier sync that are there no more.
    gone: list[str] = field(default_factory=list)
    #: What the store kept of each origin before: only what changed is written back.
    saved: dict[str, tuple[str, str]] = field(default_factory=dict)


class SyncReport(Struct, frozen=True):
    sent: int
    received: int
    cards: int
    machines: int
    warnings: tuple[str, ...]
    #: Where this machine's events went (its log file).
    sent_to: str
    #: Card actions (suspend, bury, flag, mark and their undos) sent and newly received.
    actions_sent: int = 0
    actions_received: int = 0


def _what(entry: ReviewEvent) -> tuple[object, ...]:
    """What makes a review that review. Not its kind: a merge may have logged a grade as the
    same-day repeat it is once the reviews of another machine come before it."""
    return (entry.key, entry.at, entry.grade, entry.undoes)


def _same(event: CardActionEvent) -> object:
    return event


class _Shared(Exception):
    """This machine's own origin holds an event of its id that its database lacks."""


def survey(store: Store, transport: Transport, *, now: datetime | None = None) -> Plan:
    """Step 1: read each origin from where the last sync stopped; what to send and receive.

    A database whose own origin holds events of its machine id that it lacks, or holds
    otherwise (restored from a backup, or copied from another machine), first takes a new
    machine id (:func:`_renew`), and the survey is made again under it.
    """
    origins = transport.origins()
    plan = Plan(transport, store.machine, now or datetime.now(UTC))
    plan.saved = saved = store.sync.saved(transport.name, plan.machine)
    reading = _Reading(store, plan)
    try:
        for origin in sorted(origins, key=lambda name: name != plan.machine):  # its own first
            reading.read(origin, saved.get(origin))
    except _Shared:
        renewed = _renew(store, transport, plan.machine)
        plan = survey(store, transport, now=plan.now)
        plan.warnings.insert(0, renewed)
        return plan
    reading.finish()
    plan.gone = [origin for origin in saved if origin not in origins]
    return plan


class _Found(Struct):
    """The events of one kind read that the local log lacks, or holds otherwise."""

    #: By identity: the version taken, and whether the local log holds one.
    taken: dict[Identity, tuple[Any, bool]] = field(default_factory=dict)
    #: Identities taken from their own machine's origin, which no other origin overrides.
    firsthand: set[Identity] = field(default_factory=set)
    #: Each origin and page where one of them was read.
    where: dict[Identity, list[tuple[str, int]]] = field(default_factory=dict)
    #: Lines of this machine's id it never made, by origin.
    forged: dict[str, int] = field(default_factory=dict)


class _Reading:
    """One survey's reading of the origins, page by page."""

    def __init__(self, store: Store, plan: Plan) -> None:
        self.store, self.plan = store, plan
        self.reviews, self.actions = _Found(), _Found()
        #: What each origin read carries: what is not there is sent.
        self.carried: dict[str, Carried] = {}
        #: Each origin's position and what it carried before each page read, and after all.
        self.stops: dict[str, list[Reached]] = {}

    def read(self, origin: str, saved: tuple[str, str] | None) -> None:
        plan, own = self.plan, origin == self.plan.machine
        stops: list[Reached] = [_decoded(saved)]
        for page in plan.transport.read(origin, stops[0][0]):
            if page.problem is not None:
                if own:  # not ours to add to: one from a newer zerodrill, or no log at all
                    raise SyncError(f"{page.problem}: {_NOT_OURS}")
                plan.warnings.append(f"{page.problem}; skipped")
                return
            if page.restarted:
                stops = [(None, Carried())]
            if own and page.machine not in (None, plan.machine):
                where = plan.transport.where(origin)
                raise SyncError(f"{where}: written by machine {page.machine}: {_NOT_OURS}")
            if not own and page.machine is not None:
                plan.machines.add(page.machine)
            taken = self._page(origin, len(stops) - 1, page.machine, page.events)
            stops.append((page.position, stops[-1][1].add(taken)))
            plan.warnings += page.warnings
        self.carried[origin] = stops[-1][1]
        self.stops[origin] = stops

    def _page(
        self, origin: str, index: int, machine: str | None, events: Sequence[Event]
    ) -> list[Event]:
        """Take in one page's events; those the origin is seen to carry."""
        reviews = [e for e in events if isinstance(e, ReviewEvent)]
        actions = [e for e in events if isinstance(e, CardActionEvent)]
        local_reviews = self.store.sync.reviews(e.identity for e in reviews)
        local_actions = self.store.sync.actions(e.identity for e in actions)
        where = (origin, index, machine)
        carried: list[Event] = []
        carried += self._take(where, reviews, local_reviews, _what, self.reviews)
        carried += self._take(where, actions, local_actions, _same, self.actions)
        return carried

    def _take(
        self,
        where: tuple[str, int, str | None],
        events: list[_E],
        local: Mapping[Identity, _E],
        what: Callable[[_E], object],
        found: _Found,
    ) -> list[_E]:
        origin, index, machine = where
        here = self.plan.machine
        carried = []
        for event in events:
            identity = event.identity
            mine = local.get(identity)
            same = mine is not None and what(mine) == what(event)
            if event.origin == here:
                # This machine's own come from its database only: a line claiming one it never
                # made would otherwise decide the numbers of its next events.
                if same:
                    carried.append(event)
                elif origin == here:
                    raise _Shared
                else:
                    found.forged[origin] = found.forged.get(origin, 0) + 1
                continue
            carried.append(event)
            if same:
                continue
            found.where.setdefault(identity, []).append((origin, index))
            if identity in found.firsthand:
                continue
            if machine == event.origin:
                found.taken[identity] = (event, mine is not None)
                found.firsthand.add(identity)
            else:
                found.taken.setdefault(identity, (event, mine is not None))
        return carried

    def finish(self) -> None:
        """What to receive and send, and where each origin is to be kept as read to."""
        plan, sync = self.plan, self.store.sync
        stop: dict[str, int] = {}
        plan.incoming = self._settle(self.reviews, "review", sync.reviews, stop)
        plan.incoming_actions = self._settle(self.actions, "card action", sync.actions, stop)
        carried = Carried.union(self.carried.values())
        plan.outgoing = self._sendable(sync.reviews_outside(carried.reviews), unfit, "review")
        plan.outgoing_actions = self._sendable(
            sync.actions_outside(carried.actions), action_unfit, "card action"
        )
        for origin, stops in self.stops.items():
            plan.reached[origin] = stops[stop.get(origin, -1)]

    def _settle(
        self,
        found: _Found,
        noun: str,
        lookup: Callable[[Iterable[Identity]], Mapping[Identity, _E]],
        stop: dict[str, int],
    ) -> list[_E]:
        """The events of one kind to receive; an origin with one not to be taken yet is kept
        as read only up to the page before it (in ``stop``)."""
        plan = self.plan
        for origin, forged in found.forged.items():
            plan.warnings.append(
                f"{plan.transport.where(origin)}: {plural(forged, 'line')} claiming to be this "
                f"machine's {noun}s (machine {plan.machine}) that this database never made; "
                "ignored"
            )
        differing = sum(1 for _, held in found.taken.values() if held)
        if differing:
            plan.warnings.append(
                f"{plan.transport.title}: {plural(differing, noun)} there that another {noun} "
                "this database holds by the same number (machine and sequence) contradicts; "
                "this database's are kept"
            )
        incoming: list[_E] = [event for event, held in found.taken.values() if not held]
        ahead = {e.identity for e in incoming if e.at > plan.now + HOLD_AHEAD}
        arriving = {e.identity for e in incoming} - ahead
        named = {e.undoes for e in incoming if e.undoes is not None and e.undoes not in arriving}
        here = lookup(named) if named else {}
        waiting = {
            e.identity
            for e in incoming
            if e.undoes is not None and e.undoes not in arriving and e.undoes not in here
        }
        for identity in ahead | waiting:
            for origin, index in found.where[identity]:
                stop[origin] = min(stop.get(origin, index), index)
        return [event for event in incoming if event.identity not in waiting]

    def _sendable(
        self, events: list[_E], unfit_for_log: Callable[[_E], str | None], noun: str
    ) -> list[_E]:
        fit = [event for event in events if unfit_for_log(event) is None]
        if len(fit) < len(events):
            # Written, every machine would skip them, and this one would send them each time.
            self.plan.warnings.append(
                f"{plural(len(events) - len(fit), noun)} in this database that no log file may "
                "carry (a card key no deck has, a time outside the calendar); not sent"
            )
        return fit


_NOT_OURS = "this machine's log file cannot be added to; move it away and sync again"


def _decoded(saved: tuple[str, str] | None) -> Reached:
    """A kept position and what its origin carried; none if nothing was kept, or what was
    kept does not read as what a sync keeps (then the origin is read from its start)."""
    if saved is None:
        return None, Carried()
    try:
        return saved[0], msgspec.json.decode(saved[1], type=Carried)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None, Carried()


def _renew(store: Store, transport: Transport, machine: str) -> str:
    """Give the database a new machine id, moving to it its events that its own origin does
    not hold as they are (the origin is read whole); say so, in one line."""
    theirs: dict[int, ReviewEvent] = {}
    their_actions: dict[int, CardActionEvent] = {}
    for page in transport.read(machine, None):
        for event in page.events:
            if event.origin != machine:
                continue
            if isinstance(event, CardActionEvent):
                their_actions[event.seq] = event
            else:
                theirs[event.seq] = event
    moved = [
        event.seq
        for event in store.events()
        if event.origin == machine
        and (event.seq not in theirs or _what(theirs[event.seq]) != _what(event))
    ]
    moved_actions = [
        event.seq
        for event in store.actions.events()
        if event.origin == machine and their_actions.get(event.seq) != event
    ]
    new = store.renew_machine(moved, moved_actions)
    also = f" and {plural(len(moved_actions), 'card action')}" if moved_actions else ""
    return (
        f"{transport.where(machine)} holds reviews of machine {machine} that this database does "
        "not have: it was restored from a backup or copied from another machine, and the two "
        f"must not share a machine id. This database is now machine {new} ({len(moved)} of its "
        f"reviews{also} renumbered under it); the reviews there merge as another machine's. "
        "Nothing was lost"
    )


def send(plan: Plan) -> int:
    """Step 2: add the outgoing reviews and card actions to this machine's own origin; how
    many reviews were added."""
    own, transport = plan.machine, plan.transport
    position, carried = plan.reached.get(own, (None, Carried()))
    events: list[Event] = [*plan.outgoing, *plan.outgoing_actions]
    try:
        after = transport.write(own, events, position)
    except OSError as exc:
        raise SyncError(f"{transport.where(own)}: cannot write it ({exc.strerror or exc})") from exc
    if after != position:  # read past them next time: they are there
        plan.reached[own] = (after, carried.add(events))
    return len(plan.outgoing)


def receive(store: Store, plan: Plan) -> tuple[Merged, Merged]:
    """Step 3: add the incoming reviews and card actions to the local log and re-derive the
    cards they touch, in short transactions (see :meth:`Store.add_events`); then keep where
    each origin was read to. What it did, for reviews and for card actions."""
    merged = store.add_events(plan.incoming, now=plan.now)
    actions = Merged()
    if plan.incoming_actions:
        actions = store.actions.add_events(plan.incoming_actions, now=plan.now)
    reached = {
        origin: (position, msgspec.json.encode(carried).decode())
        for origin, (position, carried) in plan.reached.items()
        if position is not None
    }
    gone = [*plan.gone, *(o for o in plan.reached if o not in reached and o in plan.saved)]
    changed = {o: kept for o, kept in reached.items() if plan.saved.get(o) != kept}
    if changed or gone:  # a sync with nothing new writes nothing either
        store.sync.save(plan.transport.name, plan.machine, changed, gone)
    return merged, actions


def sync(store: Store, transport: Transport) -> SyncReport:
    """The three steps, one after the other."""
    plan = survey(store, transport)
    sent = send(plan)
    merged, actions = receive(store, plan)
    return SyncReport(
        sent,
        merged.added,
        len(merged.keys),
        len(plan.machines),
        (*plan.warnings, *merged.warnings, *actions.warnings),
        transport.where(plan.machine),
        len(plan.outgoing_actions),
        actions.added,
    )
