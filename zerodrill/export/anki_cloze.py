"""Where a card's cloze markers fall in its Markdown, and what Anki would make of them there:
Anki's rule, checked by validate and by an export for Anki (:mod:`~zerodrill.export.anki_rules`).

Anki reads cloze markers in the HTML the export renders from a card's Markdown, where they are
kept as written. So a deletion shows as its author meant only when

- each marker is text: in a link's URL or title, an image (its alt text becomes an
  attribute), a code fence's info string or a link reference definition, the marker ends up
  inside an attribute or is dropped;
- the deletion wraps whole Markdown elements: Anki cuts the HTML at the markers, so a
  deletion (or its hint separator) that starts in one paragraph, emphasis, code span, link or
  table cell and ends in another hands Anki half an element (``{{c1::`std::vector`}}``: the
  answer ``<code>std``, the hint ``vector</code>``);
- nothing in the rendered answer reads as ``::``: Anki splits answer and hint at the first
  one, and an entity or escape (``&#58;&#58;``, ``\\:\\:``) turns into one only in the HTML;
- no backslash stands before a marker: Markdown escapes nothing there (the markers are not
  Markdown), so the backslash shows and the deletion still opens.

The text is parsed by the parser the export renders with (:mod:`~zerodrill.deck.markdown_syntax`),
with the markers swapped for private-use characters and raw HTML made text as the export does both,
so the structure checked is the structure rendered. One parse (a few more when the text holds
raw HTML, as in the export) and one pass over its events: linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from msgspec import Struct

from zerodrill.deck import markdown_syntax
from zerodrill.deck.cloze import ClozeIssue, Deletion
from zerodrill.deck.markdown_checks import event_name
from zerodrill.deck.raw_html import without_raw_html

# One character per marker (the export writes the opener as two around the number; both are
# private-use characters, which Markdown treats as it treats letters).
_OPEN, _HINT, _CLOSE = "\ue000", "\ue002", "\ue003"
_MARKERS = re.compile(f"[{_OPEN}{_HINT}{_CLOSE}]")
# A deck's own private-use characters and NUL, replaced as the export replaces them.
_REPLACED = re.compile("[\x00\ue000-\ue003]")
# Leaf events whose range is text that the rendered HTML shows.
_TEXT_LEAVES = ("Text", "Code", "Html", "InlineHtml")
_WHAT = {_OPEN: "'{{c'", _HINT: "'::'", _CLOSE: "'}}'"}


class _Marker(Struct):
    char: str
    offset: int  # in the card's text
    byte: int  # in the parsed text's UTF-8
    deletion: int
    # The innermost element (and code span) holding it. Elements nest, so two markers with
    # the same innermost element have the same elements around them.
    context: tuple[int, int] | None = None
    in_code: bool = False
    problem: str | None = None


class _Element(Struct):
    number: int  # its event's number: an element's identity
    name: str
    start: int
    # A link or image whose URL, title or alt text would carry a marker into an attribute.
    attribute: bool
    # What is open around it (itself included), carried down so that placing a marker costs
    # the same however deep the elements nest.
    code_blocks: int = 0
    attribute_holder: str | None = None  # the outermost such link or image, if any


def cloze_issues(text: str, deletions: Sequence[Deletion]) -> list[ClozeIssue]:
    """Every way ``deletions`` (well-formed, as :func:`cloze.parse` found them in ``text``)
    would render in Anki otherwise than ``text`` means them."""
    if not deletions:
        return []
    parsed, markers = _with_placeholders(text, deletions)
    if "<" in parsed:
        parsed = without_raw_html(parsed)
        _locate(parsed, markers)
    walk = _Walk(markers)
    colons = walk.run(parsed)
    for m in markers:
        if m.problem is None and not m.in_code and _escaped(text, m.offset):
            m.problem = (
                f"a backslash does not escape {_WHAT[m.char]}: Anki still reads the cloze "
                "marker and the backslash shows; remove it, or put the braces in a code span"
            )
    issues: list[ClozeIssue] = []
    by_deletion: list[list[_Marker]] = [[] for _ in deletions]
    for m in markers:
        by_deletion[m.deletion].append(m)
    # One line per deletion, at the marker that goes wrong first.
    for index, (opener, *rest) in enumerate(by_deletion):
        bad = next((m for m in (opener, *rest) if m.problem is not None), None)
        if bad is not None:
            assert bad.problem is not None
            issues.append(ClozeIssue(bad.offset, bad.problem))
            continue
        crossing = next((m for m in rest if m.context != opener.context), None)
        if crossing is not None:
            issues.append(ClozeIssue(crossing.offset, _crossing(crossing)))
        elif index not in walk.shown:
            issues.append(
                ClozeIssue(
                    opener.offset,
                    "empty cloze deletion: its answer renders as nothing (Anki would ask "
                    "for a blank)",
                )
            )
        elif index in colons:
            issues.append(
                ClozeIssue(
                    opener.offset,
                    "the answer renders as '::' (from an entity or escape), where Anki "
                    "splits answer and hint; write the colons apart",
                )
            )
    return issues


def _crossing(m: _Marker) -> str:
    if m.char == _HINT and m.in_code:
        return (
            "'::' inside code splits the deletion into answer and hint in Anki (the answer "
            "would end inside the code); keep '::' out of deletions, e.g. std::{{c1::vector}}"
        )
    what = "hint separator '::'" if m.char == _HINT else "'}}'"
    return (
        f"the cloze deletion's {what} is in another Markdown element than its '{{{{c': a "
        "deletion must start and end in one paragraph, table cell, emphasis, link or code "
        "span (Anki would cut the element in two)"
    )


def _escaped(text: str, offset: int) -> bool:
    i = offset
    while i > 0 and text[i - 1] == "\\":
        i -= 1
    return (offset - i) % 2 == 1


def _with_placeholders(text: str, deletions: Sequence[Deletion]) -> tuple[str, list[_Marker]]:
    """``text`` with each marker as one placeholder character, and the markers in order."""
    pieces: list[str] = []
    markers: list[_Marker] = []
    size = 0
    last = 0
    for index, d in enumerate(deletions):
        closer = d.end - 2
        hint_at = None if d.hint is None else closer - len(d.hint) - 2
        answer_at = (closer if hint_at is None else hint_at) - len(d.answer)
        cuts = [(d.start, answer_at, _OPEN)]
        if hint_at is not None:
            cuts.append((hint_at, hint_at + 2, _HINT))
        cuts.append((closer, d.end, _CLOSE))
        for start, end, char in cuts:
            before = _REPLACED.sub("\ufffd", text[last:start])
            pieces += [before, char]
            size += len(before.encode())
            markers.append(_Marker(char, start, size, index))
            size += len(char.encode())
            last = end
    pieces.append(_REPLACED.sub("\ufffd", text[last:]))
    return "".join(pieces), markers


def _locate(parsed: str, markers: list[_Marker]) -> None:
    """Point each marker at its placeholder's byte in ``parsed`` (after a rewrite)."""
    size = 0
    last = 0
    for marker, match in zip(markers, _MARKERS.finditer(parsed), strict=True):
        size += len(parsed[last : match.start()].encode())
        marker.byte = size
        last = match.start()


