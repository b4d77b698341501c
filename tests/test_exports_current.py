"""The committed packages in exports/ hold what the shipped decks build today.

What is compared is what a user's Anki keeps from a package: each note's GUID, ID, note type,
tags and the text and links of its fields; each card's ID, deck and template; the decks' IDs,
names and descriptions; the note types' IDs, names, fields and templates; the media; and the
manifest's note IDs. The exact bytes are not compared: they also depend on how pyromark
(pulldown-cmark) writes HTML and how Pygments highlights code and styles it, and a newer release
of either (both have only lower bounds) may change the markup of a package whose content is
still current.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import sqlite3
import zipfile
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from zerodrill.deck.load import load_paths
from zerodrill.export import apkg, notetypes

REPO = Path(__file__).resolve().parent.parent
EXPORTS = REPO / "exports"
REBUILD = (
    "rebuild with `zerodrill export decks/ -o exports/` and commit exports/ (package + manifest)"
)

_decks = load_paths([REPO / "decks"])


def _field(html: str) -> tuple[str, tuple[str, ...]]:
    """A field as a reader sees it: its text, and the targets of its links and images."""
    targets = tuple(re.findall(r'(?:href|src)="([^"]*)"', html))
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split()), targets


def contents(data: bytes) -> dict[str, Any]:
    """What Anki keeps from the package ``data``."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        index = json.loads(z.read("media"))
        media = {name: hashlib.sha256(z.read(i)).hexdigest() for i, name in index.items()}
        conn = sqlite3.connect(":memory:")
        conn.deserialize(z.read("collection.anki2"))
    try:
        notes = {
            guid: (nid, mid, tags, [_field(f) for f in flds.split("\x1f")])
            for nid, guid, mid, tags, flds in conn.execute(
                "SELECT id, guid, mid, tags, flds FROM notes"
            )
        }
        cards = sorted(conn.execute("SELECT id, nid, did, ord, type, queue, due FROM cards"))
        models_json, decks_json = conn.execute("SELECT models, decks FROM col").fetchone()
    finally:
        conn.close()
    models = {
        mid: (
            m["name"],
            [f["name"] for f in m["flds"]],
            [(t["name"], t["qfmt"], t["afmt"]) for t in m["tmpls"]],
            # zerodrill's own rules; Pygments' token colours follow them.
            m["css"].startswith(notetypes._BASE_CSS),
        )
        for mid, m in json.loads(models_json).items()
    }
    decks = {did: (d["name"], _field(d["desc"])) for did, d in json.loads(decks_json).items()}
    return {"notes": notes, "cards": cards, "models": models, "decks": decks, "media": media}


def test_shipped_decks_load() -> None:
    assert _decks.decks and not _decks.problems


@pytest.mark.parametrize("deck", _decks.decks, ids=lambda d: d.id)
def test_committed_package_is_current(deck) -> None:  # type: ignore[no-untyped-def]
    package_path = EXPORTS / f"{deck.id}.apkg"
    manifest_path = apkg.manifest_path(package_path)
    assert package_path.is_file() and manifest_path.is_file(), (
        f"{package_path} is missing: {REBUILD}"
    )
    committed = apkg.Manifest.load(manifest_path)
    fresh = apkg.build([deck], manifest=committed)
    assert contents(fresh.data) == contents(package_path.read_bytes()), (
        f"{package_path.relative_to(REPO)} differs from a fresh build of decks/: {REBUILD}"
    )
    ids = {key: record.id for key, record in fresh.manifest.notes.items()}
    assert ids == {key: record.id for key, record in committed.notes.items()}, REBUILD
    assert fresh.manifest.notetypes.keys() == committed.notetypes.keys(), REBUILD


def test_no_stale_packages() -> None:
    shipped = {d.id for d in _decks.decks}
    stale = sorted(p.name for p in EXPORTS.glob("*.apkg") if p.stem not in shipped)
    assert not stale, f"packages without a deck in decks/: {stale}; delete them"
