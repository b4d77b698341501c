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

Every kind of event (grades, card actions, undos naming what they withdraw by identity) is one
stream: one numbering, read, sent and added by the same rules, with
:meth:`~zerodrill.srs.store.Store.log.add_events`.

What an origin holds is not trusted: a line that claims this machine's identity is ignored, as
this machine's events come from its own database only; a review another origin contradicts
keeps the version of its own machine's origin, and the local one wins over a relayed one. A
machine's own origin that numbers events otherwise than the local log (its database was copied
and a sync tool kept one copy's file) is taken as it is, and that machine's local events it
lacks are dropped, not passed on: the other copy renews its id and sends them again. An undo that
can never be added (of an undo, of another card, a second one) is the store's to skip
(:meth:`Store.log.add_events`). A database whose own origin holds events of its machine id that
it lacks (a restored backup, a copy) takes a new machine id before anything else, and reads
every origin again under it.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from itertools import groupby
from operator import attrgetter, itemgetter
from typing import Any

import msgspec
from msgspec import Struct, field

from zerodrill.srs.card_actions import Action, CardActionEvent
from zerodrill.srs.events import Identity
from zerodrill.srs.store import Merged, Store
from zerodrill.srs.store.eventlog import HOLD_AHEAD
from zerodrill.srs.store.sync_state import Outgoing, lined
from zerodrill.srs.sync.transport import Event, SyncError, Transport
from zerodrill.srs.sync.wire import review_unfit, unfit
from zerodrill.words import plural

#: Runs of sequence numbers, each ``(first, last)``, ascending and apart.
Runs = list[tuple[int, int]]


class Carried(Struct, forbid_unknown_fields=True, omit_defaults=True):
    """The events an origin was seen to carry, as runs of their numbers by origin; and, kept
    with this machine's own origin, of each of the transport's native origins
    (:attr:`Transport.native_origins`) the row of the local log through which every event
    of it was looked at: those the transport carries by itself, and those sent. Not their
    numbers: Anki's (its revlog ids) are sparse, a run each, and a long-time user's runs were
    read and merged at every sync, and every one of the numbers looked up among them."""

    numbers: dict[str, Runs] = field(default_factory=dict)
    #: Written only where there is one: a record without it reads in an older zerodrill too.
    looked_at: dict[str, int] = field(default_factory=dict)

    def add(self, events: Iterable[Event | Outgoing]) -> Carried:
        """A copy with ``events`` added."""
        added = Carried(dict(self.numbers), dict(self.looked_at))
        seqs: dict[str, list[int]] = {}
        # Runs of one origin at a time: a sync's events are mostly one machine's.
        for origin, run in groupby(events, _ORIGIN):
            seqs.setdefault(origin, []).extend(map(_SEQ, run))
        for origin, more in seqs.items():
            added.numbers[origin] = _merged(added.numbers.get(origin, []), _runs(more))
        return added


_ORIGIN, _SEQ = attrgetter("origin"), attrgetter("seq")
_FIRST = itemgetter(0)


def _runs(seqs: list[int]) -> Runs:
    """``seqs`` as runs: a relayed log of 10,000 events is one run, not 10,000 to sort."""
    seqs.sort()
    if seqs[-1] - seqs[0] == len(seqs) - 1 == len(set(seqs)) - 1:  # a machine's new events
        return [(seqs[0], seqs[-1])]
    return _merged([], [(seq, seq) for seq in seqs])


