"""A deck's ``interviews:`` and ``sheet:`` read from the YAML nodes and checked against its cards.

An interview is a question answered out loud against a clock: the points a strong answer
makes, the follow-up questions an interviewer asks next, the red flags to avoid. The sheet is
the night-before list of bullets. Both are built from the cards: each point and bullet names
the cards that back it, and the follow-ups and red flags *are* cards, so every id is checked
(:mod:`zerodrill.deck.card_ids`: it exists, it is of the right kind, it is not retired) at its
own line and column, as every other mistake in a deck is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from zerodrill.deck import kinds, markdown_checks
from zerodrill.deck.card_ids import KnownCards as _Cards
from zerodrill.deck.card_ids import card_list as _card_list
from zerodrill.deck.card_ids import written_card_ids
from zerodrill.deck.control_chars import shown
from zerodrill.deck.links import safe_link
from zerodrill.deck.model import (
    Bullet,
    Card,
    Interview,
    Point,
    Problem,
    Sheet,
)
from zerodrill.deck.yaml_nodes import MAP, NULL, SEQ, NodeReader, kind_of

if TYPE_CHECKING:
    import yaml

#: An interview's time budget, in whole minutes. The seed page gives its question 4; past half
#: an hour the answer is a talk, not an interview answer.
MIN_MINUTES, MAX_MINUTES = 1, 30
#: The sheet is read in a minute, the night before: at most this many bullets, each at most
#: :data:`MAX_LINE_CHARS` characters (so the printed page stays within two A4 sheets).
MAX_BULLETS = 12
#: The longest point or bullet: a short statement, said or read in one breath.
MAX_LINE_CHARS = 240

INTERVIEW_FIELDS = ("id", "title", "question", "minutes", "points", "follow_ups", "red_flags")
REQUIRED_INTERVIEW_FIELDS = ("id", "title", "question", "minutes", "points")
LINE_FIELDS = ("text", "cards")

_INT = "tag:yaml.org,2002:int"
_DIGITS = re.compile(r"[0-9]+")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def read(
    reader: NodeReader, fields: Mapping[str, tuple[yaml.Node, yaml.Node]], cards: Sequence[Card]
) -> tuple[tuple[Interview, ...], Sheet | None]:
    """The deck's interviews and sheet from its top-level ``fields``, checked against ``cards``
    (the cards built without problems)."""
    written = written_card_ids(fields["cards"][1]) if "cards" in fields else set()
    found: tuple[Interview, ...] = ()
    if "interviews" in fields:
        found = read_interviews(reader, fields["interviews"][1], cards, written)
    sheet = read_sheet(reader, fields["sheet"][1], cards, written) if "sheet" in fields else None
    return found, sheet


def read_interviews(
    reader: NodeReader, node: yaml.Node, cards: Sequence[Card], written: set[str]
) -> tuple[Interview, ...]:
    if not reader.visit(node) or node.tag == NULL:
        return ()
    if node.tag != SEQ:
        reader.report(node, f"'interviews' must be a list of interviews, not {kind_of(node)}")
        return ()
    known = _Cards(cards, written)
    interviews: list[Interview] = []
    first_line: dict[str, int] = {}
    for child in node.value:
        interview = _interview(reader, child, known)
        if interview is None:
            continue
        if interview.id in first_line:
            reader.problems.append(
                Problem(
                    interview.pos,
                    f"interview id '{interview.id}' is used twice "
                    f"(first at line {first_line[interview.id]})",
                )
            )
            continue
        first_line[interview.id] = interview.pos.line
        interviews.append(interview)
    return tuple(interviews)


def read_sheet(
    reader: NodeReader, node: yaml.Node, cards: Sequence[Card], written: set[str]
) -> Sheet | None:
    if not reader.visit(node):
        return None
    if node.tag != SEQ:
        reader.report(node, f"'sheet' must be a list of bullets, not {kind_of(node)}")
        return None
    if not node.value:
        reader.report(node, "'sheet' is empty: leave it out, or give it at least one bullet")
        return None
    if len(node.value) > MAX_BULLETS:
        reader.report(
            node.value[MAX_BULLETS],
            f"the sheet has {len(node.value)} bullets, more than the {MAX_BULLETS} it may have: "
            "it is read in a minute the night before",
        )
    known = _Cards(cards, written)
    bullets: list[Bullet] = []
    for child in node.value[:MAX_BULLETS]:
        line = _line(reader, child, known, "a sheet bullet")
        if line is not None:
            bullets.append(Bullet(*line, pos=reader.pos(child)))
    return Sheet(tuple(bullets), reader.pos(node))


def _interview(reader: NodeReader, node: yaml.Node, known: _Cards) -> Interview | None:
    before = len(reader.problems)
    fields = reader.mapping(node, INTERVIEW_FIELDS, "an interview")
    if fields is None:
        return None
    reader.missing(node, "an interview", [f for f in REQUIRED_INTERVIEW_FIELDS if f not in fields])
    interview_id = reader.slug(fields, "id", "interview id")
    title = reader.text(fields["title"][1], "title") if "title" in fields else None
    if title is not None and "\n" in title.rstrip("\n"):
        reader.problems.append(
            Problem(
                reader.offset_pos(fields["title"][1], title, title.index("\n")),
                "an interview's title is one line",
            )
        )
    question = None
    if "question" in fields:
        question = reader.text(fields["question"][1], "question")
        if question is not None:
            reader.markdown.append((fields["question"][1], question, False))
            _no_images(reader, fields["question"][1], question, "an interview's question")
    minutes = _minutes(reader, fields["minutes"][1]) if "minutes" in fields else None
    points: list[Point] = []
    if "points" in fields:
        points = _points(reader, fields["points"][1], known)
    follow_ups = _ids(reader, fields, "follow_ups", kinds.FOLLOW_UP, known)
    red_flags = _ids(reader, fields, "red_flags", kinds.RED_FLAG, known)
    # A minute a point: the learner says each point in their own words against the clock, and
    # 9 points in 4 minutes was a rehearsal no one could pass.
    if minutes is not None and len(points) > minutes:
        reader.report(
            fields["minutes"][1],
            f"an interview's points must fit its time, a minute a point: {len(points)} points "
            f"need 'minutes: {len(points)}' or more, not {minutes} (or fewer points)",
        )
    if (
        len(reader.problems) > before
        or interview_id is None
        or title is None
        or question is None
        or minutes is None
    ):
        return None
    return Interview(
        id=interview_id,
        title=title.rstrip("\n"),
        question=question,
        minutes=minutes,
        points=tuple(points),
        follow_ups=follow_ups,
        red_flags=red_flags,
        pos=reader.pos(node),
    )


def _minutes(reader: NodeReader, node: yaml.Node) -> int | None:
    if not reader.visit(node):
        return None
    value = str(node.value)
    if node.tag != _INT or not _DIGITS.fullmatch(value):
        reader.report(
            node,
            f"field 'minutes' must be a whole number of minutes from {MIN_MINUTES} to "
            f"{MAX_MINUTES}, not {kind_of(node) if node.tag != _INT else repr(value)}",
        )
        return None
    # Digits past the budget's own are out of range whatever they say: Python refuses to
    # read an int of thousands of digits, and this one was typed by a deck's author.
    minutes = int(value) if len(value.lstrip("0")) <= len(str(MAX_MINUTES)) else None
    if minutes is None or not MIN_MINUTES <= minutes <= MAX_MINUTES:
        shown_value = value if len(value) <= 12 else f"{value[:9]}..."
        reader.report(
            node,
            f"an interview's budget is {MIN_MINUTES} to {MAX_MINUTES} minutes, not {shown_value}",
        )
        return None
    return minutes


def _points(reader: NodeReader, node: yaml.Node, known: _Cards) -> list[Point]:
    if not reader.visit(node):
        return []
    if node.tag != SEQ:
        reader.report(node, f"field 'points' must be a list of points, not {kind_of(node)}")
        return []
    if not node.value:
        reader.report(node, "'points' is empty: list what a strong answer says")
        return []
    points: list[Point] = []
    for child in node.value:
        line = _line(reader, child, known, "a point")
        if line is not None:
            points.append(Point(*line, pos=reader.pos(child)))
    return points


def _line(
    reader: NodeReader, node: yaml.Node, known: _Cards, what: str
) -> tuple[str, tuple[str, ...]] | None:
    """A point or a bullet: short Markdown, given as text or as ``{text, cards}``."""
    before = len(reader.problems)
    cards: tuple[str, ...] = ()
    if node.tag == MAP:
        fields = reader.mapping(node, LINE_FIELDS, what)
        if fields is None:
            return None
        if "text" not in fields:
            reader.missing(node, what, ["text"])
            return None
        text_node = fields["text"][1]
        if "cards" in fields:
            cards = _card_list(reader, fields["cards"][1], "cards", None, known)
    else:
        text_node = node
    text = reader.text(text_node, "text")
    if text is None:
        return None
    reader.markdown.append((text_node, text, False))
    text = text.rstrip()
    if len(text) > MAX_LINE_CHARS:
        reader.report(
            text_node,
            f"{what} is {len(text)} characters long, more than the {MAX_LINE_CHARS} it may "
            "have: keep it to one short statement",
        )
    blank = _BLANK_LINE.search(text)
    if blank is not None:
        reader.problems.append(
            Problem(
                reader.offset_pos(text_node, text, blank.start()),
                f"{what} is one paragraph: it has a blank line here",
            )
        )
    _no_images(reader, text_node, text, what)
    _safe_links(reader, text_node, text, what)
    if len(reader.problems) > before:
        return None
    return text, cards


def _no_images(reader: NodeReader, node: yaml.Node, text: str, what: str) -> None:
    # The sheet becomes a self-contained page and an Anki deck's description, neither of
    # which carries the deck's image files.
    if "![" not in text:
        return
    for offset, _target in markdown_checks.images(text):
        reader.problems.append(
            Problem(
                reader.offset_pos(node, text, offset),
                f"images are not allowed in {what}; link the card that shows it instead",
            )
        )


def _safe_links(reader: NodeReader, node: yaml.Node, text: str, what: str) -> None:
    # The drill and the HTML page show an unsafe link as text, but `zerodrill sheet -o
    # FILE.md` writes Markdown that a viewer may make live: such a link is refused here.
    if "](" not in text and "]:" not in text and "<" not in text:
        return
    for offset, target in markdown_checks.links(text):
        if not safe_link(target):
            reader.problems.append(
                Problem(
                    reader.offset_pos(node, text, offset),
                    f"{what} links to {shown(target)!r}: only http(s) and mailto links are allowed",
                )
            )


def _ids(
    reader: NodeReader,
    fields: dict[str, tuple[yaml.Node, yaml.Node]],
    name: str,
    kind: kinds.CardKind,
    known: _Cards,
) -> tuple[str, ...]:
    if name not in fields:
        return ()
    return _card_list(reader, fields[name][1], name, kind, known)
