"""Which decks a command reads when it is given no path (the rule: README.md, "Commands").

A contributor runs zerodrill inside a clone of its repository, or of a deck repository of their
own, and means the decks in front of them, not the copy ``pip install .`` froze at install
time; a learner means their copy of an installed deck (:mod:`zerodrill.deck.user_copy`), not
the installed file the next install replaces. Whenever what is read is not the installed copy,
or a ``decks/`` folder is at hand but not read, :attr:`DefaultDecks.notice` says which, so the
user is never left guessing which copy a command saw.
"""

from __future__ import annotations

import os
from pathlib import Path

from msgspec import Struct

from zerodrill.deck.files import DECK_SUFFIXES, discover, read_deck_bytes

#: The folder of decks in zerodrill's repository, and in a deck repository laid out like it.
DECKS_FOLDER = "decks"
#: Deck files at a work tree's top level looked at, at most: a repository root is no place
#: for thousands of YAML files, and each is opened to tell a deck from other YAML.
_MAX_TOP_FILES = 200
#: The learner's deck files named in the notice, at most; the rest are counted.
_MAX_NAMED = 3


class DefaultDecks(Struct, frozen=True):
    """The folders to read, and the line that tells the user which they are (or None)."""

    roots: tuple[Path, ...]
    notice: str | None = None


def default_decks(bundled: Path, cwd: Path | None = None, user: Path | None = None) -> DefaultDecks:
    """The decks a command reads without a path: see the module's docstring.

    ``bundled`` is the installed decks' folder; ``cwd`` defaults to the current folder;
    ``user`` is the learner's deck folder (None: not read).
    """
    here = Path.cwd() if cwd is None else cwd
    for folder in _up_to_work_tree_root(here):
        decks = folder / DECKS_FOLDER
        if decks.is_dir():
            if not _holds_deck_files(decks):
                return _installed(bundled, user, f" ({_shown(decks, here)} holds no deck file)")
            if _same(decks, bundled):
                return DefaultDecks(
                    (_relative(decks, here),), f"decks: {_shown(decks, here)} (this checkout)"
                )
            return DefaultDecks(
                (_relative(decks, here),),
                f"decks: {_shown(decks, here)} (this checkout), not the installed ones",
            )
        if (folder / ".git").exists():
            files = _top_level_decks(folder)
            if files:
                return DefaultDecks(
                    tuple(_relative(f, here) for f in files),
                    f"decks: {_shown(folder, here)} (this deck repository), not the installed ones",
                )
    return _installed(bundled, user)


def _installed(bundled: Path, user: Path | None, why: str = "") -> DefaultDecks:
    """The installed decks, each replaced by the learner's copy of it (the file of the same
    name in ``user``), and the learner's other decks there after them. ``why`` the installed
    ones are read, if it needs saying."""
    mine = _deck_files(user) if user is not None else {}
    if user is None or not mine:
        return DefaultDecks((bundled,), f"decks: the installed ones{why}" if why else None)
    roots: list[Path] = []
    copies: list[str] = []
    for name, path in _deck_files(bundled).items():
        copy = mine.pop(name, None)
        roots.append(path if copy is None else copy)
        if copy is not None:
            copies.append(name)
    roots.extend(mine.values())
    parts = [f"your copy of {_names(copies)}"] if copies else []
    if mine:
        parts.append(f"your {_names(list(mine))}")
    return DefaultDecks(
        tuple(roots), f"decks: the installed ones{why}, with {' and '.join(parts)} from {user}"
    )


def _deck_files(folder: Path) -> dict[str, Path]:
    """The deck files a command given ``folder`` reads, by their path in it ('/'-separated);
    none if it is not a folder."""
    if not folder.is_dir():
        return {}
    files, _ = discover([folder])
    return {path.relative_to(folder).as_posix(): path for path in files}


def _names(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``, ``a, b and 2 more``."""
    if len(names) > _MAX_NAMED:
        names = [*names[: _MAX_NAMED - 1], f"{len(names) - _MAX_NAMED + 1} more"]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _up_to_work_tree_root(here: Path) -> list[Path]:
    """``here`` and its parents up to the git work tree's root; ``here`` alone outside one."""
    chain = [here, *here.parents]
    for i, folder in enumerate(chain):
        # A file named .git is a linked work tree's or a submodule's: a root all the same.
        if (folder / ".git").exists():
            return chain[: i + 1]
    return [here]


def _holds_deck_files(folder: Path) -> bool:
    try:
        return any(
            p.suffix in DECK_SUFFIXES and not p.name.startswith(".") for p in folder.rglob("*")
        )
    except OSError:
        return True  # read as given, so its problem is reported where the deck is read


def _top_level_decks(folder: Path) -> list[Path]:
    """The deck files at ``folder``'s top level; other YAML there (a site's or a CI's config)
    is left out, as the pre-commit hook leaves it out."""
    try:
        names = sorted(
            p for p in folder.iterdir() if p.suffix in DECK_SUFFIXES and not p.name.startswith(".")
        )
    except OSError:
        return []
    from zerodrill.deck.sniff import looks_like_deck  # PyYAML, only where a root may hold decks

    found: list[Path] = []
    for path in names[:_MAX_TOP_FILES]:
        if not path.is_file():
            continue
        data = read_deck_bytes(path)
        if isinstance(data, bytes) and looks_like_deck(data):
            found.append(path)
    return found


def _same(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def _relative(path: Path, here: Path) -> Path:
    """``path`` from ``here``, so that problems name files as the user would type them."""
    return Path(os.path.relpath(path, here))


def _shown(path: Path, here: Path) -> str:
    """``path`` as the user would type it from ``here`` (which is it or below it)."""
    relative = os.path.relpath(path, here)
    return relative if relative.startswith(("..", ".")) else f".{os.sep}{relative}"
