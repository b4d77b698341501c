"""A cache of parsed decks, so the drill starts at once on a large deck.

Parsing YAML is most of what starting on a large deck costs; unpickling the model it gave last
time is a small part of that. An entry is named for a hash of the deck file's bytes, its path,
the source of the code that builds decks (:data:`LOADER_CODE`) and the Python running it: an
edited deck, an upgraded zerodrill or a changed loader looks for another entry, so no entry is
ever served stale and no format number needs bumping by hand. A file is hashed again only when
it may have changed: its key is remembered beside the entries with the file's identity and
times (:func:`_file_key`).

Entries are pickles of the model itself. Unpickling can run code, which is safe here because
the cache folder is the user's own: whoever can write there can already change the user's
files. The cache holds only decks that loaded without problems, so every problem is still
reported from the source; any trouble with it (unwritable, damaged, missing) falls back to
parsing.

Each card's Markdown, refs and positions (:data:`BODY`) are pickled apart, after the rest, and
unpickled when first read: starting a drill reads every card's key, kind and tags, but shows
one card.
"""

from __future__ import annotations

import copyreg
import dataclasses
import functools
import hashlib
import io
import mmap
import os
import pickle
import stat
import sys
import threading
import time
import weakref
import zlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from zerodrill.atomic_write import write_atomic
from zerodrill.deck import files
from zerodrill.deck.files import (
    LoadResult,
    combine,
    discover,
    image_file_problem,
    read_beside,
    read_deck_bytes,
)
from zerodrill.deck.model import Card, Deck, Problem, StudyItems

#: The code whose output a cache entry holds, relative to the zerodrill package: the deck
#: package and the modules outside it that the loader imports (a test keeps this whole).
LOADER_CODE = ("deck", "atomic_write.py", "words.py")
#: The card fields unpickled only when first read (the rest are read at start).
BODY = ("fields", "refs", "pos", "field_pos")
#: The card fields read at start, kept in the entry's index: all the others.
_INDEXED = tuple(f.name for f in dataclasses.fields(Card) if f.name not in BODY)
#: Entries kept in the cache folder, the most recently used: each edit of a deck makes a new
#: one, and without a limit a contributor's cache would only grow.
KEEP = 64
SUFFIX = ".pickle"
#: Bytes of each of the two checksums that start an entry, and of the index length after them.
DIGEST_SIZE = 4
_LENGTH_SIZE = 8
HEAD_SIZE = 2 * DIGEST_SIZE + _LENGTH_SIZE
_CHUNK_SIZE = 1 << 18


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
    loaded: list[tuple[Path, Deck | None, list[Problem]]] = []
    for path in deck_files:
        key = _file_key(path, folder)
        deck = _read(folder / f"{key}{SUFFIX}") if key is not None else None
        if deck is not None:
            loaded.append((path, deck, []))
            continue
        data = read_deck_bytes(path)
        if isinstance(data, Problem):
            loaded.append((path, None, [data]))
            continue
        # Imported on a miss only: the YAML-to-model builder is not needed for a hit.
        from zerodrill.deck.load import parse_bytes

        deck, file_problems = parse_bytes(data, path)
        parsed = _key(path)
        if key is not None and parsed is not None and deck is not None and not file_problems:
            # Keyed on the bytes parsed: the file may have changed since it was hashed above.
            parsed.update(data)
            _write(folder / f"{parsed.hexdigest()}{SUFFIX}", deck)
        loaded.append((path, deck, file_problems))
    return combine(deck_files, problems, loaded)


@functools.cache
def code_key() -> bytes | None:
    """:func:`code_digest` of this zerodrill, worked out once per process."""
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


def _key(path: Path) -> hashlib._Hash | None:
    """A hash to feed a deck file's bytes to: its digest names the file's cache entry."""
    code = code_key()
    if code is None:
        return None
    # SHA-1 because it is the quickest of hashlib's hashes on most machines (OpenSSL runs it on
    # the SHA instructions of current x86 and ARM chips). Collisions can be forged for SHA-1,
    # but only by whoever writes both files, who can then show either deck anyway; against
    # accidental change, 160 bits are plenty.
    return hashlib.sha1(
        code + str(path).encode("utf-8", "surrogateescape") + b"\0", usedforsecurity=False
    )


