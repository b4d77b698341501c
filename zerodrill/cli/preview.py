"""``zerodrill preview``: every card as Anki will show it, on one self-contained HTML page.

The page is made of what the export puts in the package: each note's fields as
:func:`zerodrill.export.notes.note_fields` renders them, filled into the note types' own
templates and CSS (:mod:`zerodrill.export.notetypes`) the way Anki fills them, each cloze
deletion as its own card. Every card is shown question and answer, in the light look and in
the night look (the classes Anki's night mode adds), side by side. Images are inlined as
``data:`` URIs and a Content-Security-Policy forbids loading anything else, so the page shows
the same offline and reaches out to nothing; links in the cards stay links.
"""

from __future__ import annotations

import base64
import mimetypes
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import click

from zerodrill.cli.common import load_decks, no_folder, usable_decks, write_output
from zerodrill.deck import cloze
from zerodrill.deck.control_chars import shown
from zerodrill.deck.model import Card, Deck
from zerodrill.errors import UserError
from zerodrill.export.anki_rules import APKG
from zerodrill.words import plural

#: Nothing but the page's own styles and inlined images may load.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

_SECTION = re.compile(r"\{\{#([^{}]+)\}\}(.*?)\{\{/\1\}\}", re.S)
_FIELD = re.compile(r"\{\{(?:(cloze):)?([^#/{}][^{}]*)\}\}")

# The four panes (question and answer, light and night) go 4 across, 2 by 2 or 1 above the
# other, never 3 and 1: a row of three would put one side's night pane under the other's.
_PAGE_CSS = """\
body.zp { margin: 0; padding: 1em; font-family: system-ui, sans-serif; background: #e9ecef;
  color: #1f2328; }
.zp h1 { font-size: 1.3em; margin: 0 0 0.2em; }
.zp-card { margin: 1.5em 0; }
.zp-card h2 { font-size: 1em; margin: 0 0 0.4em; font-family: ui-monospace, monospace; }
.zp-card h2 .zp-kind { font-family: system-ui, sans-serif; font-weight: normal; color: #59636e; }
.zp-grid { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.6em; }
@media (min-width: 44em) { .zp-grid { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
@media (min-width: 72em) { .zp-grid { grid-template-columns: repeat(4, minmax(0, 1fr)); } }
.zp-pane { margin: 0; border: 1px solid #c4ccd4; border-radius: 6px; overflow: hidden; }
.zp-pane figcaption { font-size: 0.75em; padding: 0.2em 0.6em; background: #d8dee4;
  color: #1f2328; }
.zp-pane .card { padding-top: 0.6em; padding-bottom: 0.6em; min-height: 100%; }
"""


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    required=True,
    metavar="FILE.html",
    type=click.Path(path_type=Path),
    help="The page to write.",
)
def preview(paths: tuple[Path, ...], output: Path) -> None:
    """Write every card of PATH... (default: a checkout's decks/, else the bundled decks) to one
    HTML page, as Anki will show it: question and answer, light and night, each cloze deletion on
    its own."""
    from zerodrill.errors import ExportError

    if output.suffix.lower() not in (".html", ".htm"):
        raise UserError(f"{shown(str(output))}: name the page FILE.html")
    if not output.parent.is_dir():
        raise UserError(no_folder(output.parent))
    if output.is_dir():
        raise UserError(f"{shown(str(output))} is a folder")
    # Shown as Anki shows them: with Anki's rules checked, as export checks them.
    decks = usable_decks(load_decks(paths, rules=[APKG]))
    try:
        page, cards = build_page(decks)
    except ExportError as exc:
        raise UserError(str(exc)) from exc
    write_output(output, page.encode("utf-8"))
    click.echo(
        f"wrote {shown(str(output))}: {plural(cards, 'card')} from {plural(len(decks), 'deck')}"
    )


