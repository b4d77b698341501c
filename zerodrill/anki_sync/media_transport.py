"""The collection's media folder as ``anki sync``'s transport of the event stream
(:mod:`zerodrill.srs.sync.transport`): every machine's grades, undos and card actions, with
their identity, so that terminals on ``anki sync`` alone converge with each other, the phone
and the machines on a folder.

Why media: Anki's media sync (AnkiWeb's by the same protocol) sends a file once, to every
device, where a note type would travel whole at every change (0.5 MB each way for 10^5
events, ``tests/bench/bench_anki_stream.py``) and show in the user's note-type list. Check
Media never calls a file whose name starts with ``_`` unused, and no note refers to these,
so the user never meets them. The run syncs the media at its start, so that the other
machines' files are there to read, and again at its end (:mod:`.run`, :mod:`.server`); the
dry run fetches the server's files read-only (:mod:`.peek`).

Each write is a file of its own that never changes: ``_zerodrill-<machine>-<first seq>-<last
seq>-<digest>.jsonl``, one event a line as the folder's log files hold them
(:mod:`zerodrill.srs.sync.wire`), the digest that of its bytes (the same events, the same
file; others under the same numbers, another). A file may hold other machines' events: those
its machine relays (had from a folder). A write larger than :data:`_WRITE_BYTES` is split
over several files. An origin's log is its files in the order of their numbers. A position is
``<files read>:<digest of their names>``: files being immutable, a position whose files are
no longer the first ones (one deleted, an older one arrived late) reads the origin from its
start; the store takes each event once, by identity.

A file is untrusted like any log file: only a name of exactly that form is read, only a
regular file (never through a link, which could lead out of the folder), at most
:data:`MAX_FILE_BYTES`; a line that is not an event is skipped alone, with one warning.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from zerodrill.atomic_write import write_atomic
from zerodrill.srs.anki_import import ORIGIN as ANKI_ORIGIN
from zerodrill.srs.card_actions import CardActionEvent
from zerodrill.srs.sync.logfile import MAX_LINE_CHARS, open_regular
from zerodrill.srs.sync.transport import Event, Line, Page
from zerodrill.srs.sync.wire import ORIGIN_RE, BadLine, parse_line
from zerodrill.words import plural

PREFIX = "_zerodrill-"
_NUMBER = r"(?:0|[1-9][0-9]{0,18})"
_NAME_RE = re.compile(
    rf"{PREFIX}(?P<origin>{ORIGIN_RE.pattern})-(?P<first>{_NUMBER})-(?P<last>{_NUMBER})"
    r"-[0-9a-f]{12}\.jsonl"
)
#: A file larger than this is not one zerodrill wrote (it writes at most :data:`_WRITE_BYTES`
#: of events a file, and a line is at most :data:`MAX_LINE_CHARS`).
MAX_FILE_BYTES = 64 * 1024 * 1024
#: What one file of a write holds at most: far below the largest file Anki's media sync sends
#: (100 MB), and a machine's whole log, the first time, spreads over a few.
_WRITE_BYTES = 8 * 1024 * 1024


def is_event_file(name: str) -> bool:
    """Whether ``name`` is that of a file of events (:data:`PREFIX`), exactly."""
    return _NAME_RE.fullmatch(name) is not None


class MediaTransport:
    """Writes into ``folder`` (the open collection's media folder, a work copy's included);
    reads it and ``also`` (the collection's own, when ``folder`` is a work copy's). ``name``
    tells this collection's positions in the store from another's."""

    def __init__(self, folder: Path, name: str, also: Sequence[Path] = ()) -> None:
        self.folder = folder
        self.folders = (folder, *also)
        self.name = f"anki-media:{name}"
        self.title = "Anki's media"
        self.native_origins = frozenset({ANKI_ORIGIN})

    def native(self, event: Event) -> bool:
        """Answers given in Anki are in its revlog, which every terminal reads, under the same
        identity: carried twice, they would double a log the size of the user's history. But
        what a terminal reads from the card row beside the revlog (FSRS's memory state; a due
        date set there) depends on when it reads: the first reader's event travels, and a
        later reader, which takes other machines' events before Anki's, keeps that one."""
        if event.origin != ANKI_ORIGIN:
            return False
        if isinstance(event, CardActionEvent):
            return False  # a due date set or a Forget: rare, and read from the card
        return event.decided is None or event.decided.stability is None

    def origins(self) -> list[str]:
        return sorted({origin for origin, _, _ in self._files().values()})

    def where(self, origin: str) -> str:
        return f"Anki's media files {PREFIX}{origin}-*.jsonl"

    def read(self, origin: str, position: str | None) -> Iterator[Page]:
        names = self._names(origin)
        reached = _reached(names, position)
        events: list[Event] = []
        bad = 0
        unreadable: list[str] = []
        for name in names[reached or 0 :]:
            try:
                text = self._read(name)
            except OSError:
                unreadable.append(name)
                continue
            for line in text.splitlines():
                # Another machine's event is one this machine relays (had from a folder).
                try:
                    if len(line) > MAX_LINE_CHARS:
                        raise BadLine("too long")
                    events.append(parse_line(line))
                except BadLine:
                    bad += 1
        warnings = [f"{self.where(origin)}: {plural(bad, 'damaged line')} skipped"] if bad else []
        warnings += [f"Anki's media file {name} cannot be read; skipped" for name in unreadable]
        yield Page(
            machine=origin,
            events=events,
            position=_position(names),
            restarted=position is not None and reached is None,
            warnings=warnings,
        )

    def write(self, origin: str, events: Sequence[Line], position: str | None) -> str | None:
        if not events:
            return position
        names = self._names(origin)
        just_read = _reached(names, position) == len(names)
        for part, data in _parts(events):
            seqs = [event.seq for event in part]
            digest = hashlib.sha256(data).hexdigest()[:12]
            name = f"{PREFIX}{origin}-{min(seqs)}-{max(seqs)}-{digest}.jsonl"
            if name not in names:  # the same events: written once
                write_atomic(self.folder / name, data, make_folder=True)
        names = self._names(origin)
        return _position(names) if just_read else position

    def _files(self) -> dict[str, tuple[str, int, int]]:
        found: dict[str, tuple[str, int, int]] = {}
        for folder in self.folders:
            try:
                entries = os.listdir(folder)
            except OSError:
                continue
            for name in entries:
                # A collection's media folder holds the user's thousands of pictures and sounds.
                match = _NAME_RE.fullmatch(name) if name.startswith(PREFIX) else None
                if match and name not in found:
                    found[name] = (match["origin"], int(match["first"]), int(match["last"]))
        return found

    def _names(self, origin: str) -> list[str]:
        """``origin``'s files, in the order of their numbers."""
        files = self._files()
        mine = [name for name, (o, _, _) in files.items() if o == origin]
        return sorted(mine, key=lambda name: (files[name][1], files[name][2], name))

    def _read(self, name: str) -> str:
        """The text of the file ``name`` in the first folder that has it. ``OSError`` if it
        is not a regular file (a link, a folder...), is too large, or cannot be read."""
        for folder in self.folders:
            try:
                fd = open_regular(folder / name, os.O_RDONLY)
            except FileNotFoundError:
                continue
            with os.fdopen(fd, "rb") as file:
                data = file.read(MAX_FILE_BYTES + 1)
            if len(data) > MAX_FILE_BYTES:
                raise OSError("too large")
            return data.decode("utf-8", errors="replace")
        raise FileNotFoundError(name)


def _parts(events: Sequence[Line]) -> Iterator[tuple[Sequence[Line], bytes]]:
    """``events`` in runs of at most :data:`_WRITE_BYTES` of lines, each with its lines."""
    data = "".join([f"{event.line}\n" for event in events]).encode()
    if len(data) <= _WRITE_BYTES:  # most writes: one file
        yield events, data
        return
    part: list[Line] = []
    lines: list[bytes] = []
    size = 0
    for event in events:
        line = f"{event.line}\n".encode()
        if part and size + len(line) > _WRITE_BYTES:
            yield part, b"".join(lines)
            part, lines, size = [], [], 0
        part.append(event)
        lines.append(line)
        size += len(line)
    if part:
        yield part, b"".join(lines)


def _position(names: Sequence[str]) -> str:
    digest = hashlib.sha256("\n".join(names).encode()).hexdigest()
    return f"{len(names)}:{digest[:32]}"


def _reached(names: Sequence[str], position: str | None) -> int | None:
    """How many of ``names`` ``position`` read (0 without one); None if they are no longer
    the files it read."""
    if position is None:
        return 0
    count, _, _ = position.partition(":")
    if not count.isdigit() or int(count) > len(names):
        return None
    return int(count) if _position(names[: int(count)]) == position else None
