"""YAML deck files → :class:`Deck` values, with every problem reported at its line and column.

The loader composes the YAML into a node graph with libyaml (when present) and builds the
model from the nodes itself instead of letting PyYAML construct Python objects. That is what
makes it safe and precise at once: tags are checked before anything is built (so
``!!python/object`` constructs nothing), every key is seen (so a key given twice is caught,
where PyYAML keeps the last silently), every value keeps its position, and a node reached a
second time (an alias) is refused, so an alias bomb costs no more than its own bytes.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from zerodrill.deck import cloze
from zerodrill.deck.files import LoadResult, combine, discover, read_deck_bytes
from zerodrill.deck.model import (
    COMMON_FIELDS,
    DECK_FIELDS,
    KIND_FIELDS,
    REQUIRED_DECK_FIELDS,
    SLUG_PATTERN,
    TAG_PATTERN,
    Card,
    Deck,
    Kind,
    Pos,
    Problem,
)

if TYPE_CHECKING:
    import yaml

_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_NULL = "tag:yaml.org,2002:null"
_SAFE_TAGS = frozenset(
    {_STR, _SEQ, _MAP, _NULL}
    | {f"tag:yaml.org,2002:{t}" for t in ("int", "float", "bool", "timestamp")}
)
_TYPE_NAMES = {
    _SEQ: "a list",
    _MAP: "a mapping",
    _NULL: "empty",
    "tag:yaml.org,2002:int": "a number",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:bool": "a boolean",
    "tag:yaml.org,2002:timestamp": "a date",
}
_SLUG = re.compile(SLUG_PATTERN)
_TAG = re.compile(TAG_PATTERN)
# Markdown images: ![alt](path) or ![alt](<path with spaces> "title").
_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*(<[^>]*>|[^)\s]+)")
_URL_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_KIND_NAMES = ", ".join(k.value for k in Kind)


def load_paths(paths: Sequence[Path]) -> LoadResult:
    """Load every deck under ``paths``; decks with any problem are left out of ``decks``."""
    files, problems = discover(paths)
    loaded = [(path, *load_file(path)) for path in files]
    return combine(files, problems, loaded)


def load_file(path: Path) -> tuple[Deck | None, list[Problem]]:
    """One deck file → (the deck, or None if it has problems; the problems)."""
    data = read_deck_bytes(path)
    if isinstance(data, Problem):
        return None, [data]
    return parse_bytes(data, path)


def parse_bytes(data: bytes, path: Path) -> tuple[Deck | None, list[Problem]]:
    where = str(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, [Problem(Pos(where, line, col), "file is not UTF-8 text")]
    if "\x00" in text:
        return None, [Problem(Pos(where, 1, 1), "file is not text (it contains NUL bytes)")]
    # Imported here: a start from the parsed-deck cache never needs PyYAML.
    import yaml

    try:
        loader = yaml.CSafeLoader
    except AttributeError:  # pragma: no cover - PyYAML built without libyaml
        loader = yaml.SafeLoader  # type: ignore[assignment]
    try:
        root = yaml.compose(text, Loader=loader)
    except yaml.MarkedYAMLError as exc:
        return None, [_syntax_problem(exc, text, where)]
    except yaml.YAMLError as exc:  # unmarked: e.g. a reader error
        return None, [Problem(Pos(where, 1, 1), f"YAML error: {exc}")]
    if root is None:
        return None, [
            Problem(
                Pos(where, 1, 1), "file is empty: a deck needs deck, title, description and cards"
            )
        ]
    builder = _Builder(where, path, text)
    deck = builder.deck(root)
    return (deck if not builder.problems else None), builder.problems


def _syntax_problem(exc: yaml.MarkedYAMLError, text: str, where: str) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line, mark.column) if mark is not None else (0, 0)
    problem = exc.problem or "syntax error"
    lines = text.splitlines()
    row = lines[line] if line < len(lines) else ""
    if "\t" in row[: col + 1] or "tab" in problem:
        tab = row.find("\t")
        return Problem(
            Pos(where, line + 1, (tab if tab >= 0 else col) + 1),
            "tab character in indentation: YAML indents with spaces",
        )
    if exc.context and exc.context_mark is not None:
        problem = f"{problem} ({exc.context} started at line {exc.context_mark.line + 1})"
    elif exc.context:
        problem = f"{problem} ({exc.context})"
    return Problem(Pos(where, line + 1, col + 1), f"YAML syntax error: {problem}")


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    match = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{match[0]}'?)" if match else ""


def _kind_of(node: yaml.Node) -> str:
    return _TYPE_NAMES.get(node.tag, "text" if node.tag == _STR else "a value")


class _Builder:
    """Walks one file's node graph, collecting problems instead of stopping at the first."""

    def __init__(self, where: str, path: Path, text: str) -> None:
        self.where = where
        self.path = path
        self.lines = text.split("\n")
        self.problems: list[Problem] = []
        self._seen: set[int] = set()

    def pos(self, node: yaml.Node) -> Pos:
        return Pos(self.where, node.start_mark.line + 1, node.start_mark.column + 1)

    def report(self, node: yaml.Node, message: str) -> None:
        self.problems.append(Problem(self.pos(node), message))

    def visit(self, node: yaml.Node) -> bool:
        """Admit a node once; refuse aliases and unsafe tags. False: skip this node."""
        if id(node) in self._seen:
            self.report(node, "anchors and aliases (& and *) are not allowed in decks")
            return False
        self._seen.add(id(node))
        if node.tag not in _SAFE_TAGS:
            self.report(node, f"tag '{node.tag}' is not allowed in decks (nothing was run)")
            return False
        return True

    def mapping(
        self, node: yaml.Node, allowed: Sequence[str], what: str
    ) -> dict[str, tuple[yaml.Node, yaml.Node]] | None:
        if not self.visit(node):
            return None
        if node.tag != _MAP:
            self.report(node, f"{what} must be a mapping, not {_kind_of(node)}")
            return None
        fields: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key, value in node.value:
            if not self.visit(key):
                continue
            if key.tag != _STR:
                self.report(key, f"field names must be text, not {_kind_of(key)}")
                continue
            name = key.value
            if name in fields:
                first = fields[name][0].start_mark.line + 1
                self.report(key, f"field '{name}' is given twice (first at line {first})")
                continue
            if name not in allowed:
                self.report(key, f"unknown field '{name}' in {what}{_did_you_mean(name, allowed)}")
                self._skip(value)
                continue
            fields[name] = (key, value)
        return fields

    def _skip(self, node: yaml.Node) -> None:
        """Still refuse unsafe tags and aliases below a field that is otherwise ignored."""
        if not self.visit(node):
            return
        if node.tag == _MAP:
            for key, value in node.value:
                self._skip(key)
                self._skip(value)
        elif node.tag == _SEQ:
            for child in node.value:
                self._skip(child)

    def text(self, node: yaml.Node, name: str, *, required: bool = True) -> str | None:
        if not self.visit(node):
            return None
        if node.tag == _NULL and not required:
            return ""
        if node.tag != _STR:
            hint = " (quote it)" if node.tag not in (_SEQ, _MAP, _NULL) else ""
            self.report(node, f"field '{name}' must be text, not {_kind_of(node)}{hint}")
            return None
        if required and not node.value.strip():
            self.report(node, f"field '{name}' is empty")
            return None
        return str(node.value)

    def strings(
        self, node: yaml.Node, name: str, pattern: re.Pattern[str] | None
    ) -> list[tuple[str, yaml.Node]]:
        """A list of text values, each with its node (for positions)."""
        if not self.visit(node) or node.tag == _NULL:
            return []
        if node.tag != _SEQ:
            self.report(node, f"field '{name}' must be a list, not {_kind_of(node)}")
            return []
        out: list[tuple[str, yaml.Node]] = []
        for child in node.value:
            value = self.text(child, f"{name}[]")
            if value is None:
                continue
            if pattern is not None and not pattern.match(value):
                self.report(
                    child,
                    f"'{value}' in '{name}' must be lowercase letters, digits and hyphens",
                )
                continue
            out.append((value, child))
        return out

    def slug(
        self, fields: dict[str, tuple[yaml.Node, yaml.Node]], name: str, what: str
    ) -> str | None:
        """The id in field ``name``, if present, text and a slug (else reported)."""
        if name not in fields:
            return None
        node = fields[name][1]
        value = self.text(node, name)
        if value is not None and not _SLUG.match(value):
            self.report(node, f"{what} must be lowercase letters, digits and hyphens")
            return None
        return value

    def missing(self, node: yaml.Node, what: str, names: Iterable[str]) -> None:
        for name in names:
            self.report(node, f"{what} is missing required field '{name}'")

    def deck(self, root: yaml.Node) -> Deck | None:
        fields = self.mapping(root, DECK_FIELDS, "the deck")
        if fields is None:
            if root.tag != _MAP:
                self.problems[-1:] = [
                    Problem(
                        self.pos(root),
                        "top level must be a mapping with deck, title, description and cards",
                    )
                ]
            return None
        self.missing(root, "the deck", [f for f in REQUIRED_DECK_FIELDS if f not in fields])
        deck_id = self.slug(fields, "deck", "deck id")
        title = self.text(fields["title"][1], "title") if "title" in fields else None
        description = (
            self.text(fields["description"][1], "description") if "description" in fields else None
        )
        retired: dict[str, yaml.Node] = {}
        if "retired" in fields:
            retired = dict(self.strings(fields["retired"][1], "retired", _SLUG))
        cards: list[Card] = []
        if "cards" in fields:
            cards = self.cards(fields["cards"][1], deck_id or "", set(retired))
        for card_id, node in retired.items():
            if not any(c.id == card_id for c in cards):
                self.report(
                    node,
                    f"retired card '{card_id}' is not in the deck: keep a retired card's "
                    "entry so exports can tag it in Anki",
                )
        if self.problems or deck_id is None or title is None or description is None:
            return None
        return Deck(deck_id, title, description, tuple(cards), self.path, self.pos(root))

    def cards(self, node: yaml.Node, deck_id: str, retired: set[str]) -> list[Card]:
        if not self.visit(node):
            return []
        if node.tag != _SEQ:
            self.report(node, f"'cards' must be a list of cards, not {_kind_of(node)}")
            return []
        if not node.value:
            self.report(node, "'cards' is empty: a deck needs at least one card")
        cards: list[Card] = []
        first_line: dict[str, int] = {}
        for child in node.value:
            card = self.card(child, deck_id, retired)
            if card is None:
                continue
            if card.id in first_line:
                self.problems.append(
                    Problem(
                        card.field_pos["id"],
                        f"card id '{card.id}' is used twice (first at line {first_line[card.id]})",
                    )
                )
                continue
            first_line[card.id] = card.pos.line
            cards.append(card)
        return cards

    def card(self, node: yaml.Node, deck_id: str, retired: set[str]) -> Card | None:
        before = len(self.problems)
        kind = self._card_kind(node)
        allowed = COMMON_FIELDS + (
            KIND_FIELDS[kind] if kind else tuple(f for fs in KIND_FIELDS.values() for f in fs)
        )
        what = f"a {kind.value} card" if kind else "a card"
        fields = self.mapping(node, allowed, what)
        if fields is None:
            return None
        required = ("id", "kind") + (KIND_FIELDS[kind] if kind else ())
        self.missing(node, f"{what}", [f for f in required if f not in fields])
        card_id = self.slug(fields, "id", "card id")
        if kind is None and "kind" in fields and id(fields["kind"][1]) not in self._seen:
            self.text(fields["kind"][1], "kind")  # reports its wrong type or tag
        texts: dict[str, str] = {}
        field_pos: dict[str, Pos] = {}
        for name, (_key, value) in fields.items():
            field_pos[name] = self.pos(value)
            if name in ("id", "kind", "tags", "refs"):
                continue
            text = self.text(value, name, required=name != "extra")
            if text is not None and text != "":
                texts[name] = text
        tags = (
            [t for t, _ in self.strings(fields["tags"][1], "tags", _TAG)]
            if "tags" in fields
            else []
        )
        refs = (
            [r for r, _ in self.strings(fields["refs"][1], "refs", None)]
            if "refs" in fields
            else []
        )
        ordinals: tuple[int, ...] = ()
        if kind is Kind.CLOZE and "text" in texts:
            ordinals = self._check_cloze(texts["text"], fields["text"][1])
        media = self._media(texts, fields)
        if len(self.problems) > before or kind is None or card_id is None:
            return None
        return Card(
            deck=deck_id,
            id=card_id,
            kind=kind,
            fields=MappingProxyType(texts),
            tags=tuple(tags),
            refs=tuple(refs),
            pos=self.pos(node),
            field_pos=MappingProxyType(field_pos),
            ordinals=ordinals,
            media=tuple(media),
            retired=card_id in retired,
        )

    def _card_kind(self, node: yaml.Node) -> Kind | None:
        """The card's kind, read ahead so unknown fields can be judged against it."""
        if node.tag != _MAP:
            return None
        for key, value in node.value:
            if key.tag == _STR and key.value == "kind":
                if value.tag != _STR or id(value) in self._seen:
                    return None
                try:
                    return Kind(value.value)
                except ValueError:
                    self._seen.add(id(value))
                    self.report(
                        value,
                        f"unknown kind '{value.value}' (expected one of {_KIND_NAMES})"
                        f"{_did_you_mean(value.value, [k.value for k in Kind])}",
                    )
                    return None
        return None

    def _check_cloze(self, text: str, node: yaml.Node) -> tuple[int, ...]:
        deletions, issues = cloze.parse(text)
        for issue in issues:
            self.problems.append(Problem(self._offset_pos(node, text, issue.offset), issue.message))
        return tuple(sorted({d.ordinal for d in deletions if d.ordinal > 0}))

    def _offset_pos(self, node: yaml.Node, text: str, offset: int) -> Pos:
        """The file position of ``text[offset]``: exact for block scalars, the usual case for
        long text; for a flow scalar on one line, its column; otherwise the scalar's start."""
        line_in_text = text.count("\n", 0, offset)
        col_in_line = offset - (text.rfind("\n", 0, offset) + 1)
        base = node.start_mark
        # Text always comes from a scalar node, the only kind with a style.
        style = getattr(node, "style", None)
        if style in ("|", ">"):
            # The block's content starts on the line after the indicator, at its indentation.
            indent = self._block_indent(node)
            return Pos(self.where, base.line + 2 + line_in_text, indent + col_in_line + 1)
        if line_in_text == 0 and node.end_mark.line == base.line:
            quote = 1 if style in ("'", '"') else 0
            return Pos(self.where, base.line + 1, base.column + 1 + quote + col_in_line)
        return self.pos(node)

    def _block_indent(self, node: yaml.Node) -> int:
        for row in self.lines[node.start_mark.line + 1 : node.end_mark.line + 1]:
            if row.strip():
                return len(row) - len(row.lstrip(" "))
        return node.start_mark.column

    def _media(
        self, texts: dict[str, str], fields: dict[str, tuple[yaml.Node, yaml.Node]]
    ) -> list[str]:
        media: list[str] = []
        for name, text in texts.items():
            if "![" not in text:
                continue
            for match in _IMAGE.finditer(text):
                target = match.group(1).strip("<>").strip()
                node = fields[name][1]
                where = self._offset_pos(node, text, match.start())
                problem = self._media_problem(target)
                if problem:
                    self.problems.append(Problem(where, problem))
                    continue
                # Compared as stored: "./a.png" and "a.png" are one image.
                normal = posixpath.normpath(target)
                if normal not in media:
                    media.append(normal)
        return media

    def _media_problem(self, target: str) -> str | None:
        if _URL_SCHEME.match(target) or target.startswith("//"):
            return f"image '{target}' must be a file in the deck's folder, not a URL"
        if target.startswith(("/", "\\")) or "\\" in target:
            return f"image '{target}' must be a relative path with '/' separators"
        folder = self.path.parent.resolve()
        resolved = (folder / target).resolve()
        if not resolved.is_relative_to(folder):
            return f"image '{target}' is outside the deck's folder"
        if not resolved.is_file():
            return f"image '{target}' does not exist"
        return None
