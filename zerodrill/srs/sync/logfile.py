"""One machine's review log file in the sync folder: the format, read and written safely.

A log file is ``zerodrill-<origin>.jsonl``: UTF-8 JSON Lines. Its first line is a header,
``{"zerodrill": "review-log", "version": 1, "origin": "<machine id>"}``; every other line is
one event, as :meth:`~zerodrill.srs.events.ReviewEvent.to_wire` gives it (``undoes`` as
``[origin, seq]``). Only the machine named in the file name writes it, and only by adding
lines: it writes the whole file anew beside it and renames it into place, so a reader on the
same disk sees the old file or the new one, never a mix.

A sync tool may still deliver a file half-way (Syncthing, Dropbox and network shares copy
byte ranges): whatever follows the last newline is a line still on its way, and is left for
the next sync. A file that is not what zerodrill writes, or from a newer zerodrill, is
skipped with one warning; a damaged line ends the reading of its file there, with one warning.
None of these stop the other files being read.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from zerodrill.srs.events import Identity, ReviewEvent, from_wire

#: The version this zerodrill writes and reads; a file with a higher one is skipped.
FORMAT_VERSION = 1
MAGIC = "review-log"
PREFIX = "zerodrill-"
SUFFIX = ".jsonl"
#: Machine ids and ``anki``: short, and safe in a file name on every system.
ORIGIN_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
#: Far above any deck's keys; a longer one is not zerodrill's.
MAX_KEY_CHARS = 1000
KINDS = frozenset({"grade", "repeat", "undo"})

#: One line of a log file is one event (the wire format is :meth:`ReviewEvent.to_wire`'s).
LogEntry = ReviewEvent


class BadLine(ValueError):
    """A complete line that is not a review zerodrill wrote."""


def file_name(origin: str) -> str:
    return f"{PREFIX}{origin}{SUFFIX}"


def header(origin: str) -> str:
    record = {"zerodrill": MAGIC, "version": FORMAT_VERSION, "origin": origin}
    return json.dumps(record, separators=(",", ":"))


def _int(value: Any, name: str, *, low: int) -> int:
    # bool is an int subclass: true is no sequence number.
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise BadLine(f"{name} must be a whole number of at least {low}")
    return value


def _origin(value: Any) -> str:
    if not isinstance(value, str) or not ORIGIN_RE.fullmatch(value):
        raise BadLine("origin must be a machine id")
    return value


def parse_entry(line: str) -> LogEntry:
    """One review line; :class:`BadLine` saying what is wrong with it."""
    try:
        record = json.loads(line)
    except ValueError as exc:
        raise BadLine("not JSON") from exc
    if not isinstance(record, dict):
        raise BadLine("not a JSON object")
    kind = record.get("kind")
    if kind not in KINDS:
        raise BadLine("kind must be grade, repeat or undo")
    key = record.get("key")
    if not isinstance(key, str) or not key or len(key) > MAX_KEY_CHARS:
        raise BadLine("key must be a card key")
    try:
        at = datetime.fromisoformat(record.get("at"))  # type: ignore[arg-type]
        day = date.fromisoformat(record.get("day"))  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise BadLine("at and day must be an ISO time and date") from exc
    if at.tzinfo is None:
        raise BadLine("at must carry its UTC offset")
    grade, undoes = record.get("grade"), record.get("undoes")
    if kind == "undo":
        if grade is not None:
            raise BadLine("an undo has no grade")
        if not isinstance(undoes, list) or len(undoes) != 2:
            raise BadLine("an undo names the review it undoes as [origin, seq]")
        target: Identity | None = (_origin(undoes[0]), _int(undoes[1], "undoes' seq", low=1))
    else:
        grade = _int(grade, "grade", low=0)
        if grade > 5:
            raise BadLine("grade must be 0-5")
        if undoes is not None:
            raise BadLine("only an undo undoes")
        target = None
    answer_ms = record.get("answer_ms")
    try:
        return from_wire(
            origin=_origin(record.get("origin")),
            seq=_int(record.get("seq"), "seq", low=1),
            key=key,
            kind=kind,
            at=at,
            day=day,
            grade=grade,
            undoes=target,
            answer_ms=_int(answer_ms, "answer_ms", low=0) if answer_ms is not None else None,
        )
    except ValueError as exc:
        raise BadLine(str(exc)) from exc


@dataclass(slots=True)
class LogFile:
    """What could be read of one log file."""

    path: Path
    #: The writer the header names; None if the header has not arrived yet.
    origin: str | None = None
    entries: list[LogEntry] = field(default_factory=list)
    #: The complete lines, header included, as they are in the file (to be kept as they are).
    text: str = ""
    #: Why the file, or its lines from some point on, could not be taken; None if all was.
    problem: str | None = None
    #: Whether the reading stopped at a damaged line (the lines before it were taken).
    partly: bool = False

    @property
    def warning(self) -> str | None:
        """One line for the user when the file, or part of it, was skipped."""
        if self.problem is None:
            return None
        skipped = "the lines from here on are skipped" if self.partly else "skipped"
        return f"{self.path}{self.problem}; {skipped}"


def read_log(path: Path) -> LogFile:
    """Read ``path`` up to its last complete line; never raises for what the file holds.

    A file that vanished since it was listed (renamed over, deleted) reads as empty.
    """
    result = LogFile(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return result
    except OSError as exc:
        result.problem = f": cannot read it ({exc.strerror or exc})"
        return result
    complete = data[: data.rfind(b"\n") + 1]
    try:
        text = complete.decode("utf-8")
    except UnicodeDecodeError:
        result.problem = ": not a zerodrill review log (not UTF-8)"
        return result
    lines = text.splitlines(keepends=True)
    if not lines:
        return result  # empty, or its header still on its way
    try:
        head = json.loads(lines[0])
    except ValueError:
        head = None
    if not isinstance(head, dict) or head.get("zerodrill") != MAGIC:
        result.problem = ": not a zerodrill review log"
        return result
    version = head.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        result.problem = ": not a zerodrill review log (no format version)"
        return result
    if version > FORMAT_VERSION:
        result.problem = (
            f": written by a newer zerodrill (log format {version}; this zerodrill reads up "
            f"to {FORMAT_VERSION}): upgrade zerodrill to merge it"
        )
        return result
    try:
        result.origin = _origin(head.get("origin"))
    except BadLine:
        result.problem = ": not a zerodrill review log (no machine id)"
        return result
    kept = len(lines[0])
    for number, line in enumerate(lines[1:], start=2):
        try:
            result.entries.append(parse_entry(line))
        except BadLine as exc:
            result.problem, result.partly = f":{number}: damaged review line ({exc})", True
            break
        kept += len(line)
    result.text = text[:kept]
    return result


def write_log(path: Path, origin: str, kept: str, new: Iterable[LogEntry]) -> int:
    """Write ``path`` as ``kept`` (the file's complete lines as read, or "" for a new file)
    followed by the lines of ``new``; returns how many were added.

    The file is written whole beside its final name, flushed to disk, then renamed into place:
    a reader, or a crash, sees the old file or the new one. ``OSError`` if it cannot be done;
    the old file is then as it was.
    """
    lines = [entry.to_json() + "\n" for entry in new]
    body = (kept or header(origin) + "\n") + "".join(lines)
    # A dot name no reader takes for a log, one per process: two syncs never share a temp file.
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temp, "w", encoding="utf-8", newline="\n") as out:
            out.write(body)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)
    return len(lines)


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable, where the system allows it (not on Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def log_files(folder: Path) -> list[Path]:
    """The review logs in ``folder``, by name: every machine's, and copies a sync tool made of
    one on a conflict (``zerodrill-<id>.sync-conflict-....jsonl``), which merge like any other.
    """
    return sorted(
        entry
        for entry in folder.iterdir()
        if entry.name.startswith(PREFIX) and entry.name.endswith(SUFFIX)
    )
