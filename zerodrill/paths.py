"""Where things live: the bundled decks and the review database."""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def bundled_decks_dir() -> Path:
    """The shipped decks: inside the wheel when installed, ``decks/`` in a source checkout."""
    installed = _PACKAGE / "_decks"
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / "decks"


def default_db_path() -> Path:
    """``ZERODRILL_DB`` if set, else ``reviews.db`` in the user's data directory."""
    env = os.environ.get("ZERODRILL_DB")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_path

    return user_data_path("zerodrill", appauthor=False) / "reviews.db"
