"""Finding deck files, reading their bytes and gathering per-file results.

Split from :mod:`zerodrill.deck.load` so that a start from the parsed-deck cache, which needs
only these, never imports (or, without bytecode files, compiles) the YAML-to-model builder.
"""

from __future__ import annotations

import os
import posixpath
import re
import select
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from msgspec import Struct

from zerodrill.deck.model import Deck, Pos, Problem

if TYPE_CHECKING:
    from zerodrill.deck.target_rules import TargetRules

#: Larger files are refused before parsing: a deck of 10,000 cards is about 3 MiB.
MAX_FILE_BYTES = 16 * 1024 * 1024
DECK_SUFFIXES = (".yaml", ".yml")
#: The most bytes read of a file a deck names beside it (its ``config_keys: facts``): the ZeRO
#: deck's is under 100 KB.
MAX_BESIDE_BYTES = 4 * 1024 * 1024
#: How long a pipe given as a deck may stay silent before it is refused: a named pipe that
#: nothing writes to would otherwise block ``validate`` and ``show --watch`` for good.
PIPE_WAIT_SECONDS = 2.0
_URL_SCHEME = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:")


class LoadResult(Struct, frozen=True):
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
            elif os.path.lexists(path):
                problems.append(Problem(where, _dead_link(path)))
            else:
                problems.append(Problem(where, "no such file or folder"))
        except OSError as exc:
            # pathlib answers False for a missing path but raises for one it may not look at
            # (a folder on the way without search permission, say).
            what = "" if exc.filename in (None, str(path)) else f" {exc.filename}"
            problems.append(Problem(where, f"cannot read{what}: {exc.strerror or exc}"))
    # A missing path typed twice is one problem.
    return _once(files), list(dict.fromkeys(problems))


def _dead_link(path: Path) -> str:
    """Why the symlink ``path`` leads to no file: pathlib calls a loop "missing" too."""
    try:
        path.stat()
    except FileNotFoundError:
        return f"a symlink to '{os.readlink(path)}', which does not exist"
    except OSError as exc:  # a loop: "Too many levels of symbolic links"
        return f"cannot read: {exc.strerror or exc}"
    return "no such file or folder"  # it was made meanwhile: the next run reads it


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
    rules: Sequence[TargetRules] = (),
) -> LoadResult:
    """Gather per-file results, refusing a deck id that an earlier file already uses, or a
    title that a target of ``rules`` would take for an earlier file's."""
    decks: list[Deck] = []
    seen_ids: dict[str, Pos] = {}
    # (the program the target is for, the name it compares) -> the deck that has it
    seen_titles: dict[tuple[str, str], Deck] = {}
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
        titles = list(
            dict.fromkeys(
                (rule.app, rule.same_deck(deck.title)) for rule in rules if rule.same_deck
            )
        )
        clash = next((name for name in titles if name in seen_titles), None)
        if clash is not None:
            same = seen_titles[clash]
            first = same.title_pos or same.pos
            app = clash[0]
            problems.append(
                Problem(
                    deck.title_pos or deck.pos,
                    f"deck title '{deck.title}' is the same to {app} as '{same.title}' "
                    f"({first.path}:{first.line}): {app} would merge the two decks",
                )
            )
            continue
        seen_ids[deck.id] = deck.pos
        seen_titles.update(dict.fromkeys(titles, deck))
        decks.append(deck)
    return LoadResult(tuple(decks), tuple(problems), tuple(files))


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


def image_file(target: str) -> str:
    """The file, in the deck's folder, that an image's ``target`` names, as Anki, a browser and
    the export all read it: a URL, so its percent-escapes are decoded (``%20`` is a space,
    ``%25`` a percent sign), and then "." and ".." are taken away textually. A card's
    :attr:`~zerodrill.deck.model.Card.media` holds this form."""
    return posixpath.normpath(unquote(target))


def image_problem(folder: Path, target: str) -> str | None:
    """Why the image ``target`` a card names cannot be packed, or None if it can."""
    if _URL_SCHEME.match(target) or target.startswith("//"):
        return f"image '{target}' must be a file in the deck's folder, not a URL"
    path = image_file(target)
    if target.startswith(("/", "\\")) or "\\" in target or "\\" in path:
        return f"image '{target}' must be a relative path with '/' separators"
    problem = image_file_problem(folder, path)
    if problem is None:
        return None
    if path != posixpath.normpath(target):
        # "pct%20.png" for a file of that name: the escape is what keeps it from being found.
        problem += f" (read as a URL, it names '{path}': write %25 for a '%' in a file name)"
    return f"image '{target}' {problem}"


def image_file_problem(folder: Path, path: str) -> str | None:
    """Why the file ``path`` (an :func:`image_file`) in ``folder`` cannot be packed, or None.

    The answer depends on files outside the deck's YAML (the image, any symlink on the way),
    so a deck from the parsed-deck cache is checked again with this on every load.
    """
    try:
        base = folder.resolve()
        # ".." was taken away textually, as a browser or Anki would, before any symlink on
        # the way is followed.
        resolved = (base / path).resolve()
        if not resolved.is_relative_to(base):
            return "is outside the deck's folder"
        if not resolved.is_file():
            return "does not exist"
    except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, a NUL in the name
        return f"cannot be read: {getattr(exc, 'strerror', None) or exc}"
    return None


def read_beside(folder: Path, target: str, limit: int | None = None) -> bytes | str:
    """The bytes of the file a deck names as ``target``, a path in the deck's ``folder``, or
    why they cannot be read (a phrase that follows the file's name).

    Paths a deck names never leave its folder: ``target`` is relative, with '/' separators and
    no '..', and no symlink on the way may lead out. Reading stops at ``limit`` bytes, and
    never waits on a pipe.
    """
    limit = MAX_BESIDE_BYTES if limit is None else limit
    if not target or _URL_SCHEME.match(target) or target.startswith(("/", "\\")):
        return "must be a relative path in the deck's folder"
    if "\\" in target:
        return "must be written with '/' separators"
    if ".." in target.split("/"):
        return "must be in the deck's folder: a path with '..' leaves it"
    try:
        base = folder.resolve()
        resolved = (base / target).resolve()
        if not resolved.is_relative_to(base):
            return "leads out of the deck's folder (through a symlink)"
        fd = os.open(
            resolved, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        )
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            return "is not a regular file"
        with os.fdopen(fd, "rb") as f:
            data = f.read(limit + 1) if st.st_size <= limit else b""
            if st.st_size <= limit and len(data) <= limit:
                return data
    except FileNotFoundError:
        return "does not exist (it is named from the deck's folder)"
    except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, a NUL in the name
        return f"cannot be read: {getattr(exc, 'strerror', None) or exc}"
    return f"is larger than the {limit:,} bytes a file beside a deck may have"