def _union(many: Iterable[Carried]) -> Carried:
    both = Carried()
    for carried in many:
        for origin, more in carried.numbers.items():
            both.numbers[origin] = _merged(both.numbers.get(origin, []), more)
        for origin, row in carried.looked_at.items():
            both.looked_at[origin] = max(row, both.looked_at.get(origin, 0))
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
    #: Local events no origin carries, oldest first.
    outgoing: list[Outgoing] = field(default_factory=list)
    #: Of each native origin, the row of the local log through which its events were looked
    #: at once this sync is done (:attr:`Carried.looked_at`).
    looked_at: dict[str, int] = field(default_factory=dict)
    #: Events some origin carries and the local log lacks (each once).
    incoming: list[Event] = field(default_factory=list)
    #: The other machines whose origins were read (by their own account).
    machines: set[str] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)
    #: For each origin read: what to keep of it once the incoming events are in.
    reached: dict[str, Reached] = field(default_factory=dict)
    #: Origins kept from an earlier sync that are there no more.
    gone: list[str] = field(default_factory=list)
    #: Other machines' events to drop before the incoming are added: their machine's own
    #: origin numbers others by them, or no longer holds them (see :meth:`_Reading.finish`).
    forgotten: list[Identity] = field(default_factory=list)
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
    #: Card actions (suspend, bury, flag, mark and their undos) sent and newly received (not
    #: counted in ``sent`` and ``received``).
    actions_sent: int = 0
    actions_received: int = 0
    #: Of those, the settings that travel (FSRS's parameters), sent and newly received.
    settings_sent: int = 0
    settings_received: int = 0


def _what(event: Event) -> tuple[object, ...]:
    """What makes an event that event. Not a grade's kind: a merge may have logged a grade as
    the same-day repeat it is once the reviews of another machine come before it; nor what an
    undo withdraws, which the log says and its line does not."""
    if isinstance(event, CardActionEvent):
        action = None if event.action is Action.UNDO else event.action
        return (event.key, event.at, None, event.undoes, action, event.flag, event.value)
    return (event.key, event.at, event.grade, event.undoes, None, 0, None)


def _actions(events: Iterable[Event]) -> int:
    return sum(1 for e in events if isinstance(e, CardActionEvent))


class _Shared(Exception):
    """This machine's own origin holds an event of its id that its database lacks."""


class Ahead(Struct):
    """What :func:`survey` reads of the local log to know what to send, read before the
    transport can be read (while Anki's server sync brings its files: bench_anki_sync.py's
    goal of 3x Anki's own syncs): the events outside what the origins carried at the last
    sync. The survey takes them if it finds the origins carrying at least that, and nothing
    written to the log since; else it reads the log itself."""

    machine: str
    #: :meth:`~zerodrill.srs.store.sync_state.SyncState.moment` before the read.
    moment: tuple[int, int]
    carried: Carried
    outside: list[Outgoing]
    #: Those of them no line may carry (:func:`_fits`).
    refused: frozenset[Identity]
    #: Those of them the transport carries by itself, never written (:func:`_native`).
    native: frozenset[Identity]


def read_ahead(store: Store, transport: Transport) -> Ahead:
    """The :class:`Ahead` of a sync over ``transport``, whose origins need not be readable
    yet: only its name and native origins are asked."""
    machine = store.machine.id
    moment = store.sync.moment()
    saved = store.sync.saved(transport.name, machine)
    carried = _union(_decoded(kept)[1] for kept in saved.values())
    outside = _outside_of(store, carried, transport)
    native = _native(transport, outside)
    # Only what is written is held to the wire's rules, as in the survey: the native ones never
    # are (the sync after one that took many answers from Anki looks at all of them, once).
    written = [o for o in outside if o.identity not in native] if native else outside
    refused = frozenset(o.identity for o in written if not _fits(o))
    return Ahead(machine, moment, carried, outside, refused, native)


def _outside_of(store: Store, carried: Carried, transport: Transport) -> list[Outgoing]:
    """The local events outside what ``carried`` holds (:meth:`SyncState.outside`)."""
    natives = transport.native_origins
    return store.sync.outside(carried.numbers, unlined=natives, after=carried.looked_at)


