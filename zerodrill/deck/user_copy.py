"""The learner's copy of an installed deck, in their deck folder (README.md, "Editing a card").

Key ``e`` on an installed deck would edit a file the next install replaces, so it offers this
copy instead, with the files the deck names beside it (its facts file, its images), so that it
loads there as it loaded where it was. A copy already there is the learner's work: it is
replaced only when they say so, and a file beside it that is already there is kept.
"""

from __future__ import annotations

from pathlib import Path

from zerodrill.atomic_write import write_together
from zerodrill.deck.files import read_beside, read_deck_bytes
from zerodrill.deck.model import Deck, Problem
from zerodrill.errors import UserError

#: The largest file copied beside the deck: an image may be larger than a facts file.
MAX_COPY_BYTES = 64 * 1024 * 1024


def copy_path(deck_file: Path, installed: Path, folder: Path) -> Path:
    """Where the copy of ``deck_file``, a file under ``installed``, goes in ``folder``: at
    the same place under it, so that it takes that file's place."""
    return folder / deck_file.resolve().relative_to(installed.resolve())


def copy_deck(deck: Deck, installed: Path, folder: Path, *, replace: bool = False) -> Path:
    """Copy ``deck`` (a deck under ``installed``) into ``folder``; the copy's path.

    A :class:`UserError` line if a copy is there and ``replace`` is not given, or for a file
    that cannot be read or written (nothing is written then).
    """
    target = copy_path(deck.path, installed, folder)
    if target.exists() and not replace:
        raise UserError(f"your deck folder has a copy of this deck already: {target}")
    data = read_deck_bytes(deck.path)
    if isinstance(data, Problem):
        raise UserError(str(data))
    files = [(target, data)]
    for name in _beside(deck):
        there = target.parent / name
        if there.exists():
            continue  # the learner's, or an earlier copy's: kept
        content = read_beside(deck.folder, name, MAX_COPY_BYTES)
        if isinstance(content, str):
            raise UserError(f"cannot copy the deck: {deck.folder / name} {content}")
        files.append((there, content))
    try:
        write_together(files)
    except OSError as exc:
        where = exc.filename or folder
        raise UserError(f"cannot copy the deck to {where}: {exc.strerror or exc}") from exc
    return target


def _beside(deck: Deck) -> list[str]:
    """The files the deck names in its folder, each once: its facts file and its images."""
    names = [deck.facts.path] if deck.facts is not None else []
    names += [image for card in deck.cards for image in card.media]
    return list(dict.fromkeys(names))
