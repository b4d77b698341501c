"""``zerodrill stats``: what is known, what is due, and the next 30 days."""

from __future__ import annotations

import json
from pathlib import Path

import click

from zerodrill.cli.common import db_option, load_decks, usable_decks
from zerodrill.deck.control_chars import shown
from zerodrill.paths import default_db_path
from zerodrill.srs.days import local_now, study_day
from zerodrill.srs.review_stats import compute_stats, render_text
from zerodrill.srs.store import Store


@click.command()
@db_option()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
def stats(db: Path | None, as_json: bool, paths: tuple[Path, ...]) -> None:
    """Show review statistics for decks (default: a checkout's decks/, else the bundled decks) and a
    30-day forecast."""
    now = local_now()
    today = study_day(now)
    db_path = db if db is not None else default_db_path()
    # Stats only reads: it never creates a database. Without one at the default place, nothing
    # has been reviewed yet; a --db that names no file is more likely a typo, so it is an error.
    store = None
    interview = None
    if db is not None or db_path.exists():
        store = Store.open(db_path, create=False)
    try:
        if store is not None:
            # The store opens with the learner's profile: the schedule the drill shows (capped
            # before an interview date), and the forecast of recall where the scheduler has one.
            interview = store.profile.interview
        decks = usable_decks(load_decks(paths))
        figures = compute_stats(decks, store, today, at=now, interview=interview)
    finally:
        if store is not None:
            store.close()

    if as_json:
        click.echo(json.dumps(figures.as_json()))
        return
    if store is None:
        click.echo(f"No reviews yet (no database at {shown(str(db_path))}).")
    click.echo(render_text(figures))
