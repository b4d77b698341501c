"""A cache of parsed decks, so the drill starts at once on a large deck.

Parsing YAML is most of what starting on a large deck costs; unpickling the model it gave last
time is a small part of that. A deck file's entry is named for its path, the source of the
code that builds decks (:data:`LOADER_CODE`) and the Python running it, so an upgraded
zerodrill or a changed loader looks for another entry and no format number needs bumping by
hand. The entry holds the deck, the SHA-1 of the bytes it was parsed from and the file's
identity and times when they were read (:func:`_stamp`): a file with other times is hashed
again, and parsed again unless its bytes are the same (a checkout, a ``touch``), so an edited
deck is never served stale.

Entries are pickles of the model itself. Unpickling can run code, which is safe here because
the cache folder is the user's own: whoever can write there can already change the user's
files. The cache holds only decks that loaded without problems, so every problem is still
reported from the source; any trouble with it (unwritable, damaged, missing, not a regular
file, too large) falls back to parsing. Entries are written whole (``write_atomic``), and the
:data:`KEEP` used last are kept.

An entry is a CRC-32 of the rest; the deck's pickle; and each card's Markdown, refs and
positions (:data:`BODY`), pickled apart, which the card reads from the entry's file when it
first needs them (:class:`_Bodies`). The CRC is checked before pickle reads a byte: bodies
are read long after the entry was accepted, when falling back is no longer possible.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import mmap
import os
import pickle
import stat
import sys
import time
import weakref
import zlib
from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, BinaryIO

from zerodrill.atomic_write import write_atomic
from zerodrill.deck import files, kinds
from zerodrill.deck.files import (
    LoadResult,
    combine,
    discover,
    image_file_problem,
    read_beside,
    read_deck_bytes,
)
from zerodrill.deck.model import Card, Deck, Problem

#: The code whose output a cache entry holds, relative to the zerodrill package: the deck
#: package and the modules outside it that the loader imports (a test keeps this whole).
LOADER_CODE = ("deck", "atomic_write.py", "words.py")
#: The card fields unpickled only when first read (the rest are read at start).
BODY = ("fields", "refs", "pos", "field_pos")
_INDEXED = ("key", *(f.name for f in dataclasses.fields(Card) if f.name not in BODY))
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Card)}
#: Entries kept in the cache folder, the most recently used: without a limit a cache would
#: only grow with every deck path it has seen.
KEEP = 64
SUFFIX = ".pickle"
#: An entry is about as long as its deck's YAML (at most files.MAX_FILE_BYTES); one far longer
#: is none of the cache's.
MAX_ENTRY_BYTES = 8 * files.MAX_FILE_BYTES
#: A file modified this soon before it was read could be modified again within its times'
#: granularity (two seconds on FAT) and keep them: its stamp would vouch for bytes the entry
#: never saw, so none is kept and the next load hashes it (git's "racy" rule for its index).
RACY_NS = 2_000_000_000

_Stamp = tuple[int, int, int, int, int]


def cache_dir() -> Path:
    env = os.environ.get("ZERODRILL_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_cache_path

    return user_cache_path("zerodrill", appauthor=False) / "decks"


def load_paths_cached(paths: Sequence[Path], folder: Path | None = None) -> LoadResult:
    """Like :func:`zerodrill.deck.load.load_paths`, reusing parses of unchanged files."""
    folder = cache_dir() if folder is None else folder
    deck_files, problems = discover(paths)
    loaded = [(path, *_load(path, folder)) for path in deck_files]
    return combine(deck_files, problems, loaded)


def _load(path: Path, folder: Path) -> tuple[Deck | None, list[Problem]]:
    stamp = _stamp(path)
    entry = _entry(path, folder) if stamp is not None else None
    cached = _read(entry) if entry is not None else None
    if cached is not None and cached[0] == stamp:
        return cached[2], []
    data = read_deck_bytes(path)
    if isinstance(data, Problem):
        return None, [data]
    digest = hashlib.sha1(data, usedforsecurity=False).digest()
    deck = cached[2] if cached is not None and cached[1] == digest else None  # new times
    if deck is None:
        # Imported on a miss only: the YAML-to-model builder is not needed for a hit.
        from zerodrill.deck.load import parse_bytes

        deck, problems = parse_bytes(data, path)
        if deck is None or problems:
            return deck, problems
    if entry is not None and stamp is not None:
        # Taken before the read, the stamp differs from a file changed since, unless it
        # changes again within its times' granularity (RACY_NS).
        if max(stamp[3:]) > time.time_ns() - RACY_NS:
            stamp = None
        if cached is None or cached[:2] != (stamp, digest):
            _write(entry, (stamp, digest, deck))
    return deck, []


def _stamp(path: Path) -> _Stamp | None:
    """The file's identity (device, inode, size) and times (modified, changed); None if it is
    not cached: not a regular file (a pipe, ``<(...)``, can be read once: that read is the
    loader's), too large or unreadable (the loader says why, as it would without a cache)."""
    try:
        st = path.stat()
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size > files.MAX_FILE_BYTES:
        return None
    if not os.access(path, os.R_OK):
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@functools.cache
def code_key() -> bytes | None:
    return code_digest(Path(__file__).resolve().parent.parent)


def code_digest(package: Path) -> bytes | None:
    """A digest of :data:`LOADER_CODE`'s source under ``package`` and of the Python that runs
    it; None if the source cannot be read (nothing is cached then)."""
    digest = hashlib.sha1(sys.implementation.cache_tag.encode(), usedforsecurity=False)
    try:
        for name in LOADER_CODE:
            where = package / name
            for path in sorted(where.glob("*.py")) if where.is_dir() else [where]:
                digest.update(b"%s\0%s\0" % (path.name.encode(), path.read_bytes()))
    except OSError:
        return None
    return digest.digest()


def _entry(path: Path, folder: Path) -> Path | None:
    code = code_key()
    if code is None:
        return None
    # SHA-1, here and for the deck's bytes, because it is the quickest of hashlib's hashes on
    # most machines. Collisions can be forged for it, but only by whoever writes both files,
    # who can then show either deck anyway; against accidental change, 160 bits are plenty.
    name = hashlib.sha1(code + os.fsencode(path), usedforsecurity=False).hexdigest()
    return folder / f"{name}{SUFFIX}"


def _read(entry: Path) -> tuple[_Stamp | None, bytes, Deck] | None:
    """What ``entry`` holds: the file's stamp and digest, and the deck; None if it holds
    nothing usable, or the deck's images or facts file no longer pass the loader's checks."""
    # Without waiting or following: a FIFO there blocked ``drill`` for good, and a link to
    # /dev/zero was read without end.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        file = os.fdopen(os.open(entry, flags | getattr(os, "O_CLOEXEC", 0)), "rb", buffering=0)
    except OSError:
        return None
    try:
        stamp, digest, deck = _decode(file)
        # The YAML is unchanged, but an image it names may have gone, or been replaced by a
        # folder or by a symlink out of the deck's folder, since, and its facts file may have
        # changed: the loader's own checks again (the facts by their bytes), so a cached deck
        # is accepted exactly when a fresh load would accept it.
        images = {image for card in deck.cards for image in card.media}
        if any(image_file_problem(deck.folder, image) for image in images):
            return None
        if _facts_changed(deck):
            return None
    except Exception:  # whatever is wrong with an entry, the deck is parsed instead
        file.close()
        return None
    try:
        os.utime(entry)  # used now: pruning keeps the entries in use rather than the newest
    except OSError:
        pass  # a read-only cache still serves hits
    return stamp, digest, deck


def _decode(file: BinaryIO) -> tuple[_Stamp | None, bytes, Deck]:
    """The stamp, digest and deck of the entry open as ``file``, whose bodies are read from
    ``file`` from now on (it is closed with the last card that may need it)."""
    st = os.fstat(file.fileno())
    if not stat.S_ISREG(st.st_mode) or not 4 <= st.st_size <= MAX_ENTRY_BYTES:
        raise ValueError("not an entry of the cache's")
    # Mapped for the check and the index alone: nothing is read from the mapping later, so
    # only truncating the file in place in these milliseconds could end it with SIGBUS.
    with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        with memoryview(mapped) as view:
            if zlib.crc32(view[4:]) != int.from_bytes(view[:4], "little"):
                raise ValueError("damaged entry")
        mapped.seek(4)
        stamp, digest, deck, bodies = pickle.load(mapped)  # the bodies follow the index
        if not isinstance(deck, Deck) or not isinstance(bodies, _Bodies):
            raise ValueError("not a deck")
        bodies.hold(file, mapped.tell())
    return stamp, digest, deck


def _facts_changed(deck: Deck) -> bool:
    """Whether the facts file the deck's config keys were checked against (if any) no longer
    holds the bytes they were checked against, or can no longer be read as it was."""
    facts = deck.facts
    if facts is None:
        return False
    data = read_beside(deck.folder, facts.path)
    return not isinstance(data, bytes) or hashlib.sha256(data).hexdigest() != facts.digest


def _write(entry: Path, value: tuple[_Stamp | None, bytes, Deck]) -> None:
    # A cache that cannot be written only costs speed.
    _ = value[2].study_items  # worked out now, and kept: the first card need not wait for it
    try:
        out = io.BytesIO()
        pickler = _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
        pickler.dump((*value, pickler.source))
        data = b"".join([out.getvalue(), *pickler.bodies])
    except Exception:  # a value pickle cannot hold; a cached card's body no longer readable
        return
    if not _replaceable(entry):
        return
    try:
        write_atomic(entry, zlib.crc32(data).to_bytes(4, "little") + data)
    except OSError:
        return
    _prune(entry.parent)


def _replaceable(path: Path) -> bool:
    """Whether the cache may write ``path``: nothing is there, or a regular file (the cache's
    own kind); a FIFO, a link or a device someone put there is left as it is."""
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _prune(folder: Path) -> None:
    """Keep the :data:`KEEP` most recently used entries; drop older versions' files."""
    try:
        stale = [p for pattern in ("*.stat", "*.json", "*.marshal") for p in folder.glob(pattern)]
        # An entry gone meanwhile (another drill's pruning) ends this one: the next write prunes.
        entries = sorted(folder.glob(f"*{SUFFIX}"), key=lambda p: p.stat().st_mtime, reverse=True)
        for path in stale + entries[KEEP:]:
            if _replaceable(path):  # files the cache wrote, nothing put there by others
                path.unlink(missing_ok=True)
    except OSError:
        pass


def _dumps(value: object) -> bytes:
    out = io.BytesIO()
    _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return out.getvalue()


class _Pickler(pickle.Pickler):
    """Pickles a deck's cards as :class:`_CachedCard`, their bodies apart (:attr:`bodies`, to
    follow the pickle in the entry), and kinds by name."""

    def __init__(self, file: BinaryIO, protocol: int) -> None:
        super().__init__(file, protocol)
        self.source = _Bodies()
        self.bodies: list[bytes] = []
        self.size = 0

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Card):  # a cached one too, when an entry is written again
            # Fields at their default are left to the class: fewer to set on each card.
            state = {n: getattr(obj, n) for n in _INDEXED if getattr(obj, n) != _DEFAULTS.get(n)}
            body = _dumps(tuple(getattr(obj, name) for name in BODY))
            state["_body"] = (self.source, self.size, self.size + len(body))
            self.bodies.append(body)
            self.size += len(body)
            # Made again by setting the instance's dict in C (pickle's BUILD), with no call
            # into Python for each of ten thousand cards.
            return object.__new__, (_CachedCard,), state
        if isinstance(obj, kinds.CardKind):
            # As the registered value, so `is` still holds; gone from the registry, the entry
            # fails to load and the deck is parsed again.
            return _kind, (obj.name,)
        if type(obj) is MappingProxyType:
            return _frozen, (dict(obj),)
        return NotImplemented