def survey(
    store: Store,
    transport: Transport,
    *,
    now: datetime | None = None,
    ahead: Ahead | None = None,
) -> Plan:
    """Step 1: read each origin from where the last sync stopped; what to send and receive.
    What :func:`read_ahead` gave (``ahead``) is used if it still holds.

    A database whose own origin holds events of its machine id that it lacks, or holds
    otherwise (restored from a backup, or copied from another machine), first takes a new
    machine id (:func:`_renew`), and the survey is made again under it.
    """
    origins = transport.origins()
    plan = Plan(transport, store.machine.id, now or datetime.now(UTC))
    plan.saved = saved = store.sync.saved(transport.name, plan.machine)
    reading = _Reading(store, plan, ahead)
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
    """The events read that the local log lacks, or holds otherwise."""

    #: By identity: the version taken, and whether the local log holds one.
    taken: dict[Identity, tuple[Any, bool]] = field(default_factory=dict)
    #: Identities taken from their own machine's origin, which no other origin overrides.
    firsthand: set[Identity] = field(default_factory=set)
    #: Each origin and page where one of them was read.
    where: dict[Identity, list[tuple[str, int]]] = field(default_factory=dict)
    #: Lines of this machine's id it never made, by origin.
    forged: dict[str, int] = field(default_factory=dict)
    #: Identities whose own machine's origin holds another event than the local log: a
    #: database copied to another machine, and a sync tool that kept one life's file of the
    #: two; and by machine, the origin that showed it.
    replaced: set[Identity] = field(default_factory=set)
    copied: dict[str, str] = field(default_factory=dict)


class _Reading:
    """One survey's reading of the origins, page by page."""

    def __init__(self, store: Store, plan: Plan, ahead: Ahead | None = None) -> None:
        self.store, self.plan, self.ahead = store, plan, ahead
        self.found = _Found()
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
        local = self.store.sync.events(e.identity for e in events)
        found, here = self.found, self.plan.machine
        carried = []
        for event in events:
            identity = event.identity
            mine = local.get(identity)
            same = mine is not None and _what(mine) == _what(event)
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
                if mine is not None:
                    found.replaced.add(identity)
                    found.copied.setdefault(machine, origin)
            else:
                found.taken.setdefault(identity, (event, mine is not None))
        return carried

    def finish(self) -> None:
        """What to receive and send, and where each origin is to be kept as read to."""
        plan = self.plan
        stop: dict[str, int] = {}
        plan.incoming = self._settle(stop)
        carried = _union(self.carried.values())
        outside, refused, native = self._outside(carried)
        # The events of a machine whose database was copied that its own origin does not hold
        # were the other life's: that life takes a new id and sends them again under it.
        # Kept, or passed on, they would come twice; the numbers its origin gives to others
        # are taken as it gives them.
        copied = self.found.copied
        lost = [e.identity for e in outside if e.origin in copied] if copied else []
        taken = [e.identity for e in plan.incoming if e.identity in self.found.replaced]
        plan.forgotten = taken + lost
        plan.looked_at = _looked_at(carried, outside, plan.transport.native_origins)
        if any(origin in plan.looked_at for origin, _ in plan.forgotten):
            # A row dropped may be the log's last, whose id the next row takes: the rows
            # through it are looked at again, not taken as looked at.
            plan.looked_at = {}
        # Those the transport carries by itself are not written (and looked at all the same).
        written = [e for e in outside if e.origin not in copied and e.identity not in native]
        # Only what is written is held to the wire's rules: the native ones are never written.
        plan.outgoing = self._sendable([lined(e) for e in written], refused)
        for machine, origin in copied.items():
            plan.warnings.append(
                f"{plan.transport.where(origin)}: machine {machine}'s events there are not the "
                "ones this database took under their numbers: its database was copied to another "
                "machine and the sync tool kept one copy's file; taken as the file has them (the "
                "other copy sends its own again under a new machine id)"
            )
        for origin, stops in self.stops.items():
            plan.reached[origin] = stops[stop.get(origin, -1)]

    def _outside(
        self, carried: Carried
    ) -> tuple[list[Outgoing], frozenset[Identity] | None, frozenset[Identity]]:
        """The local events outside what ``carried`` holds, oldest first: those read ahead
        that remain outside, if they still hold; which of them no line may carry, if known;
        and which the transport carries by itself."""
        ahead, numbers = self.ahead, carried.numbers
        if (
            ahead is not None
            and ahead.machine == self.plan.machine
            and self.store.sync.moment() == ahead.moment
            and _covers(numbers, ahead.carried.numbers)
            and carried.looked_at == ahead.carried.looked_at
        ):
            if numbers == ahead.carried.numbers:
                return ahead.outside, ahead.refused, ahead.native
            held = [o for o in ahead.outside if not _holds(numbers.get(o.origin, []), o.seq)]
            return held, ahead.refused, ahead.native
        outside = _outside_of(self.store, carried, self.plan.transport)
        return outside, None, _native(self.plan.transport, outside)

    def _settle(self, stop: dict[str, int]) -> list[Event]:
        """The events to receive; an origin with one not to be taken yet is kept as read only
        up to the page before it (in ``stop``)."""
        plan, found, noun = self.plan, self.found, "event"
        for origin, forged in found.forged.items():
            plan.warnings.append(
                f"{plan.transport.where(origin)}: {plural(forged, 'line')} claiming to be this "
                f"machine's {noun}s (machine {plan.machine}) that this database never made; "
                "ignored"
            )
        kept = {identity for identity, (_, held) in found.taken.items() if held}
        differing = len(kept - found.replaced)
        if differing:
            plan.warnings.append(
                f"{plan.transport.title}: {plural(differing, noun)} there that another {noun} "
                "this database holds by the same number (machine and sequence) contradicts; "
                "this database's are kept"
            )
        incoming: list[Event] = [
            event
            for identity, (event, held) in found.taken.items()
            if not held or identity in found.replaced
        ]
        ahead = {e.identity for e in incoming if e.at > plan.now + HOLD_AHEAD}
        arriving = {e.identity for e in incoming} - ahead
        named = {e.undoes for e in incoming if e.undoes is not None and e.undoes not in arriving}
        here = self.store.sync.events(named) if named else {}
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
        self, events: list[Outgoing], refused: frozenset[Identity] | None
    ) -> list[Outgoing]:
        """Those of ``events`` a line may carry (``refused``: those that may not, if known)."""
        if refused is None:
            fit = [event for event in events if _fits(event)]
        elif refused:
            fit = [event for event in events if event.identity not in refused]
        else:
            fit = events
        if len(fit) < len(events):
            # Written, every machine would skip them, and this one would send them each time.
            self.plan.warnings.append(
                f"{plural(len(events) - len(fit), 'event')} in this database that no log file may "
                "carry (a card key no deck has, a time outside the calendar); not sent"
            )
        return fit


