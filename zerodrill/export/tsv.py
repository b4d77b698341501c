"""Decks → one TSV file that Anki's, Quizlet's and Mochi's text imports read.

One line a card, in deck order, with three tab-separated columns: its front, its back and its
tags (space-separated, zerodrill's Anki tags). No header line: each of those imports takes the
first columns as front and back, and Anki's finds the HTML and the tags column itself. Retired
cards are left out: a text import cannot suspend them.

The columns are the HTML the Anki package's fields hold (:func:`zerodrill.export.html.render`:
raw HTML in a deck shown as text, only safe links, Anki's field syntax defused), so a deck,
which is untrusted, can no more reach an importer as live markup here than in the package.
A cloze card's front is Anki's cloze text (``{{c1::answer}}``), which Anki's import makes
cloze cards of when the note type chosen is Cloze. Images have no place in a text file: each
shows as its alt text. What would split a line or a column (a tab, a line break) is written as
its character reference, which reads the same in HTML, code blocks included. No column starts
with a quote, which would open a quoted field: each is empty, tags, or HTML starting with a tag.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from zerodrill.atomic_write import write_atomic
from zerodrill.deck.model import Card, Deck
from zerodrill.export import html
from zerodrill.export.errors import ExportError
from zerodrill.export.formats import ExportStats
from zerodrill.export.notes import sources_html, tags_for

_CELL = str.maketrans({"\t": "&#9;", "\n": "&#10;", "\r": "&#13;"})


def rows(decks: Sequence[Deck]) -> list[tuple[str, str, str]]:
    """(front, back, tags) of each active card of ``decks``, as the file holds them."""
    return [
        _row(card, math=deck.anki_math) for deck in decks for card in deck.cards if not card.retired
    ]


def export(decks: Sequence[Deck], out: Path) -> ExportStats:
    """Write ``decks`` to ``out`` whole (or leave it as it was)."""
    lines = rows(decks)
    data = "".join("\t".join(row) + "\n" for row in lines).encode("utf-8")
    try:
        write_atomic(out, data)
    except OSError as exc:
        raise ExportError(f"cannot write {exc.filename or out}: {exc.strerror or exc}") from exc
    active = [card for deck in decks for card in deck.cards if not card.retired]
    return ExportStats(
        decks=len(decks),
        notes=len(lines),
        cards=sum(len(card.items()) for card in active),
    )


def _row(card: Card, *, math: bool) -> tuple[str, str, str]:
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
    return _cell(front), _cell("\n".join(back)), _cell(" ".join(tags_for(card)))


def _labelled(name: str, part: str) -> str:
    return f"<p><strong>{html.escape(name.replace('_', ' ').capitalize())}</strong></p>\n{part}"


def _cell(value: str) -> str:
    return value.translate(_CELL)
