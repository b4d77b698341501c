from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(autouse=True)
def _private_review_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test may touch the real user's review database or deck cache."""
    db = tmp_path / "reviews.db"
    monkeypatch.setenv("ZERODRILL_DB", str(db))
    monkeypatch.setenv("ZERODRILL_CACHE_DIR", str(tmp_path / "deck-cache"))
    monkeypatch.delenv("ZERODRILL_DEBUG", raising=False)
    return db
