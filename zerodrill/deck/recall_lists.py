"""At most four items to recall in any list, however it is written.

An answer that lists five things is five cards' worth of recall graded as one. A list counts
the same whether it is written as bullets, as a table or as prose:

- bullets (``-``, ``*``, ``+``, ``1.``): one item each;
- a table: each cell below the header outside the first column (which names the row, often
  what the question gives): four rows of two figures are eight things to recall;
- prose: per sentence, the items of its comma list ("A, B, C and D", "A, B, C, D, E"), with
  each "and"/"or" inside an item splitting it again ("fp32 and 16-bit parameters" is two),
  summed over the sentence's ";"-separated parts ("A; B, C or D; E" is five). A colon starts a
  new count. Two comma-separated parts make a list only when the second brings the "and" or
  "or" ("A, and B"; "At stage 3, A" is one clause, not a list).

Code spans are one word, parentheticals are asides and not counted, ``1,000`` is one number
(:mod:`zerodrill.deck.prose`). The fields counted are each kind's ``recall_fields``, and the
lines of the deck's cheat sheet (the night before, each bullet is recalled whole).
"""

from __future__ import annotations

import re

from msgspec import Struct

from zerodrill.deck import prose
from zerodrill.deck.model import Deck, Pos, Problem

#: The most items a list to recall may hold.
MAX_ITEMS = 4
#: The most words an item after a comma may have and still be read as one of a list's items.
SHORT_ITEM_WORDS = 5

_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_TABLE_ROW = re.compile(r"^\s*\|")
_TABLE_RULE = re.compile(r"^\s*\|[\s:|-]*$")
_PARENTHETICAL = re.compile(r"\s*\([^()]*\)")
_JOIN = re.compile(r"\s(?:and|or|and/or)\s", re.I)
_LEADING_JOIN = re.compile(r"^(?:and|or)\b\s*", re.I)
_CONTENT = re.compile(r"[^\W_]")
# Words that carry no item of their own: an item's length is counted without them.
_FILLER = frozenset("and or the a an of to for in on at with by from into per its their".split())
# A part after a comma that opens with one of these is a clause of its own, not a list item
# ("..., then lower the micro-batch"): a list never runs on across it.
_CLAUSE_OPENER = frozenset(
    "then so but while which where when because since although though yet whereas unless if".split()
)
# A part with one of these verbs is a clause ("..., its slices are all-gathered"), not an item.
_FINITE = frozenset(
    "is are was were be been has have had does do did can could will would should must may"
    " might".split()
)
# An opening phrase before the first comma that sets the scene ("With plain data
# parallelism, ...", "At stage 3, ..."): not an item of the list that follows.
_SCENE_SETTER = frozenset(
    "at in with without under for on when if once after before unless since because although"
    " while during".split()
)


class Recall(Struct, frozen=True):
    """The longest list in a text: how many items, and the line or sentence that lists them."""

    items: int
    where: str


def _segment_items(segment: str) -> int:
    return 1 + len(_JOIN.findall(_LEADING_JOIN.sub("", segment)))


def _words(segment: str) -> int:
    return sum(1 for w in segment.casefold().split() if _CONTENT.search(w) and w not in _FILLER)


def _is_item(segment: str) -> bool:
    """Whether a part after a comma can continue a list: short, and not a clause of its own."""
    words = segment.casefold().split()
    opener = _first_word(_LEADING_JOIN.sub("", segment))
    return (
        _words(segment) <= SHORT_ITEM_WORDS
        and opener not in _CLAUSE_OPENER
        and not _FINITE.intersection(words)
    )


def _first_word(segment: str) -> str:
    words = segment.casefold().split()
    return words[0] if words else ""


def clause_items(clause: str) -> int:
    """Items listed in one clause (no ";"): its longest comma list, each "and"/"or" splitting
    an item."""
    segments = [s.strip() for s in clause.split(",")]
    segments = [s for s in segments if any(w not in _FILLER for w in s.casefold().split())]
    segments = [s for s in segments if _CONTENT.search(s)]
    if len(segments) > 1 and _first_word(segments[0]) in _SCENE_SETTER:
        segments = segments[1:]
    best, start = 0, 0
    while start < len(segments):
        # A list runs from any part on through the short parts after it: a long part after a
        # comma is a clause of its own ("..., so whole weights exist only briefly").
        end = start + 1
        while end < len(segments) and _is_item(segments[end]):
            end += 1
        run = segments[start:end]
        per = [_segment_items(s) for s in run]
        last = run[-1]
        listed = len(run) >= 3 or (
            len(run) == 2 and (_LEADING_JOIN.match(last) is not None or _JOIN.search(last))
        )
        best = max(best, sum(per) if listed else max(per))
        start = end
    return best


def _busiest_part(sentence: str) -> tuple[int, str]:
    best = (0, sentence)
    for part in sentence.split(":"):
        per = [clause_items(_PARENTHETICAL.sub("", c)) for c in part.split(";")]
        n = sum(per) if len(per) >= 3 else max(per)
        if n > best[0]:
            best = (n, part.strip())
    return best


def longest_list(markdown: str) -> Recall:
    """The list with the most items to recall in ``markdown``: bullets, a table or prose."""
    text, codes = prose.plain_and_code(markdown)
    lines = text.splitlines()
    best = Recall(0, "")
    bullets = [line for line in lines if _BULLET.match(line)]
    if bullets:
        best = Recall(len(bullets), bullets[0].strip())
    rows = [line for line in lines if _TABLE_ROW.match(line) and not _TABLE_RULE.match(line)]
    if len(rows) > 1:
        cells = sum(max(0, len(row.strip().strip("|").split("|")) - 1) for row in rows[1:])
        if cells > best.items:
            best = Recall(cells, rows[0].strip())
    text = "\n".join(
        _BULLET.sub("", line) + ("\n" if _BULLET.match(line) else "")
        for line in lines
        if not _TABLE_ROW.match(line)
    )
    for sentence in prose.sentences(text):
        n, part = _busiest_part(sentence)
        if n > best.items:
            best = Recall(n, part)
    return Recall(best.items, prose.restore(best.where, codes))


def _excerpt(text: str, most: int = 90) -> str:
    return text if len(text) <= most else text[: most - 3].rstrip() + "..."


def _warning(pos: Pos, what: str, recall: Recall) -> Problem:
    return Problem(
        pos,
        f"warning: {what} lists {recall.items} items to recall ('{_excerpt(recall.where)}'); "
        f"at most {MAX_ITEMS}: keep the ones that matter, or make a card (or a cloze) per item",
    )


def deck_long_lists(deck: Deck) -> list[Problem]:
    """One warning per answer field, and per sheet bullet, that lists more than four items."""
    warnings: list[Problem] = []
    for card in deck.cards:
        if card.retired:
            continue
        for field in card.kind.recall_fields:
            recall = longest_list(card.fields[field])
            if recall.items > MAX_ITEMS:
                what = f"card '{card.id}': its {field}"
                warnings.append(_warning(card.field_pos.get(field, card.pos), what, recall))
    if deck.sheet is not None:
        for n, bullet in enumerate(deck.sheet.bullets, 1):
            recall = longest_list(bullet.text)
            if recall.items > MAX_ITEMS:
                warnings.append(_warning(bullet.pos, f"sheet bullet {n}", recall))
    return warnings