def _native(transport: Transport, outside: Sequence[Outgoing]) -> frozenset[Identity]:
    """Those of ``outside`` the transport carries by itself (:meth:`Transport.native`),
    asked of the events of its :attr:`~Transport.native_origins` only, which
    :meth:`~zerodrill.srs.store.sync_state.SyncState.outside` gives as events."""
    return frozenset(
        e.identity
        for e in outside
        if e.origin in transport.native_origins
        and e.event is not None
        and transport.native(e.event)
    )


def _fits(event: Outgoing) -> bool:
    """Whether the wire's rules let a line carry ``event``: a review SQLite writes is checked
    by what they ask of it beside its numbers (within them), each of which the wire checks
    once (its cards, its days)."""
    if event.event is None:
        return review_unfit(event.origin, event.key, event.at_day, event.day) is None
    return unfit(event.event) is None


def _covers(numbers: Mapping[str, Runs], some: Mapping[str, Runs]) -> bool:
    """Whether ``numbers`` hold every number of ``some``."""
    return all(
        _holds(numbers.get(origin, []), first, last)
        for origin, runs in some.items()
        for first, last in runs
    )


def _holds(runs: Runs, first: int, last: int | None = None) -> bool:
    """Whether ``runs`` hold every number from ``first`` to ``last`` (``first`` alone)."""
    at = bisect_right(runs, first, key=_FIRST) - 1
    return at >= 0 and (first if last is None else last) <= runs[at][1]


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
    theirs = {
        event.seq: event
        for page in transport.read(machine, None)
        for event in page.events
        if event.origin == machine
    }
    mine = [o.identity for o in store.sync.outside({}) if o.origin == machine]
    events = store.sync.events(mine)
    moved = [
        seq
        for _, seq in mine
        if seq not in theirs or _what(theirs[seq]) != _what(events[machine, seq])
    ]
    new = store.machine.renew(moved)
    return (
        f"{transport.where(machine)} holds events of machine {machine} that this database does "
        "not have: it was restored from a backup or copied from another machine, and the two "
        f"must not share a machine id. This database is now machine {new} ({len(moved)} of its "
        "events renumbered under it); the events there merge as another machine's. "
        "Nothing was lost"
    )


