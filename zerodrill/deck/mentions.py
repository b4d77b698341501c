"""A card naming other cards of its deck: their ids in parentheses, in its prose.

How a deck writes it: decks/README.md. An id tells a learner nothing, so the drill and the Anki
export show each card's question instead (:func:`name_cards`); the deck's file and its sheet
keep the ids. Only a group in which every word is an id of the deck counts: an id is a plain
slug, and "(all-reduce)" is as likely a word as a card. The question is put in as text, markup
escaped, so nothing of the card named is read as markup in the card that names it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from zerodrill.deck import cloze
from zerodrill.deck.markdown_checks import event_name

if TYPE_CHECKING:
    from zerodrill.deck.kinds import Sides
    from zerodrill.deck.model import Card

#: A card's id: a slug (zerodrill.deck.model.SLUG_PATTERN).
_ID = r"[a-z0-9]+(?:-[a-z0-9]+)*"
#: Ids in parentheses, comma-separated (the ids are group 1); not glued to a word, as a call
#: written in prose is ("f(a-b)").
_GROUP = re.compile(rf"(?<![\w\\])\((\s*{_ID}(?:\s*,\s*{_ID})*\s*)\)(?!\w)", re.ASCII)
_ONE = re.compile(_ID)
#: Where such a group may open (a first id, then ',' or ')'), and the group there without
#: :data:`_GROUP`'s look-behind: the full match on every field, which keeps the regex engine
#: from leaping to each '(', missed the export's benchmark goal.
_OPENING = re.compile(r"\(\s*([a-z0-9][a-z0-9-]*)\s*[,)]", re.ASCII)
_CANDIDATE = re.compile(rf"\((\s*{_ID}(?:\s*,\s*{_ID})*\s*)\)", re.ASCII)
#: Markdown reads any ASCII punctuation after a backslash as the character itself.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_SPACE = re.compile(r"\s+")
#: The longest a question is shown where a card names it, in characters.
TITLE_LENGTH = 60
#: Where the parser's events hold no prose: the text inside is a target or code.
_OPAQUE = ("Link", "Image", "CodeBlock")


class CardTitles:
    """The question of each card of one deck, as a card naming it shows it: worked out the
    first time it is asked for (a deck names few of its cards)."""

    def __init__(self, cards: Sequence[Card]) -> None:
        self._cards = {card.id: card for card in cards}
        self._titles: dict[str, str] = {}
        #: The ids of the deck's cards.
        self.ids = self._cards.keys()

    def __contains__(self, card_id: str) -> bool:
        return card_id in self._cards

    def named_anywhere(self) -> bool:
        """Whether any card of the deck may name another: one pass over all their text, so a
        whole deck that names none (most) costs one scan, not one a field (the export's
        benchmark goal)."""
        text = "\n".join([v for card in self._cards.values() for v in card.fields.values()])
        ids = self.ids
        return any(m[1] in ids and _named_at(text, m.start(), ids) for m in _OPENING.finditer(text))

    def title(self, card_id: str) -> str:
        """The card's question, on one line, short (see :func:`short`)."""
        title = self._titles.get(card_id)
        if title is None:
            title = self._titles[card_id] = short(question_text(self._cards[card_id]))
        return title


def _named_at(text: str, at: int, ids: Collection[str]) -> bool:
    """Whether a group of ids of ``ids`` opens at ``at`` (look-behind aside)."""
    candidate = _CANDIDATE.match(text, at)
    return candidate is not None and all(part in ids for part in _ONE.findall(candidate[1]))


