"""What each kind of card shows on its question and answer side, as Markdown text.

Pure string work (no Textual), so the card view stays a thin widget and this is easy to test.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from zerodrill.deck import cloze
from zerodrill.deck.model import Item, Kind


@dataclass(frozen=True, slots=True)
class Sides:
    #: A short label for the kind of card, shown above it.
    label: str
    question: str
    answer: str
    #: Markdown shown under the answer, if the card has any.
    extra: str = ""
    #: A red flag's claim, shown as a quote above the question. Kept apart from the question
    #: rather than written into it as a Markdown quote: a plain claim then needs no parser.
    claim: str = ""


def sides(item: Item) -> Sides:
    card = item.card
    f = card.fields
    extra = card.extra
    if card.kind is Kind.CLOZE:
        assert item.ordinal is not None
        text = f["text"]
        return Sides(
            "Fill in the blank",
            _cloze(text, item.ordinal, reveal=False),
            _cloze(text, item.ordinal, reveal=True),
            extra,
        )
    if card.kind is Kind.FOLLOW_UP:
        return Sides("Follow-up question", f["question"], f["answer"], extra)
    if card.kind is Kind.RED_FLAG:
        answer = f"**Why it is a red flag**\n\n{f['why']}\n\n**Say instead**\n\n{f['instead']}"
        return Sides("Red flag", "What is wrong with saying this?", answer, extra, f["claim"])
    return Sides("Question", f["front"], f["back"], extra)


def cloze_blanks(text: str, ordinal: int) -> tuple[list[str], list[str]]:
    """The answers to deletion ``ordinal`` in order, and the text the card shows between
    each two of them (the other deletions filled in), to check a typed answer against."""
    mine = [d for d in cloze.deletions(text) if d.ordinal == ordinal]
    pairs = zip(mine, mine[1:], strict=False)
    between = [cloze.render(text[a.end : b.start], ordinal, reveal=True) for a, b in pairs]
    return [d.answer for d in mine], between


def _cloze(text: str, ordinal: int, *, reveal: bool) -> str:
    # Inside a code span Markdown shows characters as they are, so markup must stay out; in
    # prose the blank is escaped (so "[...]" is never read as a link) and the answer is bold.
    spans = cloze.code_spans(text) if "`" in text else []
    # Found by bisection: the spans are in order and apart, and a large field has thousands.
    starts = [start for start, _ in spans]

    def in_code(d: cloze.Deletion) -> bool:
        at = bisect_right(starts, d.start) - 1
        return at >= 0 and d.start < spans[at][1]

    def hidden(d: cloze.Deletion) -> str:
        blank = f"[{d.hint or '...'}]"
        return blank if in_code(d) else blank.replace("[", r"\[").replace("]", r"\]")

    def shown(d: cloze.Deletion) -> str:
        return d.answer if in_code(d) else f"**{d.answer}**"

    return cloze.render(text, ordinal, reveal=reveal, hidden=hidden, shown=shown)
