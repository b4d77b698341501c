"""Finding deck files, reading their bytes and gathering per-file results; and writing a file
whole or not at all (the parsed-deck cache's entries, the exported packages).

Split from :mod:`zerodrill.deck.load` so that a start from the parsed-deck cache, which needs
only these, never imports (or, without bytecode files, compiles) the YAML-to-model builder.
"""

from __future__ import annotations

import os
import posixpath
import re
import select
import stat
import tempfile
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from zerodrill.deck.model import Deck, Pos, Problem

#: Larger files are refused before parsing: a deck of 10,000 cards is about 3 MiB.
MAX_FILE_BYTES = 16 * 1024 * 1024
DECK_SUFFIXES = (".yaml", ".yml")
#: How long a pipe given as a deck may stay silent before it is refused: a named pipe that
#: nothing writes to would otherwise block ``validate`` and ``show --watch`` for good.
PIPE_WAIT_SECONDS = 2.0
_URL_SCHEME = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:")


@dataclass(frozen=True)
class LoadResult:
    decks: tuple[Deck, ...]
    problems: tuple[Problem, ...]
    #: Every deck file that was read, including those with problems.
    files: tuple[Path, ...]

    @property
    def cards(self) -> int:
        return sum(len(d.cards) for d in self.decks)

    @property
    def ok(self) -> bool:
        return not self.problems


def discover(paths: Iterable[Path]) -> tuple[list[Path], list[Problem]]:
    """Deck files named by ``paths``: files as given, folders searched recursively."""
    files: list[Path] = []
    problems: list[Problem] = []
    for path in paths:
        where = Pos(str(path), 1, 1)
        try:
            if path.is_dir():
                found = sorted(
                    p
                    for p in path.rglob("*")
                    if p.suffix in DECK_SUFFIXES and p.is_file() and not _hidden(p, path)
                )
                if not found:
                    problems.append(Problem(where, "no deck files (*.yaml) here"))
                files.extend(found)
            elif path.exists():
                files.append(path)
            else:
                problems.append(Problem(where, "no such file or folder"))
        except OSError as exc:
            # pathlib answers False for a missing path but raises for one it may not look at
            # (a folder on the way without search permission, say).
            what = "" if exc.filename in (None, str(path)) else f" {exc.filename}"
            problems.append(Problem(where, f"cannot read{what}: {exc.strerror or exc}"))
    # A missing path typed twice is one problem.
    return _once(files), list(dict.fromkeys(problems))


def _once(files: Iterable[Path]) -> list[Path]:
    """``files`` without a file named again, by any spelling (relative or absolute, through a
    symlink, or found in a folder also given): otherwise it would clash with itself."""
    seen: set[object] = set()
    kept: list[Path] = []
    for path in files:
        try:
            st = path.stat()
            identity: object = (st.st_dev, st.st_ino)
        except OSError:  # reported when it is read
            identity = os.path.abspath(path)
        if identity not in seen:
            seen.add(identity)
            kept.append(path)
    return kept


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def combine(
    files: Sequence[Path],
    problems: list[Problem],
    loaded: Iterable[tuple[Path, Deck | None, list[Problem]]],
) -> LoadResult:
    """Gather per-file results, refusing a deck id or title that an earlier file already uses."""
    decks: list[Deck] = []
    seen_ids: dict[str, Pos] = {}
    seen_titles: dict[str, Deck] = {}
    for _path, deck, file_problems in loaded:
        # In the order an editor shows them, whatever order the checks found them in.
        problems.extend(sorted(file_problems, key=lambda p: (p.pos.line, p.pos.col)))
        if deck is None:
            continue
        first = seen_ids.get(deck.id)
        if first is not None:
            problems.append(
                Problem(deck.pos, f"deck id '{deck.id}' is already used by {first.path}")
            )
            continue
        title = anki_deck_name(deck.title)
        same = seen_titles.get(title)
        if same is not None:
            first = same.title_pos or same.pos
            problems.append(
                Problem(
                    deck.title_pos or deck.pos,
                    f"deck title '{deck.title}' is the same to Anki as '{same.title}' "
                    f"({first.path}:{first.line}): Anki would merge the two decks",
                )
            )
            continue
        seen_ids[deck.id] = deck.pos
        seen_titles[title] = deck
        decks.append(deck)
    return LoadResult(tuple(decks), tuple(problems), tuple(files))


def anki_deck_name(title: str) -> str:
    """``title`` as Anki compares deck names: NFC, case-folded, trimmed."""
    return unicodedata.normalize("NFC", title).strip().casefold()


