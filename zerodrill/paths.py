"""Where things live: the bundled decks and the review database."""

from __future__ import annotations

import os
from pathlib import Path

from zerodrill.errors import UserError

_PACKAGE = Path(__file__).resolve().parent


def bundled_decks_dir() -> Path:
    """The shipped decks: inside the wheel when installed, ``decks/`` in a source checkout."""
    installed = _PACKAGE / "_decks"
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / "decks"


def default_db_path(*, create_folder: bool = False) -> Path:
    """``ZERODRILL_DB`` if set, else ``reviews.db`` in the user's data directory.

    ``create_folder`` makes that data directory when needed: it is ours to create, while a
    folder the user named (in ``ZERODRILL_DB`` or ``--db``) is not, a missing one being most
    often a typo.
    """
    env = os.environ.get("ZERODRILL_DB")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_path

    path = user_data_path("zerodrill", appauthor=False) / "reviews.db"
    if create_folder:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(
                f"cannot create the data folder {path.parent}: {exc.strerror or exc}"
            ) from exc
    return path
