"""The formats ``zerodrill export --format`` writes: one entry each, in :data:`FORMATS`.

A format is a module that writes decks to a file and returns :class:`ExportStats`, the rules
it asks of a deck (:class:`~zerodrill.deck.target_rules.TargetRules`), which ``validate`` and
``export`` check at each problem's line and column, and the words ``export`` says it in: its
line in ``--help``, its file name's suffix (``-o``'s help names them all) and what the line
after writing a file counts. A new format takes three files: its module, its entry here, and
its tests; ``zerodrill/cli/export.py`` reads all it needs from here. Entries import their
module only when they write, so ``validate``, which reads the rules of every format, never
imports an exporter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct

from zerodrill.deck.model import Deck
from zerodrill.deck.target_rules import TargetRules
from zerodrill.export import anki_rules
from zerodrill.words import plural

if TYPE_CHECKING:
    from zerodrill.export.collection import SchedulingState

#: Item keys -> review progress, for a format that carries it.
Progress = Mapping[str, "SchedulingState"]


class ExportStats(Struct, frozen=True):
    """What an exported file holds: the counts ``zerodrill export`` reports."""

    decks: int
    notes: int
    cards: int
    retired_notes: int = 0
    media: int = 0
    reviewed_cards: int = 0
    #: Note keys the manifest knows for these decks that are no longer in them, retired or
    #: not: Anki keeps such a note (and studies it) wherever the package was imported.
    vanished: tuple[str, ...] = ()


def anki_counts(stats: ExportStats) -> str:
    """What a file of Anki notes holds: decks, notes and cards (and media files)."""
    counts = (
        f"{plural(stats.decks, 'deck')}, {plural(stats.notes, 'note')}, "
        f"{plural(stats.cards, 'card')}"
    )
    if stats.notes != stats.cards:
        # `validate` counts the deck's cards, Anki's notes: say how the two meet.
        counts += " (a note per deck card, a card per cloze deletion)"
    if stats.media:
        counts += f", {plural(stats.media, 'media file')}"
    return counts


def card_counts(stats: ExportStats) -> str:
    """What a file of a card a row holds: decks and cards (``notes`` counts the deck cards)."""
    counts = f"{plural(stats.decks, 'deck')}, {plural(stats.cards, 'card')}"
    if stats.notes != stats.cards:
        counts += f" (from {plural(stats.notes, 'deck card')}: a card per cloze deletion)"
    return counts


def write_whole(out: Path, data: bytes) -> None:
    """A text format's file, written whole or not at all; a failure is one line for the user."""
    from zerodrill.atomic_write import write_atomic
    from zerodrill.errors import ExportError

    try:
        write_atomic(out, data)
    except OSError as exc:
        raise ExportError(f"cannot write {exc.filename or out}: {exc.strerror or exc}") from exc


class Format(Struct, frozen=True):
    name: str
    #: The file name's suffix: ``FILE<suffix>`` holds every deck, ``DIR/<deck-id><suffix>`` one.
    suffix: str
    #: One line for ``--help``: what the file holds and which app reads it.
    summary: str
    rules: TargetRules
    #: Writes the decks to the file, with review progress if the format carries it; raises
    #: :class:`~zerodrill.errors.ExportError` with one line for the user.
    write: Callable[[Sequence[Deck], Path, Progress | None], ExportStats]
    #: What a written file holds, as ``export`` reports it after ``wrote FILE:``.
    counts: Callable[[ExportStats], str]
    #: Whether it carries review progress (``--with-progress``).
    carries_progress: bool = False


def _apkg(decks: Sequence[Deck], out: Path, progress: Progress | None) -> ExportStats:
    from zerodrill.export import apkg

    return apkg.export(decks, out, progress=progress)


def _tsv(decks: Sequence[Deck], out: Path, progress: Progress | None) -> ExportStats:
    from zerodrill.export import tsv

    return tsv.export(decks, out)


def _csv(decks: Sequence[Deck], out: Path, progress: Progress | None) -> ExportStats:
    from zerodrill.export import plain_files

    return plain_files.export_csv(decks, out)


def _txt(decks: Sequence[Deck], out: Path, progress: Progress | None) -> ExportStats:
    from zerodrill.export import plain_files

    return plain_files.export_txt(decks, out)


FORMATS: Mapping[str, Format] = {
    "apkg": Format(
        "apkg",
        ".apkg",
        "an Anki package that updates in place (the default)",
        anki_rules.APKG,
        _apkg,
        anki_counts,
        carries_progress=True,
    ),
    "tsv": Format(
        "tsv",
        ".tsv",
        "HTML, a note a line, for Anki's text import, with the header lines that map its "
        "columns (Basic and Cloze notes, tags, GUIDs)",
        anki_rules.TAGS_AND_CLOZE,
        _tsv,
        anki_counts,
    ),
    "csv": Format(
        "csv",
        ".csv",
        "plain text, front and back a row (RFC 4180), for Mochi's CSV import or a spreadsheet",
        # Plain text asks nothing of a deck: each cloze deletion is a row of its own.
        TargetRules("csv", app="Mochi"),
        _csv,
        card_counts,
    ),
    "txt": Format(
        "txt",
        ".txt",
        "plain text, front and back a line with a tab between, to paste into Quizlet's import",
        TargetRules("txt", app="Quizlet"),
        _txt,
        card_counts,
    ),
}

DEFAULT = "apkg"


def all_rules() -> list[TargetRules]:
    return [f.rules for f in FORMATS.values()]
