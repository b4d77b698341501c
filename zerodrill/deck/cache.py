"""A cache of parsed decks, keyed on each file's exact bytes, so the drill starts at once.

Parsing YAML is the dominant cost of starting on a large deck (about 1.4 s for 10,000 cards);
reading the bytes, hashing them and rebuilding the model from JSON is a small fraction of
that. The cache holds only decks that loaded without problems, so every problem is still
reported from the source. It is JSON, not pickle: a cache file is never trusted to run code.
Any trouble with the cache (unwritable, corrupt, stale) falls back to parsing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from zerodrill.deck.load import LoadResult, combine, discover, parse_bytes, read_deck_bytes
from zerodrill.deck.model import Card, Deck, Kind, Pos, Problem

#: Bump when the model or the loader's checks change, so old entries are not reused.
FORMAT = 3


def cache_dir() -> Path:
    env = os.environ.get("ZERODRILL_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_cache_path

    return user_cache_path("zerodrill", appauthor=False) / "decks"


def load_paths_cached(paths: Sequence[Path], folder: Path | None = None) -> LoadResult:
    """Like :func:`zerodrill.deck.load.load_paths`, reusing parses of unchanged files."""
    folder = cache_dir() if folder is None else folder
    files, problems = discover(paths)
    loaded: list[tuple[Path, Deck | None, list[Problem]]] = []
    for path in files:
        data = read_deck_bytes(path)
        if isinstance(data, Problem):
            loaded.append((path, None, [data]))
            continue
        key = hashlib.blake2b(
            b"%d\0%s\0" % (FORMAT, str(path).encode("utf-8", "surrogateescape")) + data,
            digest_size=20,
        ).hexdigest()
        entry = folder / f"{key}.json"
        deck = _read(entry, path)
        if deck is not None:
            loaded.append((path, deck, []))
            continue
        deck, file_problems = parse_bytes(data, path)
        if deck is not None and not file_problems:
            _write(entry, deck)
        loaded.append((path, deck, file_problems))
    return combine(files, problems, loaded)


def _read(entry: Path, path: Path) -> Deck | None:
    try:
        deck = _decode(entry.read_bytes(), path)
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None
    # The YAML is unchanged, but an image it names may have gone since.
    for card in deck.cards:
        for media in card.media:
            if not (deck.folder / media).is_file():
                return None
    return deck


def _write(entry: Path, deck: Deck) -> None:
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(_encode(deck))
        os.replace(tmp, entry)
    except OSError:
        # A cache that cannot be written only costs speed.
        return


# An entry is a one-line JSON index, then each card's body (its Markdown, tags, refs and field
# positions) as JSON, back to back. Starting the drill reads the index only: a body is decoded
# when its card is first shown or exported.


def _encode(deck: Deck) -> bytes:
    bodies: list[bytes] = []
    index: list[list[Any]] = []
    offset = 0
    for c in deck.cards:
        body = json.dumps(
            [
                dict(c.fields),
                list(c.tags),
                list(c.refs),
                {name: [p.line, p.col] for name, p in c.field_pos.items()},
            ],
            separators=(",", ":"),
        ).encode("utf-8")
        index.append(
            [
                c.id,
                c.kind.value,
                list(c.ordinals),
                list(c.media),
                c.retired,
                c.pos.line,
                c.pos.col,
                offset,
                offset + len(body),
            ]
        )
        bodies.append(body)
        offset += len(body)
    blob = b"".join(bodies)
    head = {
        "format": FORMAT,
        "deck": [deck.id, deck.title, deck.description, deck.pos.line, deck.pos.col],
        "cards": index,
        "bodies": _digest(blob),
    }
    return json.dumps(head, separators=(",", ":")).encode("utf-8") + b"\n" + blob


def _digest(blob: bytes | memoryview) -> str:
    # Bodies are decoded only when read, long after this entry was accepted: a damaged byte
    # must be caught now, while falling back to the YAML is still possible.
    return hashlib.blake2b(blob, digest_size=20).hexdigest()


def _decode(data: bytes, path: Path) -> Deck:
    newline = data.index(b"\n")
    head = json.loads(data[:newline])
    if head["format"] != FORMAT:
        raise ValueError("old cache format")
    blob = memoryview(data)[newline + 1 :]
    if head["bodies"] != _digest(blob):
        raise ValueError("damaged cache entry")
    where = str(path)
    deck_id, title, description, line, col = head["deck"]
    new = object.__new__
    cards = []
    for cid, kind, ordinals, media, retired, cline, ccol, start, end in head["cards"]:
        if not (0 <= start <= end <= len(blob)):
            raise ValueError("card body out of range")
        card = new(_LazyCard)
        card.__dict__.update(
            deck=deck_id,
            id=cid,
            kind=Kind(kind),
            pos=Pos(where, cline, ccol),
            ordinals=tuple(ordinals),
            media=tuple(media),
            retired=bool(retired),
            _blob=blob[start:end],
        )
        cards.append(card)
    return Deck(deck_id, title, description, tuple(cards), path, Pos(where, line, col))


class _LazyCard(Card):
    """A :class:`Card` from the cache whose body is decoded the first time it is read.

    Built without ``__init__`` (the fields go straight into ``__dict__``), so a 10,000-card
    deck costs one small object per card until cards are shown. It equals the ``Card`` the
    loader would build from the same file.
    """

    def _body(self) -> tuple[Any, ...]:
        body: tuple[Any, ...] | None = self.__dict__.get("_decoded")
        if body is None:
            fields, tags, refs, positions = json.loads(bytes(self.__dict__["_blob"]))
            where = self.pos.path
            body = (
                MappingProxyType(fields),
                tuple(tags),
                tuple(refs),
                MappingProxyType({n: Pos(where, a, b) for n, (a, b) in positions.items()}),
            )
            self.__dict__["_decoded"] = body
        return body

    @property  # type: ignore[override]
    def fields(self) -> Mapping[str, str]:
        return self._body()[0]  # type: ignore[no-any-return]

    @property  # type: ignore[override]
    def tags(self) -> tuple[str, ...]:
        return self._body()[1]  # type: ignore[no-any-return]

    @property  # type: ignore[override]
    def refs(self) -> tuple[str, ...]:
        return self._body()[2]  # type: ignore[no-any-return]

    @property  # type: ignore[override]
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
