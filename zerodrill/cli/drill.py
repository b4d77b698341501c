"""``zerodrill drill``: the terminal drill. Textual is imported only once the decks and the
database have been checked, so every expected failure is one line and no screen flashes up."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import click

from zerodrill.deck.load import LoadResult
from zerodrill.errors import UserError
from zerodrill.paths import bundled_decks_dir, default_db_path


def load_decks(paths: Sequence[Path]) -> LoadResult:
    """The decks to drill, from the parsed-deck cache when a file is unchanged."""
    from zerodrill.deck.cache import load_paths_cached

    return load_paths_cached(list(paths) or [bundled_decks_dir()])


@contextmanager
def bulk_allocation() -> Iterator[None]:
    """Build the long-lived deck and queue objects without the garbage collector.

    Building 10,000 cards makes some 150,000 objects, and the collector, triggered by the
    count of allocations, walks all of them again and again: half the load time. Nothing built
    here is garbage. Afterwards they are frozen, so the collections Textual's own allocations
    trigger while drilling do not walk them either (a pause on a key press otherwise).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--db",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Review database (default: ZERODRILL_DB, else reviews.db in the user data folder).",
)
@click.option(
    "--new",
    "new_limit",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    help="New cards a day.",
)
@click.option("--deck", "deck_id", metavar="ID", help="Drill only the deck with this id.")
def drill(paths: tuple[Path, ...], db: Path | None, new_limit: int, deck_id: str | None) -> None:
    """Drill the cards due in PATH... (default: the bundled decks), SM-2 scheduled.

    Enter shows the answer, 0-5 grades it, u undoes, d picks a deck, s shows statistics,
    ? lists every key, q quits. Every grade is saved the moment it is given.
    """
    from zerodrill.srs.store import Store

    with bulk_allocation():
        result = load_decks(paths)
    if result.problems:
        for problem in result.problems:
            click.echo(str(problem), err=True)
        n = len(result.problems)
        raise UserError(
            f"{n} problem{'s' if n != 1 else ''} in the decks; fix them "
            "(zerodrill validate checks) and run drill again"
        )
    if not result.decks:
        raise UserError("no decks to drill")
    if deck_id is not None and deck_id not in {d.id for d in result.decks}:
        known = ", ".join(sorted(d.id for d in result.decks))
        raise UserError(f"no deck with id '{deck_id}' (decks: {known})")

    if db is None:
        db = default_db_path(create_folder=True)
    with Store.open(db) as store:
        from zerodrill.tui.app import create_app

        with bulk_allocation():
            app = create_app(result.decks, store, new_limit=new_limit, deck_id=deck_id)
        summary = app.run()
        if app.error is not None:
            raise app.error
        if app.return_code:
            # Textual has shown the traceback of an unexpected error already.
            raise SystemExit(app.return_code)
    if summary is not None and summary.reviews:
        click.echo(
            f"{summary.reviews} grade{'s' if summary.reviews != 1 else ''} saved to {db}; "
            f"{summary.due_tomorrow} due tomorrow."
        )
