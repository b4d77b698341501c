"""A cache of parsed decks, keyed on each file's exact bytes, so the drill starts at once.

Parsing YAML is the dominant cost of starting on a large deck (about 1.4 s for 10,000 cards);
reading the bytes, hashing them and rebuilding the model from JSON is a small fraction of
that. The cache holds only decks that loaded without problems, so every problem is still
reported from the source. It is JSON, not pickle: a cache file is never trusted to run code.
Any trouble with the cache (unwritable, corrupt, stale) falls back to parsing.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from zerodrill.deck.load import LoadResult, combine, discover, parse_bytes
from zerodrill.deck.model import Card, Deck, Kind, Pos, Problem

#: Bump when the model or the loader's checks change, so old entries are not reused.
FORMAT = 1


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
        try:
            data = path.read_bytes()
        except OSError as exc:
            loaded.append((path, None, [Problem(Pos(str(path), 1, 1), f"cannot read file: {exc}")]))
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
        raw = json.loads(entry.read_text(encoding="utf-8"))
        deck = _decode(raw, path)
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
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(_encode(deck), f, separators=(",", ":"))
        os.replace(tmp, entry)
    except OSError:
        # A cache that cannot be written only costs speed.
        return


def _encode(deck: Deck) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "deck": [deck.id, deck.title, deck.description, deck.pos.line, deck.pos.col],
        "cards": [
            [
                c.id,
                c.kind.value,
                dict(c.fields),
                list(c.tags),
                list(c.refs),
                c.pos.line,
                c.pos.col,
                {name: [p.line, p.col] for name, p in c.field_pos.items()},
                list(c.ordinals),
                list(c.media),
                c.retired,
            ]
            for c in deck.cards
        ],
    }


def _decode(raw: dict[str, Any], path: Path) -> Deck:
    if raw["format"] != FORMAT:
        raise ValueError("old cache format")
    where = str(path)
    deck_id, title, description, line, col = raw["deck"]
    cards = tuple(
        Card(
            deck=deck_id,
            id=cid,
            kind=Kind(kind),
            fields=MappingProxyType(fields),
            tags=tuple(tags),
            refs=tuple(refs),
            pos=Pos(where, cline, ccol),
            field_pos=MappingProxyType({n: Pos(where, a, b) for n, (a, b) in fpos.items()}),
            ordinals=tuple(ordinals),
            media=tuple(media),
            retired=bool(retired),
        )
        for cid, kind, fields, tags, refs, cline, ccol, fpos, ordinals, media, retired in raw[
            "cards"
        ]
    )
    return Deck(deck_id, title, description, cards, path, Pos(where, line, col))
