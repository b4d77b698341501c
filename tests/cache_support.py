"""Telling a deck served by the parsed-deck cache from one parsed again, by behaviour: whether
the loader's YAML-to-model builder ran, not what the cache keeps inside."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

import zerodrill.deck.load
from zerodrill.deck.cache import load_paths_cached
from zerodrill.deck.files import LoadResult


def count_parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The deck files the loader parses from now on (the cache's misses), in order."""
    parsed: list[Path] = []
    parse = zerodrill.deck.load.parse_bytes

    def counted(data: bytes, path: Path, *rules: object) -> object:
        parsed.append(path)
        return parse(data, path, *rules)  # type: ignore[arg-type]

    monkeypatch.setattr(zerodrill.deck.load, "parse_bytes", counted)
    return parsed


def served(paths: Sequence[Path], cache: Path, monkeypatch: pytest.MonkeyPatch) -> LoadResult:
    """``paths`` loaded through ``cache``, failing the test if any is parsed."""

    def refused(data: bytes, path: Path, *rules: object) -> object:
        raise AssertionError(f"{path} was parsed, not served from the cache")

    with monkeypatch.context() as patched:
        patched.setattr(zerodrill.deck.load, "parse_bytes", refused)
        return load_paths_cached(paths, cache)
