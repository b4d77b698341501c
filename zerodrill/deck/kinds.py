"""The card kinds: each declares, once, everything the rest of zerodrill asks of it.

A kind names its Markdown fields (the loader reads and checks them; the JSON Schema and the
field tables of ``decks/README.md`` are generated from them), the label the drill shows above
it and how its two sides read as Markdown (the drill and the interview render these), whether
the drill lets the learner type an answer first, and its Anki note type (the export builds it).
The loader refuses a kind that is not registered here, so nothing past loading meets a kind it
does not know, and nothing falls back to another kind's behaviour.

Adding a kind takes this module only: declare it with :func:`register` at the bottom, with an
Anki model id of its own (chosen at random, never reused), then run
``python -m zerodrill.deck.json_schema`` to regenerate the JSON Schema and the README's tables. Its
templates may reuse the other kinds' ``zd-*`` classes, which the export's shared CSS styles
(``export/notetypes.py``, the one other place to touch if it wants a look of its own).

Everything here is plain data and Markdown text: no Textual, no genanki.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING

from msgspec import Struct

from zerodrill.deck import cloze
from zerodrill.deck.model import COMMON_FIELDS

if TYPE_CHECKING:
    from zerodrill.deck.model import Card, Item


class Typing(StrEnum):
    """What the drill lets the learner type before the answer shows."""

    #: One line: the missing parts of the deletion, checked against them on reveal.
    BLANKS = "blanks"
    #: Free text over several lines, shown beside the model answer on reveal.
    FREE = "free"


class KindField(Struct, frozen=True):
    """One Markdown field a kind requires."""

    name: str
    #: What the writer puts there, for the JSON Schema and the README's table.
    description: str
    #: Names a writer may type for this field out of habit (another kind's, another tool's):
    #: a card that gives one is told "did you mean '<name>'?", which spelling alone would not find.
    aliases: tuple[str, ...] = ()


class Sides(Struct, frozen=True):
    """What a study item shows on its question and its answer side, as Markdown."""

    question: str
    answer: str
    #: Markdown shown under the answer, if the card has any.
    extra: str = ""
    #: Shown as a quote above the question (a red flag's claim). Kept apart from the question
    #: rather than written into it as a Markdown quote: a plain claim then needs no parser.
    quote: str = ""


class AnkiNoteType(Struct, frozen=True):
    """A kind's Anki note type. Its ``model_id`` and its fields never change once published:
    see ``zerodrill/export/notetypes.py`` for why, and what to do instead."""

    #: Chosen once at random (genanki's advice); never change, never reuse.
    model_id: int
    name: str
    #: The question side's template.
    front: str
    #: The answer side's template, up to where the note's extra and sources follow: the
    #: exporter adds those and closes the ``<div class="zd ...">`` this leaves open.
    back: str


class CardKind(Struct, frozen=True, eq=False, dict=True):
    """One kind of card. Compared by identity: there is one value per registered name."""

    #: What a deck writes as ``kind:``; also the kind's Anki tag (``zerodrill::kind::<name>``).
    name: str
    #: One sentence saying what the kind is for (the JSON Schema, the README).
    summary: str
    #: A short label shown above the card in the drill.
    label: str
    #: The kind's own fields, in display order. Their names are the Anki note type's fields.
    fields: tuple[KindField, ...]
    #: How an item of this kind reads, question and answer.
    read: Callable[[Item], Sides]
    anki: AnkiNoteType
    #: What the drill lets the learner type before the answer shows, if anything.
    typing: Typing | None = None
    #: The field holding Anki cloze deletions, for a cloze kind: each deletion number is then
    #: its own study item, the answer side shows the text once with the blank filled in (in
    #: place of the question), and the Anki note type is a cloze one.
    cloze_field: str | None = None
    #: What the card says a strong interview answer says, as Markdown; by default, what its
    #: first item's answer side says.
    teaches_as: Callable[[Card], str] | None = None
    #: The field holding the question the learner answers, if the card writes one (a red
    #: flag's question is always the same): validate warns when it asks more than one thing
    #: (:mod:`zerodrill.deck.questions`).
    question_field: str | None = None
    #: The fields the learner recalls as the answer (a cloze field aside: its deletions are
    #: what is recalled): validate warns about a list of more than four items in one
    #: (:mod:`zerodrill.deck.recall_lists`).
    recall_fields: tuple[str, ...] = ()

    # Cached: the loader asks for both on every card.
    @cached_property
    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    @cached_property
    def hints(self) -> Mapping[str, str]:
        return MappingProxyType({alias: f.name for f in self.fields for alias in f.aliases})

    @property
    def is_cloze(self) -> bool:
        return self.cloze_field is not None

    def teaches(self, card: Card) -> str:
        if self.teaches_as is not None:
            return self.teaches_as(card)
        return self.read(card.items()[0]).answer

    def __repr__(self) -> str:
        return f"CardKind({self.name!r})"


_REGISTRY: dict[str, CardKind] = {}
#: Field names no kind may take: the fields every card has, and the two every note type adds.
_TAKEN = frozenset(COMMON_FIELDS) | {"sources"}


def register(kind: CardKind) -> CardKind:
    """Add ``kind``; refused (ValueError) when it would clash with a registered one."""
    problems: list[str] = []
    if kind.name in _REGISTRY:
        problems.append(f"a kind named '{kind.name}' is registered already")
    for other in _REGISTRY.values():
        if other.anki.model_id == kind.anki.model_id:
            problems.append(f"Anki model id {kind.anki.model_id} is kind '{other.name}''s")
        if other.anki.name == kind.anki.name:
            problems.append(f"Anki note type name '{kind.anki.name}' is kind '{other.name}''s")
    names = kind.field_names
    if not names or len(set(names)) != len(names):
        problems.append("a kind needs at least one field, each named once")
    problems += [f"field name '{n}' is one every card has" for n in names if n in _TAKEN]
    hints = [a for f in kind.fields for a in f.aliases]
    problems += [f"alias '{a}' is a field of its own" for a in hints if a in names or a in _TAKEN]
    if len(set(hints)) != len(hints):
        problems.append("an alias may point to one field only")
    if kind.cloze_field is not None and kind.cloze_field not in names:
        problems.append(f"cloze field '{kind.cloze_field}' is not one of its fields")
    named_fields = [kind.question_field] if kind.question_field is not None else []
    for name in (*named_fields, *kind.recall_fields):
        if name not in names:
            problems.append(f"field '{name}' is named as its question or answer but not declared")
    if kind.typing is Typing.BLANKS and kind.cloze_field is None:
        problems.append("typing the blanks needs a cloze field")
    if problems:
        raise ValueError(f"card kind '{kind.name}': " + "; ".join(problems))
    _REGISTRY[kind.name] = kind
    return kind


def named(name: str) -> CardKind | None:
    return _REGISTRY.get(name)


def registered() -> tuple[CardKind, ...]:
    return tuple(_REGISTRY.values())


# -- the kinds zerodrill ships ----------------------------------------------------------------

#: How an Anki answer side starts when it shows the question above a rule (all but a cloze's).
_BACK_HEAD = '<div class="zd-back">{{FrontSide}}</div>\n<hr id="answer">\n'


def _basic(item: Item) -> Sides:
    f = item.card.fields
    return Sides(f["front"], f["back"], item.card.extra)


def _cloze(item: Item) -> Sides:
    assert item.ordinal is not None
    text = item.card.fields["text"]
    return Sides(
        cloze.markdown(text, item.ordinal, reveal=False),
        cloze.markdown(text, item.ordinal, reveal=True),
        item.card.extra,
    )


def _follow_up(item: Item) -> Sides:
    f = item.card.fields
    return Sides(f["question"], f["answer"], item.card.extra)


def _red_flag(item: Item) -> Sides:
    f = item.card.fields
    answer = f"**Why it is a red flag**\n\n{f['why']}\n\n**Say instead**\n\n{f['instead']}"
    return Sides("What is wrong with saying this?", answer, item.card.extra, f["claim"])


def _red_flag_teaches(card: Card) -> str:
    # A red flag's answer says why the claim is wrong: the talk track wants what to say.
    return f"Say instead: {card.fields['instead']}"


BASIC = register(
    CardKind(
        name="basic",
        summary="A question and its answer.",
        label="Question",
        fields=(
            KindField("front", "The question, in Markdown.", aliases=("question", "prompt")),
            KindField("back", "The answer, in Markdown.", aliases=("answer",)),
        ),
        read=_basic,
        question_field="front",
        recall_fields=("back",),
        anki=AnkiNoteType(
            1273273555,
            "zerodrill basic",
            '<div class="zd zd-front zd-basic"><div class="zd-q">{{front}}</div></div>',
            _BACK_HEAD + '<div class="zd zd-basic"><div class="zd-a">{{back}}</div>\n',
        ),
    )
)

CLOZE = register(
    CardKind(
        name="cloze",
        summary="Text with Anki cloze deletions: `{{c1::answer}}` or `{{c1::answer::hint}}`.",
        label="Fill in the blank",
        fields=(
            KindField(
                "text",
                "Markdown with Anki cloze deletions: `{{c1::answer}}` or `{{c1::answer::hint}}`.",
                aliases=("front", "question", "cloze"),
            ),
        ),
        read=_cloze,
        anki=AnkiNoteType(
            1268762531,
            "zerodrill cloze",
            '<div class="zd zd-front zd-cloze"><div class="zd-q">{{cloze:text}}</div></div>',
            '<div class="zd zd-cloze"><div class="zd-q">{{cloze:text}}</div>\n',
        ),
        typing=Typing.BLANKS,
        cloze_field="text",
    )
)

FOLLOW_UP = register(
    CardKind(
        name="follow_up",
        summary="An interviewer's next question and a model answer.",
        label="Follow-up question",
        fields=(
            KindField("question", "The interviewer's question, in Markdown.", aliases=("front",)),
            KindField(
                "answer",
                "A model answer, in Markdown: the key reason first, in two to five sentences.",
                aliases=("back",),
            ),
        ),
        read=_follow_up,
        question_field="question",
        recall_fields=("answer",),
        anki=AnkiNoteType(
            1774410834,
            "zerodrill follow-up",
            '<div class="zd zd-front zd-follow-up">\n'
            '<div class="zd-label">Interviewer follow-up</div>\n'
            '<div class="zd-q">{{question}}</div>\n'
            '<div class="zd-try">Answer it out loud first, as you would in the interview, '
            "then reveal.</div>\n</div>",
            _BACK_HEAD
            + '<div class="zd zd-follow-up"><div class="zd-label">A strong answer</div>\n'
            '<div class="zd-a">{{answer}}</div>\n',
        ),
        typing=Typing.FREE,
    )
)

RED_FLAG = register(
    CardKind(
        name="red_flag",
        summary="A thing not to say in an interview, why, and what to say instead.",
        label="Red flag",
        fields=(
            KindField(
                "claim",
                "The statement as a candidate would say it, in Markdown.",
                aliases=("front", "question", "statement"),
            ),
            KindField(
                "why", "What is wrong with it, in Markdown.", aliases=("back", "answer", "reason")
            ),
            KindField("instead", "What to say instead, in Markdown.", aliases=("better",)),
        ),
        read=_red_flag,
        anki=AnkiNoteType(
            1435584184,
            "zerodrill red flag",
            '<div class="zd zd-front zd-red-flag">\n'
            '<div class="zd-label zd-flag">Red flag: what is wrong with saying this?</div>\n'
            '<blockquote class="zd-claim">{{claim}}</blockquote>\n</div>',
            _BACK_HEAD + '<div class="zd zd-red-flag"><div class="zd-label">Why it is wrong</div>\n'
            '<div class="zd-a">{{why}}</div>\n'
            '<div class="zd-label zd-ok">Say instead</div>\n'
            '<div class="zd-a zd-instead">{{instead}}</div>\n',
        ),
        teaches_as=_red_flag_teaches,
        recall_fields=("why", "instead"),
    )
)
