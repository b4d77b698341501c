"""``zerodrill export``: build Anki packages (.apkg), or another format's files, from decks.

Every word it says of a format (the ``--format`` and ``-o`` help, the line after each file is
written) comes from the format's entry in :data:`~zerodrill.export.formats.FORMATS`, read when
it is shown, so a format added there needs nothing here.

Imports neither Textual nor the review store unless ``--with-progress`` asks for it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from msgspec import Struct

from zerodrill.cli.common import db_option, load_decks, no_folder, usable_decks
from zerodrill.deck.control_chars import shown
from zerodrill.deck.model import Deck
from zerodrill.errors import UserError
from zerodrill.export.formats import DEFAULT, FORMATS, Format
from zerodrill.paths import default_db_path
from zerodrill.words import plural

if TYPE_CHECKING:
    from zerodrill.export.anki_marks import AnkiMarks
    from zerodrill.export.apkg import SchedulingState

#: Where packages go without ``-o``: ``exports/`` in the current folder.
DEFAULT_OUT = Path("exports")


# Not Choice[str]: click before 8.2 (pyproject allows 8.1) has no generic Choice.
class FormatName(click.Choice):  # type: ignore[type-arg]
    """The names in FORMATS, as they are when asked for."""

    def __init__(self) -> None:
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(FORMATS)

    @choices.setter
    def choices(self, _value: object) -> None:
        pass  # click's own __init__ sets it; the names are FORMATS'


class HelpFromFormats(click.Option):
    """An option whose help is written from FORMATS each time it is shown."""

    def __init__(self, *args: Any, help_from: Callable[[], str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help_from = help_from

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        self.help = self.help_from()
        return super().get_help_record(ctx)


def format_help() -> str:
    """``--format``'s help: each format's name and its own summary."""
    return "; ".join(f"{f.name}: {f.summary}" for f in FORMATS.values()) + "."


def output_help() -> str:
    """``-o``'s help, with the file names the formats' suffixes make."""
    default = FORMATS[DEFAULT].suffix
    others = ", ".join(f"FILE{f.suffix}" for f in FORMATS.values() if f.suffix != default)
    named = f"FILE{default} (or {others}, as --format says)" if others else f"FILE{default}"
    return (
        f"{named}: one file with every deck; DIR/: a file per deck, named <deck-id> and the "
        f"format's suffix (default: {DEFAULT_OUT}/)."
    )


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "format_name",
    cls=HelpFromFormats,
    help_from=format_help,
    type=FormatName(),
    default=DEFAULT,
    show_default=True,
)
@click.option("-o", "--output", cls=HelpFromFormats, help_from=output_help, type=click.Path())
@click.option(
    "--with-progress",
    is_flag=True,
    help="Carry your zerodrill review progress into Anki (import with 'Import any learning "
    "progress' / scheduling on; apkg only).",
)
@db_option(
    "Review database for --with-progress (default: ZERODRILL_DB, else reviews.db in the "
    "user data folder)."
)
def export(
    paths: tuple[Path, ...],
    format_name: str,
    output: str | None,
    with_progress: bool,
    db: Path | None,
) -> None:
    """Build Anki packages, or (--format) files for other apps, from decks (default: a
    checkout's decks/, else the bundled decks).

    Each Anki package is written with a manifest beside it (NAME.manifest.json): keep the two
    together, so a rebuild of unchanged decks is byte-identical and edited cards update in
    place when the package is imported again.
    """
    from zerodrill.errors import ExportError

    chosen_format = FORMATS[format_name]
    if with_progress and not chosen_format.carries_progress:
        raise click.UsageError(f"--with-progress: a {format_name} file carries no progress")
    if db is not None and not with_progress:
        raise click.UsageError("--db is read only with --with-progress")
    decks = usable_decks(load_decks(paths, rules=[chosen_format.rules]))

    progress = _progress(decks, db) if with_progress else None
    targets = _targets(decks, output if output is not None else f"{DEFAULT_OUT}/", chosen_format)
    retired = 0
    vanished: list[str] = []
    for path, chosen in targets:
        try:
            stats = chosen_format.write(chosen, path, progress)
        except ExportError as exc:
            raise UserError(str(exc)) from exc
        except OSError as exc:
            raise UserError(f"cannot write {path}: {exc.strerror or exc}") from exc
        retired += stats.retired_notes
        vanished += stats.vanished
        line = f"wrote {shown(str(path))}: {chosen_format.counts(stats)}"
        if with_progress:
            line += f" ({stats.reviewed_cards} with review progress)"
        click.echo(line)
    if retired:
        from zerodrill.export.notes import RETIRED_SEARCH, RETIRED_TAG

        # What Anki's importer does (rslib, import_export): without scheduling it makes every
        # card it adds new, and it never changes a card it has; see export/notes.py.
        click.echo(
            f"{plural(retired, 'retired card')} tagged {RETIRED_TAG}: Anki suspends them only "
            "where it is new to them and 'Import any learning progress' is on (its default "
            "import makes them new, and it leaves cards it already has as they are); in Anki's "
            f"browser search  {RETIRED_SEARCH}  and suspend them (Ctrl+J) or delete them"
        )
    for key in vanished:
        click.echo(
            f"warning: card {shown(key)} has left its deck without being retired: Anki keeps "
            "it in review wherever the package was imported; put it back and list its id "
            "under the deck's 'retired:'",
            err=True,
        )


def _targets(decks: Sequence[Deck], output: str, chosen: Format) -> list[tuple[Path, list[Deck]]]:
    """``FILE<suffix>`` (``FILE.apkg``...) gets every deck; a folder (existing, or named with a
    final ``/`` or no suffix) gets one file per deck. Only the last folder of the path is ever
    created."""
    path = Path(output)
    suffix = chosen.suffix
    as_folder = output.endswith(("/", "\\")) or path.is_dir() or not path.suffix
    if not as_folder and path.suffix.lower() != suffix:
        raise UserError(
            f"{shown(output)}: name the file FILE{suffix}, or a folder DIR/ for one per deck"
        )
    if path.exists() and not path.is_dir() and as_folder:
        raise UserError(f"{shown(output)} is not a folder (name the file FILE{suffix})")
    # The package, or the folder of packages, may be new; the folder it goes in must exist.
    holder = path if as_folder and path.is_dir() else path.parent
    if not holder.is_dir():
        raise UserError(no_folder(holder))
    if as_folder:
        return [(path / f"{deck.id}{suffix}", [deck]) for deck in decks]
    return [(path, list(decks))]


def _progress(decks: Sequence[Deck], db: Path | None) -> dict[str, SchedulingState]:
    from zerodrill.deck.item_index import ItemIndex
    from zerodrill.export.anki_marks import AnkiMarks
    from zerodrill.srs.card_actions import NO_MARKS
    from zerodrill.srs.days import local_now, study_day
    from zerodrill.srs.queue import held_in
    from zerodrill.srs.store import Store

    db_path = db if db is not None else default_db_path()
    if db is None and not db_path.exists():
        raise UserError(f"no review progress to export (no database at {db_path})")
    keys = [item.key for deck in decks for card in deck.cards for item in card.items()]
    with Store.open(db_path, create=False) as store:
        # The learner's scheduler, as the drill shows it, read as Anki's columns by it.
        scheduler = store.scheduler
        derived = store.schedule.states(keys)
        marks = store.actions.marks()
        # Siblings the drill holds today arrive held in Anki too.
        today = study_day(local_now())
        hidden = (key for key, m in marks.items() if m.hidden_on(today))
        held = held_in(ItemIndex(decks).without(hidden), store, today)
    states: dict[str, SchedulingState] = {
        key: scheduler.anki(state) for key, state in derived.items()
    }
    for key in keys:
        m = marks.get(key, NO_MARKS)
        if m != NO_MARKS or key in held:
            base = states.get(key, scheduler.anki(scheduler.new_state()))
            states[key] = WithMarks(base, AnkiMarks.of(m, today), key in held)
    return states


class WithMarks(Struct, frozen=True):
    """A card's schedule with its marks, for the export (see export.collection.MarkedState),
    and whether the drill holds it today as a sibling."""

    state: SchedulingState
    marks: AnkiMarks
    #: A sibling the drill holds for another day today (see export.collection.MarkedState).
    held: bool = False

    @property
    def repetitions(self) -> int:
        return self.state.repetitions

    @property
    def interval(self) -> int:
        return self.state.interval

    @property
    def ease_permille(self) -> int:
        return self.state.ease_permille

    @property
    def due(self) -> date | None:
        return self.state.due

    @property
    def lapses(self) -> int:
        return self.state.lapses
