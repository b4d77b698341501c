"""What several commands share: loading the decks, ``--db``, running a Textual app to its end."""

from __future__ import annotations

import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from zerodrill.deck.control_chars import shown
from zerodrill.deck.files import LoadResult
from zerodrill.deck.model import Deck
from zerodrill.errors import UserError
from zerodrill.paths import bundled_decks_dir, user_decks_dir
from zerodrill.words import plural

if TYPE_CHECKING:
    from zerodrill.deck.checkout import DefaultDecks
    from zerodrill.deck.target_rules import TargetRules
    from zerodrill.srs.store import Store
    from zerodrill.tui.app_base import AppBase

R = TypeVar("R")
F = TypeVar("F", bound=Callable[..., Any])

DB_HELP = "Review database (default: ZERODRILL_DB, else reviews.db in the user data folder)."


def db_option(help: str = DB_HELP) -> Callable[[F], F]:
    return click.option("--db", type=click.Path(path_type=Path, dir_okay=False), help=help)


def run_to_end(app: AppBase[R], store: Store) -> R | None:
    """Run ``app`` on ``store``; its result, once the file is checked to still be the one the
    results are said to be saved in."""
    result = app.run()
    if app.error is not None:
        raise app.error
    if app.return_code:
        # Textual has shown the traceback of an unexpected error already.
        raise SystemExit(app.return_code)
    store.check_file()
    return result


def deck_roots(paths: Sequence[Path]) -> DefaultDecks:
    """``paths``, or the decks a command reads without one (:mod:`zerodrill.deck.checkout`),
    with their ``notice`` on stderr."""
    # Imported here: the drill's start from the parsed-deck cache never needs PyYAML, which
    # telling a deck repository's decks from its other YAML does.
    from zerodrill.deck.checkout import DefaultDecks, default_decks

    if paths:
        return DefaultDecks(tuple(paths))
    found = default_decks(bundled_decks_dir(), user=user_decks_dir())
    if found.notice is not None:
        click.echo(shown(found.notice), err=True)
    return found


def load_decks(
    paths: Sequence[Path], rules: Sequence[TargetRules] = (), *, cached: bool = True
) -> LoadResult:
    """The decks under ``paths`` (default: :func:`deck_roots`), through the parsed-deck cache;
    with an export target's ``rules``, parsed afresh: the cache keeps decks, not what a
    target's rules would find in their text. Not ``cached``: parsed afresh, the cache neither
    read nor written (a dry run writes nothing)."""
    roots = list(deck_roots(paths).roots)
    if rules or not cached:
        from zerodrill.deck.load import load_paths

        return load_paths(roots, rules)
    # Imported here so that validate, which reads the decks itself, never loads the cache.
    from zerodrill.deck.cache import load_paths_cached

    return load_paths_cached(roots)


def usable_decks(result: LoadResult, *, watching: bool = False) -> tuple[Deck, ...]:
    """``result``'s decks, or a UserError if any deck has a problem (or there is none):
    every problem printed as ``validate`` prints it, then a line counting them. ``watching``:
    the command draws again by itself, so the line does not say to run it again."""
    problems = result.problems
    if len(problems) == 1:
        raise UserError(str(problems[0]))
    if problems:
        for problem in problems:
            click.echo(str(problem), err=True)
        then = "; drawn again when a deck file changes" if watching else " and run again"
        raise UserError(
            f"{plural(len(problems), 'problem')} in the decks; fix them "
            f"(zerodrill validate checks){then}"
        )
    if not result.decks:
        raise UserError("no decks found")
    return result.decks


def write_output(path: Path, data: bytes) -> None:
    """Write a command's output file whole, or raise one line for the user; a missing folder
    is more likely a typo than a wish, so none is made."""
    from zerodrill.atomic_write import write_atomic

    if not path.parent.is_dir():
        raise UserError(f"cannot write {path}: no folder {path.parent}")
    try:
        write_atomic(path, data, make_folder=False)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from exc


def no_folder(folder: Path) -> str:
    """Why ``folder`` cannot hold the file a command writes: the first thing on its way that
    is not a folder, else that it does not exist."""
    for part in (folder, *folder.parents):
        try:
            mode = part.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue  # on up, to what is there
        except OSError as exc:  # a symlink loop, a folder that may not be searched
            return f"{shown(str(part))}: {exc.strerror or exc}"
        if not stat.S_ISDIR(mode):
            return f"{shown(str(part))}: not a folder"
        break
    return f"{shown(str(folder))}: no such folder"
