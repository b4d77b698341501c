"""``zerodrill validate``: the contributor's check."""

from __future__ import annotations

from pathlib import Path

import click

from zerodrill.cli.common import deck_roots
from zerodrill.deck.giveaways import deck_giveaways
from zerodrill.deck.load import load_paths
from zerodrill.deck.model import Deck, Problem
from zerodrill.deck.questions import deck_compound_questions
from zerodrill.deck.recall_lists import deck_long_lists
from zerodrill.export.formats import all_rules
from zerodrill.words import plural


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--skip-non-decks",
    is_flag=True,
    help="Pass over YAML files that are not decks (no 'deck' or 'cards' at the top), "
    "as the pre-commit hook does in a repository with other YAML.",
)
def validate(paths: tuple[Path, ...], skip_non_decks: bool) -> None:
    """Check deck files (default: a checkout's decks/, else the bundled decks); folders are
    searched recursively.

    Besides the deck format, each export format's rules are checked (Anki's deck names and
    cloze markers, say), so that a deck that passes can be exported to any of them.

    Every problem in every file is printed as FILE:LINE:COL: MESSAGE. Exit status 1 if there
    is any problem; warnings (a cloze deletion whose answer can be read or worked out from
    the rest of its card, a question that asks more than one thing, a list of more than four
    items to recall) are printed the same way but leave the status 0.
    """
    if skip_non_decks and paths:
        kept = [p for p in paths if not _not_a_deck(p)]
        if not kept:
            click.echo(f"no decks among {plural(len(paths), 'file')}: nothing to check")
            return
        paths = tuple(kept)
    result = load_paths(list(deck_roots(paths).roots), all_rules())
    for problem in result.problems:
        click.echo(str(problem))
    warnings = [w for deck in result.decks for w in _warnings(deck)]
    for warning in warnings:
        click.echo(str(warning))
    decks = plural(len(result.decks), "deck")
    cards = plural(result.cards, "card")
    in_anki = sum(len(card.items()) for deck in result.decks for card in deck.cards)
    if in_anki != result.cards:
        # `export` counts notes (the deck's cards) and Anki's cards: say how the two meet.
        cards += f" ({in_anki} in Anki: each cloze deletion is a card)"
    if result.problems:
        bad_files = len({p.pos.path for p in result.problems})
        click.echo(
            f"{plural(len(result.problems), 'problem')} in {plural(bad_files, 'file')} "
            f"({plural(len(result.files), 'file')} checked; {decks}, {cards} ok)",
            err=True,
        )
        raise SystemExit(1)
    noted = f" ({plural(len(warnings), 'warning')})" if warnings else ""
    click.echo(f"{decks}, {cards}: ok{noted}")


def _warnings(deck: Deck) -> list[Problem]:
    """How the deck's cards teach, checked: each warning once, in the file's order."""
    found = deck_giveaways(deck) + deck_compound_questions(deck) + deck_long_lists(deck)
    return sorted(found, key=lambda w: (w.pos.line, w.pos.col))


def _not_a_deck(path: Path) -> bool:
    """A file named on the command line that is YAML but plainly not a deck."""
    from zerodrill.deck.files import read_deck_bytes
    from zerodrill.deck.sniff import looks_like_deck

    if not path.is_file():
        return False  # a folder is searched, and a missing file reported, as without the flag
    data = read_deck_bytes(path)
    return isinstance(data, bytes) and not looks_like_deck(data)
