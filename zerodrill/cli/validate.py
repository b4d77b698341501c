"""``zerodrill validate``: the contributor's check."""

from __future__ import annotations

from pathlib import Path

import click

from zerodrill.deck.load import load_paths
from zerodrill.export.formats import all_rules
from zerodrill.paths import bundled_decks_dir
from zerodrill.words import plural


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
def validate(paths: tuple[Path, ...]) -> None:
    """Check deck files (default: the bundled decks); folders are searched recursively.

    Besides the deck format, each export format's rules are checked (Anki's deck names and
    cloze markers, say), so that a deck that passes can be exported to any of them.

    Every problem in every file is printed as FILE:LINE:COL: MESSAGE. Exit status 1 if there
    is any problem.
    """
    result = load_paths(list(paths) or [bundled_decks_dir()], all_rules())
    for problem in result.problems:
        click.echo(str(problem))
    decks = plural(len(result.decks), "deck")
    cards = plural(result.cards, "card")
    if result.problems:
        bad_files = len({p.pos.path for p in result.problems})
        click.echo(
            f"{plural(len(result.problems), 'problem')} in {plural(bad_files, 'file')} "
            f"({plural(len(result.files), 'file')} checked; {decks}, {cards} ok)",
            err=True,
        )
        raise SystemExit(1)
    click.echo(f"{decks}, {cards}: ok")