def name_cards(markdown: str, titles: CardTitles) -> str:
    """``markdown`` with each group of ids of the cards in ``titles`` in its prose shown as
    their questions, in quotes; as it is when it names none."""
    if "(" not in markdown:
        return markdown
    ids = titles.ids
    if not any(
        m[1] in ids and _named_at(markdown, m.start(), ids) for m in _OPENING.finditer(markdown)
    ):
        return markdown
    groups = [m for m in _GROUP.finditer(markdown) if all(i in titles for i in _ONE.findall(m[1]))]
    if not groups:
        return markdown
    prose = _prose(markdown)
    out: list[str] = []
    at = 0
    for group in groups:
        # The parser counts in UTF-8 bytes.
        start = len(markdown[: group.start()].encode())
        end = start + len(group[0].encode())
        if not any(a <= start and end <= b for a, b in prose):
            continue
        out.append(markdown[at : group.start(1)])
        out.append(_ONE.sub(lambda one: _quoted(titles.title(one[0])), group[1]))
        at = group.end(1)
    out.append(markdown[at:])
    return "".join(out)


def name_cards_in(sides: Sides, titles: CardTitles) -> Sides:
    """``sides`` with each of its texts (question, answer, extra, quote) as
    :func:`name_cards` shows it."""
    from msgspec.structs import replace

    named: dict[str, str] = {}
    for name in ("question", "answer", "extra", "quote"):
        text = getattr(sides, name)
        if (new := name_cards(text, titles)) is not text:
            named[name] = new
    return replace(sides, **named) if named else sides


def _quoted(title: str) -> str:
    escaped = _PUNCTUATION.sub(r"\\\1", title)
    return f"“{escaped}”"


def _prose(markdown: str) -> list[tuple[int, int]]:
    """The stretches of ``markdown`` (UTF-8 byte offsets) that are prose: text, and the line
    breaks inside it, out of code, links, images and raw HTML; touching stretches joined."""
    from zerodrill.deck.markdown_syntax import parser

    stretches: list[tuple[int, int]] = []
    inside = 0  # the depth of links, images and code blocks around the event
    for event, span in parser().events_with_range(markdown, merge_text=True):
        name, _, edge = event_name(event)
        if name in _OPAQUE and edge is not None:
            inside += 1 if edge == "Start" else -1
        elif not inside and edge is None and name in ("SoftBreak", "HardBreak", "Text"):
            start, end = span["start"], span["end"]
            if stretches and stretches[-1][1] >= start:
                start = stretches.pop()[0]
            stretches.append((start, end))
    return stretches


def question_text(card: Card) -> str:
    """What ``card`` asks, as plain text on one line: its question side (a red flag's claim,
    a cloze's text with every deletion a blank), its Markdown read as a reader sees it."""
    field = card.kind.cloze_field
    if field is None:
        sides = card.items()[0].sides()
        return _plain(sides.quote or sides.question)
    return _plain(cloze.rewrite(card.fields[field], lambda d: f"[{d.hint or '...'}]"))


def _plain(markdown: str) -> str:
    """The text of ``markdown``'s first block, its marks dropped."""
    from zerodrill.deck.markdown_syntax import parser

    words: list[str] = []
    depth = 0
    for event in parser().events(markdown):
        name, payload, edge = event_name(event)
        if edge is None and name in ("Text", "Code"):
            words.append(str(payload))
        elif name in ("SoftBreak", "HardBreak"):
            words.append(" ")
        elif edge == "Start":
            depth += 1
        elif edge == "End":
            depth -= 1
            if depth == 0 and words:
                break  # the first block is the question; what follows explains it
    text = _SPACE.sub(" ", "".join(words)).strip()
    # A red flag's claim is a quotation: the quotes around it are the title's own.
    if len(text) > 1 and text[0] == text[-1] == '"':
        text = text[1:-1].strip()
    return text


def short(text: str, length: int = TITLE_LENGTH) -> str:
    """``text`` in at most ``length`` characters: up to its question mark if that comes in
    time (what follows sizes or frames the question), else cut at a word, "…" saying so."""
    if len(text) <= length:
        return text
    asked = text.find("?")
    if 0 < asked < length:
        return text[: asked + 1]
    cut = text[: length - 1]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:") + "…"