def build_page(decks: Sequence[Deck]) -> tuple[str, int]:
    """The page, and how many cards (Anki's: one per cloze deletion) it shows."""
    from zerodrill.deck.mentions import CardTitles
    from zerodrill.export.html import escape
    from zerodrill.export.notes import note_fields
    from zerodrill.export.notetypes import css, field_names, note_type
    from zerodrill.export.package import collect_media

    media = collect_media(decks)
    inlined = {
        deck.id: {rel: _data_uri(name, media.by_name[name]) for rel, name in names.items()}
        for deck, names in ((d, media.names[d.id]) for d in decks)
    }
    sections: list[str] = []
    for deck in decks:
        named = CardTitles(deck.cards)
        for card in deck.cards:
            values = note_fields(card, inlined[deck.id], math=deck.anki_math, titles=named)
            fields = dict(zip(field_names(card.kind), values, strict=True))
            template = note_type(card.kind).model.templates[0]
            for ordinal in card.ordinals or (None,):
                front = fill(template["qfmt"], fields, ordinal=ordinal, reveal=False)
                back = fill(template["afmt"], fields, ordinal=ordinal, reveal=True, front=front)
                sections.append(_section(deck, card, ordinal, front, back, len(sections) + 1))
    count = len(sections)
    titles = ", ".join(escape(deck.title) for deck in decks)
    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>zerodrill preview: {titles}</title>
<style>
{css()}</style>
<style>
{_PAGE_CSS}</style>
</head>
<body class="zp">
<h1>{titles}</h1>
<p>{plural(count, "card")} as Anki shows them: question and answer, in the light look and in
night mode. Math, where a deck enables it, is left for Anki's MathJax to typeset.</p>
{"".join(sections)}</body>
</html>
"""
    return page, count


def fill(
    template: str,
    fields: Mapping[str, str],
    *,
    ordinal: int | None,
    reveal: bool,
    front: str = "",
) -> str:
    """``template`` with ``fields`` put in, as Anki renders a card of deletion ``ordinal``."""

    def section(match: re.Match[str]) -> str:
        return match.group(2) if fields[match.group(1)].strip() else ""

    def field(match: re.Match[str]) -> str:
        name = match.group(2)
        if name == "FrontSide":
            return front
        value = fields[name]
        if match.group(1):
            assert ordinal is not None
            return cloze_html(value, ordinal, reveal=reveal)
        return value

    return _FIELD.sub(field, _SECTION.sub(section, template))


def cloze_html(text: str, ordinal: int, *, reveal: bool) -> str:
    """A cloze field as Anki's ``{{cloze:...}}`` shows deletion ``ordinal`` (rslib cloze.rs)."""

    def shown(d: cloze.Deletion) -> str:
        if d.ordinal != ordinal:
            return f'<span class="cloze-inactive" data-ordinal="{d.ordinal}">{d.answer}</span>'
        if reveal:
            return f'<span class="cloze" data-ordinal="{d.ordinal}">{d.answer}</span>'
        blank = f"[{d.hint if d.hint is not None else '...'}]"
        return (
            f'<span class="cloze" data-cloze="{_attribute(d.answer)}" '
            f'data-ordinal="{d.ordinal}">{blank}</span>'
        )

    return cloze.rewrite(text, shown)


_NAMED = {"<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&#x27;", '"': "&quot;"}


def _attribute(text: str) -> str:
    """``text`` as Anki writes an attribute (the htmlescape crate's ``encode_attribute``): every
    character below U+0100 other than an ASCII letter or digit as an entity."""
    return "".join(
        c
        if ord(c) >= 256 or (c.isascii() and c.isalnum())
        else _NAMED.get(c) or f"&#x{ord(c):02X};"
        for c in text
    )


def _section(deck: Deck, card: Card, ordinal: int | None, front: str, back: str, n: int) -> str:
    from zerodrill.export.html import escape

    key = card.key if ordinal is None else f"{card.key}#c{ordinal}"
    what = card.kind.name.replace("_", " ") + (" (retired)" if card.retired else "")
    number = ordinal or 1
    panes = "".join(
        f'<figure class="zp-pane"><figcaption>{side} · {look}</figcaption>'
        f'<div class="card card{number}{extra}">{html}</div></figure>'
        for look, extra in (("light", ""), ("night", " nightMode night_mode"))
        for side, html in (("question", front), ("answer", back))
    )
    return (
        f'<section class="zp-card" id="card-{n}"><h2>{escape(key)} '
        f'<span class="zp-kind">{escape(what)} · {escape(deck.title)}</span></h2>'
        f'<div class="zp-grid">{panes}</div></section>\n'
    )


def _data_uri(name: str, content: bytes) -> str:
    kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
    return f"data:{kind};base64,{base64.b64encode(content).decode('ascii')}"
