"""``zerodrill drill``: the terminal drill. Textual is imported only once the decks and the
database have been checked, so every expected failure is one line and no screen flashes up."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from zerodrill.cli.common import load_decks, plural, usable_decks
from zerodrill.errors import UserError
from zerodrill.gcpause import gc_paused
from zerodrill.paths import default_db_path

if TYPE_CHECKING:
    from zerodrill.tui.session import Summary


@contextmanager
def bulk_allocation() -> Iterator[None]:
    """Build the long-lived deck and queue objects without the garbage collector.

    Building 10,000 cards makes some 150,000 objects, and the collector, triggered by the
    count of allocations, walks all of them again and again: half the load time. Nothing built
    here is garbage. Afterwards they are frozen, so the collections Textual's own allocations
    trigger while drilling do not walk them either (a pause on a key press otherwise).
    """
    with gc_paused():
        try:
            yield
        finally:
            gc.freeze()


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
    # No collector passes until the first card is on screen (the app turns the collector back
    # on then): starting up allocates a great deal and frees next to nothing, and the passes
    # over it cost the first card about 10 ms.
    with gc_paused():
        summary, db = _run(paths, db, new_limit, deck_id)
    if summary is not None and summary.reviews:
        click.echo(
            f"{plural(summary.reviews, 'grade')} saved to {db}; "
            f"{summary.due_tomorrow} due tomorrow."
        )


def _run(
    paths: tuple[Path, ...], db: Path | None, new_limit: int, deck_id: str | None
) -> tuple[Summary | None, Path]:
    """The drill from the command line's arguments: its summary, and the database it used."""
    from zerodrill.srs.store import Store

    with bulk_allocation():
        decks = usable_decks(load_decks(paths), list_problems=True)
    if deck_id is not None and deck_id not in {d.id for d in decks}:
        known = ", ".join(sorted(d.id for d in decks))
        raise UserError(f"no deck with id '{deck_id}' (decks: {known})")

    if db is None:
        db = default_db_path(create_folder=True)
    with Store.open(db) as store:
        from zerodrill.tui.app import create_app

        with bulk_allocation():
            app = create_app(decks, store, new_limit=new_limit, deck_id=deck_id)
        summary = app.run()
        if app.error is not None:
            raise app.error
        if app.return_code:
            # Textual has shown the traceback of an unexpected error already.
            raise SystemExit(app.return_code)
    return summary, db
