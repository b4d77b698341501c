"""A cache of parsed decks, keyed on each file's exact bytes, so the drill starts at once.

Parsing YAML is the dominant cost of starting on a large deck; reading the bytes, hashing
them and rebuilding the model from the cache is a small fraction of that. The cache holds only
decks that loaded without problems, so every problem is still reported from the source. Any
trouble with the cache (unwritable, corrupt, stale) falls back to parsing.

Entries hold :mod:`marshal` data: plain tuples, strings, ints and dicts, read back in C faster
than JSON. Unlike pickle, loading them builds values only and never runs code (a code object,
were one forged in, would never be called: every value read is used as data). marshal does not
guard against damaged input, so an entry is only unmarshalled once its checksum matches.
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
import os
import stat
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from zerodrill.atomic_write import write_atomic
from zerodrill.deck import files
from zerodrill.deck.files import (
    LoadResult,
    combine,
    discover,
    image_problem,
    read_deck_bytes,
)
from zerodrill.deck.model import Bullet, Card, Deck, Interview, Kind, Point, Pos, Problem, Sheet

#: Bump when the model, the loader's checks or the entry layout change, so old entries are not
#: reused.
FORMAT = 11
#: Entries kept in the cache folder, the most recently used: each edit of a deck makes a new
#: one, and without a limit a contributor's cache would only grow.
KEEP = 64
#: Bytes of the checksum that starts each entry, and of the index length after it.
DIGEST_SIZE = 4
_LENGTH_SIZE = 8
_CHUNK_SIZE = 1 << 18
_KINDS = {kind.value: kind for kind in Kind}


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
        key = _file_key(path)
        deck = _read(folder / f"{key}.marshal", path) if key is not None else None
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
        if key is not None and deck is not None and not file_problems:
            # Keyed on the bytes parsed: the file may have changed since it was hashed above.
            parsed = _key(path)
            parsed.update(data)
            _write(folder / f"{parsed.hexdigest()}.marshal", deck)
        loaded.append((path, deck, file_problems))
    return combine(deck_files, problems, loaded)


def _key(path: Path) -> hashlib._Hash:
    """A hash to feed a deck file's bytes to: its digest names the file's cache entry."""
    # SHA-1 because it is the quickest of hashlib's hashes on most machines (OpenSSL runs it on
    # the SHA instructions of current x86 and ARM chips). Collisions can be forged for SHA-1,
    # but only by whoever writes both files, who can then show either deck anyway; against
    # accidental change, 160 bits are plenty. marshal's own version is in the key too: two Pythons
    # sharing a cache folder then keep an entry each rather than rejecting the other's.
    return hashlib.sha1(
        b"%d\0%d\0%s\0" % (FORMAT, marshal.version, str(path).encode("utf-8", "surrogateescape")),
        usedforsecurity=False,
    )


def _file_key(path: Path) -> str | None:
    """The key of ``path``'s bytes as they are now; None if they cannot be read, are too many
    (the loader then says why) or are not a regular file's (they are not cached).

    The file is hashed a chunk at a time as it is read: a hit never needs its bytes, so they
    are never held whole.
    """
    key = _key(path)
    size = 0
    buffer = bytearray(_CHUNK_SIZE)
    chunk = memoryview(buffer)
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return None  # a pipe (``<(...)``) can be read once: that read is the loader's
        with path.open("rb", buffering=0) as f:
            while n := f.readinto(buffer):
                size += n
                if size > files.MAX_FILE_BYTES:
                    return None
                key.update(chunk[:n])
    except OSError:
        return None
    return key.hexdigest()


def _read(entry: Path, path: Path) -> Deck | None:
    try:
        # Read, not memory-mapped: a mapped file cut short while a drill reads card bodies
        # from it would end the drill with SIGBUS.
        deck, images = _decode(entry.read_bytes(), path)
        # The YAML is unchanged, but an image it names may have gone, or been replaced by a
        # folder or by a symlink out of the deck's folder, since: the loader's own check again,
        # so a cached deck is accepted exactly when a fresh load would accept it.
        if not any(image_problem(deck.folder, image) for image in images):
            _touch(entry)
            return deck
    except (OSError, ValueError, KeyError, TypeError, IndexError, EOFError):
        pass
    return None


def _write(entry: Path, deck: Deck) -> None:
    # A cache that cannot be written only costs speed.
    try:
        data = _encode(deck)
    except ValueError:
        return  # a value marshal cannot hold (a str subclass, say)
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
    """Keep the :data:`KEEP` most recently used entries; drop older formats' files."""
    try:
        stale = [p for p in folder.glob("*.json") if p.is_file()]
        entries = sorted(folder.glob("*.marshal"), key=_used, reverse=True)
        for path in stale + entries[KEEP:]:
            path.unlink(missing_ok=True)
    except OSError:
        pass


