"""The deck format's JSON Schema and the field tables of ``decks/README.md``, generated.

The loader's own declarations are the source: the fields of a deck, a card, an interview and
a sheet line (:mod:`zerodrill.deck.model`, :mod:`zerodrill.deck.interviews`), the card kinds
(:mod:`zerodrill.deck.kinds`) and the limits and patterns the loader checks with. This module
adds what only an editor needs, each field's JSON shape and description, and refuses to
generate when a field the loader reads has no shape here, or a shape names no field.

The schema is for editors (completion, checks as you type); ``zerodrill validate`` checks more
than a schema can. Regenerate both files after changing the format (a test fails while either
is stale)::

    python -m zerodrill.deck.json_schema           # rewrite them
    python -m zerodrill.deck.json_schema --check   # exit 1 if either is stale
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from zerodrill.deck import config_keys, kinds
from zerodrill.deck.config_keys import IDENTIFIER_PATTERN, KEY_PATH_PATTERN
from zerodrill.deck.control_chars import CONTROL
from zerodrill.deck.interviews import (
    INTERVIEW_FIELDS,
    LINE_FIELDS,
    MAX_BULLETS,
    MAX_LINE_CHARS,
    MAX_MINUTES,
    MIN_MINUTES,
    REQUIRED_INTERVIEW_FIELDS,
)
from zerodrill.deck.model import (
    COMMON_FIELDS,
    DECK_FIELDS,
    MAX_DECK_ID_CHARS,
    MAX_FIELD_CHARS,
    MAX_LEVEL,
    MIN_LEVEL,
    REQUIRED_DECK_FIELDS,
    RESERVED_DECK_IDS,
    SLUG_PATTERN,
    TAG_PATTERN,
    TAG_RULE,
)

Json = dict[str, Any]

SCHEMA_PATH = Path(__file__).resolve().with_name("deck.schema.json")
#: Only in a source checkout: an installed package has no decks/README.md.
README_PATH = Path(__file__).resolve().parents[2] / "decks" / "README.md"
README_START = (
    "<!-- Generated from the loader's declarations by `python -m zerodrill.deck.json_schema`: "
    "edit those, not this. -->"
)
README_END = "<!-- End of generated tables. -->"
_REQUIRED_CARD_FIELDS = ("id", "kind")
#: The schema's title, which tells a schema file zerodrill wrote from any other.
TITLE = "zerodrill deck"


def _whole(pattern: str) -> str:
    """A Python pattern matched whole (``fullmatch``) as JSON Schema's ``pattern`` reads it: a
    final ``$`` would also match before a final newline, where the loader refuses one."""
    assert pattern.startswith("^") and pattern.endswith("$"), pattern
    return pattern[:-1] + r"(?![\s\S])"


def _escaped(pattern: str) -> str:
    """A pattern holding raw control characters, written with ``\\uXXXX`` escapes instead."""
    return "".join(c if " " <= c <= "~" else f"\\u{ord(c):04x}" for c in pattern)


SLUG = _whole(SLUG_PATTERN)
TAG = _whole(TAG_PATTERN)
#: Characters no text in a deck may hold (the loader's :data:`control_chars.CONTROL`).
NO_CONTROL = _escaped(CONTROL.pattern)
#: A cloze field holds at least one deletion opener.
CLOZE_OPENER = r"\{\{c[1-9][0-9]*::"
#: Anki's own deck (any case, blanks around it), Anki's nesting, a second line.
_BAD_TITLE = r"^\s*[Dd][Ee][Ff][Aa][Uu][Ll][Tt]\s*(?![\s\S])|::|\n"
#: A newline that is not one of the last characters: an interview's title is one line.
_SECOND_LINE = r"\n(?!\n*(?![\s\S]))"
#: A path in the deck's folder: relative (no '/' or scheme first), '/' separators, no '..'.
_FACTS_PATH = r"^(?!/)(?![a-zA-Z][a-zA-Z0-9+.-]*:)(?!.*\\)(?!(?:.*/)?\.\.(?:/|$)).+$"
#: A blank line before more text: a point or bullet is one paragraph.
_SECOND_PARAGRAPH = r"\n[ \t]*\n(?![ \t\n]*(?![\s\S]))"


def _text(
    description: str | None = None, *, pattern: str = r"\S", refuse: str = NO_CONTROL
) -> Json:
    """A required Markdown text field; ``refuse``: what it may not hold."""
    shape: Json = {"type": "string", "pattern": pattern}
    if description is not None:
        shape["description"] = description
    shape["maxLength"] = MAX_FIELD_CHARS
    shape["not"] = {"pattern": refuse}
    return shape


def _ids() -> Json:
    return {
        "type": ["array", "null"],
        "items": {"type": "string", "pattern": SLUG},
        "uniqueItems": True,
    }


def _deck_fields() -> dict[str, tuple[str, Json]]:
    return {
        "deck": (
            "Stable deck id: never changes once published.",
            {
                "type": "string",
                "pattern": SLUG,
                "not": {"enum": sorted(RESERVED_DECK_IDS)},
                "maxLength": MAX_DECK_ID_CHARS,
            },
        ),
        "title": (
            "One line, without '::' (Anki makes nested decks of it), not 'Default' (Anki's own "
            "deck); unique across decks.",
            _text(refuse=f"{_BAD_TITLE}|{NO_CONTROL}"),
        ),
        "description": ("Markdown", _text()),
        "cards": ("The cards: at least one (see the tables of card fields).", _cards()),
        "retired": (
            "Ids of cards kept only so exports can tag them retired in Anki; the drill skips them.",
            {"type": ["array", "null"], "items": {"type": "string", "pattern": SLUG}},
        ),
        "anki_math": (
            "Let cards use Anki's LaTeX (`[latex]`, `[$]`, `[$$]`) and MathJax (`\\( \\)`, "
            "`\\[ \\]`) in Anki; without it they show as typed.",
            {"type": "boolean"},
        ),
        "interviews": (
            "Questions to answer out loud against a clock (`zerodrill interview`).",
            {"type": ["array", "null"], "items": _interview()},
        ),
        "sheet": (
            "The night-before cheat sheet (`zerodrill sheet`, and the Anki deck's description): "
            f"at most {MAX_BULLETS} bullets, each text or `{{text, cards}}`.",
            {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_BULLETS,
                "items": {"$ref": "#/$defs/line"},
            },
        ),
        "refs": (
            "'required': every card must list refs (its sources), each naming its place: code "
            "links at a commit or version tag with line anchors (#L10-L20), papers with the "
            "section, table or figure, pull requests and issues never alone. Default 'optional'.",
            {"enum": ["required", "optional"]},
        ),
        "config_keys": (
            "Check the config keys cards name (in code spans and ```json fences) against "
            "`facts`, a JSON file in the deck's folder read from the program's source; "
            "`prefixes` make an identifier look like a key; `known` lists identifiers that "
            "are right though the file lacks them (say why in a comment).",
            {
                "type": "object",
                "properties": {
                    "facts": {
                        "type": "string",
                        "pattern": _FACTS_PATH,
                        "description": "A JSON file in the deck's folder with a "
                        f"'{config_keys.SECTION}' section (relative, with '/', no '..').",
                    },
                    "prefixes": {
                        "type": ["array", "null"],
                        "items": {"type": "string", "pattern": _whole(IDENTIFIER_PATTERN)},
                        "description": "Identifiers that start so are taken for config keys.",
                    },
                    "known": {
                        "type": ["array", "null"],
                        "items": {"type": "string", "pattern": _whole(KEY_PATH_PATTERN)},
                        "description": "Identifiers right though the facts file lacks them.",
                    },
                },
                "required": ["facts"],
                "additionalProperties": False,
            },
        ),
    }


def _common_fields() -> dict[str, tuple[str, Json]]:
    names = ", ".join(f"`{k.name}`" for k in kinds.registered())
    return {
        "id": (
            "Stable slug, unique in the deck: review history hangs on it.",
            {"type": "string", "pattern": SLUG},
        ),
        "kind": (f"One of {names}: which fields the card has, and how it is drilled.", {}),
        "extra": (
            "Markdown shown after the answer.",
            {
                "type": ["string", "null"],
                "maxLength": MAX_FIELD_CHARS,
                "not": {"pattern": NO_CONTROL},
            },
        ),
        "tags": (
            f"Tags: {TAG_RULE}; the first is the card's topic.",
            {"type": ["array", "null"], "items": {"type": "string", "pattern": TAG}},
        ),
        "refs": (
            "Sources: URLs, paper sections, source paths.",
            {"type": ["array", "null"], "items": _text()},
        ),
        "level": (
            f"Which new cards come first: {MIN_LEVEL} (foundations) to {MAX_LEVEL}. New cards "
            "come level by level, kinds and topics mixed within a level; cards without a level "
            "come after every card that has one.",
            {"type": "integer", "minimum": MIN_LEVEL, "maximum": MAX_LEVEL},
        ),
        "siblings": (
            "Ids of cards that teach the same thing as this one (not retired): the drill never "
            "shows a card and its siblings on the same study day, as it never shows two "
            "deletions of one cloze card. Listing them on one of the cards is enough.",
            _ids(),
        ),
    }


def _interview_fields() -> dict[str, tuple[str, Json]]:
    return {
        "id": (
            "Stable slug, unique among the deck's interviews.",
            {"type": "string", "pattern": SLUG},
        ),
        "title": (
            "One line.",
            _text(refuse=f"{_SECOND_LINE}|{NO_CONTROL}"),
        ),
        "question": ("The opening question, Markdown (no images).", _text()),
        "minutes": (
            f"The time budget for the answer: {MIN_MINUTES} to {MAX_MINUTES} whole minutes, "
            "at least one a point.",
            {"type": "integer", "minimum": MIN_MINUTES, "maximum": MAX_MINUTES},
        ),
        "points": (
            "What a strong answer says: text, or `{text, cards}`.",
            {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/line"}},
        ),
        "follow_ups": (
            f"Ids of {kinds.FOLLOW_UP.name} cards, in the order an interviewer would ask them.",
            _ids(),
        ),
        "red_flags": (f"Ids of {kinds.RED_FLAG.name} cards: things not to say.", _ids()),
    }


def _line_fields() -> dict[str, tuple[str, Json]]:
    return {
        "text": (
            f"One short statement in Markdown: one paragraph, no images, at most "
            f"{MAX_LINE_CHARS} characters.",
            {"$ref": "#/$defs/short_markdown"},
        ),
        "cards": ("Ids of the (not retired) cards that back it.", _ids()),
    }


def _properties(declared: Sequence[str], fields: Mapping[str, tuple[str, Json]]) -> Json:
    """The schema's properties, in the loader's order, each with its description."""
    if set(fields) != set(declared):
        raise ValueError(
            f"the loader reads {sorted(declared)}, the schema describes {sorted(fields)}"
        )
    out: Json = {}
    for name in declared:
        description, shape = fields[name]
        # A reference takes no siblings here: the definition it names has the description.
        out[name] = shape if "$ref" in shape else {**shape, "description": description}
    return out


def _kind(kind: kinds.CardKind) -> Json:
    properties = _properties(COMMON_FIELDS, _common_fields())
    properties["kind"] = {"const": kind.name}
    for f in kind.fields:
        pattern = CLOZE_OPENER if f.name == kind.cloze_field else r"\S"
        properties[f.name] = _text(f.description, pattern=pattern)
    return {
        "type": "object",
        "description": kind.summary,
        "properties": properties,
        "required": [*_REQUIRED_CARD_FIELDS, *kind.field_names],
        "additionalProperties": False,
    }


def _cards() -> Json:
    registered = kinds.registered()
    return {
        "type": "array",
        "minItems": 1,
        "items": {
            "type": "object",
            "required": ["kind"],
            "properties": {"kind": {"enum": [k.name for k in registered]}},
            "allOf": [
                {
                    "if": {"properties": {"kind": {"const": k.name}}, "required": ["kind"]},
                    "then": {"$ref": f"#/$defs/{k.name}"},
                }
                for k in registered
            ],
        },
    }


def _interview() -> Json:
    return {
        "type": "object",
        "properties": _properties(INTERVIEW_FIELDS, _interview_fields()),
        "required": list(REQUIRED_INTERVIEW_FIELDS),
        "additionalProperties": False,
    }


def schema() -> Json:
    """The JSON Schema of a deck file, from the loader's declarations and the registered kinds."""
    properties = _properties(DECK_FIELDS, _deck_fields())
    line_text_description, _ = _line_fields()["text"]
    defs: Json = {k.name: _kind(k) for k in kinds.registered()}
    defs["short_markdown"] = {
        "type": "string",
        "pattern": r"\S",
        "maxLength": MAX_LINE_CHARS,
        "description": line_text_description,
        "not": {"pattern": f"{_SECOND_PARAGRAPH}|{NO_CONTROL}"},
    }
    defs["line"] = {
        "oneOf": [
            {"$ref": "#/$defs/short_markdown"},
            {
                "type": "object",
                "properties": _properties(LINE_FIELDS, _line_fields()),
                "required": ["text"],
                "additionalProperties": False,
            },
        ]
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/zerodrill/zerodrill/zerodrill/deck/deck.schema.json",
        "title": TITLE,
        "description": (
            "A deck of interview cards. `zerodrill validate` checks more than this schema can "
            "(cloze syntax, duplicate ids, image paths); this schema is for editors."
        ),
        "type": "object",
        "properties": properties,
        "required": list(REQUIRED_DECK_FIELDS),
        "additionalProperties": False,
        "if": {"properties": {"refs": {"const": "required"}}, "required": ["refs"]},
        "then": {
            "properties": {
                "cards": {
                    "items": {
                        "required": ["refs"],
                        "properties": {"refs": {"type": "array", "minItems": 1}},
                    }
                }
            }
        },
        "$defs": defs,
    }


