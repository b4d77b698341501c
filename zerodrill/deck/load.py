"""YAML deck files → :class:`Deck` values, with every problem reported at its line and column.

The loader composes the YAML into a node graph with libyaml (when present) and builds the
model from the nodes itself instead of letting PyYAML construct Python objects. That is what
makes it safe and precise at once: tags are checked before anything is built (so
``!!python/object`` constructs nothing), every key is seen (so a key given twice is caught,
where PyYAML keeps the last silently), every value keeps its position, and a node reached a
second time (an alias) is refused, so an alias bomb costs no more than its own bytes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from zerodrill.deck import cloze, config_keys, interviews, kinds, markdown_checks
from zerodrill.deck import refs as ref_rules
from zerodrill.deck.card_ids import KnownCards, card_list, written_card_ids
from zerodrill.deck.cloze import ClozeIssue
from zerodrill.deck.control_chars import CONTROL, describe
from zerodrill.deck.files import (
    LoadResult,
    combine,
    discover,
    image_file,
    image_problem,
    read_deck_bytes,
)
from zerodrill.deck.model import (
    COMMON_FIELDS,
    DECK_FIELDS,
    MAX_DECK_ID_CHARS,
    MAX_LEVEL,
    MIN_LEVEL,
    REQUIRED_DECK_FIELDS,
    SLUG_PATTERN,
    TAG_PATTERN,
    TAG_RULE,
    Card,
    Deck,
    FactsFile,
    Pos,
    Problem,
)
from zerodrill.deck.target_rules import TargetRules
from zerodrill.deck.yaml_nodes import (
    MAP,
    SEQ,
    STR,
    NodeReader,
    did_you_mean,
    kind_of,
    syntax_problem,
)

if TYPE_CHECKING:
    import yaml

_SLUG = re.compile(SLUG_PATTERN)
_TAG = re.compile(TAG_PATTERN)
#: Raw control characters listed per file, at most: past that the file is hardly text.
_MAX_CONTROLS = 20
_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_LEVEL = re.compile(r"[0-9]{1,3}")  # a few digits: int() refuses a few thousand


def load_paths(paths: Sequence[Path], rules: Sequence[TargetRules] = ()) -> LoadResult:
    """Load every deck under ``paths``; decks with any problem are left out of ``decks``.

    ``rules`` are the export targets' rules to check besides the deck format's own.
    """
    files, problems = discover(paths)
    loaded = [(path, *load_file(path, rules)) for path in files]
    return combine(files, problems, loaded, rules)


def load_file(path: Path, rules: Sequence[TargetRules] = ()) -> tuple[Deck | None, list[Problem]]:
    data = read_deck_bytes(path)
    if isinstance(data, Problem):
        return None, [data]
    return parse_bytes(data, path, rules)


def parse_bytes(
    data: bytes, path: Path, rules: Sequence[TargetRules] = ()
) -> tuple[Deck | None, list[Problem]]:
    where = str(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, [Problem(Pos(where, line, col), "file is not UTF-8 text")]
    raw = _raw_controls(text, where)
    if raw:
        return None, raw
    # Imported here: a start from the parsed-deck cache never needs PyYAML.
    import yaml

    try:
        loader = yaml.CSafeLoader
    except AttributeError:  # pragma: no cover - PyYAML built without libyaml
        loader = yaml.SafeLoader  # type: ignore[assignment]
    try:
        root = yaml.compose(text, Loader=loader)
    except yaml.MarkedYAMLError as exc:
        return None, [syntax_problem(exc, text, where)]
    except yaml.reader.ReaderError as exc:
        # A character YAML does not take (U+FFFE, U+FFFF); PyYAML gives only its offset.
        line = text.count("\n", 0, exc.position) + 1
        col = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        char = f"U+{exc.character:04X}" if isinstance(exc.character, int) else "a character"
        return None, [Problem(Pos(where, line, col), f"{char} is not allowed in a deck file")]
    except yaml.YAMLError as exc:  # unmarked, and not one seen in testing: its first line
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, [Problem(Pos(where, 1, 1), f"YAML error: {first}")]
    if root is None:
        return None, [
            Problem(
                Pos(where, 1, 1), "file is empty: a deck needs deck, title, description and cards"
            )
        ]
    builder = _Builder(where, path, text, rules)
    deck = builder.deck(root)
    return (deck if not builder.problems else None), builder.problems


def _shown_number(node: yaml.Node) -> str:
    """What a node that should be a small whole number is, for a message: the number if it is
    a short one, else its kind."""
    value = str(node.value)
    return repr(value) if node.tag == _INT and len(value) <= 12 else kind_of(node)


def _raw_controls(text: str, where: str) -> list[Problem]:
    """Control characters written into the file itself, each at its line and column.

    Checked before YAML sees the text: PyYAML refuses most of them with a position it counts in
    characters from the start, and reads U+0085, U+2028, U+2029 and a lone CR as line breaks,
    which no editor shows, so every position after one would be off. Only CR before LF (a
    Windows line end) is allowed besides tab and newline.
    """
    problems: list[Problem] = []
    line = 1
    counted = 0  # newlines are counted up to this offset
    for match in CONTROL.finditer(text):
        at = match.start()
        char = match.group()
        if char == "\r" and text.startswith("\n", at + 1):
            continue
        line += text.count("\n", counted, at)
        counted = at
        line_start = text.rfind("\n", 0, at) + 1
        if len(problems) == _MAX_CONTROLS:
            problems.append(
                Problem(Pos(where, line, at - line_start + 1), "more control characters follow")
            )
            break
        if char == "\x00":
            message = "file is not text (it contains NUL bytes)"
        elif char in "\r\x85\u2028\u2029":
            message = (
                f"line break {describe(char)} is not allowed in a deck file: "
                "YAML reads it as a line break where editors do not; end lines with LF"
            )
        else:
            message = (
                f"control character {describe(char)} is not allowed in a deck file "
                "(only tab and newline are)"
            )
        problems.append(Problem(Pos(where, line, at - line_start + 1), message))
    return problems


class _Builder(NodeReader):
    """Builds one file's deck from its node graph (the node reading is :class:`NodeReader`)."""

    def __init__(
        self, where: str, path: Path, text: str, rules: Sequence[TargetRules] = ()
    ) -> None:
        super().__init__(where, text)
        self.path = path
        self._image_problems: dict[str, str | None] = {}
        # Each check once: targets share checks (Anki's cloze rules hold for a TSV too).
        self._id_checks = list(dict.fromkeys(rule.deck_id for rule in rules))
        self._title_checks = list(dict.fromkeys(rule.title for rule in rules))
        self._cloze_checks = list(dict.fromkeys(rule.cloze for rule in rules))
        #: The deck says 'refs: required' (known before its cards are read).
        self._refs_required = False
        #: Each card's 'siblings' node, with the card's id if it has a good one: read once
        #: every card is known, since a card may name one written below it.
        self._siblings: list[tuple[str | None, yaml.Node]] = []

    def deck_id(self, fields: dict[str, tuple[yaml.Node, yaml.Node]]) -> str | None:
        """The deck id: a slug that can name the exported files and is not one of our tags."""
        deck_id = self.slug(fields, "deck", "deck id")
        if deck_id is None:
            return None
        if len(deck_id) > MAX_DECK_ID_CHARS:
            self.report(
                fields["deck"][1],
                f"deck id is {len(deck_id)} characters long, more than the {MAX_DECK_ID_CHARS} "
                "it may have (it names the exported package's file)",
            )
            return None
        for check in self._id_checks:
            problem = check(deck_id)
            if problem is not None:
                self.report(fields["deck"][1], problem)
                return None
        return deck_id

    def title(self, node: yaml.Node) -> str | None:
        """The deck's title, which an export takes as the deck's name exactly as written."""
        title = self.text(node, "title")
        if title is None:
            return None
        if "\n" in title:
            # A block scalar's final newline counts too.
            issue: ClozeIssue | None = ClozeIssue(
                title.index("\n"), "a deck title is one line: it becomes the deck's name in Anki"
            )
        else:
            issue = next(filter(None, (check(title) for check in self._title_checks)), None)
        if issue is None:
            return title
        self.problems.append(Problem(self.offset_pos(node, title, issue.offset), issue.message))
        return None

    def deck(self, root: yaml.Node) -> Deck | None:
        fields = self.mapping(root, DECK_FIELDS, "the deck")
        if fields is None:
            if root.tag != MAP:
                self.problems[-1:] = [
                    Problem(
                        self.pos(root),
                        "top level must be a mapping with deck, title, description and cards",
                    )
                ]
            return None
        self.missing(root, "the deck", [f for f in REQUIRED_DECK_FIELDS if f not in fields])
        deck_id = self.deck_id(fields)
        title = self.title(fields["title"][1]) if "title" in fields else None
        description = (
            self.text(fields["description"][1], "description") if "description" in fields else None
        )
        if description is not None:
            self.markdown.append((fields["description"][1], description, False))
        retired: dict[str, yaml.Node] = {}
        if "retired" in fields:
            retired = dict(self.strings(fields["retired"][1], "retired", _SLUG))
        # Read before the cards: under 'refs: required' each ref is checked where it is written.
        self._refs_required = "refs" in fields and self.refs_required(fields["refs"][1])
        cards: list[Card] = []
        if "cards" in fields:
            cards = self.cards(fields["cards"][1], deck_id or "", set(retired))
            cards = self.with_siblings(cards, fields["cards"][1])
        ids = {c.id for c in cards}
        for card_id, node in retired.items():
            if card_id not in ids:
                self.report(
                    node,
                    f"retired card '{card_id}' is not in the deck: keep a retired card's "
                    "entry so exports can tag it in Anki",
                )
        anki_math = "anki_math" in fields and self.flag(fields["anki_math"][1], "anki_math")
        if self._refs_required:
            for card in cards:
                if not card.refs:
                    self.problems.append(
                        Problem(
                            card.field_pos.get("refs", card.pos),
                            f"card '{card.id}' has no refs, and the deck says 'refs: required': "
                            "list the sources a reader can check it against",
                        )
                    )
        rehearsals, sheet = interviews.read(self, fields, cards)
        facts = self.config_keys(fields["config_keys"][1]) if "config_keys" in fields else None
        if self.problems or deck_id is None or title is None or description is None:
            return None
        title_pos = self.pos(fields["title"][1])
        pos = self.pos(root)
        deck = Deck(deck_id, title, description, tuple(cards), self.path, pos, title_pos, anki_math)
        return replace(deck, interviews=rehearsals, sheet=sheet, facts=facts)

    def config_keys(self, node: yaml.Node) -> FactsFile | None:
        """The deck's ``config_keys``, and every config key its text names checked against the
        facts file it declares (:mod:`zerodrill.deck.config_keys`)."""
        read = config_keys.read(self, node, self.path.parent)
        if read is None:
            return None
        checker, facts = read
        for text_node, text, cloze_field in self.markdown:
            for offset, message in checker.check(text, cloze_field=cloze_field):
                self.problems.append(Problem(self.offset_pos(text_node, text, offset), message))
        return facts

    def refs_required(self, node: yaml.Node) -> bool:
        if self.visit(node) and (node.tag != STR or node.value not in ("required", "optional")):
            self.report(node, "deck field 'refs' must be 'required' or 'optional'")
        return node.tag == STR and node.value == "required"

    def with_siblings(self, cards: list[Card], node: yaml.Node) -> list[Card]:
        """``cards`` with the ``siblings`` each lists, every id checked against the deck's cards
        (:mod:`zerodrill.deck.card_ids`) where it is written."""
        if not self._siblings:
            return cards
        known = KnownCards(cards, written_card_ids(node))
        declared: dict[str, tuple[str, ...]] = {}
        for card_id, siblings_node in self._siblings:
            ids = card_list(self, siblings_node, "siblings", None, known)
            if card_id in ids:
                own = next(c for c in siblings_node.value if c.value == card_id)
                self.report(
                    own,
                    f"card '{card_id}' lists itself in 'siblings': list the other cards that "
                    "teach what it teaches",
                )
            if card_id is not None:
                declared[card_id] = tuple(i for i in ids if i != card_id)
        return [replace(c, siblings=declared[c.id]) if declared.get(c.id) else c for c in cards]

    def level(self, node: yaml.Node) -> int | None:
        if not self.visit(node):
            return None
        value = str(node.value)
        if node.tag == _INT and _LEVEL.fullmatch(value) and MIN_LEVEL <= int(value) <= MAX_LEVEL:
            return int(value)
        self.report(
            node,
            f"field 'level' must be a whole number from {MIN_LEVEL} (foundations, introduced "
            f"first) to {MAX_LEVEL}, not {_shown_number(node)}",
        )
        return None

    def flag(self, node: yaml.Node, name: str) -> bool:
        if self.visit(node) and node.tag != _BOOL:
            self.report(node, f"field '{name}' must be true or false, not {kind_of(node)}")
        return node.tag == _BOOL and node.value.lower() in ("true", "yes", "on")

    def cards(self, node: yaml.Node, deck_id: str, retired: set[str]) -> list[Card]:
        if not self.visit(node):
            return []
        if node.tag != SEQ:
            self.report(node, f"'cards' must be a list of cards, not {kind_of(node)}")
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
        if kind is not None:
            names = kind.field_names
        else:
            # Judged against every kind's fields: a card of unknown kind is told of its kind once.
            names = tuple({f: None for k in kinds.registered() for f in k.field_names})
        what = f"a {kind.name} card" if kind else "a card"
        fields = self.mapping(node, COMMON_FIELDS + names, what, kind.hints if kind else None)
        if fields is None:
            return None
        required = ("id", "kind") + (kind.field_names if kind else ())
        self.missing(node, f"{what}", [f for f in required if f not in fields])
        card_id = self.slug(fields, "id", "card id")
        if kind is None and "kind" in fields and id(fields["kind"][1]) not in self._seen:
            self.text(fields["kind"][1], "kind")  # reports its wrong type or tag
        texts: dict[str, str] = {}
        field_pos: dict[str, Pos] = {}
        for name, (_key, value) in fields.items():
            field_pos[name] = self.pos(value)
            if name in ("id", "kind", "tags", "refs", "level", "siblings"):
                continue
            text = self.text(value, name, required=name != "extra")
            if text is not None and text != "":
                texts[name] = text
                cloze_field = kind is not None and name == kind.cloze_field
                self.markdown.append((value, text, cloze_field))
        tags = (
            [t for t, _ in self.strings(fields["tags"][1], "tags", _TAG, TAG_RULE)]
            if "tags" in fields
            else []
        )
        refs = self._refs(fields["refs"][1], card_id) if "refs" in fields else []
        level = self.level(fields["level"][1]) if "level" in fields else None
        if "siblings" in fields:
            self._siblings.append((card_id, fields["siblings"][1]))
        ordinals: tuple[int, ...] = ()
        if kind is not None and kind.cloze_field in texts:
            name = kind.cloze_field
            ordinals = self._check_cloze(texts[name], fields[name][1])
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
            level=level,
        )

    def _refs(self, node: yaml.Node, card_id: str | None) -> list[str]:
        """A card's refs; under 'refs: required', each one checked for naming its place."""
        written = self.strings(node, "refs", None)
        if not self._refs_required:
            return [ref for ref, _ in written]
        for ref, child in written:
            problem = ref_rules.problem(ref)
            if problem is not None:
                self.report(child, problem)
        refs = [ref for ref, _ in written]
        if ref_rules.only_threads(refs):
            who = f"card '{card_id}'" if card_id else "this card"
            self.report(
                node,
                f"{who} cites only pull requests or issues: they say why something "
                "changed, not what is so; add the source lines or the paper's place they concern",
            )
        return refs

    def _card_kind(self, node: yaml.Node) -> kinds.CardKind | None:
        """The card's kind, read ahead so unknown fields can be judged against it."""
        if node.tag != MAP:
            return None
        for key, value in node.value:
            if key.tag == STR and key.value == "kind":
                if value.tag != STR or id(value) in self._seen:
                    return None
                kind = kinds.named(value.value)
                if kind is None:
                    self._seen.add(id(value))
                    names = [k.name for k in kinds.registered()]
                    self.report(
                        value,
                        f"unknown kind '{value.value}' (expected one of {', '.join(names)})"
                        f"{did_you_mean(value.value, names)}",
                    )
                return kind
        return None

    def _check_cloze(self, text: str, node: yaml.Node) -> tuple[int, ...]:
        deletions, issues = cloze.parse(text)
        for check in self._cloze_checks:
            if issues:
                break
            issues = list(check(text, deletions))
        for issue in issues:
            self.problems.append(Problem(self.offset_pos(node, text, issue.offset), issue.message))
        return tuple(sorted({d.ordinal for d in deletions if d.ordinal > 0}))

    def _media(
        self, texts: dict[str, str], fields: dict[str, tuple[yaml.Node, yaml.Node]]
    ) -> list[str]:
        media: list[str] = []
        seen: set[str] = set()
        for name, text in texts.items():
            if "![" not in text:
                continue
            for offset, target in markdown_checks.images(text):
                if target not in self._image_problems:
                    # One look at the file system per image, however many cards show it.
                    self._image_problems[target] = image_problem(self.path.parent, target)
                problem = self._image_problems[target]
                if problem:
                    where = self.offset_pos(fields[name][1], text, offset)
                    self.problems.append(Problem(where, problem))
                    continue
                # Compared as stored: "./a.png", "a.png" and "a%2Epng" are one image.
                normal = image_file(target)
                if normal not in seen:
                    seen.add(normal)
                    media.append(normal)
        return media