class _Bodies:
    """The file of a cached deck's entry, where its cards' bodies are read from, each when first
    needed. A drill reads every card's key, kind and tags, but shows one card: unpickling every
    body at start, or reading them all into memory, delayed the first card (tests/bench).

    The file is held open, not mapped (a mapped file cut short would end the drill with
    SIGBUS), and closed with the last card that can still need it. Entries are replaced by
    renaming, never written in place, so it keeps the bytes that were checked.
    """

    def hold(self, file: BinaryIO, base: int) -> None:
        self.file, self.base = file, base
        weakref.finalize(self, file.close)

    def read(self, start: int, end: int) -> bytes:
        if hasattr(os, "pread"):
            data = os.pread(self.file.fileno(), end - start, self.base + start)
        else:  # pragma: no cover - Windows has no pread; a drill reads on one thread
            self.file.seek(self.base + start)
            data = self.file.read(end - start)
        if len(data) != end - start:
            raise EOFError("cache entry cut short")
        return data


def _kind(name: str) -> kinds.CardKind:
    kind = kinds.named(name)
    if kind is None:
        raise ValueError(f"no card kind named '{name}' is registered")
    return kind


def _frozen(items: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    # pickle cannot name mappingproxy's type (it is not importable as builtins.mappingproxy).
    return MappingProxyType(items)


class _CachedCard(Card):
    """A :class:`Card` from the cache, whose :data:`BODY` fields are unpickled when first
    read. It equals the ``Card`` the loader would build from the same file."""

    _body: tuple[_Bodies, int, int]

    # The dataclass's own comparison holds only between instances of one class.
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return all(
            getattr(self, f.name) == getattr(other, f.name)
            for f in dataclasses.fields(Card)
            if f.compare
        )

    __hash__ = Card.__hash__


class _BodyField:
    """One of a cached card's :data:`BODY` fields: the first read of one unpickles them all
    into the card, where later reads find them (as ``functools.cached_property`` does)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, card: _CachedCard | None, owner: type | None = None) -> Any:
        if card is None:
            return self
        state = card.__dict__
        bodies, start, end = state["_body"]
        state.update(zip(BODY, pickle.loads(bodies.read(start, end)), strict=True))
        return state[self.name]


for _name in BODY:
    setattr(_CachedCard, _name, _BodyField(_name))
