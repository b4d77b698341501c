"""One machine's review log file in the sync folder: the format, read and written safely.

A log file is ``zerodrill-<origin>.jsonl``: UTF-8 JSON Lines. Its first line is a header,
``{"zerodrill": "review-log", "version": 1, "origin": "<machine id>"}``; every other line is
one event of any kind (:mod:`.wire`): the format's version is unchanged since card actions
joined, as a reader from before them skips those lines alone (as damaged, with its one warning
for the file) and reads every review.

Only the machine named in the file name writes it, and only by adding lines at its end
(:func:`append_log`; a new file is written whole beside its name and renamed in). A reader
takes complete lines only, so it never sees half of one being added; it reads a file from
where it last stopped (:func:`read_pages` from a :class:`Cursor`), and again from its start
when the file is no longer the one it read.

A sync tool may still deliver a file half-way (Syncthing, Dropbox and network shares copy
byte ranges), and a crash may cut the line being added: whatever follows the last newline
is a line still on its way, and is left for the next sync. A file that is not what zerodrill
writes, or from a newer zerodrill, is skipped with one warning; a damaged line is skipped
alone, the lines after it read as usual, with one warning for the file. None of these stop
the other files being read.

The folder is other people's ground (anyone who can write to it, or a broken sync tool): only
regular files are read, never through a link, FIFO or device, each within :data:`MAX_FILE_BYTES`
and each line within :data:`MAX_LINE_CHARS`; the temporary file is created anew
(``O_EXCL|O_NOFOLLOW``), so a link planted at its name is never written through.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from msgspec import Struct, field

from zerodrill.atomic_write import TEMP_SUFFIX, write_atomic
from zerodrill.srs.card_actions import CardActionEvent
from zerodrill.srs.sync.wire import BadLine, LogEntry, origin_id, parse_line

try:
    import fcntl
except ImportError:  # Windows: a machine's syncs there do not take turns
    fcntl = None  # type: ignore[assignment]

#: The version this zerodrill writes and reads; a file with a higher one is skipped.
FORMAT_VERSION = 1
MAGIC = "review-log"
PREFIX = "zerodrill-"
SUFFIX = ".jsonl"
#: A review line is under 200 bytes but for its key: a million of them fit, and a file past
#: this is not a log zerodrill wrote.
MAX_FILE_BYTES = 256 * 1024 * 1024
#: Three times the longest line a review with the longest key
#: (:data:`~.wire.MAX_KEY_CHARS`) makes.
MAX_LINE_CHARS = 64 * 1024


def file_name(origin: str) -> str:
    return f"{PREFIX}{origin}{SUFFIX}"


def header(origin: str) -> str:
    record = {"zerodrill": MAGIC, "version": FORMAT_VERSION, "origin": origin}
    return json.dumps(record, separators=(",", ":"))


# -- reading: the whole file, or what was added since a cursor --------------------------------

#: Bytes at each end of what was read that a :class:`Cursor` keeps a digest of: a line or two.
EDGE = 512
#: Lines are parsed about this many bytes at a time: what one page's events hold in memory.
PAGE_BYTES = 1 << 20


class Cursor(Struct, frozen=True):
    """Where a read of a log file stopped: its first ``offset`` bytes, ``lines`` complete lines
    of which the first is the header naming ``machine``, were read.

    ``head`` and ``tail`` are digests of the first and of the last :data:`EDGE` bytes read. A
    file that still has them is the one read, grown: a zerodrill only ever adds lines, and a
    sync tool that delivers a file anew delivers the same bytes. One that has not was replaced,
    rewritten or cut, and is read again from its start. Its inode and times tell nothing, as a
    sync tool gives every copy new ones.
    """

    offset: int
    lines: int
    machine: str
    head: str
    tail: str


class LogPage(Struct):
    """A run of complete lines read from a log file, and where the read then stood."""

    #: The events, in file order.
    events: list[LogEntry] = field(default_factory=list)
    #: The damaged lines skipped, as (line number, what is wrong).
    damaged: list[tuple[int, str]] = field(default_factory=list)
    #: Where to go on from after these lines; None while the file has no complete header.
    cursor: Cursor | None = None
    #: Read from the start although a cursor was given: the file is not the one it read.
    restarted: bool = False
    #: Why the file cannot be taken at all (the page is then its only one, and empty).
    problem: str | None = None


def damaged_warning(path: Path, damaged: list[tuple[int, str]]) -> str | None:
    """One line for the user about the damaged lines of a file skipped; None if there were none."""
    if not damaged:
        return None
    number, why = damaged[0]
    more = len(damaged) - 1
    others = f" (and {more} more damaged {'line' if more == 1 else 'lines'})" if more else ""
    return f"{path}:{number}: damaged review line ({why}); skipped{others}"


class LogFile(Struct):
    """What could be read of one log file, whole (:func:`read_log`)."""

    path: Path
    #: The writer the header names; None if the header has not arrived yet.
    origin: str | None = None
    entries: list[LogEntry] = field(default_factory=list)
    #: The complete lines, header included, as they are in the file.
    text: str = ""
    #: Why the file could not be taken at all; None if it was read.
    problem: str | None = None
    #: The damaged lines skipped, as (line number, what is wrong), in file order.
    damaged: list[tuple[int, str]] = field(default_factory=list)
    #: The card actions (suspend, bury, flag, mark, and their undos) among the lines.
    actions: list[CardActionEvent] = field(default_factory=list)

    @property
    def warning(self) -> str | None:
        """One line for the user when the file, or some of its lines, were skipped."""
        if self.problem is not None:
            return f"{self.path}{self.problem}; skipped"
        return damaged_warning(self.path, self.damaged)


def read_log(path: Path) -> LogFile:
    """The whole of ``path`` up to its last complete line, at once (:func:`read_pages` from
    the start); never raises for what the file holds."""
    result = LogFile(path)
    try:
        data = _read_after(path, None)[0]
    except OSError:
        data = b""  # read_pages says why, as a problem
    for page in read_pages(path):
        if page.problem is not None:
            result.problem = page.problem
            return result
        result.origin = page.cursor.machine if page.cursor is not None else None
        for event in page.events:
            if isinstance(event, CardActionEvent):
                result.actions.append(event)
            else:
                result.entries.append(event)
        result.damaged += page.damaged
    if result.origin is not None:
        result.text = data[: data.rfind(b"\n") + 1].decode("utf-8", "surrogateescape")
    return result


def read_pages(path: Path, since: Cursor | None = None) -> Iterator[LogPage]:
    """The complete lines of ``path`` after ``since`` (all of them without it, or if the file
    is no longer the one ``since`` read), about :data:`PAGE_BYTES` of them a page; at least one
    page. Never raises for what the file holds.

    Only the :data:`EDGE` bytes at each end of what ``since`` read are read again, to tell the
    file is the same; the lines after it are read from the file once, and parsed a page at a
    time. A file that vanished since it was listed reads as empty; anything but a regular file
    (a link, even to a file, a FIFO, a device, a folder) is not read.
    """
    try:
        data, base, head, restarted = _read_after(path, since)
    except FileNotFoundError:
        yield LogPage(restarted=since is not None)
        return
    except NotRegular as exc:
        yield LogPage(problem=f": cannot read it ({exc})")
        return
    except TooLarge:
        cap = MAX_FILE_BYTES // 2**20
        yield LogPage(problem=f": larger than {cap} MiB, not a zerodrill review log")
        return
    except OSError as exc:
        yield LogPage(problem=f": cannot read it ({exc.strerror or exc})")
        return
    end = data.rfind(b"\n") + 1
    if since is None or restarted:
        first = data.find(b"\n")
        if first < 0:
            yield LogPage(restarted=restarted)  # empty, or its header still on its way
            return
        try:
            machine = _header_machine(data[:first])
        except BadLine as exc:
            yield LogPage(problem=str(exc))
            return
        pos, number = first + 1, 1
    else:
        pos, number, machine = since.offset - base, since.lines, since.machine

    def cursor(stop: int) -> Cursor:
        offset, tail = base + stop, data[max(0, stop - EDGE) : stop]
        return Cursor(offset, number, machine, _digest(head[: min(offset, EDGE)]), _digest(tail))

    page = LogPage(cursor=cursor(pos), restarted=restarted)
    while pos < end:
        stop = data.find(b"\n", pos + PAGE_BYTES - 1) + 1 or end
        for line in _decoded(data[pos : min(stop, end)]):
            number += 1
            try:
                if isinstance(line, BadLine):
                    raise line
                if len(line) > MAX_LINE_CHARS:
                    raise BadLine(f"longer than {MAX_LINE_CHARS:,} characters")
                page.events.append(parse_line(line))
            except BadLine as exc:
                page.damaged.append((number, str(exc)))
        pos = min(stop, end)
        page.cursor = cursor(pos)
        if pos < end:
            yield page
            page = LogPage(cursor=page.cursor)
    yield page


def _header_machine(line: bytes) -> str:
    """The machine id a header line names; :class:`BadLine` saying why the file is no log."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise BadLine(": not a zerodrill review log (not UTF-8)") from None
    try:
        head = json.loads(text) if len(text) <= MAX_LINE_CHARS else None
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
        head = None
    if not isinstance(head, dict) or head.get("zerodrill") != MAGIC:
        raise BadLine(": not a zerodrill review log")
    version = head.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise BadLine(": not a zerodrill review log (no format version)")
    if version > FORMAT_VERSION:
        raise BadLine(
            f": written by a newer zerodrill (log format {version}; this zerodrill reads up "
            f"to {FORMAT_VERSION}): upgrade zerodrill to merge it"
        )
    try:
        return origin_id(head.get("origin"))
    except BadLine:
        raise BadLine(": not a zerodrill review log (no machine id)") from None


