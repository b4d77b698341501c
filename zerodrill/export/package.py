"""The package file: a zip of the collection, the media index and the media files.

The zip is pinned like the collection inside it: fixed entry dates and attributes, entries in
a fixed order, and stored uncompressed, so that zlib's version cannot change the bytes.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Sequence

from msgspec import Struct, field

from zerodrill.deck.model import Deck
from zerodrill.errors import ExportError
from zerodrill.export.ids import media_name

_ZIP_DATE = (1980, 1, 1, 0, 0, 0)


class Media(Struct):
    """The images the decks' cards show, read and named for packing."""

    #: deck id -> {path relative to the deck folder -> packed name}
    names: dict[str, dict[str, str]] = field(default_factory=dict)
    #: packed name -> file content
    by_name: dict[str, bytes] = field(default_factory=dict)

    def files(self) -> list[tuple[str, bytes]]:
        return sorted(self.by_name.items())


def collect_media(decks: Sequence[Deck]) -> Media:
    """Read every image the decks' cards reference; an unreadable one is an ExportError."""
    media = Media()
    for deck in decks:
        folder = deck.folder.resolve()
        names = media.names.setdefault(deck.id, {})
        for card in deck.cards:
            for rel in card.media:
                if rel in names:
                    continue
                source = (folder / rel).resolve()
                # The loader checks this too; the exporter never packs a file from outside.
                if not source.is_relative_to(folder):
                    raise ExportError(f"{deck.path}: image '{rel}' is outside the deck's folder")
                try:
                    content = source.read_bytes()
                except OSError as exc:
                    raise ExportError(
                        f"{deck.path}: cannot read image '{rel}': {exc.strerror or exc}"
                    ) from exc
                name = media_name(deck.id, rel, content)
                names[rel] = name
                media.by_name[name] = content
    return media


def package_zip(collection: bytes, media: Sequence[tuple[str, bytes]]) -> bytes:
    """The ``.apkg`` bytes: the collection, then the media index, then each media file."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        _zip_entry(z, "collection.anki2", collection)
        index = {str(i): name for i, (name, _data) in enumerate(media)}
        _zip_entry(z, "media", json.dumps(index, sort_keys=True).encode())
        for i, (_name, data) in enumerate(media):
            _zip_entry(z, str(i), data)
    return buf.getvalue()


def _zip_entry(z: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
    info.compress_type = zipfile.ZIP_STORED
    info.create_system = 3
    info.external_attr = 0o100644 << 16
    z.writestr(info, data)
