"""The collection's media folder as a transport of the event stream
(:mod:`zerodrill.srs.sync.transport`), meant to replace the note type of
:mod:`.collection_transport` (not yet used by ``anki sync``).

Why media: a note type travels whole, so every sync sends a machine's whole log again (0.5 MB
each way for 10^5 events, ``tests/bench/bench_anki_stream.py``), and the user sees it in the
note-type list. Anki's media sync (AnkiWeb's by the same protocol) sends a file once, to every
device; Check Media never calls a file whose name starts with ``_`` unused, and no note
refers to these, so the user never meets them.

Each write is a file of its own that never changes: ``_zerodrill-<machine>-<first seq>-<last
seq>.jsonl``, one event a line as the folder's log files hold them
(:mod:`zerodrill.srs.sync.wire`). An origin's log is its files in the order of their numbers.
A position is ``<files read>:<digest of their names>``: files being immutable, a position
whose files are no longer the first ones (one deleted, or an older one arrived late) reads
the origin from its start; the store takes each event once, by identity. A file is
untrusted like any log file: a line that is not an event is skipped, with one warning. A file
may hold other machines' events: those its machine relays (had from a folder).

Left before ``anki sync`` uses it (tried: the stream tests of tests/test_anki_sync.py pass
but the dry run's): the run's first server sync also syncs the media, so that other
machines' files are there to read; ``workcopy.put_back`` gives the media folder a later time
when it moves a file in (Anki's media sync looks for new files only in a folder whose time,
in whole seconds, changed since its last look, which may be this very second); and the dry
run's read-only look at the server (:mod:`.peek`) fetches the ``_zerodrill-`` files the
server has after the collection's last media sync, through the media protocol.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from zerodrill.atomic_write import write_atomic
from zerodrill.srs.anki_import import ORIGIN as ANKI_ORIGIN
from zerodrill.srs.sync.logfile import MAX_LINE_CHARS
from zerodrill.srs.sync.transport import Event, Page
from zerodrill.srs.sync.wire import ORIGIN_RE, BadLine, parse_line
from zerodrill.words import plural

PREFIX = "_zerodrill-"
_NAME_RE = re.compile(
    rf"{PREFIX}(?P<origin>{ORIGIN_RE.pattern})-(?P<first>[0-9]{{1,19}})-(?P<last>[0-9]{{1,19}})"
    r"\.jsonl"
)
#: A file larger than this is not one zerodrill wrote (a write is one run's events).
MAX_FILE_BYTES = 64 * 1024 * 1024


class MediaTransport:
    """Writes into ``folder`` (the open collection's media folder, a work copy's included);
    reads it and ``also`` (the collection's own, when ``folder`` is a work copy's). ``name``
    tells this collection's positions in the store from another's."""

    def __init__(self, folder: Path, name: str, also: Sequence[Path] = ()) -> None:
        self.folder = folder
        self.folders = (folder, *also)
        self.name = f"anki-media:{name}"
        self.title = "Anki's media"
        # Answers given in Anki are in its revlog, which every terminal reads, under the same
        # identity: carried twice, they would double a log the size of the user's history.
        self.native = frozenset({ANKI_ORIGIN})
        #: Whether a write added a file (Anki's media sync then has something to send).
        self.changed = False

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
            path = self._path(name)
            try:
                if path.stat().st_size > MAX_FILE_BYTES:
                    raise OSError("too large")
                text = path.read_bytes().decode("utf-8", errors="replace")
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

    def write(self, origin: str, events: Sequence[Event], position: str | None) -> str | None:
        if not events:
            return position
        names = self._names(origin)
        just_read = _reached(names, position) == len(names)
        seqs = [event.seq for event in events]
        name = f"{PREFIX}{origin}-{min(seqs)}-{max(seqs)}.jsonl"
        if name not in names:  # the same numbers are the same events: written once
            text = "".join(event.to_json() + "\n" for event in events)
            write_atomic(self.folder / name, text.encode("utf-8"), make_folder=True)
            self.changed = True
            names = self._names(origin)
        return _position(names) if just_read else position

    def _files(self) -> dict[str, tuple[str, int, int]]:
        found: dict[str, tuple[str, int, int]] = {}
        for folder in self.folders:
            try:
                entries = list(folder.iterdir())
            except OSError:
                continue
            for path in entries:
                match = _NAME_RE.fullmatch(path.name)
                if match and path.name not in found:
                    origin, first, last = match["origin"], match["first"], match["last"]
                    found[path.name] = (origin, int(first), int(last))
        return found

    def _names(self, origin: str) -> list[str]:
        """``origin``'s files, in the order of their numbers."""
        files = self._files()
        mine = [name for name, (o, _, _) in files.items() if o == origin]
        return sorted(mine, key=lambda name: (files[name][1], files[name][2], name))

    def _path(self, name: str) -> Path:
        for folder in self.folders:
            if (folder / name).is_file():
                return folder / name
        return self.folder / name


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
