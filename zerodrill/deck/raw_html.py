"""Raw HTML in a deck's Markdown, made text: the one rewrite the export renders and validate checks.

CommonMark passes raw HTML through and pulldown-cmark has no switch for that, so the ``<``
that opens each piece of raw HTML the parser finds is written as ``&lt;``. What followed a
rewritten opener is read as Markdown again and can hold raw HTML of its own (the rest of an
HTML block becomes a paragraph with inline tags), and rewritten text can parse otherwise
(``<https://x/{{c1::<b>}}`` holds no autolink until ``<b>`` is text); so the text is parsed
again until a parse finds no raw HTML. The export renders what this returns, and validate's
cloze checks look at the same text, so the two cannot drift apart.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from zerodrill.deck import markdown_syntax

# Rounds that rewrite only the opener of each piece of raw HTML (faithful to what the text
# means without raw HTML); later rounds rewrite every "<" in it. Text that still holds raw
# HTML after MAX_ROUNDS parses (only text made to, each round revealing more) has every "<"
# rewritten, so a field costs at most that many parses whatever it holds.
OPENER_ROUNDS = 4
MAX_ROUNDS = 8
# Raw HTML (an HTML block or inline HTML) always starts with one of these (CommonMark 4.6 and
# 6.6); text without one needs no parse for it, however many "<" it holds.
_HTML_START = re.compile(rb"<[A-Za-z/!?]")


def without_raw_html(text: str) -> str:
    """``text`` with each ``<`` that opens raw HTML written as the entity ``&lt;``."""
    data = text.encode()
    rounds = 0
    while b"<" in data:
        # Event ranges are offsets into the UTF-8 bytes; "<" is one byte and never part of a
        # longer character, so cutting there keeps the text valid.
        if _HTML_START.search(data) is None:
            break
        if rounds == MAX_ROUNDS:
            return data.replace(b"<", b"&lt;").decode()
        spans = raw_html_spans(data.decode())
        if not spans:
            break
        if rounds < OPENER_ROUNDS:
            cuts = {data.find(b"<", start, end) for start, end in spans} - {-1}
        else:
            cuts = {i for start, end in spans for i in range(start, end) if data[i] == 0x3C}
        data = _rewrite(data, cuts or {i for i, byte in enumerate(data) if byte == 0x3C})
        rounds += 1
    return data.decode()


def raw_html_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for event, span in markdown_syntax.parser().events_with_range(text):
        if isinstance(event, dict) and ("InlineHtml" in event or event.get("Start") == "HtmlBlock"):
            spans.append((span["start"], span["end"]))
    return spans


def _rewrite(data: bytes, cuts: Collection[int]) -> bytes:
    out: list[bytes] = []
    last = 0
    for i in sorted(cuts):
        out += [data[last:i], b"&lt;"]
        last = i + 1
    out.append(data[last:])
    return b"".join(out)