def _decoded(chunk: bytes) -> list[str | BadLine]:
    """The lines of ``chunk`` (complete ones, each ending in a newline), as text; a line that
    is not UTF-8 as the :class:`BadLine` it is."""
    # Split on newlines only: str.splitlines also splits inside a line, at \x1c or \u2028.
    try:
        return list(chunk.decode("utf-8").split("\n")[:-1])
    except UnicodeDecodeError:
        pass
    lines: list[str | BadLine] = []
    for raw in chunk.split(b"\n")[:-1]:
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            lines.append(BadLine("not UTF-8"))
    return lines


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _read_after(path: Path, since: Cursor | None) -> tuple[bytes, int, bytes, bool]:
    """``(data, base, head, restarted)``: the bytes of ``path`` from ``base`` on (the
    :data:`EDGE` bytes before ``since``'s offset, to check them, and what follows), its first
    :data:`EDGE` bytes, and whether it was read from the start because it is not the file
    ``since`` read."""
    fd = open_regular(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        if size > MAX_FILE_BYTES:
            raise TooLarge(str(path))
        if since is not None and size >= since.offset:
            base = max(0, since.offset - EDGE)
            head = _read_at(fd, 0, EDGE)
            data = _read_from(fd, base, MAX_FILE_BYTES - base)
            if (
                len(data) >= since.offset - base
                and _digest(head[: min(since.offset, EDGE)]) == since.head
                and _digest(data[: since.offset - base]) == since.tail
            ):
                return data, base, head, False
        data = _read_from(fd, 0, MAX_FILE_BYTES)
        return data, 0, data[:EDGE], since is not None
    finally:
        os.close(fd)


def _read_from(fd: int, start: int, limit: int) -> bytes:
    """The bytes of ``fd`` from ``start`` on, at most ``limit`` of them (:class:`TooLarge`
    past that: the file grew while it was read)."""
    data = _read_at(fd, start, limit + 1)
    if len(data) > limit:
        raise TooLarge(f"more than {limit} bytes")
    return data


def _read_at(fd: int, start: int, count: int) -> bytes:
    """Up to ``count`` bytes of ``fd`` from ``start`` on (fewer at its end)."""
    os.lseek(fd, start, os.SEEK_SET)
    chunks = []
    while count > 0:
        chunk = os.read(fd, min(1 << 20, count))
        if not chunk:
            break
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


class NotRegular(OSError):
    """A name in the folder that is not a regular file (a link, FIFO, device or folder)."""


class TooLarge(OSError):
    """A file past the size it may have."""


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a link, not a file"
    if stat.S_ISDIR(mode):
        return "a folder, not a file"
    if stat.S_ISFIFO(mode):
        return "a FIFO, not a file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a file"
    return "not a regular file"


def open_regular(path: Path, flags: int) -> int:
    """A descriptor of the regular file at ``path``, opened with ``flags``.

    :class:`NotRegular` for anything else, looked at without following a link or opening a
    FIFO (which would wait for a writer); the check is made again on the file opened, in case
    the name was swapped. Other ``OSError`` as it comes.
    """
    mode = os.lstat(path).st_mode
    if not stat.S_ISREG(mode):
        raise NotRegular(_kind(mode))
    flags |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(_kind(mode))
    except BaseException:
        os.close(fd)
        raise
    return fd


# -- writing: only this machine's own file, only by adding lines ------------------------------


def write_log(path: Path, origin: str, kept: str, new: Iterable[LogEntry]) -> int:
    """Write ``path`` whole as ``kept`` (complete lines, or "" for a new file, which gets its
    header) followed by the lines of ``new``; how many were added.

    Written by :func:`~zerodrill.atomic_write.write_atomic`: whole beside its final name,
    flushed to disk, then renamed into place, so a reader, or a crash, sees the old file or
    the new one. ``OSError`` if it cannot be done; the old file is then as it was.
    """
    lines = [entry.to_json() + "\n" for entry in new]
    _write_whole(path, origin, kept.encode("utf-8", "surrogateescape"), "".join(lines).encode())
    return len(lines)


def _write_whole(path: Path, origin: str, kept: bytes, lines: bytes) -> bytes:
    body = (kept or (header(origin) + "\n").encode()) + lines
    write_atomic(path, body, make_folder=False)
    return body


def append_log(path: Path, origin: str, new: Sequence[str], after: Cursor | None) -> Cursor | None:
    """Add the lines ``new`` (events' lines, :mod:`.wire`, without their newline) to this
    machine's file at ``path``, which was read up to ``after`` (None: not read, or not there);
    where to read it from next: past the lines if the file was just what ``after`` read, else
    ``after``. A file not there is written whole, with its header, even with no lines to add
    (the other machines then count this one).

    The lines go at the end in one write, flushed to disk (``fsync``) before this returns: no
    line there is ever written again. A crash half-way leaves a cut last line, which readers
    leave for later and the next append cuts off first (its events, in no file, are sent
    again). This machine's syncs take turns at it (an exclusive lock). A file that is no
    more than a cut header, or that is linked elsewhere (a hard link planted in the folder,
    which adding to would write through to the other name), is written anew instead, beside
    it, and renamed in.
    """
    lines = "".join(f"{line}\n" for line in new).encode("utf-8")
    try:
        fd = open_regular(path, os.O_RDWR | os.O_APPEND)
    except FileNotFoundError:
        body = _write_whole(path, origin, b"", lines)
        return Cursor(len(body), 1 + len(new), origin, _digest(body[:EDGE]), _digest(body[-EDGE:]))
    try:
        if not lines:
            return after
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        end = _complete_end(fd, size)
        if os.fstat(fd).st_nlink != 1 or end == 0:
            _write_whole(path, origin, _read_from(fd, 0, MAX_FILE_BYTES)[:end], lines)
            return after
        if end < size:
            os.ftruncate(fd, end)
        written = 0
        while written < len(lines):
            written += os.write(fd, lines[written:])
        os.fsync(fd)
        if after is None or after.offset != end:
            return after
        offset = end + len(lines)
        head, tail = _read_at(fd, 0, EDGE), _read_at(fd, max(0, offset - EDGE), EDGE)
        return Cursor(
            offset,
            after.lines + len(new),
            after.machine,
            _digest(head[: min(offset, EDGE)]),
            _digest(tail),
        )
    finally:
        os.close(fd)


def _complete_end(fd: int, size: int) -> int:
    """Where the last complete line of ``fd`` (``size`` bytes) ends; 0 if it has none."""
    stop = size
    while stop > 0:
        start = max(0, stop - 8 * EDGE)
        newline = _read_at(fd, start, stop - start).rfind(b"\n")
        if newline >= 0:
            return start + newline + 1
        stop = start
    return 0


def temp_path(path: Path, pid: int, tag: str = "00000000") -> Path:
    """A name ``path`` is written as before it is renamed into place, as
    :func:`zerodrill.atomic_write.open_temp` draws them (``tag`` is the random part): a dot
    name no reader takes for a log, one per process and write."""
    return path.with_name(f".{path.name}.{pid}.{tag}{TEMP_SUFFIX}")


def remove_stale_temps(folder: Path, origin: str) -> list[Path]:
    """Remove the temporary files a killed sync of this machine left in ``folder`` (each one
    a sync tool would copy to every machine); the ones removed.

    A temporary file names the process that wrote it: one whose process is gone is stale.
    Only this machine's own names are touched, and only regular files among them.
    """
    pattern = re.compile(
        rf"\.{re.escape(file_name(origin))}\.([0-9]{{1,10}})(?:\.[0-9a-f]{{1,32}})?"
        + re.escape(TEMP_SUFFIX)
    )
    removed = []
    for entry in folder.iterdir():
        match = pattern.fullmatch(entry.name)
        if match is None or _running(int(match.group(1))):
            continue
        try:
            if stat.S_ISREG(os.lstat(entry).st_mode) or stat.S_ISLNK(os.lstat(entry).st_mode):
                entry.unlink()
                removed.append(entry)
        except FileNotFoundError:
            continue
    return removed


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine (our own process is writing no file now:
    a temporary file with its number was left by an earlier process with the same id)."""
    if pid == os.getpid():
        return False
    if os.name != "posix":
        return True  # no safe way to ask: os.kill would end the process on Windows
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OverflowError:
        return False  # no process has such a number: not a name a sync of ours made
    except PermissionError:
        return True
    return True


def log_files(folder: Path) -> list[Path]:
    """The review logs in ``folder``, by name: every machine's, and copies a sync tool made of
    one on a conflict (``zerodrill-<id>.sync-conflict-....jsonl``), which merge like any other.
    """
    return sorted(
        entry
        for entry in folder.iterdir()
        if entry.name.startswith(PREFIX) and entry.name.endswith(SUFFIX)
    )
