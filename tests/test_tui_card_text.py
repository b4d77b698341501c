"""What a cloze shows on each side when its deletions sit inside and outside code spans."""

from __future__ import annotations

from zerodrill.deck.kinds import CLOZE
from zerodrill.deck.model import Card, Item, Pos


def cloze_item(text: str) -> Item:
    card = Card("d", "c", CLOZE, {"text": text}, (), (), Pos("d.yaml", 1, 1), {})
    return Item("d/c#c1", card, 1)


def test_many_code_spans_each_deletion_is_told_inside_or_outside() -> None:
    # Deletions before the first span, between spans, inside spans and after the last one.
    n = 300
    text = "{{c1::first}} " + " ".join(
        f"`c{i} {{{{c1::in{i}}}}}` {{{{c1::out{i}}}}}" for i in range(n)
    )
    text += " {{c1::last}}"
    s = cloze_item(text).sides()
    assert s.question.startswith(r"\[...\] ")
    assert s.question.endswith(r" \[...\]")
    for i in (0, 1, n // 2, n - 1):
        assert f"`c{i} [...]` \\[...\\]" in s.question
        assert f"`c{i} in{i}` **out{i}**" in s.answer
    assert s.answer.startswith("**first** ") and s.answer.endswith(" **last**")