def _file_key(path: Path, folder: Path) -> str | None:
    """The key of ``path``'s bytes as they are now; None if they cannot be read, are too many
    (the loader then says why) or are not a regular file's (they are not cached).

    The file is hashed a chunk at a time as it is read: a hit never needs its bytes, so they
    are never held whole. And it is hashed only when it may have changed since it was last:
    the key is remembered in ``folder`` with the file's identity and times (see
    :func:`_remembered_key`).
    """
    key = _key(path)
    if key is None:
        return None
    memo = folder / f"{key.hexdigest()}{MEMO_SUFFIX}"  # named for the code and path alone
    try:
        before = path.stat()
    except OSError:
        return None
    if not stat.S_ISREG(before.st_mode):
        return None  # a pipe (``<(...)``) can be read once: that read is the loader's
    if before.st_size > files.MAX_FILE_BYTES or not os.access(path, os.R_OK):
        return None  # the loader says why, as it would without a cache
    known = _remembered_key(memo, before)
    if known is not None:
        return known
    size = 0
    buffer = bytearray(_CHUNK_SIZE)
    chunk = memoryview(buffer)
    try:
        with path.open("rb", buffering=0) as f:
            while n := f.readinto(buffer):
                size += n
                if size > files.MAX_FILE_BYTES:
                    return None
                key.update(chunk[:n])
            after = os.fstat(f.fileno())
    except OSError:
        return None
    digest = key.hexdigest()
    if _identity(after) == _identity(before):
        _remember_key(memo, after, digest)
    return digest


#: The suffix of a deck file's memo in the cache folder: the key its bytes hashed to, with the
#: file's identity (device, inode, size) and times (modified, changed) when they were hashed.
MEMO_SUFFIX = ".stat"
#: A file modified this soon before it was hashed could be modified again within its times'
#: granularity (two seconds on FAT) and keep them: its memo would vouch for bytes it never
#: saw, so none is kept (git's "racy" rule, for its index, is the same).
RACY_NS = 2_000_000_000


