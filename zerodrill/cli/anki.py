"""``zerodrill anki login|sync|optimize``: Anki's own sync between the terminal and the phone,
and FSRS fitted by Anki's optimizer (:mod:`.anki_optimize`).

Needs the ``anki`` extra (``pip install 'zerodrill[anki]'``); without it each command says so
in one line. The work is :mod:`zerodrill.anki_sync`'s; this module reads options, credentials
and the decks, and reports what moved.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from zerodrill.anki_sync.backend import AnkiSyncError, require_anki
from zerodrill.cli.anki_optimize import optimize
from zerodrill.cli.common import db_option, load_decks, usable_decks
from zerodrill.deck.control_chars import shown
from zerodrill.paths import default_db_path
from zerodrill.words import plural

if TYPE_CHECKING:
    from zerodrill.anki_sync.run import Moved
    from zerodrill.srs.store import Store

USER_ENV, PASSWORD_ENV = "ZERODRILL_ANKI_USER", "ZERODRILL_ANKI_PASSWORD"


@click.group()
def anki() -> None:
    """Sync zerodrill's schedule with Anki: AnkiWeb, a self-hosted server, or a collection;
    fit FSRS to your reviews with Anki's optimizer."""


anki.add_command(optimize)


@anki.command()
@click.option(
    "--server",
    "url",
    metavar="URL",
    help="A self-hosted sync server (python -m anki.syncserver), e.g. http://host:8080/ "
    "(default: AnkiWeb).",
)
def login(url: str | None) -> None:
    """Log in to AnkiWeb or a sync server; only the host key it hands back is kept.

    Asks for the user name and password, or reads ZERODRILL_ANKI_USER and
    ZERODRILL_ANKI_PASSWORD (for scripts).
    """
    require_anki()
    from zerodrill.anki_sync import login as kept
    from zerodrill.anki_sync import server
    from zerodrill.anki_sync.backend import open_collection

    endpoint = _endpoint(url) if url is not None else server.ANKIWEB
    user = os.environ.get(USER_ENV) or click.prompt("Anki user name")
    password = os.environ.get(PASSWORD_ENV) or click.prompt("Password", hide_input=True)
    # Anki logs in through a collection's backend; a throwaway one serves.
    with tempfile.TemporaryDirectory(prefix="zerodrill-login-") as tmp:
        col = open_collection(Path(tmp) / "login.anki2")
        try:
            key = server.log_in(col, user, password, endpoint)
        finally:
            col.close()
    path = kept.save(key)
    click.echo(
        f"Logged in to {shown(server.where(endpoint))}; its host key is kept in "
        f"{shown(str(path))} (your password is not)."
    )


def _endpoint(url: str) -> str:
    if not url.startswith(("http://", "https://")) or any(c.isspace() for c in url):
        raise click.BadParameter(
            f"{shown(url)} is not an http:// or https:// address", param_hint="--server"
        )
    return url if url.endswith("/") else url + "/"


@anki.command("sync")
@db_option()
@click.option(
    "--collection",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Sync with this collection.anki2 (Anki closed) instead of a sync server.",
)
@click.option("--dry-run", is_flag=True, help="Say what would move each way; change nothing.")
@click.option(
    "--full-upload",
    is_flag=True,
    help="When the server needs one, replace its collection (and every device's) with this.",
)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
def sync_command(
    db: Path | None,
    collection: Path | None,
    dry_run: bool,
    full_upload: bool,
    paths: tuple[Path, ...],
) -> None:
    """Two-way sync of the decks' cards (default: a checkout's decks/, else the bundled decks) with
    Anki.

    With a server (after 'zerodrill anki login'), on zerodrill's own copy of your collection:
    your Anki reviews come into zerodrill's schedule, zerodrill's grades go to Anki, every
    card's due day is set to zerodrill's, and the decks' notes are brought up to date.
    Suspended, buried, flagged and marked cards go to Anki as its own; those suspended,
    flagged or marked in Anki come back. No other note, card or deck is touched.
    """
    require_anki()
    from zerodrill.anki_sync import login as kept
    from zerodrill.anki_sync import run
    from zerodrill.cli.import_progress import note_keys

    decks = usable_decks(load_decks(paths, cached=not dry_run))
    db_path = db if db is not None else default_db_path(create_folder=not dry_run)
    folder = db_path.parent / "anki"
    if not dry_run:
        try:
            folder.mkdir(exist_ok=True)
        except OSError as exc:
            raise AnkiSyncError(f"cannot create {folder}: {exc.strerror or exc}") from None
    if collection is not None:
        if full_upload:
            raise click.UsageError("--full-upload is for a sync server, not --collection")
        from zerodrill.anki_sync.workcopy import real_path

        collection = real_path(collection)
        if not collection.is_file():
            raise AnkiSyncError(f"{collection}: no such collection file")
        target = run.Target(collection)
    else:
        key = kept.load()

        def moved_to(endpoint: str) -> None:
            kept.save(kept.HostKey(endpoint, key.hkey))

        cache = run.cache_for(folder, key, dry_run=dry_run)
        if cache is None:
            _report(run.Moved(synced_before=False), dry_run)
            return
        target = run.Target(cache, key, moved_to)
    manifest = folder / "decks.manifest.json"
    notes = note_keys(decks)
    if dry_run and not db_path.exists():
        moved = run.sync(target, decks, notes, None, manifest, dry_run=True)
    else:
        with _review_store(db_path, dry_run) as store:
            moved = run.sync(
                target, decks, notes, store, manifest, dry_run=dry_run, full_upload=full_upload
            )
    _report(moved, dry_run)