def read_deck_bytes(path: Path) -> bytes | Problem:
    """A deck file's bytes, or the problem that keeps them from being read (size included)."""
    where = Pos(str(path), 1, 1)
    try:
        # Opened without blocking: opening a named pipe that has no writer blocks until one
        # comes, which may be never.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as f:
            if stat.S_ISFIFO(os.fstat(fd).st_mode) and not _pipe_speaks(fd):
                return Problem(
                    where,
                    f"a pipe that nothing wrote to within {PIPE_WAIT_SECONDS:g} s, not a deck file",
                )
            os.set_blocking(fd, True)
            # A regular file too large is refused unread. A pipe or device has no size to ask
            # (``zerodrill drill <(...)``, or /dev/zero by mistake), so the read itself stops
            # one byte past the limit.
            if os.fstat(fd).st_size <= MAX_FILE_BYTES:
                data = f.read(MAX_FILE_BYTES + 1)
                if len(data) <= MAX_FILE_BYTES:
                    return data
    except OSError as exc:
        return Problem(where, f"cannot read file: {exc.strerror or exc}")
    limit = (
        f"{MAX_FILE_BYTES / 2**20:g} MiB" if MAX_FILE_BYTES >= 2**20 else f"{MAX_FILE_BYTES} bytes"
    )
    return Problem(where, f"file is larger than the {limit} limit")


def _pipe_speaks(fd: int) -> bool:
    """Whether the pipe ``fd`` has something to read (data, or its writer's end) soon."""
    if not hasattr(select, "poll"):  # pragma: no cover - Windows has no named pipes here
        return True
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    return bool(poller.poll(PIPE_WAIT_SECONDS * 1000))


def image_problem(folder: Path, target: str) -> str | None:
    """Why the image ``target`` a card names cannot be packed, or None if it can.

    The answer depends on files outside the deck's YAML (the image, any symlink on the way),
    so a deck from the parsed-deck cache is checked again with this on every load.
    """
    if _URL_SCHEME.match(target) or target.startswith("//"):
        return f"image '{target}' must be a file in the deck's folder, not a URL"
    if target.startswith(("/", "\\")) or "\\" in target:
        return f"image '{target}' must be a relative path with '/' separators"
    try:
        base = folder.resolve()
        # The path as cards use it and export reads it: ".." is taken away textually, as a
        # browser or Anki would, before any symlink on the way is followed. The cache keeps
        # only this form, so checking it here keeps cached and fresh loads in agreement.
        resolved = (base / posixpath.normpath(target)).resolve()
        if not resolved.is_relative_to(base):
            return f"image '{target}' is outside the deck's folder"
        if not resolved.is_file():
            return f"image '{target}' does not exist"
    except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, a NUL in the name
        return f"image '{target}' cannot be read: {getattr(exc, 'strerror', None) or exc}"
    return None


def _umask() -> int:
    mask = os.umask(0)  # the only way to read it is to set it
    os.umask(mask)
    return mask


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all, making its folder if need be.

    The bytes go to a temporary file beside ``path`` that then replaces it, so a reader (or a
    crash) never sees half a file, and a failed write leaves the old file and no temporary one.
    """
    write_together([(path, data)])


def write_together(files: Sequence[tuple[Path, bytes]]) -> None:
    """Write each ``(path, data)`` whole, and replace the files only once all are written.

    Every file is first written in full to a temporary file beside it; a failure there (a full
    disk, say) removes the temporaries and leaves every file as it was. Only then does each
    temporary replace its file, in the order given, so the one step that can split a set is
    being killed between two renames, which a caller that rewrites the same set converges
    from. An ``OSError`` names the file (or the folder) it concerns in ``filename``, never a
    temporary. A process killed before its renames leaves its temporaries behind; the next
    write beside them removes them.
    """
    temps: list[tuple[str, Path]] = []
    try:
        for path, data in files:
            path.parent.mkdir(parents=True, exist_ok=True)  # its error names the folder
            try:
                _remove_stale_temps(path)
                fd, tmp = tempfile.mkstemp(
                    prefix=f".{path.name}.{os.getpid()}.", suffix=_TEMP_SUFFIX, dir=path.parent
                )
                temps.append((tmp, path))
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                # mkstemp makes the file private; give it the mode any new file gets under the
                # user's umask (0644 under the usual 022), as writing it in place would have.
                os.chmod(tmp, 0o666 & ~_umask())
            except OSError as exc:
                exc.filename = str(path)  # not the temporary's name: it means nothing to a user
                raise
        while temps:
            tmp, path = temps[0]
            try:
                os.replace(tmp, path)
            except OSError as exc:
                exc.filename = str(path)
                raise
            temps.pop(0)
    finally:
        for tmp, _path in temps:
            Path(tmp).unlink(missing_ok=True)


_TEMP_SUFFIX = ".tmp"


def _remove_stale_temps(path: Path) -> None:
    """Remove the temporaries that a killed writer of ``path`` left (``.<name>.<pid>.*.tmp``).

    A temporary whose process still runs may be another writer's, about to be renamed, so only
    those of processes that are gone are removed.
    """
    prefix = f".{path.name}."
    try:
        names = [n for n in os.listdir(path.parent) if n.startswith(prefix)]
    except OSError:
        return
    for name in names:
        pid, _, rest = name[len(prefix) :].partition(".")
        if not (pid.isdigit() and rest.endswith(_TEMP_SUFFIX)) or _alive(int(pid)):
            continue
        try:
            (path.parent / name).unlink()
        except OSError:
            pass


def _alive(pid: int) -> bool:
    if os.name == "nt":
        return True  # os.kill(pid, 0) would end the process there, not ask about it
    if pid == os.getpid():
        return False  # a temporary of ours that is not in flight: this process was never killed
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):
        return True  # another user's process, or a pid we cannot ask about: leave it
    return True
