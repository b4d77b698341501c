"""Card Markdown → HTML for Anki: escaped, highlighted, cloze-safe.

What reaches Anki is only what this module writes, so it is where a deck's text is made safe:

- The Markdown is CommonMark with tables, parsed by markdown-it-py, the parser the drill
  draws cards with.
- Raw HTML in a deck is escaped (``html=False``): no ``<script>`` and no ``onerror=`` ever
  becomes markup. Links keep only the targets :func:`zerodrill.deck.links.safe_link` allows
  (``http``, ``https`` and ``mailto``); any other link is shown as its text. Images must be
  files the exporter packed (``media``); any other image is shown as its alt text.
- Cloze markers (``{{c1::answer::hint}}``) survive intact, also inside code spans and
  highlighted code fences, and nothing else in the output contains ``{{`` or ``}}``: every
  other brace is written as an entity, so no escape sequence, entity or code sample in a deck
  can open a cloze deletion the loader never saw. ``[sound:`` and ``[anki:`` are defused the
  same way, because Anki reads those in field text as media and TTS tags.
- Code fences with a known language are highlighted by Pygments into CSS classes (the note
  CSS in ``notetypes.py`` styles them for light and night mode).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml, unescapeAll
from markdown_it.token import Token
from pygments.lexer import Lexer
from pygments.token import STANDARD_TYPES, _TokenType

from zerodrill.deck import cloze
from zerodrill.deck.lexers import lexer_for
from zerodrill.deck.links import safe_link

#: Wraps highlighted code; the note CSS scopes the Pygments classes under it.
CODE_CLASS = "zd-code"

# Cloze markers are swapped for private-use characters while Markdown is rendered, so that
# neither Markdown nor Pygments can split or escape them, and swapped back at the end.
_OPEN, _OPEN_END, _HINT, _CLOSE = "\ue000", "\ue001", "\ue002", "\ue003"
_PRIVATE = re.compile("[\ue000-\ue003]")
_PLACEHOLDER = re.compile(f"{_OPEN}(\\d+){_OPEN_END}|{_HINT}|{_CLOSE}")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_ANKI_TAGS = re.compile(r"\[(?=(?:sound|anki):)", re.IGNORECASE)


def render(
    markdown: str, *, media: Mapping[str, str] | None = None, cloze_field: bool = False
) -> str:
    """``markdown`` as HTML for an Anki field.

    ``media`` maps image paths as the deck wrote them (normalised, relative to the deck's
    folder) to the file names packed in the package. ``cloze_field`` keeps the text's cloze
    markers; elsewhere a ``{{c1::`` is just text (and is written as entities like any brace).
    """
    # A deck's own private-use characters must not pass for placeholders.
    text = _PRIVATE.sub("\ufffd", markdown)
    if cloze_field:
        text = _protect_cloze(text)
    html = _defuse(_markdown().render(text, {"media": media or {}}))
    if cloze_field:
        html = _PLACEHOLDER.sub(_restore, html)
    return html.rstrip("\n")


def escape(text: str) -> str:
    """Plain text as HTML, with the same brace and Anki-tag defusing as :func:`render`."""
    return _defuse(escapeHtml(text))


def _defuse(html: str) -> str:
    html = html.replace("{", "&#123;").replace("}", "&#125;")
    return _ANKI_TAGS.sub("&#91;", html)


def _protect_cloze(text: str) -> str:
    """``text`` with the markers of each deletion Anki finds swapped for placeholders."""
    out: list[str] = []
    last = 0
    for d in cloze.deletions(text):
        out.append(text[last : d.start])
        out.append(f"{_OPEN}{d.ordinal}{_OPEN_END}{d.answer}")
        if d.hint is not None:
            out.append(f"{_HINT}{d.hint}")
        out.append(_CLOSE)
        last = d.end
    out.append(text[last:])
    return "".join(out)


def _restore(match: re.Match[str]) -> str:
    if match.group(1) is not None:
        return "{{c" + match.group(1) + "::"
    return "::" if match.group() == _HINT else "}}"


@cache
def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    # Let every URL through the parser; _sanitize_links decides, knowing link from image.
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    md.core.ruler.push("zerodrill_links", _sanitize_links)
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("code_block", _render_fence)
    return md


def _sanitize_links(state: Any) -> None:
    media: Mapping[str, str] = state.env.get("media", {})
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        unlink = False
        for tok in block.children:
            if tok.type == "link_open":
                href = str(tok.attrGet("href") or "")
                unlink = not safe_link(href)
                if unlink:
                    continue
                tok.attrSet("rel", "noopener noreferrer")
            elif tok.type == "link_close" and unlink:
                unlink = False
                continue
            elif tok.type == "image":
                src = str(tok.attrGet("src") or "")
                packed = _packed_name(src, media)
                if packed is None:
                    children.extend(_as_text(tok))
                    continue
                tok.attrSet("src", packed)
            children.append(tok)
        block.children = children


def _packed_name(src: str, media: Mapping[str, str]) -> str | None:
    if _SCHEME.match(src) or src.startswith(("/", "\\")):
        return None
    return media.get(posixpath.normpath(unquote(src)))


def _as_text(image: Token) -> Sequence[Token]:
    """An image that cannot be shown becomes its alt text."""
    return list(image.children or [])


def _render_fence(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    return _fence_html(unescapeAll(token.info), token.content)


def _fence_html(info: str, content: str) -> str:
    lang = info.strip().split(maxsplit=1)[0] if info.strip() else ""
    lexer = lexer_for(lang) if lang else None
    body = _highlight(content, lexer) if lexer else escapeHtml(content)
    cls = f' class="{CODE_CLASS}"' if lexer else ""
    return f"<pre{cls}><code>{body}</code></pre>\n"


def _highlight(code: str, lexer: Lexer) -> str:
    """Pygments tokens as ``<span class>`` runs, with cloze placeholders kept outside spans.

    The lexer sees the code without placeholders (a deletion's answer is lexed as the code it
    stands in), and each placeholder is put back between spans, so that a deletion always
    wraps whole elements and Anki's cloze markup nests cleanly.
    """
    plain: list[str] = []
    marks: dict[int, list[str]] = {}
    pos = 0
    for piece in re.split(f"({_OPEN}\\d+{_OPEN_END}|{_HINT}[^{_CLOSE}]*{_CLOSE}|{_CLOSE})", code):
        if _PLACEHOLDER.match(piece) or piece.startswith(_HINT):
            marks.setdefault(pos, []).append(piece)
        else:
            plain.append(piece)
            pos += len(piece)
    out: list[str] = []
    pos = 0
    for ttype, value in lexer.get_tokens("".join(plain)):
        cls = _css_class(ttype)
        start = pos
        pos += len(value)
        if start in marks:
            out.extend(escapeHtml(m) for m in marks.pop(start))
        last = 0
        for cut in sorted(m for m in marks if start < m < pos):
            out.append(_span(cls, value[last : cut - start]))
            out.extend(escapeHtml(m) for m in marks.pop(cut))
            last = cut - start
        out.append(_span(cls, value[last:]))
    for cut in sorted(marks):
        out.extend(escapeHtml(m) for m in marks[cut])
    return "".join(out)


def _span(cls: str, value: str) -> str:
    if not value:
        return ""
    text = escapeHtml(value)
    return f'<span class="{cls}">{text}</span>' if cls else text


def _css_class(ttype: _TokenType) -> str:
    while ttype not in STANDARD_TYPES:
        ttype = ttype.parent
    return STANDARD_TYPES[ttype]