@contextmanager
def _review_store(db_path: Path, dry_run: bool) -> Iterator[Store]:
    """The review store; for a dry run, a copy of it in a temporary folder (migrated there if
    an earlier zerodrill wrote it), so that nothing is written beside the database."""
    from zerodrill.srs.store import Store

    if not dry_run:
        with Store.open(db_path) as store:
            yield store
        return
    from zerodrill.srs.store.file import connect

    Store.open(db_path, read_only=True).close()  # refuses, in one line, what it cannot read
    with tempfile.TemporaryDirectory(prefix="zerodrill-dry-run-") as tmp:
        copy = Path(tmp) / db_path.name
        source = connect(db_path, create=False, read_only=True)
        try:
            with closing(sqlite3.connect(copy)) as target:
                source.backup(target)
        except sqlite3.Error as exc:
            raise AnkiSyncError(f"cannot read {db_path}: {exc}") from None
        finally:
            source.close()
        with Store.open(copy) as store:
            yield store


def _report(moved: Moved, dry_run: bool) -> None:
    from zerodrill.anki_sync.server import FullSync

    if moved.cleaned_up:
        click.echo("An interrupted sync had left a work copy: removed; nothing of it was kept.")
    if not moved.synced_before:
        click.echo("Nothing synced yet: the first sync downloads your collection from the server.")
        return
    for remark in moved.remarks:
        click.echo(remark[:1].upper() + remark[1:] + ("" if remark.endswith(".") else "."))
    if moved.full_sync is FullSync.FIRST_DOWNLOAD:
        click.echo("First sync: your collection was downloaded from the server.")
    elif moved.full_sync is FullSync.DOWNLOADED:
        click.echo(
            "The server asked for a full sync: took its collection whole (zerodrill's "
            "changes were then made again on it)."
        )
    elif moved.full_sync is FullSync.UPLOADED:
        # Said whole: an earlier run that stopped at the server's demand for a full upload
        # may have added the notes already, and this one then adds none.
        click.echo(
            "Full upload done: the server's collection is now this one, with zerodrill's "
            f"{plural(moved.notes_held, 'note')}."
        )
    would = "would be " if dry_run else ""
    click.echo(
        f"Anki → zerodrill: {plural(moved.to_zerodrill, 'review')}; zerodrill → Anki: "
        f"{plural(moved.to_anki, 'review')}, {plural(moved.rescheduled, 'card')} "
        f"{would}rescheduled."
    )
    if moved.by_hand_to_zerodrill:
        click.echo(
            f"Due dates set and cards forgotten in Anki: "
            f"{plural(moved.by_hand_to_zerodrill, 'change')} {would}brought back."
        )
    if moved.events_sent or moved.events_received:
        click.echo(
            f"zerodrill's events through Anki: {moved.events_received} from other machines "
            f"{would}taken in, {moved.events_sent} {would}added for them."
        )
    if moved.marks_to_anki or moved.marks_to_zerodrill:
        click.echo(
            f"Suspended, buried, flagged and marked cards: {plural(moved.marks_to_anki, 'card')} "
            f"{would}set in Anki; {plural(moved.marks_to_zerodrill, 'change')} made in Anki "
            f"{would}brought back."
        )
    if moved.siblings_held:
        click.echo(
            f"Siblings held for another day in Anki, as in the drill: "
            f"{plural(moved.siblings_held, 'card')} {would}buried or put back."
        )
    click.echo(
        f"Notes: {moved.notes_added} {would}added, {moved.notes_updated} {would}updated, "
        f"{plural(moved.retired_suspended, 'retired card')} {would}suspended."
    )
    if dry_run:
        click.echo("Dry run: nothing was changed, here or on the server.")
