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
not arrived yet waits for a later sync.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from zerodrill.errors import UserError
from zerodrill.srs.events import Identity
from zerodrill.srs.store import Merged, Store
from zerodrill.srs.sync.logfile import (
    LogEntry,
    LogFile,
    file_name,
    log_files,
    read_log,
    write_log,
)


class SyncError(UserError):
    """The folder cannot be used (missing, not a folder, not writable): one line."""


@dataclass(slots=True)
class Plan:
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


@dataclass(frozen=True, slots=True)
class SyncReport:
    sent: int
    received: int
    cards: int
    machines: int
    warnings: tuple[str, ...]
    own_file: Path


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
    """Step 1: read the folder's log files and the local log; what to send and receive."""
    check_folder(folder)
    origin = store.machine
    own_path = folder / file_name(origin)
    try:
        paths = log_files(folder)
    except OSError as exc:
        raise SyncError(f"{folder}: cannot list it ({exc.strerror or exc})") from exc
    plan = Plan(folder, origin, LogFile(own_path))
    in_files: set[Identity] = set()
    found: dict[Identity, LogEntry] = {}
    for path in paths:
        log = read_log(path)
        if path == own_path:
            plan.own = log
            if log.origin not in (None, origin) or (log.problem and not log.partly):
                # Not ours to write over: one from a newer zerodrill, or not a log at all.
                why = log.problem or f": written by machine {log.origin}"
                raise SyncError(
                    f"{own_path}{why}: this machine's log file cannot be added to; move it "
                    "away and sync again"
                )
            if log.warning is not None:
                plan.warnings.append(log.warning)
        else:
            if log.warning is not None:
                plan.warnings.append(log.warning)
            if log.origin is not None:
                plan.machines.add(log.origin)
        for entry in log.entries:
            in_files.add(entry.identity)
            found.setdefault(entry.identity, entry)
    local = {event.identity: event for event in store.events()}
    for identity, entry in found.items():
        mine = local.get(identity)
        if mine is not None and _what(mine) != _what(entry):
            raise SyncError(
                f"{folder}: review {identity[0]}:{identity[1]} there is not this database's "
                f"review with that number: two databases share the machine id {identity[0]} "
                "(was a review database copied from one machine to another?); nothing was "
                "synced"
            )
    plan.outgoing = [entry for ident, entry in local.items() if ident not in in_files]
    incoming = [entry for ident, entry in found.items() if ident not in local]
    # An undo whose review has not arrived waits for a later sync (merging needs the review).
    arriving = {entry.identity for entry in incoming}
    plan.incoming = [
        entry
        for entry in incoming
        if entry.undoes is None or entry.undoes in local or entry.undoes in arriving
    ]
    return plan


def send(plan: Plan) -> int:
    """Step 2: add the outgoing reviews to this machine's file; how many were added."""
    if not plan.outgoing and plan.own.text:
        return 0
    try:
        return write_log(plan.own.path, plan.origin, plan.own.text, plan.outgoing)
    except OSError as exc:
        raise SyncError(f"{plan.own.path}: cannot write it ({exc.strerror or exc})") from exc


def receive(store: Store, entries: Iterable[LogEntry]) -> Merged:
    """Step 3: add ``entries`` to the local log and re-derive the cards they touch, in short
    transactions (see :meth:`Store.add_events`); what it did."""
    return store.add_events(entries)


def sync_folder(store: Store, folder: Path) -> SyncReport:
    """The three steps, one after the other."""
    plan = survey(store, folder)
    sent = send(plan)
    merged = receive(store, plan.incoming)
    warnings = (*plan.warnings, *merged.warnings)
    return SyncReport(
        sent, merged.added, len(merged.keys), len(plan.machines), warnings, plan.own.path
    )
