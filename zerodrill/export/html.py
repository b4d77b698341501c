"""Card Markdown → HTML for Anki: escaped, highlighted, cloze-safe.

What reaches Anki is only what this module writes, so it is where a deck's text is made safe:

- Raw HTML in a deck is escaped (``html=False``): no ``<script>`` and no ``onerror=`` ever
  becomes markup. Links keep only ``http``, ``https`` and ``mailto`` targets; any other link
  is shown as its text. Images must be files the exporter packed (``media``); any other image
  is shown as its alt text.
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
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml, unescapeAll
from markdown_it.token import Token
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.token import STANDARD_TYPES, _TokenType
from pygments.util import ClassNotFound

from zerodrill.deck import cloze

#: Wraps highlighted code; the note CSS scopes the Pygments classes under it.
CODE_CLASS = "zd-code"

# Cloze markers are swapped for private-use characters while Markdown is rendered, so that
# neither Markdown nor Pygments can split or escape them, and swapped back at the end.
_OPEN, _OPEN_END, _HINT, _CLOSE = "\ue000", "\ue001", "\ue002", "\ue003"
_PRIVATE = re.compile("[\ue000-\ue003]")
_PLACEHOLDER = re.compile(f"{_OPEN}(\\d+){_OPEN_END}|{_HINT}|{_CLOSE}")
_SAFE_LINK = re.compile(r"^(?:https?:|mailto:)", re.IGNORECASE)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
#: cloze.parse's tokens: an opener, a stray "{{", a closer.
_CLOZE_TOKEN = cloze._TOKEN
_ANKI_TAGS = re.compile(r"\[(?=(?:sound|anki):)", re.IGNORECASE)


def render(
    markdown: str, *, media: Mapping[str, str] | None = None, cloze_field: bool = False
) -> str:
    """``markdown`` as HTML for an Anki field.

    ``media`` maps image paths as the deck wrote them (normalised, relative to the deck's
    folder) to the file names packed in the package. ``cloze_field`` keeps the text's cloze
    markers; elsewhere a ``{{c1::`` is just text (and is written as entities like any brace).
    """
    text = markdown
    # Checked before replacing: ``in`` is a fast C search, a regex costs more than the field.
    if not text.isascii() and (
        _OPEN in text or _OPEN_END in text or _HINT in text or _CLOSE in text
    ):
        text = _PRIVATE.sub("\ufffd", text)
    protected = False
    if cloze_field:
        plain, text = text, _protect_cloze(text)
        protected = text is not plain
    html = _fast_render(text)
    if html is not None:
        html = _defuse(html)
        if protected:
            # The fast path copies each placeholder run through whole, so plain replacing
            # gives what _PLACEHOLDER.sub(_restore) would.
            html = (
                html.replace(_OPEN, "{{c")
                .replace(_OPEN_END, "::")
                .replace(_HINT, "::")
                .replace(_CLOSE, "}}")
            )
        return html.rstrip("\n")
    html = _defuse(_markdown().render(text, {"media": media or {}}))
    if cloze_field:
        html = _PLACEHOLDER.sub(_restore, html)
    return html.rstrip("\n")


def escape(text: str) -> str:
    """Plain text as HTML, with the same brace and Anki-tag defusing as :func:`render`."""
    return _defuse(escapeHtml(text))


def _defuse(html: str) -> str:
    # str.replace, not str.translate: translate with a table is ~10x slower on long text.
    if "{" in html or "}" in html:
        html = html.replace("{", "&#123;").replace("}", "&#125;")
    if "[" in html:
        html = _ANKI_TAGS.sub("&#91;", html)
    return html


def _protect_cloze(text: str) -> str:
    """``text`` with each deletion's markers swapped for placeholders.

    The deletions are exactly those ``cloze.parse`` finds (same tokens, same pairing; a test
    checks), found without the code-span scan and problem reports that only validation needs.
    """
    if "{{" not in text:
        return text
    out: list[str] = []
    last = 0
    open_at: re.Match[str] | None = None
    for token in _CLOZE_TOKEN.finditer(text):
        if token.group(1) is not None:
            if open_at is None:
                open_at = token
        elif open_at is not None and token.group() == "}}":
            answer, sep, hint = text[open_at.end() : token.start()].partition("::")
            out.append(text[last : open_at.start()])
            out.append(f"{_OPEN}{int(open_at.group(1))}{_OPEN_END}{answer}")
            if sep:
                out.append(f"{_HINT}{hint}")
            out.append(_CLOSE)
            last = token.end()
            open_at = None
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _restore(match: re.Match[str]) -> str:
    if match.group(1) is not None:
        return "{{c" + match.group(1) + "::"
    return "::" if match.group() == _HINT else "}}"


@lru_cache(maxsize=1)
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
                unlink = not _SAFE_LINK.match(href)
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
    lexer = _lexer(lang.lower()) if lang else None
    body = _highlight(content, lexer) if lexer else escapeHtml(content)
    cls = f' class="{CODE_CLASS}"' if lexer else ""
    return f"<pre{cls}><code>{body}</code></pre>\n"


# --- a fast path for plain cards -----------------------------------------------------------
#
# markdown-it costs ~35 µs a field, which alone would make an export of 10,000 cards several
# times slower than genanki writing them. Most card text is paragraphs with code spans,
# **strong**, *emphasis* and code fences. _fast_render renders exactly that subset, and returns
# None (markdown-it then renders) the moment the text holds anything outside it, or anything
# whose reading depends on CommonMark's finer rules. For everything it accepts its output is
# byte-identical to markdown-it's: tests/test_export_html.py checks that on generated text.

_FENCE_OPEN = re.compile(r"(`{3,})([^`]*)")
_BAD_TEXT = re.compile(r"[&<\[\\_|\r\x00\t]")
# Whitespace other than spaces and newlines (tabs, no-break spaces, form feeds): markdown-it's
# rules for blank lines and trimming treat these differently, so leave such text to it.
_ODD_SPACE = re.compile(r"[^\S \n]")
_BAD_LINE_START = re.compile(r"[#>=+|~_`-]|\*(?:\s|$)|\d{1,9}[.)]|[* ]+$")
_WORD = r"[^\W_]"
_FOLLOW = r"(?=[\s.,;:!?)\"'`]|$)"
# An opener follows whitespace or starts the text. That is written as a lookbehind *after*
# the literal asterisks ("** not preceded by a non-space"), so that re can scan for the
# literal instead of trying the pattern at every position (4x faster, same matches).
_STRONG = re.compile(rf"\*\*(?<!\S\*\*)(?={_WORD})([^*\n]*?{_WORD})\*\*{_FOLLOW}")
_EM = re.compile(rf"\*(?<!\S\*)(?={_WORD})([^*\n]*?{_WORD})\*{_FOLLOW}")


def _fast_render(text: str) -> str | None:
    if "\r" in text or "\x00" in text or _ODD_SPACE.search(text):
        return None  # markdown-it normalises or trims these its own way
    if "\n" not in text:
        # One line, the most common field: a paragraph, or nothing to do here.
        body = text.strip(" ")
        if not body:
            return ""
        if (
            len(text) - len(text.lstrip(" ")) > 3
            or text.endswith("  ")
            or _BAD_LINE_START.match(body)
        ):
            return None
        if "`" in body or "*" in body:
            return _paragraph([body])
        if _BAD_TEXT.search(body):
            return None
        return "<p>" + body.replace('"', "&quot;").replace(">", "&gt;") + "</p>\n"
    lines = text.split("\n")
    out: list[str] = []
    para: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE_OPEN.fullmatch(line) if line.startswith("```") else None
        if fence:
            end = _fence_end(lines, i + 1, len(fence.group(1)))
            if end is None or "&" in fence.group(2) or "\\" in fence.group(2):
                return None
            if para and not _flush(para, out):
                return None
            body = "".join(f"{row}\n" for row in lines[i + 1 : end])
            out.append(_fence_html(fence.group(2), body))
            i = end + 1
            continue
        if not line.strip():
            if para and not _flush(para, out):
                return None
        else:
            stripped = line.lstrip(" ")
            if len(line) - len(stripped) > 3 or _BAD_LINE_START.match(stripped):
                return None
            if line.endswith("  "):
                return None  # a hard line break
            para.append(stripped.rstrip(" "))
        i += 1
    if para and not _flush(para, out):
        return None
    return "".join(out)


def _flush(para: list[str], out: list[str]) -> bool:
    html = _paragraph(para)
    para.clear()
    if html is None:
        return False
    out.append(html)
    return True


def _fence_end(lines: list[str], start: int, ticks: int) -> int | None:
    for j in range(start, len(lines)):
        row = lines[j]
        if row.startswith("`" * ticks) and not row.rstrip(" ").strip("`"):
            return j
        if row.lstrip(" ").startswith("`"):
            return None  # an indented or shorter fence line: leave it to markdown-it
    return None


def _paragraph(lines: list[str]) -> str | None:
    raw = "\n".join(lines)
    if "``" in raw:
        return None
    parts = raw.split("`")
    if len(parts) % 2 == 0:
        return None
    out: list[str] = []
    for n, part in enumerate(parts):
        if n % 2:
            if "\n" in part:
                return None  # line ends inside code spans keep their spaces: markdown-it's call
            code = part
            if len(code) > 1 and code[0] == " " and code[-1] == " " and code.strip(" "):
                code = code[1:-1]
            out.append(f"<code>{escapeHtml(code)}</code>")
            continue
        if _BAD_TEXT.search(part):
            return None
        part = part.replace('"', "&quot;").replace(">", "&gt;")
        if "*" in part:
            if n and part.startswith("*"):
                return None
            # Each pass only where it can match; a function, not a "\1" template, because
            # re expands templates in Python, which cost more than the match.
            if "**" in part:
                part = _STRONG.sub(_strong, part)
            if "*" in part:
                part = _EM.sub(_em, part)
                if "*" in part:
                    return None
        out.append(part)
    return f"<p>{''.join(out)}</p>\n"


def _strong(match: re.Match[str]) -> str:
    return f"<strong>{match[1]}</strong>"


def _em(match: re.Match[str]) -> str:
    return f"<em>{match[1]}</em>"


@lru_cache(maxsize=64)
def _lexer(lang: str) -> Lexer | None:
    try:
        return get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@lru_cache(maxsize=512)
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


@lru_cache(maxsize=256)
def _css_class(ttype: _TokenType) -> str:
    while ttype not in STANDARD_TYPES:
        ttype = ttype.parent
    return STANDARD_TYPES[ttype]
