"""The formats ``zerodrill export --format`` writes: one entry each, in :data:`FORMATS`.

A format is a module that writes decks to a file and returns :class:`ExportStats`, and the
rules it asks of a deck (:class:`~zerodrill.deck.target_rules.TargetRules`), which ``validate``
and ``export`` check at each problem's line and column. A new format takes three files: its
module, its entry here, and its tests. Entries import their module only when they write, so
``validate``, which reads the rules of every format, never imports an exporter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct

from zerodrill.deck.model import Deck
from zerodrill.deck.target_rules import TargetRules
from zerodrill.export import anki_rules

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


class Format(Struct, frozen=True):
    name: str
    #: The file name's suffix: ``FILE<suffix>`` holds every deck, ``DIR/<deck-id><suffix>`` one.
    suffix: str
    #: One line for ``--help``.
    summary: str
    rules: TargetRules
    #: Writes the decks to the file, with review progress if the format carries it; raises
    #: :class:`~zerodrill.export.errors.ExportError` with one line for the user.
    write: Callable[[Sequence[Deck], Path, Progress | None], ExportStats]
    #: Whether it carries review progress (``--with-progress``).
    carries_progress: bool = False


def _apkg(decks: Sequence[Deck], out: Path, progress: Progress | None) -> ExportStats:
    from zerodrill.export import apkg

    return apkg.export(decks, out, progress=progress)


def _tsv(decks: Sequence[Deck], out: Path, progress: Progress | None) -> ExportStats:
    from zerodrill.export import tsv

    return tsv.export(decks, out)


FORMATS: Mapping[str, Format] = {
    "apkg": Format(
        "apkg",
        ".apkg",
        "an Anki package that updates in place (the default)",
        anki_rules.APKG,
        _apkg,
        carries_progress=True,
    ),
    "tsv": Format(
        "tsv",
        ".tsv",
        "front, back and tags a line, for Anki's, Quizlet's or Mochi's text import",
        anki_rules.TAGS_AND_CLOZE,
        _tsv,
    ),
}

DEFAULT = "apkg"


def all_rules() -> list[TargetRules]:
    """Every format's rules: what ``validate`` checks."""
    return [f.rules for f in FORMATS.values()]
