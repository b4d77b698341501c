"""Reading a YAML node graph as deck fields, each problem kept at its line and column.

PyYAML's composer gives nodes with positions; :class:`NodeReader` turns them into text, lists
and mappings while collecting problems instead of stopping at the first. It admits each node
once and only with a safe tag, so an alias bomb costs no more than its own bytes and
``!!python/object`` constructs nothing. What a deck is lives in :mod:`zerodrill.deck.load`.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from zerodrill.deck import yaml_hints
from zerodrill.deck.control_chars import CONTROL, describe, first_control
from zerodrill.deck.model import MAX_FIELD_CHARS, SLUG_PATTERN, SLUG_RULE, Pos, Problem
from zerodrill.deck.scalar_pos import source_offsets

if TYPE_CHECKING:
    import yaml

STR = "tag:yaml.org,2002:str"
SEQ = "tag:yaml.org,2002:seq"
MAP = "tag:yaml.org,2002:map"
NULL = "tag:yaml.org,2002:null"
_SLUG = re.compile(SLUG_PATTERN)
_SAFE_TAGS = frozenset(
    {STR, SEQ, MAP, NULL}
    | {f"tag:yaml.org,2002:{t}" for t in ("int", "float", "bool", "timestamp")}
)
_TYPE_NAMES = {
    SEQ: "a list",
    MAP: "a mapping",
    NULL: "empty",
    "tag:yaml.org,2002:int": "a number",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:bool": "a boolean",
    "tag:yaml.org,2002:timestamp": "a date",
}


def syntax_problem(exc: yaml.MarkedYAMLError, text: str, where: str) -> Problem:
    if exc.context == "while scanning a quoted scalar" and exc.context_mark is not None:
        # The scanner gives up where the file ends or a document marker stands, often far
        # below the quote that was never closed: the quote is what needs fixing.
        opened = exc.context_mark
        quote = text[opened.index : opened.index + 1] if opened.index < len(text) else '"'
        return Problem(
            Pos(where, opened.line + 1, opened.column + 1),
            f"YAML syntax error: the {quote} quote opened here is never closed",
        )
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line, mark.column) if mark is not None else (0, 0)
    problem = exc.problem or "syntax error"
    lines = text.split("\n")
    line, col = in_file(lines, line, col)
    row = lines[line]
    if "\t" in row[: col + 1] or "tab" in problem:
        tab = row.find("\t")
        return Problem(
            Pos(where, line + 1, (tab if tab >= 0 else col) + 1),
            "tab character in indentation: YAML indents with spaces",
        )
    started = exc.context_mark.line if exc.context_mark is not None else None
    advice = yaml_hints.hint(problem, lines, line, col, started)
    if exc.context and exc.context_mark is not None:
        problem = f"{problem} ({exc.context} started at line {exc.context_mark.line + 1})"
    elif exc.context:
        problem = f"{problem} ({exc.context})"
    if advice:
        problem = f"{problem}; hint: {advice}"
    return Problem(Pos(where, line + 1, col + 1), f"YAML syntax error: {problem}")


# An HTML numeric character reference: Markdown renderers (the drill's, Anki's browser) turn
# it into its character, so "&#x202e;" is a bidi override as surely as the character itself.
_REFERENCE = re.compile(r"&#(?:([0-9]{1,8})|[xX]([0-9a-fA-F]{1,7}));")


def _code(match: re.Match[str]) -> int:
    decimal, hexadecimal = match.groups()
    return int(decimal) if decimal is not None else int(hexadecimal, 16)


def _control_reference(text: str) -> re.Match[str] | None:
    if "&#" not in text:
        return None
    for match in _REFERENCE.finditer(text):
        code = _code(match)
        if code <= 0x10FFFF and CONTROL.match(chr(code)):
            return match
    return None


def in_file(lines: Sequence[str], line: int, col: int) -> tuple[int, int]:
    """A 0-based mark moved inside the file: libyaml puts the end of a file that lacks a
    final newline on a line after it, which no editor shows."""
    if line < len(lines):
        return line, col
    return len(lines) - 1, len(lines[-1].rstrip("\r"))


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    match = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{match[0]}'?)" if match else ""


def kind_of(node: yaml.Node) -> str:
    return _TYPE_NAMES.get(node.tag, "text" if node.tag == STR else "a value")


class NodeReader:
    """Walks one file's node graph, collecting problems instead of stopping at the first."""

    def __init__(self, where: str, text: str) -> None:
        self.where = where
        self.source = text
        self.lines = text.split("\n")
        self._line_starts: list[int] | None = None
        self._offsets: dict[int, list[int] | None] = {}
        self.problems: list[Problem] = []
        self._seen: set[int] = set()
        #: Each Markdown text read (a card's fields, the description, interviews and sheet),
        #: with its node and whether it is a cloze field: checks over all of a deck's text
        #: (:mod:`zerodrill.deck.config_keys`) read them from here.
        self.markdown: list[tuple[yaml.Node, str, bool]] = []

    def pos(self, node: yaml.Node) -> Pos:
        line, col = in_file(self.lines, node.start_mark.line, node.start_mark.column)
        return Pos(self.where, line + 1, col + 1)

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
        self,
        node: yaml.Node,
        allowed: Sequence[str],
        what: str,
        hints: Mapping[str, str] | None = None,
    ) -> dict[str, tuple[yaml.Node, yaml.Node]] | None:
        """The fields of mapping ``node``, each allowed once. ``hints`` maps names a writer may
        use by habit to the allowed name they mean, for what spelling alone would not suggest."""
        if not self.visit(node):
            return None
        if node.tag != MAP:
            self.report(node, f"{what} must be a mapping, not {kind_of(node)}")
            return None
        fields: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key, value in node.value:
            if not self.visit(key):
                continue
            if key.tag != STR:
                self.report(key, f"field names must be text, not {kind_of(key)}")
                continue
            name = key.value
            if name in fields:
                first = fields[name][0].start_mark.line + 1
                self.report(key, f"field '{name}' is given twice (first at line {first})")
                continue
            if name not in allowed:
                meant = (hints or {}).get(name)
                hint = f" (did you mean '{meant}'?)" if meant else did_you_mean(name, allowed)
                self.report(key, f"unknown field '{name}' in {what}{hint}")
                self._skip(value)
                continue
            fields[name] = (key, value)
        return fields

    def _skip(self, node: yaml.Node) -> None:
        """Still refuse unsafe tags and aliases below a field that is otherwise ignored."""
        if not self.visit(node):
            return
        if node.tag == MAP:
            for key, value in node.value:
                self._skip(key)
                self._skip(value)
        elif node.tag == SEQ:
            for child in node.value:
                self._skip(child)

    def slug(
        self, fields: Mapping[str, tuple[yaml.Node, yaml.Node]], name: str, what: str
    ) -> str | None:
        """The id in field ``name``, if given, text and a slug (else reported)."""
        if name not in fields:
            return None
        node = fields[name][1]
        value = self.text(node, name)
        if value is not None and not _SLUG.fullmatch(value):
            self.report(node, f"{what} must be {SLUG_RULE}")
            return None
        return value

    def text(self, node: yaml.Node, name: str, *, required: bool = True) -> str | None:
        if not self.visit(node):
            return None
        if node.tag == NULL and not required:
            return ""
        if node.tag != STR:
            hint = " (quote it)" if node.tag not in (SEQ, MAP, NULL) else ""
            if node.tag in (SEQ, MAP) and getattr(node, "flow_style", False):
                # {{c1::...}} or [x] at a value's start, meant as text.
                opener, read = ("{", "a mapping") if node.tag == MAP else ("[", "a list")
                hint = f" (a value that starts with {opener} is read as {read}: quote it)"
            self.report(node, f"field '{name}' must be text, not {kind_of(node)}{hint}")
            return None
        value = str(node.value)
        if len(value) > MAX_FIELD_CHARS:
            self.report(
                node,
                f"field '{name}' is {len(value):,} characters long, more than the "
                f"{MAX_FIELD_CHARS:,} a field may hold: split it into several cards",
            )
            return None
        control = first_control(value)
        if control is not None:
            self.problems.append(
                Problem(
                    self.offset_pos(node, value, control),
                    f"control character {describe(value[control])} is not allowed in field "
                    f"'{name}' (only tab and newline are)",
                )
            )
            return None
        reference = _control_reference(value)
        if reference is not None:
            self.problems.append(
                Problem(
                    self.offset_pos(node, value, reference.start()),
                    f"'{reference.group()}' stands for control character "
                    f"{describe(chr(_code(reference)))}, which is not allowed in field '{name}'",
                )
            )
            return None
        # After the control check: Python counts U+001C-U+001F and the line separators as
        # blanks, and a field of them is better named than called empty.
        if required and not value.strip():
            self.report(node, f"field '{name}' is empty")
            return None
        return value

    def strings(
        self,
        node: yaml.Node,
        name: str,
        pattern: re.Pattern[str] | None,
        rule: str = SLUG_RULE,
    ) -> list[tuple[str, yaml.Node]]:
        """A list of text values, each with its node (for positions); each value matches
        ``pattern`` whole, which ``rule`` says in words for the message if one does not."""
        if not self.visit(node) or node.tag == NULL:
            return []
        if node.tag != SEQ:
            self.report(node, f"field '{name}' must be a list, not {kind_of(node)}")
            return []
        out: list[tuple[str, yaml.Node]] = []
        for child in node.value:
            value = self.text(child, f"{name}[]")
            if value is None:
                continue
            if pattern is not None and not pattern.fullmatch(value):
                self.report(child, f"'{value}' in '{name}' must be {rule}")
                continue
            out.append((value, child))
        return out

    def missing(self, node: yaml.Node, what: str, names: Iterable[str]) -> None:
        for name in names:
            self.report(node, f"{what} is missing required field '{name}'")

    def offset_pos(self, node: yaml.Node, text: str, offset: int) -> Pos:
        """The file position of ``text[offset]``, ``text`` being ``node``'s value: exact when the
        scalar's source scans back to its value (see :mod:`zerodrill.deck.scalar_pos`), else
        the scalar's start."""
        key = id(node)
        if key not in self._offsets:
            style = getattr(node, "style", None) or None
            self._offsets[key] = source_offsets(
                self.source, node.start_mark.index, node.end_mark.index, style, text
            )
        offsets = self._offsets[key]
        if offsets is None or not 0 <= offset < len(offsets):
            return self.pos(node)
        return self.index_pos(offsets[offset])

    def index_pos(self, index: int) -> Pos:
        """The position of ``self.source[index]``, lines counted at LF as editors count them."""
        if self._line_starts is None:
            starts = [0]
            at = self.source.find("\n")
            while at >= 0:
                starts.append(at + 1)
                at = self.source.find("\n", at + 1)
            self._line_starts = starts
        line = bisect.bisect_right(self._line_starts, index) - 1
        return Pos(self.where, line + 1, index - self._line_starts[line] + 1)
