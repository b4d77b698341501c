"""Card Markdown → HTML for Anki: escaped, highlighted, cloze-safe.

What reaches Anki is only what this module writes, so it is where a deck's text is made safe:

- The Markdown is the deck's syntax (:mod:`zerodrill.deck.markdown_syntax`: CommonMark with
  tables), rendered by pulldown-cmark (through pyromark) as validate parses it, and as the
  drill parses the cards it draws (:mod:`zerodrill.tui.markdown_tree`).
- Raw HTML in a deck is escaped, never rendered: no ``<script>`` and no ``onerror=`` ever
  becomes markup. pulldown-cmark has no switch for that (CommonMark passes raw HTML through),
  so :mod:`zerodrill.deck.raw_html` (shared with validate's cloze checks) rewrites the ``<``
  that opens each piece of raw HTML the parser finds as ``&lt;``, until a parse finds none;
  the text then reads as CommonMark without raw HTML, in the drill too. After that every tag
  in the rendered HTML is one the renderer wrote.
- Links keep only the targets :func:`zerodrill.deck.links.safe_link` allows (``http``,
  ``https`` and ``mailto``); any other link is shown as its text. Images must be files the
  exporter packed (``media``); any other image is shown as its alt text.
- Cloze markers (``{{c1::answer::hint}}``) survive intact, also inside code spans and
  highlighted code fences, and nothing else in the output contains ``{{`` or ``}}``: every
  other brace is written as an entity, so no escape sequence, entity or code sample in a deck
  can open a cloze deletion the loader never saw. ``[sound:`` and ``[anki:`` are defused the
  same way, because Anki reads those in field text as media and TTS tags, and so is
  ``[[type:``, which Anki's reviewer turns into an answer box wherever it finds it.
- Anki's math is defused too, unless the deck opts in (``anki_math: true``, ``math=True``
  here): the openers of its LaTeX (``[latex]``, ``[$]``, ``[$$]``, which Anki's backend renders
  to images) are written with ``[`` as an entity, and so is the backslash of MathJax's
  delimiters ``\\(``, ``\\)``, ``\\[`` and ``\\]``. An entity is only text to the backend, but the
  page MathJax typesets has it decoded, so the note types also mark the card as one MathJax
  skips (see ``notetypes.py``), and an opted-in deck's fields as ones it typesets.
- Code fences with a known language are highlighted by Pygments into CSS classes (the note
  CSS in ``notetypes.py`` styles them for light and night mode).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from html import unescape

import pyromark
from pygments.lexer import Lexer
from pygments.token import STANDARD_TYPES, _TokenType

from zerodrill.deck import cloze, markdown_syntax
from zerodrill.deck.files import image_file
from zerodrill.deck.lexers import lexer_for
from zerodrill.deck.links import safe_link
from zerodrill.deck.raw_html import without_raw_html

#: Wraps highlighted code; the note CSS scopes the Pygments classes under it.
CODE_CLASS = "zd-code"

# Cloze markers are swapped for private-use characters while Markdown is rendered, so that
# neither Markdown nor Pygments can split or escape them, and swapped back at the end.
_OPEN, _OPEN_END, _HINT, _CLOSE = "\ue000", "\ue001", "\ue002", "\ue003"
# A deck's own private-use characters must not pass for placeholders; NUL is replaced as
# CommonMark asks (pulldown-cmark leaves that to its caller).
_REPLACED = re.compile("[\x00\ue000-\ue003]")
_PLACEHOLDER = re.compile(f"{_OPEN}(\\d+){_OPEN_END}|{_HINT}|{_CLOSE}")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_ANKI_TAGS = re.compile(r"\[(?=(?:sound|anki):|\[type:)", re.IGNORECASE)
# The same, and the openers and closers of Anki's LaTeX; and MathJax's delimiters.
_ANKI_TAGS_AND_LATEX = re.compile(
    r"\[(?=(?:sound|anki):|\[type:|/?(?:latex|\$\$?)\])", re.IGNORECASE
)
_MATHJAX = re.compile(r"\\(?=[()[\]])")
# The renderer's links and images. Once raw HTML is gone these are the only <a, </a> and <img
# in its output (text is escaped, attribute values are quoted and escaped). Each is rebuilt
# from the attributes kept, whatever their order. Links can nest (pulldown-cmark reads an
# autolink inside a link's text), so opening and closing tags are paired.
_LINK_TAG = re.compile(r"<a\b([^>]*)>|</a>")
_IMAGE = re.compile(r"<img\b([^>]*)>")
_ATTRIBUTE = re.compile(r'\s([a-z]+)="([^"]*)"')
# A run of text holding a straight quote: the output starts with a tag, and attribute values
# never hold a ">", so a run of text starts after one. pulldown-cmark leaves quotes in text as
# they are; they are written as &quot; so that escaped raw HTML reads as text to anything that
# searches it for attributes.
_QUOTED_TEXT = re.compile(r'>[^<"]*"[^<]*')
# Pygments takes some microseconds a character, so a field longer than this (far beyond any
# real card's) is rendered with its code unhighlighted, keeping the export's time per byte low.
HIGHLIGHT_MAX_CHARS = 200_000


def render(
    markdown: str,
    *,
    media: Mapping[str, str] | None = None,
    cloze_field: bool = False,
    math: bool = False,
) -> str:
    """``markdown`` as HTML for an Anki field.

    ``media`` maps image paths as the deck wrote them (normalised, relative to the deck's
    folder) to the file names packed in the package. ``cloze_field`` keeps the text's cloze
    markers; elsewhere a ``{{c1::`` is just text (and is written as entities like any brace).
    ``math`` leaves Anki's LaTeX and MathJax syntax live.
    """
    text = markdown
    if not text.isascii() or "\x00" in text:
        text = _REPLACED.sub("\ufffd", text)
    if cloze_field:
        text = _protect_cloze(text)
    if "<" in text:
        text = without_raw_html(text)
    parser = _markdown() if len(text) <= HIGHLIGHT_MAX_CHARS else markdown_syntax.parser()
    html = parser.html(text)
    if "<img" in html:
        packed = media or {}
        html = _IMAGE.sub(lambda m: _image(m, packed), html)
    if "<a" in html:
        html = _vet_links(html)
    if '"' in text or "&" in text:  # a quote, or an entity that may stand for one
        html = _QUOTED_TEXT.sub(_quote_text, html)
    html = _defuse(html, math=math)
    if cloze_field:
        html = _PLACEHOLDER.sub(_restore, html)
    return html.rstrip("\n")


def escape(text: str) -> str:
    """Plain text as HTML, with the same brace and Anki-tag defusing as :func:`render`."""
    return _defuse(_escape(text))


def _escape(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    )


def _defuse(html: str, *, math: bool = False) -> str:
    html = html.replace("{", "&#123;").replace("}", "&#125;")
    if "[" in html:
        html = (_ANKI_TAGS if math else _ANKI_TAGS_AND_LATEX).sub("&#91;", html)
    if not math and "\\" in html:
        html = _MATHJAX.sub("&#92;", html)
    return html


def _protect_cloze(text: str) -> str:
    """``text`` with the markers of each deletion Anki finds swapped for placeholders."""

    def protected(d: cloze.Deletion) -> str:
        hint = f"{_HINT}{d.hint}" if d.hint is not None else ""
        return f"{_OPEN}{d.ordinal}{_OPEN_END}{d.answer}{hint}{_CLOSE}"

    return cloze.rewrite(text, protected)


def _restore(match: re.Match[str]) -> str:
    if match.group(1) is not None:
        return "{{c" + match.group(1) + "::"
    return "::" if match.group() == _HINT else "}}"


@cache
def _markdown() -> pyromark.Markdown:
    return markdown_syntax.highlighting_parser(_code_block)


def _quote_text(match: re.Match[str]) -> str:
    return match.group().replace('"', "&quot;")


def _vet_links(html: str) -> str:
    """``html`` with the links the one safe-link rule allows, given ``rel``; others as text."""
    kept: list[bool] = []

    def tag(match: re.Match[str]) -> str:
        if match.group(1) is None:
            return "</a>" if kept.pop() else ""
        attributes = dict(_ATTRIBUTE.findall(match.group(1)))
        href = attributes.get("href", "")
        kept.append(safe_link(unescape(href)))
        if not kept[-1]:
            return ""
        return f'<a href="{href}"{_title(attributes)} rel="noopener noreferrer">'

    return _LINK_TAG.sub(tag, html)


def _image(match: re.Match[str], media: Mapping[str, str]) -> str:
    """An image pointing at its packed file; an image that cannot be shown, its alt text."""
    attributes = dict(_ATTRIBUTE.findall(match.group(1)))
    alt = attributes.get("alt", "")
    packed = _packed_name(unescape(attributes.get("src", "")), media)
    if packed is None:
        return alt
    return f'<img src="{_escape(packed)}" alt="{alt}"{_title(attributes)} />'


def _title(attributes: Mapping[str, str]) -> str:
    title = attributes.get("title")
    return f' title="{title}"' if title else ""


def _packed_name(src: str, media: Mapping[str, str]) -> str | None:
    if _SCHEME.match(src) or src.startswith(("/", "\\")):
        return None
    # The file the loader checked for this image: one rule for both (deck.files.image_file).
    return media.get(image_file(src))


def _code_block(lang: str | None, code: str) -> str:
    lexer = lexer_for(lang) if lang else None
    body = _highlight(code, lexer) if lexer else _escape(code)
    cls = f' class="{CODE_CLASS}"' if lexer else ""
    return f"<pre{cls}><code>{body}</code></pre>\n"


def _highlight(code: str, lexer: Lexer) -> str:
    """Pygments tokens as ``<span class>`` runs, with cloze placeholders kept outside spans.

    The lexer sees the code without placeholders (a deletion's answer is lexed as the code it
    stands in), and each placeholder is put back between spans, so that a deletion always
    wraps whole elements and Anki's cloze markup nests cleanly.
    """
    if _PLACEHOLDER.search(code) is None:  # most code: no deletion to keep outside the spans
        return "".join([_span(_css_class(ttype), value) for ttype, value in lexer.get_tokens(code)])
    plain: list[str] = []
    marks: dict[int, list[str]] = {}
    pos = 0
    for piece in re.split(f"({_OPEN}\\d+{_OPEN_END}|{_HINT}[^{_CLOSE}]*{_CLOSE}|{_CLOSE})", code):
        if _PLACEHOLDER.match(piece) or piece.startswith(_HINT):
            marks.setdefault(pos, []).append(piece)
        else:
            plain.append(piece)
            pos += len(piece)
    # The marks' positions in order (pos only grows), walked once beside the tokens.
    cuts = list(marks)
    i = 0
    out: list[str] = []
    pos = 0
    for ttype, value in lexer.get_tokens("".join(plain)):
        cls = _css_class(ttype)
        start = pos
        pos += len(value)
        last = 0
        while i < len(cuts) and cuts[i] < pos:
            cut = cuts[i]
            if cut > start:
                out.append(_span(cls, value[last : cut - start]))
                last = cut - start
            out.extend(_escape(m) for m in marks[cut])
            i += 1
        out.append(_span(cls, value[last:]))
    for cut in cuts[i:]:
        out.extend(_escape(m) for m in marks[cut])
    return "".join(out)


def _span(cls: str, value: str) -> str:
    if not value:
        return ""
    text = _escape(value)
    return f'<span class="{cls}">{text}</span>' if cls else text


def _css_class(ttype: _TokenType) -> str:
    while ttype not in STANDARD_TYPES:
        ttype = ttype.parent
    return STANDARD_TYPES[ttype]
