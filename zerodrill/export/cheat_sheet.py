"""A deck's night-before sheet as Markdown, as one self-contained HTML page, and as the HTML of
the Anki deck's description.

The bullets are deck text, so untrusted: the HTML comes from :func:`zerodrill.export.html.render`,
the export's one Markdown-to-HTML path (raw HTML shown as text, only safe links, no images,
Anki's markup defused), and the deck title through its :func:`~zerodrill.export.html.escape`.
The page loads nothing: its CSS is inline and it has no scripts, fonts or images, so it can be
mailed, opened offline and printed as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from zerodrill.deck.model import Deck, Sheet
from zerodrill.deck.raw_html import without_raw_html
from zerodrill.export import html

_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")

#: What the sheet is called wherever it is shown.
HEADING = "The night before"

# Light and dark follow the reader's system; print is black on white, sized so that the
# longest sheet the loader allows (12 bullets of 240 characters) stays within one A4 page.
_CSS = """\
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #ffffff; --muted: #5f6368;
  --code-bg: #f1f3f4; --rule: #d0d4d9; --link: #1a5fb4; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e8eaed; --bg: #1c1d20; --muted: #a0a6ad; --code-bg: #2c2e33;
    --rule: #3c4043; --link: #8ab4f8; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 46rem; margin: 2rem auto; padding: 0 1.25rem; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
.deck { color: var(--muted); margin: 0 0 1rem; border-bottom: 1px solid var(--rule);
  padding-bottom: .75rem; }
ol { padding-left: 1.5rem; margin: 0; }
li { margin: 0 0 .6rem; }
li p { margin: 0; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
  font-size: .9em; background: var(--code-bg); padding: .05em .3em; border-radius: 3px; }
a { color: var(--link); }
.cards { display: block; color: var(--muted); font-size: .8em; }
@page { size: A4; margin: 16mm; }
@media print {
  :root { --fg: #000000; --bg: #ffffff; --muted: #444444; --code-bg: #eeeeee; --link: #000000; }
  body { font-size: 10.5pt; }
  main { max-width: none; margin: 0; padding: 0; }
  li { break-inside: avoid; }
}
"""


def markdown(decks: Sequence[Deck]) -> str:
    parts: list[str] = []
    for deck in decks:
        sheet = _sheet(deck)
        # The title is plain text, not Markdown: each of its marks is escaped, so no link or
        # image in it (which validate does not look for there) is live in the file.
        parts.append(f"# {HEADING}: {_markdown_text(deck.title)}\n")
        # Raw HTML made text, as the export does: whatever renders the file shows it as typed.
        for n, bullet in enumerate(sheet.bullets, 1):
            text = _indented(without_raw_html(bullet.text), "   ")
            cards = f"  \n   *cards: {', '.join(bullet.cards)}*" if bullet.cards else ""
            parts.append(f"{n}. {text}{cards}")
        parts.append("")
    return "\n".join(parts)


def page(decks: Sequence[Deck]) -> str:
    titles = " · ".join(deck.title for deck in decks)
    sections = "\n".join(_section(deck) for deck in decks)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f"<title>{html.escape(f'{HEADING}: {titles}')}</title>\n"
        f"<style>\n{_CSS}</style>\n</head>\n<body>\n<main>\n{sections}\n</main>\n</body>\n</html>\n"
    )


def anki_description(deck: Deck) -> str:
    """The HTML of the Anki deck's description: the deck's description, then its sheet."""
    description = html.render(deck.description)
    if deck.sheet is None:
        return description
    items = "".join(f"<li>{html.render(b.text)}</li>" for b in deck.sheet.bullets)
    return f"{description}\n<h3>{HEADING}</h3>\n<ol>{items}</ol>"


def _section(deck: Deck) -> str:
    sheet = _sheet(deck)
    items = []
    for bullet in sheet.bullets:
        cards = (
            f'<span class="cards">cards: {html.escape(", ".join(bullet.cards))}</span>'
            if bullet.cards
            else ""
        )
        items.append(f"<li>{html.render(bullet.text)}{cards}</li>")
    return (
        f"<section>\n<h1>{HEADING}</h1>\n"
        f'<p class="deck">{html.escape(deck.title)}</p>\n'
        f"<ol>\n{chr(10).join(items)}\n</ol>\n</section>"
    )


def _sheet(deck: Deck) -> Sheet:
    if deck.sheet is None:
        raise ValueError(f"deck '{deck.id}' has no sheet")
    return deck.sheet


def _markdown_text(text: str) -> str:
    """``text`` as Markdown that reads as ``text``: every ASCII punctuation mark, which is what
    CommonMark's syntax is made of, escaped with a backslash."""
    return _PUNCTUATION.sub(r"\\\g<0>", text)


def _indented(text: str, prefix: str) -> str:
    """``text`` as the body of a list item: its continuation lines indented under the marker."""
    return text.replace("\n", "\n" + prefix)
