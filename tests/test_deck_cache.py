"""The parsed-deck cache gives the same decks as parsing, and never hides a change."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from zerodrill.deck.cache import load_paths_cached
from zerodrill.deck.load import load_paths

DATA = Path(__file__).resolve().parent / "data" / "decks"


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "decks"
    shutil.copytree(DATA, folder)
    return folder / "sample.yaml"


def test_cached_load_equals_parse(tmp_path: Path) -> None:
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    first = load_paths_cached([deck_file], cache)
    assert len(list(cache.glob("*.json"))) == 1
    second = load_paths_cached([deck_file], cache)
    parsed = load_paths([deck_file])
    assert first.decks == second.decks == parsed.decks
    for a, b in zip(second.decks[0].cards, parsed.decks[0].cards, strict=True):
        assert a.field_pos == b.field_pos
        assert a.items() == b.items()


def test_edited_file_is_parsed_again(tmp_path: Path) -> None:
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    load_paths_cached([deck_file], cache)
    text = deck_file.read_text(encoding="utf-8")
    deck_file.write_text(text.replace("Optimizer states **and** gradients.", "Changed."), "utf-8")
    result = load_paths_cached([deck_file], cache)
    back = {c.id: c for c in result.decks[0].cards}["stage-2-shards"].fields["back"]
    assert back == "Changed."


def test_problems_are_never_cached(tmp_path: Path) -> None:
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    deck_file.write_text(deck_file.read_text("utf-8").replace("back:", "bakc:"), "utf-8")
    for _ in range(2):
        result = load_paths_cached([deck_file], cache)
        assert not result.decks
        assert any("did you mean 'back'" in p.message for p in result.problems)
    assert not cache.exists() or not list(cache.glob("*.json"))


def test_corrupt_cache_entry_falls_back_to_parsing(tmp_path: Path) -> None:
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    load_paths_cached([deck_file], cache)
    (entry,) = cache.glob("*.json")
    entry.write_text('{"format": 1, "deck": ["x"]', encoding="utf-8")
    result = load_paths_cached([deck_file], cache)
    assert result.decks == load_paths([deck_file]).decks


def test_unwritable_cache_only_costs_speed(tmp_path: Path) -> None:
    deck_file = _copy(tmp_path)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    result = load_paths_cached([deck_file], blocker / "cache")
    assert result.ok and result.decks


def test_missing_image_invalidates_the_entry(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    (folder / "img").mkdir(parents=True)
    (folder / "img" / "a.png").write_bytes(b"\x89PNG")
    deck_file = folder / "deck.yaml"
    deck_file.write_text(
        "deck: d\ntitle: T\ndescription: D\ncards:\n"
        "  - id: a\n    kind: basic\n    front: '![x](img/a.png)'\n    back: A\n",
        encoding="utf-8",
    )
    cache = tmp_path / "cache"
    assert load_paths_cached([deck_file], cache).ok
    (folder / "img" / "a.png").unlink()
    result = load_paths_cached([deck_file], cache)
    assert [p.message for p in result.problems] == ["image 'img/a.png' does not exist"]


def test_damaged_card_body_falls_back_to_parsing(tmp_path: Path) -> None:
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    load_paths_cached([deck_file], cache)
    (entry,) = cache.glob("*.json")
    data = bytearray(entry.read_bytes())
    body = data.index(b"\n") + 1
    data[body + 2] ^= 0x20  # one flipped bit inside the first card's Markdown
    entry.write_bytes(bytes(data))
    result = load_paths_cached([deck_file], cache)
    parsed = load_paths([deck_file])
    assert result.decks == parsed.decks
    assert [c.fields for c in result.decks[0].cards] == [c.fields for c in parsed.decks[0].cards]


def test_size_limit_holds_on_the_cached_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    assert load_paths_cached([deck_file], cache).ok
    monkeypatch.setattr("zerodrill.deck.load.MAX_FILE_BYTES", 100)
    result = load_paths_cached([deck_file], cache)
    assert not result.decks
    assert [p.message for p in result.problems] == ["file is larger than the 100 bytes limit"]
