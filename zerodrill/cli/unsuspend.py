"""``zerodrill unsuspend``: the way back from suspending a card (key @ in the drill)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from zerodrill.cli.common import db_option
from zerodrill.deck.control_chars import shown
from zerodrill.errors import UserError
from zerodrill.paths import default_db_path
from zerodrill.words import plural

if TYPE_CHECKING:
    from zerodrill.srs.store import Store


@click.command()
@db_option()
@click.argument("keys", nargs=-1, metavar="[CARD-ID]...")
@click.option("--all", "every", is_flag=True, help="Unsuspend every suspended card.")
def unsuspend(db: Path | None, keys: tuple[str, ...], every: bool) -> None:
    """Bring suspended cards back into the drill; without CARD-ID, list the suspended ones.

    CARD-ID is a card's key as the list shows it (deck/card, or deck/card#c2 for one cloze
    deletion); deck/card unsuspends every deletion of a cloze card. Each is logged as an
    event in this database, as the suspend was; 'zerodrill sync' and 'zerodrill anki sync'
    carry it to your other machines and to Anki.
    """
    from zerodrill.srs.card_actions import Action
    from zerodrill.srs.days import local_now, study_day
    from zerodrill.srs.store import Store

    path = db if db is not None else default_db_path()
    if not path.exists():
        raise UserError(f"no review database at {shown(str(path))}: nothing is suspended")
    # Looked at read-only: listing, or naming cards that are not suspended, changes nothing
    # in the file (an empty one is not made a database, an older one is not migrated).
    with Store.open(path, create=False, read_only=True) as store:
        suspended = _suspended(store)
    if not keys and not every:
        if not suspended:
            click.echo("No card is suspended.")
            return
        for key in suspended:
            click.echo(shown(key))
        click.echo(
            f"{plural(len(suspended), 'card')} suspended; "
            "zerodrill unsuspend CARD-ID (or --all) brings them back."
        )
        return
    unknown = [k for k in keys if not any(_named(s, (k,)) for s in suspended)]
    if unknown:
        raise UserError(
            f"not suspended: {', '.join(shown(k) for k in unknown)} "
            "(zerodrill unsuspend lists the suspended cards)"
        )
    if not suspended:
        click.echo("No card is suspended.")
        return
    with Store.open(path, create=False) as store:
        now = local_now()
        with store.transaction():
            # Read again under the write lock: another terminal may have unsuspended some.
            suspended = _suspended(store)
            chosen = suspended if every else [k for k in suspended if _named(k, keys)]
            for key in chosen:
                store.actions.record(key, Action.UNSUSPEND, at=now, day=study_day(now))
    click.echo(f"{plural(len(chosen), 'card')} unsuspended.")


def _suspended(store: Store) -> list[str]:
    return sorted(k for k, m in store.actions.marks().items() if m.suspended)


def _named(key: str, names: tuple[str, ...]) -> bool:
    """``key`` is one of ``names``, or a deletion of a cloze card one of them names."""
    return any(key == name or key.startswith(f"{name}#") for name in names)
