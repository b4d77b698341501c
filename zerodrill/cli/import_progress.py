"""``zerodrill import-progress``: the reviews given in Anki, brought into zerodrill's schedule."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from zerodrill.cli.common import db_option, load_decks, usable_decks
from zerodrill.deck.model import Deck
from zerodrill.paths import default_db_path
from zerodrill.words import plural


@click.command("import-progress")
@db_option()
@click.argument("file", type=click.Path(path_type=Path))
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
def import_progress(db: Path | None, file: Path, paths: tuple[Path, ...]) -> None:
    """Bring your Anki reviews of zerodrill's cards into zerodrill's schedule.

    FILE is a .colpkg or .apkg exported from Anki with scheduling, or a collection.anki2 (it
    is read, never written, even while Anki has it open). PATH... are the decks the cards
    come from (default: a checkout's decks/, else the bundled decks). Importing the same
    reviews again adds nothing, and the answers 'zerodrill anki sync' wrote into Anki are
    zerodrill's own: never imported.
    """
    from zerodrill.srs.anki_import import read_reviews, withdrawals
    from zerodrill.srs.store import Store

    decks = usable_decks(load_decks(paths))
    found = read_reviews(file, note_keys(decks))
    # Made only now that FILE was read: a file that is not Anki's creates nothing of ours.
    with Store.open(db if db is not None else default_db_path(create_folder=True)) as store:
        undos = withdrawals(found, store.log.events())
        merged = store.log.add_events([*found.reviews, *undos])
        by_hand = store.log.add_events(found.by_hand)
    added = merged.added - len(undos)
    click.echo(
        f"{plural(added, 'review')} imported from Anki, "
        f"{plural(len(merged.keys | by_hand.keys), 'card')} affected; "
        f"{plural(merged.present, 'review')} already present."
    )
    if undos:
        click.echo(
            f"{plural(len(undos), 'review')} imported before and undone in Anki since: withdrawn."
        )
    notes = [f"{plural(found.foreign_notes, 'note')} not zerodrill's (left alone)"]
    if found.other_decks:
        named = ", ".join(sorted(found.other_decks))
        count = plural(sum(found.other_decks.values()), "note")
        notes.append(f"{count} of zerodrill decks not named here ({named}): name their files")
    if found.unmatched:
        notes.append(f"{plural(found.unmatched, 'review')} of cards in none of the decks")
    if found.own:
        notes.append(f"{plural(found.own, 'answer')} zerodrill wrote (skipped: its own)")
    if found.by_hand:
        changes = plural(len(found.by_hand), "change")
        notes.append(f"{changes} made by hand in Anki (Set Due Date, Forget) taken")
    if found.skipped:
        notes.append(f"{plural(found.skipped, 'revlog row')} that are not answers (skipped)")
    click.echo("; ".join(notes) + ".")
    for warning in merged.warnings + by_hand.warnings:
        click.echo(f"warning: {warning}", err=True)


def note_keys(decks: Sequence[Deck]) -> dict[str, dict[int, str]]:
    """Each note GUID the export gives the decks' cards -> card ordinal -> item key."""
    from zerodrill.export.ids import note_guid

    out: dict[str, dict[int, str]] = {}
    for deck in decks:
        for card in deck.cards:
            # A cloze note's cards are its deletions, c1 at ordinal 0; other notes have one.
            items = card.items()
            out[note_guid(card.deck, card.id)] = {
                (item.ordinal - 1 if item.ordinal is not None else 0): item.key for item in items
            }
    return out
