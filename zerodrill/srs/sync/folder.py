"""``zerodrill sync DIR``'s work: this machine's reviews out to its log file in DIR, every
other file's reviews into the local log, and the cards they touch rebuilt.

A sync is three steps, which the tests interleave between machines as a concurrent sync would:

1. :func:`survey`: read every log file in DIR (up to its last complete line) and the local
   log; decide what to send (local reviews in no file yet: this machine's, and any it holds
   that no file carries, such as reviews imported from Anki) and what to receive (reviews
   in some file that the local log lacks).
2. :func:`send`: write this machine's file anew with those lines added, renamed into place.
   Nothing is merged before this succeeds, so a folder that cannot be written changes nothing.
3. :func:`receive`: add the received events to the local log, keyed by their identity (one
   already there is skipped, so the order of syncs and repeats do not matter), and re-derive
   each affected card from its events, in short transactions that a drill can come between.

Undo entries travel like any review and name what they undo by identity; one whose review has
not arrived yet waits for a later sync. Card actions (suspend, bury, flag, mark, and their
undos) travel beside the reviews in the same files, by the same rules (:func:`_exchange`),
and are added by :meth:`~zerodrill.srs.store.actions.ActionLog.add_events`.

What the folder holds is not trusted (see :mod:`.logfile` for the files and lines): a line
that claims this machine's identity is ignored, as this machine's reviews come from its own
database only; a review another file contradicts keeps the version of its own machine's
file, and the local one wins over both. An undo that can never be added (of an undo, of
another card, a second one) is the store's to skip (:meth:`Store.add_events`). A database
whose own file holds reviews it lacks (a restored backup, a copy) takes a new machine id
before anything else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TypeVar

from msgspec import Struct, field

from zerodrill.errors import UserError
from zerodrill.srs.card_actions import CardActionEvent
from zerodrill.srs.events import Identity
from zerodrill.srs.store import Merged, Store
from zerodrill.srs.sync.logfile import (
    LogEntry,
    LogFile,
    action_unfit,
    file_name,
    log_files,
    read_log,
    remove_stale_temps,
    unfit,
    write_log,
)
from zerodrill.words import plural

#: One kind of event a log file carries: a review (or its undo), or a card action.
_Event = TypeVar("_Event", LogEntry, CardActionEvent)


class SyncError(UserError):
    """The folder cannot be used (missing, not a folder, not writable): one line."""


class Plan(Struct):
    """What one sync will do, as :func:`survey` found it."""

    folder: Path
    origin: str
    #: This machine's own file as read (its complete lines are written on unchanged).
    own: LogFile
    #: Local reviews no file in the folder holds, oldest first.
    outgoing: list[LogEntry] = field(default_factory=list)
    #: Reviews some file holds and the local log lacks (each once).
    incoming: list[LogEntry] = field(default_factory=list)
    #: The other machines whose files were read (origins from the headers).
    machines: set[str] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)
    #: Card actions (suspend, bury, flag, mark) to send and to receive, as reviews.
    outgoing_actions: list[CardActionEvent] = field(default_factory=list)
    incoming_actions: list[CardActionEvent] = field(default_factory=list)


class SyncReport(Struct, frozen=True):
    sent: int
    received: int
    cards: int
    machines: int
    warnings: tuple[str, ...]
    own_file: Path
    #: Card actions (suspend, bury, flag, mark and their undos) sent and newly received.
    actions_sent: int = 0
    actions_received: int = 0


def _what(entry: LogEntry) -> tuple[object, ...]:
    """What makes a review that review. Not its kind: a merge may have logged a grade as the
    same-day repeat it is once the reviews of another machine come before it."""
    return (entry.key, entry.at, entry.grade, entry.undoes)


def check_folder(folder: Path) -> None:
    """:class:`SyncError` unless ``folder`` is a folder zerodrill can list and write in."""
    import os

    if not folder.exists():
        raise SyncError(
            f"{folder}: no such folder (give the folder your sync tool shares between machines)"
        )
    if not folder.is_dir():
        raise SyncError(f"{folder}: not a folder")
    if not os.access(folder, os.R_OK | os.W_OK | os.X_OK):
        raise SyncError(f"{folder}: cannot write to this folder (permission denied)")


def survey(store: Store, folder: Path) -> Plan:
    """Step 1: read the folder's log files and the local log; what to send and receive.

    A database whose own log file holds reviews of its machine id that it lacks (restored
    from a backup, or copied from another machine) first takes a new machine id
    (:func:`_renew_if_shared`), and the survey is made again under it.
    """
    check_folder(folder)
    try:
        paths = log_files(folder)
    except OSError as exc:
        raise SyncError(f"{folder}: cannot list it ({exc.strerror or exc})") from exc
    logs = [read_log(path) for path in paths]
    local, actions = _held(store)
    renewed = _renew_if_shared(store, folder, logs, local, actions)
    if renewed is not None:
        local, actions = _held(store)  # renumbered under the new machine id
    plan = _plan(store.machine, folder, logs, local, actions)
    if renewed is not None:
        plan.warnings.insert(0, renewed)
    return plan


def _held(store: Store) -> tuple[dict[Identity, LogEntry], dict[Identity, CardActionEvent]]:
    """The reviews and the card actions this database holds, by identity."""
    reviews = {event.identity: event for event in store.events()}
    return reviews, {event.identity: event for event in store.actions.events()}


def _renew_if_shared(
    store: Store,
    folder: Path,
    logs: list[LogFile],
    local: dict[Identity, LogEntry],
    actions: dict[Identity, CardActionEvent],
) -> str | None:
    """If this machine's file holds reviews (or card actions) of its id that this database
    lacks, or holds differently, the id is not this database's alone: give it a new one
    (moving to it the events the file does not hold as they are) and say so; else None."""
    origin = store.machine
    own = next((log for log in logs if log.path == folder / file_name(origin)), None)
    if own is None or own.origin != origin:
        return None
    theirs = {e.seq: e for e in own.entries if e.origin == origin}
    their_actions = {e.seq: e for e in own.actions if e.origin == origin}
    if all(
        (mine := local.get((origin, seq))) is not None and _what(mine) == _what(entry)
        for seq, entry in theirs.items()
    ) and all(actions.get((origin, seq)) == event for seq, event in their_actions.items()):
        return None
    moved = [
        seq
        for (o, seq), entry in local.items()
        if o == origin and (seq not in theirs or _what(theirs[seq]) != _what(entry))
    ]
    moved_actions = [
        seq
        for (o, seq), event in actions.items()
        if o == origin and their_actions.get(seq) != event
    ]
    new = store.renew_machine(moved, moved_actions)
    also = f" and {plural(len(moved_actions), 'card action')}" if moved_actions else ""
    return (
        f"{own.path} holds reviews of machine {origin} that this database does not have: "
        "it was restored from a backup or copied from another machine, and the two must not "
        f"share a machine id. This database is now machine {new} ({len(moved)} of its reviews"
        f"{also} renumbered under it); the reviews in {own.path.name} merge as another "
        "machine's. Nothing was lost"
    )


def _plan(
    origin: str,
    folder: Path,
    logs: list[LogFile],
    local: dict[Identity, LogEntry],
    actions: dict[Identity, CardActionEvent],
) -> Plan:
    own_path = folder / file_name(origin)
    plan = Plan(folder, origin, LogFile(own_path))
    for log in logs:
        if log.path == own_path:
            plan.own = log
            if log.origin not in (None, origin) or log.problem:
                # Not ours to write over: one from a newer zerodrill, or not a log at all.
                why = log.problem or f": written by machine {log.origin}"
                raise SyncError(
                    f"{own_path}{why}: this machine's log file cannot be added to; move it "
                    "away and sync again"
                )
        elif log.origin is not None:
            plan.machines.add(log.origin)
        if log.warning is not None:
            plan.warnings.append(log.warning)
    plan.incoming, plan.outgoing = _exchange(
        plan, [(log, log.entries) for log in logs], local, _what, unfit, "review"
    )
    plan.incoming_actions, plan.outgoing_actions = _exchange(
        plan, [(log, log.actions) for log in logs], actions, lambda e: e, action_unfit,
        "card action",
    )  # fmt: skip
    return plan


def _exchange(
    plan: Plan,
    read: list[tuple[LogFile, Sequence[_Event]]],
    local: dict[Identity, _Event],
    what: Callable[[_Event], object],
    unfit_for_log: Callable[[_Event], str | None],
    noun: str,
) -> tuple[list[_Event], list[_Event]]:
    """The events of one kind (reviews, or card actions) to receive and to send, given those
    each file holds and the local ones; its warnings go to ``plan``. Events are the same when
    ``what`` says so.

    This machine's own come from its database only: a line claiming one that the database
    never made, in any file, is ignored (a forged number would otherwise decide the numbers
    of this machine's next events). A line from its origin's own file is taken over a copy in
    another, and the local version over both. None is sent that a reader would skip, and an
    undo whose event has not arrived waits for a later sync; one that can never be added (of
    an undo, of another card, a second one) the store skips alone, with a warning.
    """
    origin, own_path = plan.origin, plan.own.path
    in_files: set[Identity] = set()
    found: dict[Identity, _Event] = {}
    #: Identities taken from their origin's own file, which no other file overrides.
    firsthand: set[Identity] = set()
    for log, events in read:
        forged = 0
        for event in events:
            identity = event.identity
            if event.origin == origin:
                mine = local.get(identity)
                if mine is not None and what(mine) == what(event):
                    in_files.add(identity)
                elif log.path != own_path:
                    forged += 1
                continue
            in_files.add(identity)
            if log.origin == event.origin:
                if identity not in firsthand:
                    found[identity] = event
                    firsthand.add(identity)
            else:
                found.setdefault(identity, event)
        if forged:
            plan.warnings.append(
                f"{log.path}: {plural(forged, 'line')} claiming to be this machine's {noun}s "
                f"(machine {origin}) that this database never made; ignored"
            )
    differing = 0
    incoming = []
    for identity, event in found.items():
        mine = local.get(identity)
        if mine is None:
            incoming.append(event)
        elif what(mine) != what(event):
            differing += 1
    if differing:
        plan.warnings.append(
            f"{plan.folder}: {plural(differing, noun)} there that another {noun} this database "
            "holds by the same number (machine and sequence) contradicts; this database's "
            "are kept"
        )
    outgoing = []
    unsendable = 0
    for identity, event in local.items():
        if identity in in_files:
            continue
        if unfit_for_log(event) is None:
            outgoing.append(event)
        else:
            unsendable += 1
    if unsendable:
        # Written, every machine would skip them, and this one would send them again each time.
        plan.warnings.append(
            f"{plural(unsendable, noun)} in this database that no log file may carry "
            "(a card key no deck has, a time outside the calendar); not sent"
        )
    arriving = {event.identity for event in incoming}
    incoming = [
        event
        for event in incoming
        if event.undoes is None or event.undoes in local or event.undoes in arriving
    ]
    return incoming, outgoing


def send(plan: Plan) -> int:
    """Step 2: add the outgoing reviews and card actions to this machine's file; how many
    reviews were added.

    Temporary files an earlier sync of this machine left when it was killed go first: a sync
    tool would copy them to every machine.
    """
    try:
        remove_stale_temps(plan.folder, plan.origin)
    except OSError:
        pass  # litter, not a reason to stop the sync
    if not plan.outgoing and not plan.outgoing_actions and plan.own.text:
        return 0
    try:
        write_log(
            plan.own.path, plan.origin, plan.own.text, [*plan.outgoing, *plan.outgoing_actions]
        )
    except OSError as exc:
        raise SyncError(f"{plan.own.path}: cannot write it ({exc.strerror or exc})") from exc
    return len(plan.outgoing)


def receive(store: Store, entries: Iterable[LogEntry]) -> Merged:
    """Step 3: add ``entries`` to the local log and re-derive the cards they touch, in short
    transactions (see :meth:`Store.add_events`); what it did."""
    return store.add_events(entries)


def sync_folder(store: Store, folder: Path) -> SyncReport:
    """The three steps, one after the other."""
    plan = survey(store, folder)
    sent = send(plan)
    merged = receive(store, plan.incoming)
    actions = store.actions.add_events(plan.incoming_actions)
    warnings = (*plan.warnings, *merged.warnings, *actions.warnings)
    return SyncReport(
        sent,
        merged.added,
        len(merged.keys),
        len(plan.machines),
        warnings,
        plan.own.path,
        len(plan.outgoing_actions),
        actions.added,
    )
