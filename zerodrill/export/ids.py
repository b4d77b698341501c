"""Identities that must never change: they are how Anki recognises what it already has.

Anki matches an imported deck by its ID, a note by its GUID and a media file by its name. Were
any of these to change for the same card, the user's copy would stop updating in place: a
re-import would add a second note, or leave the old picture. Each is therefore derived from
what stays fixed (the deck's and the card's ids, the image's content), never from a position
or a time. Note IDs are the exception: given once, at the build that first sees a note, they
are then remembered by the manifest (see :mod:`zerodrill.export.manifest`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import PurePosixPath

import genanki

from zerodrill.deck.cloze import MAX_ORDINAL

#: Note IDs are spaced this far apart; a card's ID is its note's ID + its template ordinal.
ID_STRIDE = MAX_ORDINAL
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_-]+")
_BASE91 = "".join(genanki.util.BASE91_TABLE)


def deck_anki_id(deck_id: str) -> int:
    """A stable Anki deck ID for a zerodrill deck id (kept below 2**53 for JavaScript)."""
    digest = hashlib.sha256(f"zerodrill deck {deck_id}".encode()).digest()
    return (1 << 32) + int.from_bytes(digest[:8], "big") % ((1 << 53) - (1 << 32))


def note_guid(deck_id: str, card_id: str) -> str:
    """The note's GUID: genanki's ``guid_for(deck_id, card_id)``, as every export has used
    (the first 8 bytes of the SHA-256 of ``deck__card`` in Anki's base 91).

    Written out because genanki's byte-at-a-time loop missed the export's benchmark goal; a
    test holds it to ``genanki.guid_for`` for any ids.
    """
    n = int.from_bytes(hashlib.sha256(f"{deck_id}__{card_id}".encode()).digest()[:8], "big")
    digits: list[str] = []
    while n:
        n, digit = divmod(n, 91)
        digits.append(_BASE91[digit])
    return "".join(reversed(digits))


def media_name(deck_id: str, rel_path: str, content: bytes) -> str:
    """The packed file name: unique per deck and content, safe in any media folder.

    The content hash in the name means an edited image is a new file for Anki (which never
    replaces a media file of the same name) and the note that shows it is updated to it.
    """
    p = PurePosixPath(rel_path)
    stem = _UNSAFE_NAME.sub("-", p.stem).strip("-")[:40] or "image"
    ext = _UNSAFE_NAME.sub("", p.suffix.lstrip(".")).lower()[:10]
    digest = hashlib.sha256(content).hexdigest()[:12]
    return f"zerodrill-{deck_id}-{stem}-{digest}" + (f".{ext}" if ext else "")


def new_note_ids(count: int, taken: Iterable[int], now: int) -> list[int]:
    """IDs for ``count`` new notes: creation times in ms, in order, clear of every ``taken`` ID.

    They are spaced :data:`ID_STRIDE` apart because a card's ID is its note's ID plus its
    template ordinal, and they end at the build time ``now`` (s) because Anki refuses IDs from
    the future.
    """
    start = now * 1000 - count * ID_STRIDE
    highest = max(taken, default=None)
    if highest is not None:
        start = max(start, highest + ID_STRIDE)
    return [start + i * ID_STRIDE for i in range(count)]
