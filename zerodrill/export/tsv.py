"""Decks → one TSV file for Anki's text import (Anki 2.1.55 or later); README.md, "Into Anki",
says what it holds. Retired cards are left out: a text import cannot suspend them.

- A collection whose stock note types are named otherwise (another language, renamed) has the
  lines refused as "missing note type": the import dialog's Note Type then picks one for every
  line, and the ``#columns`` names (``Front``, ``Back``) map a Basic note's fields.
- The GUID is the package's (:func:`~zerodrill.export.ids.note_guid`), so the notes update in
  place and a collection with the package's notes gets no second copy. It is the last column,
  never the first: a GUID may start with ``#``, which Anki's reader takes for a comment.
- The front and back are the package's HTML (:func:`zerodrill.export.html.render`), so a deck,
  which is untrusted, can no more reach an importer as live markup here than in the package.
  Images have no place in a text file: each shows as its alt text. A tab or line break is
  written as its character reference, which reads the same in HTML, code blocks included. No
  column starts with a quote (which would open a quoted field) or ``#``: the front and back
  start with a tag, the tags with ``zerodrill``, and the note type is a name.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from zerodrill.deck.model import Card, Deck
from zerodrill.export import html
from zerodrill.export.formats import ExportStats, write_whole
from zerodrill.export.ids import note_guid
from zerodrill.export.notes import sources_html, tags_for

_CELL = str.maketrans({"\t": "&#9;", "\n": "&#10;", "\r": "&#13;"})

#: The columns, as ``#columns`` names them (a Basic note's field names, where they are fields).
COLUMNS = ("Front", "Back", "Tags", "Notetype", "GUID")
TAGS_COLUMN, NOTETYPE_COLUMN, GUID_COLUMN = 3, 4, 5
#: Anki's stock note types, as a new English collection names them.
BASIC, CLOZE = "Basic", "Cloze"
#: What Anki reads before the first line (``#separator`` first: ``#columns`` is split by it).
HEADER = (
    "#separator:tab\n"
    "#html:true\n"
    "#columns:" + "\t".join(COLUMNS) + "\n"
    f"#tags column:{TAGS_COLUMN}\n"
    f"#notetype column:{NOTETYPE_COLUMN}\n"
    f"#guid column:{GUID_COLUMN}\n"
)


def rows(decks: Sequence[Deck]) -> list[tuple[str, str, str, str, str]]:
    """(front, back, tags, note type, GUID) of each active card of ``decks``, as the file
    holds them."""
    return [
        _row(card, math=deck.anki_math) for deck in decks for card in deck.cards if not card.retired
    ]


def export(decks: Sequence[Deck], out: Path) -> ExportStats:
    lines = rows(decks)
    write_whole(out, (HEADER + "".join("\t".join(row) + "\n" for row in lines)).encode("utf-8"))
    active = [card for deck in decks for card in deck.cards if not card.retired]
    return ExportStats(
        decks=len(decks),
        notes=len(lines),
        cards=sum(len(card.items()) for card in active),
    )


def _row(card: Card, *, math: bool) -> tuple[str, str, str, str, str]:
    def render(markdown: str) -> str:
        return html.render(markdown, math=math) if markdown else ""

    names = card.kind.field_names
    if card.kind.cloze_field is not None:
        front = html.render(card.fields[card.kind.cloze_field], cloze_field=True, math=math)
        back: list[str] = []
    else:
        front = render(card.fields.get(names[0], ""))
        answers = [(name, render(card.fields.get(name, ""))) for name in names[1:]]
        # One answer is the back; several (a red flag's why and instead) each get their name.
        back = (
            [_labelled(name, part) for name, part in answers if part]
            if len(answers) > 1
            else [part for _name, part in answers]
        )
    if card.extra:
        back.append(render(card.extra))
    sources = sources_html(card.refs)
    if sources:
        back.append(_labelled("sources", sources))
    return (
        _cell(front),
        _cell("\n".join(back)),
        _cell(tags_for(card)),
        CLOZE if card.kind.is_cloze else BASIC,
        note_guid(card.deck, card.id),
    )


def _labelled(name: str, part: str) -> str:
    return f"<p><strong>{html.escape(name.replace('_', ' ').capitalize())}</strong></p>\n{part}"


def _cell(value: str) -> str:
    return value.translate(_CELL)
