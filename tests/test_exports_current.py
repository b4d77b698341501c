"""The committed packages in exports/ are exactly what the shipped decks build today."""

from __future__ import annotations

from pathlib import Path

import pytest

from zerodrill.deck.load import load_paths
from zerodrill.export import apkg

REPO = Path(__file__).resolve().parent.parent
EXPORTS = REPO / "exports"
REBUILD = "rebuild with `zerodrill export -o exports/` and commit exports/ (package + manifest)"

_decks = load_paths([REPO / "decks"])


def test_shipped_decks_load() -> None:
    assert _decks.decks and not _decks.problems


@pytest.mark.parametrize("deck", _decks.decks, ids=lambda d: d.id)
def test_committed_package_is_current(deck) -> None:  # type: ignore[no-untyped-def]
    package_path = EXPORTS / f"{deck.id}.apkg"
    manifest_path = apkg.manifest_path(package_path)
    assert package_path.is_file() and manifest_path.is_file(), (
        f"{package_path} is missing: {REBUILD}"
    )
    fresh = apkg.build([deck], manifest=apkg.Manifest.load(manifest_path))
    assert fresh.data == package_path.read_bytes(), (
        f"{package_path.relative_to(REPO)} differs from a fresh build of decks/: {REBUILD}"
    )
    assert fresh.manifest.dumps() == manifest_path.read_text(encoding="utf-8"), REBUILD


def test_no_stale_packages() -> None:
    shipped = {d.id for d in _decks.decks}
    stale = sorted(p.name for p in EXPORTS.glob("*.apkg") if p.stem not in shipped)
    assert not stale, f"packages without a deck in decks/: {stale}; delete them"
