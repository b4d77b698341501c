"""Decks → plain-text files for apps that read no markup: a CSV (Mochi, a spreadsheet) and a
tab-separated text to paste into Quizlet.

Both hold a row per study item (:func:`zerodrill.export.plain.rows`): its front and its back as
plain text, a cloze card a row per deletion number, retired cards left out. Neither has a
header line: each of these imports takes every row for a card. How each app reads its file:

- Quizlet imports text pasted into its import box, split at the separators chosen there
  (Tab between term and definition, New line between cards, by default), with no quoting: so
  the ``.txt`` puts each side on one line (its lines joined with `` / ``) and a tab between.
- Mochi's CSV import reads RFC 4180 (quote character: double quote) and takes each cell as a
  card's Markdown, with HTML: so the ``.csv`` quotes every field, keeps each side's lines, and
  writes a ``<`` that would open an HTML tag as ``\\<`` (``global_step<N>`` would otherwise
  lose ``<N>``, and a deck's typed ``<img onerror=...>`` would be live).

A spreadsheet may open either file, so no cell starts a formula
(:func:`~zerodrill.export.plain.spreadsheet_safe`).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from pathlib import Path

from zerodrill.deck.model import Deck
from zerodrill.export.formats import ExportStats, write_whole
from zerodrill.export.plain import Row, one_line, rows, spreadsheet_safe

# "<" then what CommonMark's raw HTML and an HTML parser take for a tag's start.
_TAG_OPENER = re.compile(r"<(?=[A-Za-z/!?])")


def csv_cells(row: Row) -> tuple[str, str]:
    return _csv_cell(row.front), _csv_cell(row.back)


def txt_line(row: Row) -> str:
    return f"{_txt_cell(row.front)}\t{_txt_cell(row.back)}"


def export_csv(decks: Sequence[Deck], out: Path) -> ExportStats:
    found = rows(decks)
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    writer.writerows(csv_cells(row) for row in found)
    write_whole(out, buffer.getvalue().encode("utf-8"))
    return _stats(decks, found)


def export_txt(decks: Sequence[Deck], out: Path) -> ExportStats:
    found = rows(decks)
    write_whole(out, "".join(txt_line(row) + "\n" for row in found).encode("utf-8"))
    return _stats(decks, found)


def _csv_cell(value: str) -> str:
    return spreadsheet_safe(_TAG_OPENER.sub(r"\\<", value))


def _txt_cell(value: str) -> str:
    # A tab or a line break would split the card where Quizlet splits cards.
    return spreadsheet_safe(one_line(value.replace("\t", " ")))


def _stats(decks: Sequence[Deck], found: Sequence[Row]) -> ExportStats:
    active = sum(1 for deck in decks for card in deck.cards if not card.retired)
    return ExportStats(decks=len(decks), notes=active, cards=len(found))