def _identity(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


#: A memo is five numbers and a key, some 120 bytes; a longer one is none of the cache's.
MAX_MEMO_BYTES = 512
#: An entry is about as long as its deck's YAML (at most files.MAX_FILE_BYTES); one far longer
#: is none of the cache's.
MAX_ENTRY_BYTES = 8 * files.MAX_FILE_BYTES


def _open_cached(path: Path, limit: int) -> int:
    """A descriptor of the cache's file ``path``, for reading; ``OSError`` unless it is what
    the cache writes: a regular file (not a link) of at most ``limit`` bytes.

    Whatever else has that name is a miss, found without waiting or reading: opening a FIFO
    blocked ``drill`` and ``stats`` for good, and a link to ``/dev/zero`` was read without end.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            raise OSError(f"{path}: not a file of the cache's")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _replaceable(path: Path) -> bool:
    """Whether the cache may write ``path``: nothing is there, or a regular file (the cache's
    own kind); a FIFO, a link or a device someone put there is left as it is."""
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _remembered_key(memo: Path, now: os.stat_result) -> str | None:
    """The key remembered for a file that is, by its identity and times, the one hashed; None
    if there is no such memo (or it cannot be read)."""
    try:
        with os.fdopen(_open_cached(memo, MAX_MEMO_BYTES), "rb") as f:
            *identity, key = f.read(MAX_MEMO_BYTES + 1).decode("ascii").split()
        remembered = tuple(int(n) for n in identity)
    except (OSError, ValueError):
        return None
    return key if remembered == _identity(now) else None


def _remember_key(memo: Path, hashed: os.stat_result, key: str) -> None:
    if max(hashed.st_mtime_ns, hashed.st_ctime_ns) > time.time_ns() - RACY_NS:
        return
    if not _replaceable(memo):
        return
    try:
        write_atomic(memo, " ".join(map(str, (*_identity(hashed), key))).encode("ascii"))
    except OSError:
        pass  # a memo only spares hashing


def _read(entry: Path) -> Deck | None:
    try:
        bodies = _Bodies(entry)
    except OSError:
        return None
    try:
        deck, images = _decode(bodies)
        # The YAML is unchanged, but an image it names may have gone, or been replaced by a
        # folder or by a symlink out of the deck's folder, since, and its facts file may have
        # changed: the loader's own checks again (the facts by their bytes), so a cached deck
        # is accepted exactly when a fresh load would accept it.
        if any(image_file_problem(deck.folder, image) for image in images) or _facts_changed(deck):
            bodies.close()
            return None
    except (OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError, AttributeError):
        bodies.close()
        return None
    _touch(entry)
    return deck


def _facts_changed(deck: Deck) -> bool:
    """Whether the facts file the deck's config keys were checked against (if any) no longer
    holds the bytes they were checked against, or can no longer be read as it was."""
    facts = deck.facts
    if facts is None:
        return False
    data = read_beside(deck.folder, facts.path)
    return not isinstance(data, bytes) or hashlib.sha256(data).hexdigest() != facts.digest


class _Bodies:
    """An entry's file, open for its cards' bodies to be read from as each card needs its own.

    Only the index is read at start: an entry is mostly card bodies, and reading it whole
    would fill as much fresh memory as the entry is long before the first card, for one card.
    Read through a file kept open, not memory-mapped: a mapped file cut short while a drill
    reads card bodies from it would end the drill with SIGBUS. Entries are replaced by
    renaming, never written in place, so the open file keeps the bytes that were checked.
    """

    __slots__ = ("_file", "_close", "base", "size", "__weakref__")

    def __init__(self, entry: Path) -> None:
        # Closed by _close.
        self._file = os.fdopen(_open_cached(entry, MAX_ENTRY_BYTES), "rb", buffering=0)
        # Closed with the last card that can still need it, or by close().
        self._close = weakref.finalize(self, self._file.close)
        #: Where the bodies start in the file (set once the index is read).
        self.base = 0
        #: The file's length: a damaged length in it must not make a read ask for more.
        self.size = os.fstat(self._file.fileno()).st_size

    def read(self, start: int, end: int) -> bytes:
        """Bytes ``start`` to ``end`` of the file, exactly; EOFError if it is shorter."""
        if end > self.size:
            raise EOFError("cache entry cut short")
        if hasattr(os, "pread"):
            data = os.pread(self._file.fileno(), end - start, start)
        else:  # pragma: no cover - Windows has no pread; a drill reads on one thread
            self._file.seek(start)
            data = self._file.read(end - start)
        if len(data) != end - start:
            raise EOFError("cache entry cut short")
        return data

    def checksum(self, start: int) -> int | None:
        """The CRC-32 of the file from ``start`` to its end; None if it cannot be read."""
        # Mapped for this one call, unlike the bodies' reads (see the class): zlib then
        # reads it all without taking the GIL back between chunks, so on a second core the
        # check runs beside the index's unpickling instead of waiting on it. It is cut short
        # only by someone truncating the file in these few milliseconds (entries are
        # replaced by renaming, never written in place).
        try:
            with (
                mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ) as mapped,
                memoryview(mapped) as view,
            ):
                return zlib.crc32(view[start:])
        except (OSError, ValueError):
            return None

    def checksum_aside(self, start: int) -> Callable[[], int | None]:
        """:meth:`checksum`, worked out on another thread; call what it returns for the
        result. Reads the file through a mapping of its own, so never races :meth:`read`."""
        result: list[int | None] = [None]
        worker = threading.Thread(target=lambda: result.__setitem__(0, self.checksum(start)))
        worker.start()

        def join() -> int | None:
            worker.join()
            return result[0]

        return join

    def close(self) -> None:
        self._close()


def _write(entry: Path, deck: Deck) -> None:
    # A cache that cannot be written only costs speed.
    try:
        data = _encode(deck)
    except (pickle.PicklingError, TypeError, AttributeError):
        return  # a value pickle cannot hold
    if not _replaceable(entry):
        return
    try:
        write_atomic(entry, data)
    except OSError:
        return
    _prune(entry.parent)


def _touch(entry: Path) -> None:
    """Mark ``entry`` used, so pruning keeps the entries in use rather than the newest."""
    try:
        os.utime(entry)
    except OSError:
        pass  # a read-only cache still serves hits


def _prune(folder: Path) -> None:
    """Keep the :data:`KEEP` most recently used entries and newest memos; drop older
    versions' files."""
    try:
        stale = [p for pattern in ("*.json", "*.marshal") for p in folder.glob(pattern)]
        entries = sorted(folder.glob(f"*{SUFFIX}"), key=_used, reverse=True)
        memos = sorted(folder.glob(f"*{MEMO_SUFFIX}"), key=_used, reverse=True)
        for path in stale + entries[KEEP:] + memos[KEEP:]:
            if _replaceable(path):  # files the cache wrote, nothing put there by others
                path.unlink(missing_ok=True)
    except OSError:
        pass


def _used(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


# An entry is two CRC-32s (see _digest), of the index with its length and of the bodies; the
# length of the index; the index (a pickle of (the deck without its cards, its study order, its
# cards' image paths, a row per card of its _INDEXED fields and its body's span)); and then each
# card's BODY fields, a pickle each, back to back.


def _frozen_mapping(items: dict[Any, Any]) -> Mapping[Any, Any]:
    return MappingProxyType(items)


def _reduce_mapping(mapping: Mapping[Any, Any]) -> tuple[Any, ...]:
    # pickle cannot name mappingproxy's type (it is not importable as builtins.mappingproxy).
    return _frozen_mapping, (dict(mapping),)


def _dumps(value: object) -> bytes:
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, MappingProxyType: _reduce_mapping}
    pickler.dump(value)
    return out.getvalue()


def _encode(deck: Deck) -> bytes:
    bodies: list[bytes] = []
    rows: list[tuple[Any, ...]] = []
    offset = 0
    for card in deck.cards:
        body = _dumps({name: getattr(card, name) for name in BODY})
        span = (offset, offset + len(body))
        rows.append((card.key, *(getattr(card, name) for name in _INDEXED), span))
        bodies.append(body)
        offset += len(body)
    images = tuple(sorted({image for c in deck.cards for image in c.media}))
    shell = dataclasses.replace(deck, cards=())
    packed = _dumps((shell, deck.study_order, tuple(deck.study_items), images, tuple(rows)))
    index = len(packed).to_bytes(_LENGTH_SIZE, "little") + packed
    joined = b"".join(bodies)
    return _digest(index) + _digest(joined) + index + joined


def _digest(data: bytes | memoryview) -> bytes:
    """The checksum of an entry's index, or of its bodies, checked before pickle sees a byte.

    Bodies are unpickled only when read, long after this entry was accepted: a damaged byte
    must be caught now, while falling back to the YAML is still possible. The check guards
    against accidents (a bad disk, a write cut short), not against someone able to write the
    cache. CRC-32 catches every burst of up to 32 flipped bits and all but 1 in 2**32 other
    damage, and costs far less than a cryptographic hash.
    """
    return zlib.crc32(data).to_bytes(DIGEST_SIZE, "little")


def _decode(bodies: _Bodies) -> tuple[Deck, tuple[str, ...]]:
    """The deck in an entry, and the image paths its cards reference."""
    head = bodies.read(0, HEAD_SIZE)
    length = int.from_bytes(head[2 * DIGEST_SIZE :], "little")
    bodies.base = HEAD_SIZE + length
    index = bodies.read(2 * DIGEST_SIZE, bodies.base)
    # The bodies are checked beside the index's unpickling, and before this returns.
    bodies_checksum = bodies.checksum_aside(bodies.base)
    try:
        deck, images = _decode_index(bodies, head[:DIGEST_SIZE], index)
    finally:
        crc = bodies_checksum()
    if crc is None or head[DIGEST_SIZE : 2 * DIGEST_SIZE] != crc.to_bytes(DIGEST_SIZE, "little"):
        raise ValueError("damaged cache entry")
    return deck, images


def _decode_index(bodies: _Bodies, digest: bytes, index: bytes) -> tuple[Deck, tuple[str, ...]]:
    if digest != _digest(index):
        raise ValueError("damaged cache entry")
    shell, order, study_items, images, rows = pickle.loads(memoryview(index)[_LENGTH_SIZE:])
    if not isinstance(shell, Deck):
        raise ValueError("not a deck")
    if set(map(len, rows)) - {_ROW_LENGTH}:
        raise ValueError("card row of the wrong length")
    # A card is its row, read through _RowField: making ten thousand objects and filling each
    # one's attributes, as unpickling cards or copying rows into them would, costs the drill's
    # start more than all of its rows' reading.
    new, cls = object.__new__, _CachedCard
    slot = vars(_CachedCard)
    set_row, set_bodies = slot["_row"].__set__, slot["_bodies"].__set__
    cards = []
    for row in rows:
        card = new(cls)
        set_row(card, row)
        set_bodies(card, bodies)
        cards.append(card)
    deck = dataclasses.replace(shell, cards=tuple(cards))
    # Worked out when the entry was written: the drill's first card does not wait for it.
    deck.__dict__["study_order"] = order
    deck.__dict__["study_items"] = StudyItems(*study_items)
    return deck, images


class _CachedCard(Card):
    """A :class:`Card` from the cache: its key and :data:`_INDEXED` fields are read from its
    row, and its :data:`BODY` fields are unpickled when first read.

    The body fields are not in the instance, so reading one falls through to
    ``__getattr__``, which fills them all in. It equals the ``Card`` the loader would build
    from the same file. Only the cache makes these (``dataclasses.replace`` would not give
    one its row).
    """

    __slots__ = ("_row", "_bodies")
    _row: tuple[Any, ...]
    _bodies: _Bodies

    def __getattr__(self, name: str) -> Any:
        if name not in BODY:
            raise AttributeError(name)
        start, end = self._row[-1]
        bodies = self._bodies
        self.__dict__.update(pickle.loads(bodies.read(bodies.base + start, bodies.base + end)))
        return self.__dict__[name]

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


class _RowField:
    """One of a cached card's indexed fields (or its key), read from the card's row."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __get__(self, card: _CachedCard | None, owner: type | None = None) -> Any:
        if card is None:
            return self
        return card._row[self.index]


#: A card's row: its key, its :data:`_INDEXED` fields, and its body's span.
_ROW_LENGTH = len(_INDEXED) + 2
for _n, _name in enumerate(("key", *_INDEXED)):
    setattr(_CachedCard, _name, _RowField(_n))
