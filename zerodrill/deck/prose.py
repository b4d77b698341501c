"""A card's Markdown as prose to read for the deck's teaching checks: sentences of words.

The checks that count questions (:mod:`~zerodrill.deck.questions`), items to recall
(:mod:`~zerodrill.deck.recall_lists`) and figures (:mod:`~zerodrill.deck.derived_figures`)
read sentences, not Markdown: a fence says nothing they count, a code span is one word (its
commas, question marks and numbers are code's, not the sentence's), and a number written
``1,000`` is one number, not a list of two.
"""

from __future__ import annotations

import re

from zerodrill.deck.cloze import code_spans

#: What a code span becomes: one word, so "`a, b`" is one item and "`x?`" asks nothing. Each
#: span's word is its own (CODEa, CODEb, ...), so :func:`restore` can put the code back.
CODE_WORD = "CODE"
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
# Abbreviations whose dots would end a sentence early.
_ABBREVIATIONS = re.compile(r"\b(e\.g|i\.e|etc|vs|cf)\.", re.I)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _code_word(n: int) -> str:
    letters = ""
    n += 1
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return CODE_WORD + letters


def without_code(markdown: str) -> tuple[str, dict[str, str]]:
    """``markdown`` with each code span one word and each fence (a span over lines) gone, and
    each such word's code span."""
    if "`" not in markdown:
        return markdown, {}
    out: list[str] = []
    codes: dict[str, str] = {}
    last = 0
    for start, end in code_spans(markdown):
        out.append(markdown[last:start])
        if "\n" in markdown[start:end]:
            out.append("\n")
        else:
            word = _code_word(len(codes))
            codes[word] = markdown[start:end]
            out.append(word)
        last = end
    out.append(markdown[last:])
    return "".join(out), codes


def restore(text: str, codes: dict[str, str]) -> str:
    """``text`` (read from :func:`plain`) with its code words back as the code they stand for."""
    if not codes:
        return text
    return re.sub(rf"\b{CODE_WORD}[a-z]+\b", lambda m: codes.get(m.group(), m.group()), text)


def plain(markdown: str) -> str:
    """Prose to read: no code, emphasis, link targets, thousands separators or
    abbreviations' dots; line breaks kept (the callers read lists and tables by line)."""
    return plain_and_code(markdown)[0]


def plain_and_code(markdown: str) -> tuple[str, dict[str, str]]:
    """:func:`plain`'s text, and the code span each of its code words stands for."""
    text, codes = without_code(markdown)
    text = _LINK.sub(r"\1", text)
    text = text.replace("*", "")
    text = _THOUSANDS.sub("", text)
    return _ABBREVIATIONS.sub(lambda m: m.group(1).replace(".", ""), text), codes


def sentences(text: str) -> list[str]:
    out: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        joined = " ".join(paragraph.split())
        out += [s for s in _SENTENCE_END.split(joined) if s]
    return out
