"""``zerodrill interview``: rehearse an interview against a clock. Textual is imported only once
the decks, the database and the interview have been checked, as ``zerodrill drill`` does."""

from __future__ import annotations

from pathlib import Path

import click

from zerodrill.cli.common import db_option, load_decks, run_to_end, usable_decks
from zerodrill.deck.control_chars import shown
from zerodrill.paths import default_db_path
from zerodrill.tui import time_labels
from zerodrill.words import plural


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@db_option()
@click.option("--deck", "deck_id", metavar="ID", help="Take an interview of this deck only.")
@click.option(
    "--id",
    "interview_id",
    metavar="INTERVIEW",
    help="The interview to take (default: the one least recently taken, weakest first).",
)
def interview(
    paths: tuple[Path, ...], db: Path | None, deck_id: str | None, interview_id: str | None
) -> None:
    """Rehearse an interview from PATH... (default: a checkout's decks/, else the bundled decks)
    against a clock.

    Answer the question out loud or type (Enter moves on), tick the points you covered (t shows
    the model talk track), answer and grade each follow-up 0-5, tick the red flags you said.
    q quits at any step; running the command again the same day resumes there.
    """
    from zerodrill.srs.store import Store

    decks = usable_decks(load_decks(paths))
    if db is None:
        db = default_db_path(create_folder=True)
    with Store.open(db) as store:
        from zerodrill.tui.interview.interview_app import create_interview_app

        app = create_interview_app(decks, store, deck_id=deck_id, interview_id=interview_id)
        result = run_to_end(app, store)
    if result is None:
        click.echo(
            f"'{shown(app.run_.interview.title)}' saved where you stopped in {shown(str(db))}; "
            "run the same command again today to go on."
        )
        return
    click.echo(
        f"{len(result.points_covered)}/{result.points_total} points in "
        f"{time_labels.duration(result.seconds_used)}, "
        f"{plural(len(result.follow_up_grades), 'follow-up')} graded, saved to "
        f"{shown(str(db))}; {plural(len(result.missed_cards), 'card')} brought due."
    )