def send(plan: Plan) -> int:
    """Step 2: add the outgoing events to this machine's own origin; how many were added."""
    own, transport = plan.machine, plan.transport
    position, carried = plan.reached.get(own, (None, Carried()))
    events = plan.outgoing
    try:
        after = transport.write(own, events, position)
    except OSError as exc:
        raise SyncError(f"{transport.where(own)}: cannot write it ({exc.strerror or exc})") from exc
    if after != position:  # read past them next time: they are there
        plan.reached[own] = (after, _looking(carried.add(events), plan.looked_at))
    elif plan.looked_at != carried.looked_at and position is not None:
        plan.reached[own] = (position, _looking(carried, plan.looked_at))
    return len(plan.outgoing)


def _looked_at(
    carried: Carried, outside: Sequence[Outgoing], natives: Collection[str]
) -> dict[str, int]:
    """Of each of the ``natives``, the row of the local log through which its events were
    looked at once the ``outside`` ones are (what ``carried`` says, or the last of them)."""
    rows = dict(carried.looked_at)
    for event in outside:
        if event.origin in natives and event.row > rows.get(event.origin, 0):
            rows[event.origin] = event.row
    return rows


def _looking(carried: Carried, rows: Mapping[str, int]) -> Carried:
    """``carried`` looking at the native origins through ``rows``: the numbers it held of
    them go (each is of a row through there, logged before it)."""
    numbers = {o: runs for o, runs in carried.numbers.items() if o not in rows}
    return Carried(numbers, dict(rows))


def receive(store: Store, plan: Plan) -> Merged:
    """Step 3: add the incoming events to the local log and re-derive the cards they touch,
    in short transactions (see :meth:`Store.log.add_events`); then keep where each origin was
    read to. What it did."""
    if plan.forgotten:
        store.machine.forget(plan.forgotten)
    merged = store.log.add_events(plan.incoming, now=plan.now)
    reached = {
        origin: (position, msgspec.json.encode(carried).decode())
        for origin, (position, carried) in plan.reached.items()
        if position is not None
    }
    gone = [*plan.gone, *(o for o in plan.reached if o not in reached and o in plan.saved)]
    changed = {o: kept for o, kept in reached.items() if plan.saved.get(o) != kept}
    if changed or gone:  # a sync with nothing new writes nothing either
        store.sync.save(plan.transport.name, plan.machine, changed, gone)
    return merged


def sync(store: Store, transport: Transport, ahead: Ahead | None = None) -> SyncReport:
    """The three steps, one after the other (with what :func:`read_ahead` gave, if any)."""
    plan = survey(store, transport, ahead=ahead)
    sent = send(plan)
    merged = receive(store, plan)
    read = [e.event for e in plan.outgoing if e.event is not None]  # no answer is an action
    actions_sent = _actions(read)
    return SyncReport(
        sent - actions_sent,
        merged.added - merged.actions,
        len(merged.keys),
        len(plan.machines),
        (*plan.warnings, *merged.warnings),
        transport.where(plan.machine),
        actions_sent,
        merged.actions,
        sum(1 for e in read if isinstance(e, CardActionEvent) and e.value is not None),
        merged.settings,
    )