def schema_text() -> str:
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


# -- the README's tables ------------------------------------------------------------------------


def _cell(text: str) -> str:
    return text.replace("|", r"\|").replace("\n", " ")


def _table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _field_rows(
    declared: Sequence[str], required: Sequence[str], fields: Mapping[str, tuple[str, Json]]
) -> list[tuple[str, str, str]]:
    return [(f"`{n}`", "yes" if n in required else "no", fields[n][0]) for n in declared]


def readme_tables() -> str:
    """The field tables of ``decks/README.md``, between its generated-section markers."""
    registered = kinds.registered()
    typing = {None: "no", kinds.Typing.BLANKS: "the blanks", kinds.Typing.FREE: "free text"}
    lines = [README_START, "", "A deck file's top-level fields:", ""]
    lines += _table(
        ("field", "required", "what it holds"),
        _field_rows(DECK_FIELDS, REQUIRED_DECK_FIELDS, _deck_fields()),
    )
    lines += ["", "Every card's fields, besides its kind's own:", ""]
    lines += _table(
        ("field", "required", "what it holds"),
        _field_rows(COMMON_FIELDS, _REQUIRED_CARD_FIELDS, _common_fields()),
    )
    lines += ["", "The kinds, and the fields each requires:", ""]
    lines += _table(
        ("kind", "fields", "what it is", "drill label", "typed answer", "Anki note type"),
        (
            (
                f"`{k.name}`",
                ", ".join(f"`{n}`" for n in k.field_names),
                k.summary,
                k.label,
                typing[k.typing],
                k.anki.name,
            )
            for k in registered
        ),
    )
    lines += ["", "What each kind's fields hold:", ""]
    lines += _table(
        ("kind", "field", "what it holds"),
        ((f"`{k.name}`", f"`{f.name}`", f.description) for k in registered for f in k.fields),
    )
    lines += ["", "An interview's fields:", ""]
    lines += _table(
        ("field", "required", "what it holds"),
        _field_rows(INTERVIEW_FIELDS, REQUIRED_INTERVIEW_FIELDS, _interview_fields()),
    )
    lines += ["", "A point or a sheet bullet, when written as a mapping:", ""]
    lines += _table(
        ("field", "required", "what it holds"), _field_rows(LINE_FIELDS, ("text",), _line_fields())
    )
    lines += ["", README_END]
    return "\n".join(lines) + "\n"


def readme_with_tables(readme: str) -> str:
    start = readme.index(README_START)
    end = readme.index(README_END) + len(README_END) + 1
    return readme[:start] + readme_tables() + readme[end:]


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    check = args == ["--check"]
    if args and not check:
        print("usage: python -m zerodrill.deck.json_schema [--check]", file=sys.stderr)
        return 2
    targets = [(SCHEMA_PATH, schema_text())]
    if README_PATH.exists():
        targets.append((README_PATH, readme_with_tables(README_PATH.read_text(encoding="utf-8"))))
    stale = [path for path, text in targets if path.read_text(encoding="utf-8") != text]
    for path in stale:
        if check:
            print(f"{path}: stale; run python -m zerodrill.deck.json_schema", file=sys.stderr)
        else:
            path.write_text(next(t for p, t in targets if p == path), encoding="utf-8")
            print(f"wrote {path}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
