"""Where things live: the bundled decks, the user's own deck folder and the review database."""

from __future__ import annotations

import os
from pathlib import Path

from zerodrill.errors import UserError

_PACKAGE = Path(__file__).resolve().parent


def installed_decks_dir() -> Path:
    """Where an installed zerodrill keeps the shipped decks: inside the package, replaced by
    the next install (absent in a source checkout)."""
    return _PACKAGE / "_decks"


def bundled_decks_dir() -> Path:
    """The shipped decks: inside the wheel when installed, ``decks/`` in a source checkout."""
    installed = installed_decks_dir()
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / "decks"


def in_installed_decks(path: Path) -> bool:
    """Whether ``path`` is a file of the installed package's decks: an edit there is lost
    at the next install."""
    try:
        return path.resolve().is_relative_to(installed_decks_dir().resolve())
    except (OSError, RuntimeError):  # a symlink loop: not a deck of ours
        return False


def user_decks_dir() -> Path:
    """``ZERODRILL_DECKS_DIR`` if set, else ``decks`` in the user's data directory: the
    learner's own copies of the installed decks (see :mod:`zerodrill.deck.checkout`)."""
    env = os.environ.get("ZERODRILL_DECKS_DIR")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_path

    return user_data_path("zerodrill", appauthor=False) / "decks"


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
