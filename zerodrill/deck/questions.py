"""One question per front: a card whose question asks two things cannot be graded honestly.

A learner who knows half the answer grades the whole card, so "What is ZeRO++, and what does it
claim?" is two cards. This counts the *questions* a kind's question field asks (its kind's
``question_field``), read as sentences:

- every sentence that ends in "?" asks at least one;
- within it, each clause that starts with a question word (what, which, who, when, where,
  why, how) after a comma, semicolon, colon, "and" or "or" asks one more ("..., and what
  does it cost?", "Why, and what is the fix?", "what stays, what moves, and what crosses?"),
  and so does a yes/no clause after ", and", ", or" or ";" ("..., and does DeepSpeed ship it?").

A question about several things asks one thing: "What do stage 1 and stage 2 shard?" is one
question (whose answer may list two items: that is :mod:`~zerodrill.deck.recall_lists`'s
count). An instruction after a question ("... fit? Walk it through.") asks nothing more. After
a bare comma or colon, "which" and "who" open a relative clause as often as a question
("..., which are tied"), so they do not count there, and "when" and "where" count only when a
verb comes next, as a question orders them ("..., when is it used?"). Code spans and fences
are not read. What this cannot see (two verbs under one question word: "How do you free it,
and get it back?") is left to the reviewer.
"""

from __future__ import annotations

import re

from zerodrill.deck import prose
from zerodrill.deck.model import Card, Deck, Problem

_ASKING = r"what|which|who|whom|whose|when|where|why|how"
# After a bare comma these open a relative clause as often as a question: "which" and "who"
# never count there; "when" and "where" only with a verb next ("..., when is it used?").
_RELATIVE = frozenset({"which", "who", "whom", "whose"})
_RELATIVE_UNLESS_INVERTED = frozenset({"when", "where"})
_AUXILIARY = frozenset(
    "do does did is are was were can could should would will has have may must".split()
)
# Words that may stand between a clause's start and its question word: ", and roughly how much".
_LEAD_IN = frozenset({"roughly", "exactly", "then", "also", "so", "briefly", "in", "practice"})
# The clause boundaries, captured so that each clause knows what opened it.
_BOUNDARY = re.compile(
    r"(,\s*(?:and|or)\s+|;\s*(?:and\s+|or\s+)?|,\s*|:\s*|\s+(?:and|or)\s+)", re.I
)
_WORD = re.compile(r"[\w'’-]+")
_ASKING_ANYWHERE = re.compile(rf"\b(?:{_ASKING})\b", re.I)

#: Questions a question field may ask.
MAX_QUESTIONS = 1


def _asks(clause: str, opened_by: str) -> bool:
    """Whether ``clause``, opened by the boundary ``opened_by``, is a question of its own."""
    words = [w.casefold() for w in _WORD.findall(clause)]
    while words and words[0] in _LEAD_IN:
        words = words[1:]
    if not words:
        return False
    first, after = words[0], words[1] if len(words) > 1 else ""
    bare = opened_by.strip() in {",", ":"}
    if re.fullmatch(_ASKING, first):
        if bare and first in _RELATIVE:
            return False
        return not (bare and first in _RELATIVE_UNLESS_INVERTED and after not in _AUXILIARY)
    # A yes/no question joined on: ", and does it ..." (never "A and is B", a plain list).
    joined = opened_by.strip().startswith((",", ";")) and not bare
    return joined and first in _AUXILIARY


def questions_asked(markdown: str) -> list[str]:
    """The questions ``markdown`` asks, each as the clauses that ask it."""
    asked: list[str] = []
    text, codes = prose.plain_and_code(markdown)
    for sentence in prose.sentences(text):
        if not sentence.endswith("?"):
            continue
        parts = _BOUNDARY.split(sentence.rstrip("?"))
        clauses = [(parts[0], "")] + list(zip(parts[2::2], parts[1::2], strict=True))
        found: list[str] = []
        for n, (clause, opened_by) in enumerate(clauses):
            if _first(n, clause) or _asks(clause, opened_by):
                found.append(clause)
            elif found:
                found[-1] += opened_by + clause  # the question goes on: "stage 1 or 2 code"
        asked += [q.strip() for q in found] or [sentence]
    return [prose.restore(q, codes) for q in asked]


def _first(n: int, clause: str) -> bool:
    # The first clause is a question if it holds a question word anywhere ("In which dtype...")
    # or opens as a yes/no question; a lead-in ("At stage 1, what ...") is not.
    if n:
        return False
    words = _WORD.findall(clause)
    return bool(_ASKING_ANYWHERE.search(clause)) or bool(
        words and words[0].casefold() in _AUXILIARY
    )


def card_compound_questions(card: Card) -> list[str]:
    field = card.kind.question_field
    if field is None or card.retired:
        return []
    asked = questions_asked(card.fields[field])
    return asked if len(asked) > MAX_QUESTIONS else []


def deck_compound_questions(deck: Deck) -> list[Problem]:
    """One warning per card whose question asks more than one thing, at that field."""
    warnings: list[Problem] = []
    for card in deck.cards:
        asked = card_compound_questions(card)
        if asked:
            field = card.kind.question_field or ""
            listed = " / ".join(f"'{q}'" for q in asked)
            warnings.append(
                Problem(
                    card.field_pos.get(field, card.pos),
                    f"warning: card '{card.id}': its {field} asks {len(asked)} questions "
                    f"({listed}); ask one per card (split it, or ask for the one thing that "
                    "matters)",
                )
            )
    return warnings
