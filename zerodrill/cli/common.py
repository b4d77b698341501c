"""What several commands share: loading the decks they work on."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from zerodrill.deck.files import LoadResult
from zerodrill.deck.model import Deck
from zerodrill.errors import UserError
from zerodrill.paths import bundled_decks_dir
from zerodrill.words import plural


def load_decks(paths: Sequence[Path]) -> LoadResult:
    """The decks under ``paths`` (default: the bundled ones), through the parsed-deck cache."""
    # Imported here so that validate, which reads the decks itself, never loads the cache.
    from zerodrill.deck.cache import load_paths_cached

    return load_paths_cached(list(paths) or [bundled_decks_dir()])


def usable_decks(result: LoadResult) -> tuple[Deck, ...]:
    """``result``'s decks, or a UserError if any deck has a problem (or there is none).

    Every problem is printed, as ``validate`` prints it, then a line counting them; a single
    problem is the error line itself.
    """
    problems = result.problems
    if len(problems) == 1:
        raise UserError(str(problems[0]))
    if problems:
        for problem in problems:
            click.echo(str(problem), err=True)
        raise UserError(
            f"{plural(len(problems), 'problem')} in the decks; fix them "
            "(zerodrill validate checks) and run again"
        )
    if not result.decks:
        raise UserError("no decks found")
    return result.decks