def _used(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


# An entry is the CRC-32 of the rest (see _digest), the length of the index, the index
# (marshal data):
#
#     (FORMAT, (deck id, title, description, line, col, title line, title col, anki_math),
#      image paths, cards, study order, interviews, sheet)
#
# with the interviews and the sheet as plain tuples (see _encode_rehearsals),
# with each card (id, key, kind, ordinals, media, retired, tags, start, end), and then the
# cards' bodies (Markdown, refs and positions; each its own marshal data) back to back, start
# to end. Starting the drill reads the index only: a body is unpacked when its card is first
# shown or exported, straight from the entry's bytes, so bodies are never copied before then.
# The study order (deck/study_order.py) is the positions of the cards in the order new ones
# come in, worked out once when the entry is written. Tags are in the index, so reading a
# card's tags never unpacks its body.


def _encode(deck: Deck) -> bytes:
    bodies: list[bytes] = []
    index: list[tuple[Any, ...]] = []
    offset = 0
    for c in deck.cards:
        body = marshal.dumps(
            (
                dict(c.fields),
                tuple(c.refs),
                (c.pos.line, c.pos.col),
                {name: (p.line, p.col) for name, p in c.field_pos.items()},
            )
        )
        index.append(
            (
                c.id,
                c.key,
                c.kind.value,
                tuple(c.ordinals),
                tuple(c.media),
                c.retired,
                tuple(c.tags),
                offset,
                offset + len(body),
            )
        )
        bodies.append(body)
        offset += len(body)
    images = tuple(sorted({image for c in deck.cards for image in c.media}))
    title = deck.title_pos or deck.pos
    head = (
        deck.id,
        deck.title,
        deck.description,
        deck.pos.line,
        deck.pos.col,
        title.line,
        title.col,
        deck.anki_math,
    )
    packed = marshal.dumps(
        (FORMAT, head, images, tuple(index), deck.study_order, *_encode_rehearsals(deck))
    )
    rest = len(packed).to_bytes(_LENGTH_SIZE, "little") + packed + b"".join(bodies)
    return _digest(rest) + rest


def _digest(data: bytes | memoryview) -> bytes:
    """The checksum of the whole entry after it, checked before marshal sees a byte.

    Bodies are decoded only when read, long after this entry was accepted: a damaged byte
    must be caught now, while falling back to the YAML is still possible. The check guards
    against accidents (a bad disk, a write cut short), not against someone able to write the
    cache, who could write a matching digest of any kind. CRC-32 catches every burst of up
    to 32 flipped bits and all but 1 in 2**32 other damage, several times quicker than a
    cryptographic hash. Checking only the index at load and each body when first unpacked would
    be quicker still, but leave damage to be found mid-drill, with the entry's YAML possibly
    edited since: no good way back from there.
    """
    return zlib.crc32(data).to_bytes(DIGEST_SIZE, "little")


def _decode(data: bytes, path: Path) -> tuple[Deck, tuple[str, ...]]:
    """The deck in an entry, and the image paths its cards reference."""
    rest = memoryview(data)[DIGEST_SIZE:]
    if data[:DIGEST_SIZE] != _digest(rest):
        raise ValueError("damaged cache entry")
    length = int.from_bytes(rest[:_LENGTH_SIZE], "little")
    index = rest[_LENGTH_SIZE : _LENGTH_SIZE + length]
    version, head, images, rows, order, interviews, sheet = marshal.loads(index)
    if version != FORMAT:
        raise ValueError("old cache format")
    deck_id, title, description, line, col, title_line, title_col, anki_math = head
    where = str(path)
    # Shared by the deck's cards. Their spans need no check: the checksum vouches for them.
    source = (where, rest[_LENGTH_SIZE + length :])
    new, kinds = object.__new__, _KINDS
    cards = []
    for cid, key, kind, ordinals, media, retired, tags, start, end in rows:
        card = new(_LazyCard)
        attrs = card.__dict__
        attrs.update(
            deck=deck_id, id=cid, key=key, kind=kinds[kind], tags=tags, _packed=(source, start, end)
        )
        # Fields at their default are left to the class: most cards then need a dict of
        # five entries, not eight, which is a smaller dict and a quicker one to fill.
        if ordinals:
            attrs["ordinals"] = ordinals
        if media:
            attrs["media"] = media
        if retired:
            attrs["retired"] = retired
        cards.append(card)
    deck = Deck(
        deck_id,
        title,
        description,
        tuple(cards),
        path,
        Pos(where, line, col),
        Pos(where, title_line, title_col),
        anki_math,
        _decode_interviews(interviews, where),
        _decode_sheet(sheet, where),
    )
    # Worked out when the entry was written: the drill's first card does not wait for it.
    deck.__dict__["study_order"] = order
    return deck, images


def _encode_rehearsals(deck: Deck) -> tuple[tuple[Any, ...], tuple[Any, ...] | None]:
    interviews = tuple(
        (
            i.id,
            i.title,
            i.question,
            i.minutes,
            tuple((p.text, p.cards, p.pos.line, p.pos.col) for p in i.points),
            i.follow_ups,
            i.red_flags,
            i.pos.line,
            i.pos.col,
        )
        for i in deck.interviews
    )
    sheet = deck.sheet
    if sheet is None:
        return interviews, None
    bullets = tuple((b.text, b.cards, b.pos.line, b.pos.col) for b in sheet.bullets)
    return interviews, (bullets, sheet.pos.line, sheet.pos.col)


def _decode_interviews(rows: tuple[Any, ...], where: str) -> tuple[Interview, ...]:
    return tuple(
        Interview(
            iid,
            title,
            question,
            minutes,
            tuple(Point(text, cards, Pos(where, a, b)) for text, cards, a, b in points),
            follow_ups,
            red_flags,
            Pos(where, line, col),
        )
        for iid, title, question, minutes, points, follow_ups, red_flags, line, col in rows
    )


def _decode_sheet(row: tuple[Any, ...] | None, where: str) -> Sheet | None:
    if row is None:
        return None
    bullets, line, col = row
    return Sheet(
        tuple(Bullet(text, cards, Pos(where, a, b)) for text, cards, a, b in bullets),
        Pos(where, line, col),
    )


class _LazyCard(Card):
    """A :class:`Card` from the cache whose body is decoded the first time it is read.

    Built without ``__init__`` (the fields go straight into ``__dict__``), so a 10,000-card
    deck costs one small object per card until cards are shown. It equals the ``Card`` the
    loader would build from the same file.
    """

    def _body(self) -> tuple[Any, ...]:
        body: tuple[Any, ...] | None = self.__dict__.get("_decoded")
        if body is None:
            (where, bodies), start, end = self.__dict__["_packed"]
            fields, refs, (line, col), positions = marshal.loads(bodies[start:end])
            body = (
                MappingProxyType(fields),
                refs,
                Pos(where, line, col),
                MappingProxyType({n: Pos(where, a, b) for n, (a, b) in positions.items()}),
            )
            self.__dict__["_decoded"] = body
        return body

    @property
    def fields(self) -> Mapping[str, str]:
        return self._body()[0]  # type: ignore[no-any-return]

    @property
    def refs(self) -> tuple[str, ...]:
        return self._body()[1]  # type: ignore[no-any-return]

    @property
    def pos(self) -> Pos:
        return self._body()[2]  # type: ignore[no-any-return]

    @property
    def field_pos(self) -> Mapping[str, Pos]:
        return self._body()[3]  # type: ignore[no-any-return]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return all(
            getattr(self, f.name) == getattr(other, f.name)
            for f in dataclasses.fields(Card)
            if f.compare
        )

    __hash__ = Card.__hash__
