"""``zerodrill anki optimize``: FSRS's parameters fitted to the learner's whole log (zerodrill's
grades and Anki's answers) by Anki's own optimizer, the figures before and after shown, and the
fit kept in the learner's profile only if it predicts the log better.

The fitting is :mod:`zerodrill.anki_sync.fsrs_fit`'s; kept, the parameters are the learner's
FSRS option (:data:`zerodrill.srs.schedulers.fsrs.PARAMETERS`), which reaches the other machines
with their next sync.
"""

from __future__ import annotations

from pathlib import Path

import click

from zerodrill.anki_sync.backend import require_anki
from zerodrill.cli.common import db_option
from zerodrill.errors import UserError
from zerodrill.paths import default_db_path
from zerodrill.words import plural


@click.command("optimize")
@db_option()
@click.option("--dry-run", is_flag=True, help="Fit and show the figures; keep nothing.")
def optimize(db: Path | None, dry_run: bool) -> None:
    """Fit FSRS's parameters to your whole review log with Anki's optimizer.

    Reads every grade in effect, zerodrill's and those brought in from Anki, fits, and shows
    the log loss and RMSE (bins) of the parameters in use and of the fitted ones (lower is
    better). The fitted ones are kept only if their log loss is lower; every machine syncing
    with this one takes them, and 'zerodrill anki sync' writes them into the deck's preset
    in Anki.
    """
    require_anki()
    from fsrs.scheduler import DEFAULT_PARAMETERS

    from zerodrill.anki_sync.fsrs_fit import fit
    from zerodrill.srs.schedulers.fsrs import PARAMETERS
    from zerodrill.srs.settings import save_option, saved_option
    from zerodrill.srs.store import Store

    db_path = db if db is not None else default_db_path(create_folder=False)
    if not db_path.exists():
        raise UserError(f"no review database at {db_path}: no reviews to fit")
    with Store.open(db_path, create=False, read_only=dry_run) as store:
        current = saved_option(store, PARAMETERS) or tuple(DEFAULT_PARAMETERS)
        found = fit(store.log.events(), current)
        click.echo(
            f"FSRS fitted by Anki's optimizer to {plural(found.reviews, 'review')} "
            f"({found.items} it learns from):"
        )
        click.echo(f"{'':<8}{'log loss':>10}{'RMSE (bins)':>14}")
        for name, figures in (("before", found.before_figures), ("after", found.after_figures)):
            click.echo(f"{name:<8}{figures.log_loss:>10.4f}{figures.rmse:>14.2%}")
        if not found.better:
            click.echo("Not kept: the fitted parameters predict your reviews no better.")
            return
        if dry_run:
            click.echo("Dry run: better, but not kept.")
            return
        problem = save_option(store, PARAMETERS, found.after)
        if problem is not None:
            raise UserError(problem)
        where = "" if store.scheduler.name == "fsrs" else " once FSRS does (--scheduler fsrs)"
        click.echo(
            f"Kept: the drill schedules with them{where}; each machine takes them at its next sync."
        )
