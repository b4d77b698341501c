"""``zerodrill sync DIR``: share one review log with your other machines through a folder your
sync tool (Syncthing, Dropbox, a network share, a git repository) keeps in step."""

from __future__ import annotations

from pathlib import Path

import click

from zerodrill.cli.common import db_option
from zerodrill.deck.control_chars import shown
from zerodrill.paths import default_db_path
from zerodrill.srs.store import Store
from zerodrill.words import plural


@click.command()
@click.argument("folder", metavar="DIR", type=click.Path(path_type=Path))
@db_option()
def sync(folder: Path, db: Path | None) -> None:
    """Merge this machine's reviews with the other machines' through DIR.

    Writes this machine's new reviews to its own file in DIR, takes in the reviews in every
    other machine's file, and reschedules the cards they touch as if every review had been
    given on one machine, in time order. Suspended, buried, flagged and marked cards travel
    the same way. Run it before and after a drill, or from cron.
    """
    from zerodrill.srs.sync.folder import check_folder, sync_folder

    folder = folder.expanduser()
    check_folder(folder)
    if db is None:
        db = default_db_path(create_folder=True)
    with Store.open(db) as store:
        report = sync_folder(store, folder)
    for warning in report.warnings:
        click.echo(f"zerodrill: warning: {shown(warning)}", err=True)
    click.echo(
        f"Sent {plural(report.sent, 'review')} to {shown(report.sent_to)}; received "
        f"{plural(report.received, 'review')} from {plural(report.machines, 'other machine')}; "
        f"{plural(report.cards, 'card')} rescheduled."
    )
    actions_sent = report.actions_sent - report.settings_sent
    actions_received = report.actions_received - report.settings_received
    if actions_sent or actions_received:
        click.echo(
            f"Card actions (suspend, bury, flag, mark): {actions_sent} sent, "
            f"{actions_received} received."
        )
    if report.settings_sent or report.settings_received:
        click.echo(
            f"FSRS parameters (zerodrill anki optimize): {report.settings_sent} sent, "
            f"{report.settings_received} received; the newest schedules."
        )