class _Walk:
    """One pass over the parse's events, placing each marker in the element that holds it."""

    def __init__(self, markers: list[_Marker]) -> None:
        self.markers = markers
        self.pending = 0  # the first marker not yet placed
        self.open: list[_Element] = []
        self.answer = -1  # the deletion whose answer the text is in, if any
        self.joined = ""  # the end of the answer's run of adjacent text, as the HTML holds it
        self.colons: set[int] = set()
        self.shown: set[int] = set()  # deletions whose answer renders as something

    def run(self, parsed: str) -> set[int]:
        """The deletions whose rendered answer holds '::'; each marker is placed."""
        for number, (event, span) in enumerate(markdown_syntax.parser().events_with_range(parsed)):
            start, end = span["start"], span["end"]
            self.unplaced_before(start)
            name, payload, edge = event_name(event)
            if name in _TEXT_LEAVES and edge is None:
                self.leaf(number, name, payload if isinstance(payload, str) else "", end)
                continue
            self.joined = ""
            if edge == "Start":
                if name == "Image" and self.answer >= 0:
                    self.shown.add(self.answer)
                attrs = payload if isinstance(payload, dict) else {}
                carried = str(attrs.get("dest_url", "")) + "\n" + str(attrs.get("title", ""))
                if self.answer >= 0 and "::" in carried:
                    self.colons.add(self.answer)
                attribute = name == "Image" or _MARKERS.search(carried) is not None
                element = _Element(number, name, start, attribute)
                outer = self.open[-1] if self.open else None
                element.code_blocks = (outer.code_blocks if outer else 0) + (name == "CodeBlock")
                element.attribute_holder = (outer.attribute_holder if outer else None) or (
                    name if attribute else None
                )
                self.open.append(element)
            elif edge == "End" and self.open:
                self.unplaced_before(end)
                self.open.pop()
        self.unplaced_before(None)
        return self.colons

    def unplaced_before(self, byte: int | None) -> None:
        """Markers before ``byte`` that no text event held: syntax swallowed them."""
        while self.pending < len(self.markers) and (
            byte is None or self.markers[self.pending].byte < byte
        ):
            m = self.markers[self.pending]
            inner = next((e for e in reversed(self.open) if e.start <= m.byte), None)
            m.problem = _problem(m, inner.name if inner else "syntax")
            self.pending += 1

    def leaf(self, number: int, name: str, content: str, end: int) -> None:
        inner = self.open[-1] if self.open else None
        context = (inner.number if inner else -1, number if name == "Code" else -1)
        in_code = name == "Code" or (inner is not None and inner.code_blocks > 0)
        placed: list[_Marker] = []
        while self.pending < len(self.markers) and self.markers[self.pending].byte < end:
            m = self.markers[self.pending]
            m.context, m.in_code = context, in_code
            if inner is not None and inner.attribute_holder is not None:
                m.problem = _problem(m, inner.attribute_holder)
            placed.append(m)
            self.pending += 1
        if name != "Text":
            self.joined = ""
        texts = _MARKERS.split(content)
        if len(texts) != len(placed) + 1:  # pragma: no cover - a marker the parser rewrote
            self.joined = ""
            return
        for text, marker in zip(texts, [*placed, None], strict=True):
            # Only the last character carries over: "::" is two long, and a run of many
            # short text events must not be searched again each time it grows.
            joined = self.joined + text
            if self.answer >= 0 and "::" in joined:
                self.colons.add(self.answer)
            if self.answer >= 0 and text.strip():
                self.shown.add(self.answer)
            self.joined = joined[-1:]
            if marker is not None:
                # "a&#58;" before the hint's "::" renders as "a:::", split one colon early.
                if marker.char == _HINT and self.answer >= 0 and joined.endswith(":"):
                    self.colons.add(self.answer)
                self.answer = marker.deletion if marker.char == _OPEN else -1
                self.joined = ""
        if name != "Text":
            self.joined = ""


_PLACES = {
    "Link": "in a link's URL or title",
    "Image": "in an image (its alt text and URL become attributes, not text)",
    "CodeBlock": "in a code fence's info string",
}


def _problem(m: _Marker, where: str) -> str:
    place = _PLACES.get(where, "in Markdown syntax (such as a link reference definition)")
    return (
        f"cloze marker {_WHAT[m.char]} {place}: Anki would not show it as a deletion; keep "
        "deletions in text"
    )
