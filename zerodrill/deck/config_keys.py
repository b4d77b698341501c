"""The config keys a deck names, checked against the facts file the deck declares.

What a deck writes and what is checked: decks/README.md, "Config keys". The facts file's
``config_keys`` section, which a script reads out of the program's source
(``tests/data/deepspeed/extract.py`` for the ZeRO deck)::

    {"config_keys": {
      "block": "zero_optimization",                  # the config's block the keys are under
      "keys": {"stage": {"values": [0, 1, 2, 3]},    # every key path under the block,
               "max_live_parameters": {"aliases": ["stage3_max_live_parameters"]},
               "offload_param": {}, "offload_param.device": {"values": ["none", "cpu"]}},
      "top_level": ["train_batch_size", "zero_optimization"]}}   # the config's top-level keys
"""

from __future__ import annotations

import bisect
import difflib
import hashlib
import itertools
import json
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from zerodrill.deck import cloze, markdown_syntax
from zerodrill.deck.files import read_beside
from zerodrill.deck.markdown_checks import event_name
from zerodrill.deck.model import FactsFile
from zerodrill.deck.yaml_nodes import NodeReader, did_you_mean

if TYPE_CHECKING:
    import yaml

#: The fields of a deck's ``config_keys``.
FIELDS: tuple[str, ...] = ("facts", "prefixes", "known")
#: The section of the facts file this module reads; the file may hold anything else beside it.
SECTION = "config_keys"
#: How alike an identifier must be to a known key to be taken for a misspelling of it.
NEAR_MISS = 0.85

IDENTIFIER_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
KEY_PATH_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$"
_IDENTIFIER = re.compile(IDENTIFIER_PATTERN)
_KEY_PATH = re.compile(KEY_PATH_PATTERN)
#: ``"key": value`` or ``key: value`` in a code span: its key is checked.
_KEY_VALUE = re.compile(r'"?([A-Za-z_][A-Za-z0-9_.]*)"?\s*:\s*\S.*')
_JSON_INFO = "json"
_NAME = "an identifier: letters, digits and '_', not starting with a digit"
_KNOWN = "an identifier (letters, digits and '_', not starting with a digit) or a key path (a.b)"


class Facts(NamedTuple):
    """A facts file's ``config_keys`` section, as the checks use it."""

    block: str
    #: Each key path under the block (by field name), and the values it takes (None: any).
    keys: dict[str, tuple[Any, ...] | None]
    #: For each key path ("" for the block), the names its keys may be written with (field
    #: names and aliases), each with the path of the key it names.
    names: dict[str, dict[str, str]]
    top_level: frozenset[str]


def parse_facts(data: bytes) -> Facts | str:
    """The ``config_keys`` section of a facts file's bytes, or what is wrong with it."""
    try:
        whole = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return "is not UTF-8 text"
    except json.JSONDecodeError as exc:
        return f"is not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
    except RecursionError:
        return "is nested too deeply to read"
    section = whole.get(SECTION) if isinstance(whole, dict) else None
    if not isinstance(section, dict):
        return f"has no '{SECTION}' object at its top level"
    block, keys, top_level = (section.get(k) for k in ("block", "keys", "top_level"))
    if not (isinstance(block, str) and _IDENTIFIER.fullmatch(block)):
        return f"'{SECTION}.block' must be the name of the config's block of keys"
    if not (isinstance(top_level, list) and all(isinstance(k, str) for k in top_level)):
        return f"'{SECTION}.top_level' must be a list of the config's top-level keys"
    if not (isinstance(keys, dict) and keys):
        return f"'{SECTION}.keys' must map each key path under '{block}' to what it takes"
    values: dict[str, tuple[Any, ...] | None] = {}
    names: dict[str, dict[str, str]] = {"": {}}
    for path, entry in keys.items():
        if not _KEY_PATH.fullmatch(path) or not isinstance(entry, dict):
            return f"'{SECTION}.keys' has '{path}', which is not a key path with an object"
        aliases = entry.get("aliases", [])
        taken = entry.get("values")
        if not (isinstance(aliases, list) and all(isinstance(a, str) for a in aliases)):
            return f"'{SECTION}.keys.{path}.aliases' must be a list of names"
        if taken is not None and not isinstance(taken, list):
            return f"'{SECTION}.keys.{path}.values' must be a list of values"
        parent, _, name = path.rpartition(".")
        if parent and parent not in keys:
            return f"'{SECTION}.keys' has '{path}' but not '{parent}'"
        values[path] = tuple(taken) if taken is not None else None
        for written in (name, *aliases):
            names.setdefault(parent, {})[written] = path
    return Facts(block, values, names, frozenset(top_level))


class Mention(NamedTuple):
    """A key a deck's text names: where (an offset in the text), as written, the problem with
    it (None if the facts accept it), and the key paths under the block it names, by field name
    (none for a top-level or ``known`` key, the block itself or a wrong key). A bare name that
    several paths end in (``pin_memory``) names those whose parent the same text names in code
    (`offload_param`), if any."""

    offset: int
    written: str
    problem: str | None
    paths: tuple[str, ...] = ()


class Checker:
    """Checks text against one deck's ``config_keys``."""

    def __init__(
        self, facts: Facts, prefixes: Sequence[str], known: Sequence[str], facts_name: str
    ) -> None:
        self.facts = facts
        self.prefixes = tuple(prefixes)
        self.known = frozenset(known)
        self.facts_name = facts_name
        leaves = {name for level in facts.names.values() for name in level}
        #: The key paths each name (a field name or alias) ends.
        self._ends: dict[str, tuple[str, ...]] = {}
        for level in facts.names.values():
            for name, path in level.items():
                if path not in self._ends.get(name, ()):
                    self._ends[name] = (*self._ends.get(name, ()), path)
        #: What one identifier may be: a key of the block at any level, a top-level key, or known.
        self.accepted = frozenset(leaves | facts.top_level | {facts.block})
        self._bare = self.accepted | self.known
        self._judged: dict[str, str | None] = {}

    def redundant(self, identifier: str) -> bool:
        return identifier in self.accepted

    def check(self, text: str, *, cloze_field: bool) -> list[tuple[int, str]]:
        """Each problem in ``text`` (a Markdown field; ``cloze_field``: read deletions as
        their answers) as (offset in ``text``, message)."""
        return [(m.offset, m.problem) for m in self.mentions(text, cloze_field) if m.problem]

    def mentions(self, text: str, cloze_field: bool = False) -> list[Mention]:
        """Every key ``text`` names in code, in order, with its problem if any."""
        if "`" not in text and "~~~" not in text:
            return []
        plain, where = _shown(text) if cloze_field else (text, None)
        found: list[Mention] = []
        for kind, code in _code(plain):
            if kind is None:
                found.extend(self._span(code))
            elif kind == _JSON_INFO:
                found.extend(self._json(code))
        named = {path for m in found for path in m.paths}
        found = [
            m._replace(
                paths=tuple(p for p in self._ends[m.written] if p.rpartition(".")[0] in named)
            )
            if m.problem is None and not m.paths and len(self._ends.get(m.written, ())) > 1
            else m
            for m in found
        ]
        if where is None:
            return found
        return [m._replace(offset=where[m.offset]) for m in found]

    # -- code spans -----------------------------------------------------------------------

    def _span(self, code: _Text) -> Iterator[Mention]:
        content = code.text
        stripped = content.strip()
        start = content.index(stripped) if stripped else 0
        pair = _KEY_VALUE.fullmatch(stripped)
        if pair is not None:
            written, start = pair.group(1), start + pair.start(1)
        elif _KEY_PATH.fullmatch(stripped):
            written = stripped
        else:
            return
        at = code.source(start)
        segments = written.split(".")
        block = self.facts.block
        if written in self.known:
            yield Mention(at, written, None)
        elif segments[0] == block:
            if len(segments) > 1:
                yield Mention(at, written, *self._path(segments[1:], f"{block}."))
            else:
                yield Mention(at, written, None)
        elif len(segments) > 1:
            head = self.facts.names[""].get(segments[0])
            if head is not None and head in self.facts.names:
                yield Mention(at, written, *self._path(segments, ""))
        elif written in self._bare:
            ends = self._ends.get(written, ())
            yield Mention(at, written, None, ends if len(ends) == 1 else ())
        elif self._looks_like_key(written):
            yield Mention(at, written, self._unknown(written))

    def _looks_like_key(self, word: str) -> bool:
        if word.startswith(self.prefixes):
            return True
        if word not in self._judged:
            # Only a word of about its length can be that alike (the ratio is at most
            # 2 * shorter / (both lengths)): the others are not compared at all.
            low = len(word) * NEAR_MISS / (2 - NEAR_MISS)
            high = len(word) * (2 - NEAR_MISS) / NEAR_MISS
            near = [key for key in self._bare if low <= len(key) <= high]
            close = difflib.get_close_matches(word, near, n=1, cutoff=NEAR_MISS)
            self._judged[word] = close[0] if close else None
        return self._judged[word] is not None

    def _unknown(self, word: str) -> str:
        return (
            f"'{word}' looks like a config key, but {self.facts_name} has no such key"
            f"{did_you_mean(word, self._bare)}: correct it, or list it under config_keys' "
            "known with the reason it is right"
        )

    def _path(self, segments: Sequence[str], shown: str) -> tuple[str | None, tuple[str, ...]]:
        """The problem with key path ``segments`` under the block (written after ``shown``),
        and the key path it names (down to a key whose keys the file does not list)."""
        parent = ""
        for i, segment in enumerate(segments):
            level = self.facts.names.get(parent)
            if level is None:
                return None, (parent,)  # the file does not list this key's keys: any is taken
            child = level.get(segment)
            if child is None:
                written = shown + ".".join(segments)
                meant = difflib.get_close_matches(segment, list(level), n=1, cutoff=0.6)
                right = shown + ".".join([*segments[:i], meant[0]]) if meant else ""
                hint = f" (did you mean '{right}'?)" if right else ""
                return f"'{written}' is not a key in {self.facts_name}{hint}", ()
            parent = child
        return None, (parent,)

    # -- JSON fences ----------------------------------------------------------------------

    def _json(self, code: _Text) -> Iterator[Mention]:
        try:
            json.loads(code.text)
            root, _ = _parse(code.text, 0)
        except json.JSONDecodeError as exc:
            yield Mention(
                code.source(exc.pos),
                "",
                f"this json fence is not valid JSON ({exc.msg}), so the config keys in it "
                "cannot be checked: correct it, or mark the fence with another language",
            )
            return
        except RecursionError:  # nested past what Python reads: no config is
            return
        block = self.facts.block
        if isinstance(root, _Object) and any(m.key == block for m in root.members):
            for member in root.members:
                if member.key in self.facts.top_level or member.key in self.known:
                    yield Mention(code.source(member.at), member.key, None)
                else:
                    yield Mention(
                        code.source(member.at),
                        member.key,
                        f"'{member.key}' is not a top-level key of the config in "
                        f"{self.facts_name}{did_you_mean(member.key, self.facts.top_level)}",
                    )
        yield from self._blocks(root, code)

    def _blocks(self, value: Any, code: _Text) -> Iterator[Mention]:
        """Every object under the block's key, at any depth of ``value``, checked."""
        if isinstance(value, _Object):
            for member in value.members:
                if member.key == self.facts.block and isinstance(member.value, _Object):
                    yield from self._members(member.value, "", code)
                else:
                    yield from self._blocks(member.value, code)
        elif isinstance(value, list):
            for item in value:
                yield from self._blocks(item, code)

    def _members(self, obj: _Object, parent: str, code: _Text) -> Iterator[Mention]:
        level = self.facts.names.get(parent)
        if level is None:
            return  # the file does not list this key's keys
        for member in obj.members:
            shown = f"{self.facts.block}.{parent + '.' if parent else ''}{member.key}"
            child = level.get(member.key)
            if child is None:
                meant = difflib.get_close_matches(member.key, list(level), n=1, cutoff=0.6)
                right = shown.rpartition(".")[0] + "." + meant[0] if meant else ""
                hint = f" (did you mean '{right}'?)" if right else ""
                yield Mention(
                    code.source(member.at),
                    member.key,
                    f"'{shown}' is not a key in {self.facts_name}{hint}",
                )
                continue
            taken = self.facts.keys.get(child)
            if taken is not None and not isinstance(member.value, _Object | list):
                if not any(_same(member.value, v) for v in taken):
                    yield Mention(
                        code.source(member.value_at),
                        member.key,
                        f"'{shown}' takes {_listed(taken)} in {self.facts_name}, "
                        f"not {json.dumps(member.value)}",
                    )
                    continue
            yield Mention(code.source(member.at), member.key, None, (child,))
            if isinstance(member.value, _Object):
                yield from self._members(member.value, child, code)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _listed(values: Sequence[Any]) -> str:
    shown = [json.dumps(v) for v in values]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


# -- reading the deck's field ---------------------------------------------------------------


def read(reader: NodeReader, node: yaml.Node, folder: Path) -> tuple[Checker, FactsFile] | None:
    """A deck's ``config_keys`` field, its facts file read from ``folder``; None (with the
    problems reported) if either is wrong."""
    fields = reader.mapping(node, FIELDS, "config_keys")
    if fields is None:
        return None
    before = len(reader.problems)
    reader.missing(node, "config_keys", [f for f in ("facts",) if f not in fields])
    prefixes = (
        [p for p, _ in reader.strings(fields["prefixes"][1], "prefixes", _IDENTIFIER, _NAME)]
        if "prefixes" in fields
        else []
    )
    known = (
        reader.strings(fields["known"][1], "known", _KEY_PATH, _KNOWN) if "known" in fields else []
    )
    facts: Facts | None = None
    target = ""
    digest = ""
    if "facts" in fields:
        facts_node = fields["facts"][1]
        target = reader.text(facts_node, "facts") or ""
        if target:
            data = read_beside(folder, target)
            parsed = parse_facts(data) if isinstance(data, bytes) else data
            if isinstance(parsed, str):
                reader.report(facts_node, f"facts file '{target}' {parsed}")
            else:
                facts = parsed
                assert isinstance(data, bytes)
                digest = hashlib.sha256(data).hexdigest()
    if facts is None or len(reader.problems) > before:
        return None
    checker = Checker(facts, prefixes, [k for k, _ in known], target)
    for identifier, child in known:
        if checker.redundant(identifier):
            reader.report(child, f"'{identifier}' is a key in {target} already: drop it from known")
    return checker, FactsFile(target, digest)


# -- the text as shown, and the code in it ---------------------------------------------------


def _shown(text: str) -> tuple[str, list[int]]:
    """``text`` with each cloze deletion replaced by its answer, as the answer side shows it,
    and the offset in ``text`` of each of its characters."""
    out: list[str] = []
    where: list[int] = []
    last = 0
    for d in cloze.deletions(text):
        out.append(text[last : d.start])
        where.extend(range(last, d.start))
        answer = text.index("::", d.start) + 2
        out.append(d.answer)
        where.extend(range(answer, answer + len(d.answer)))
        last = d.end
    out.append(text[last:])
    where.extend(range(last, len(text) + 1))
    return "".join(out), where


class _Text(NamedTuple):
    """Code as the Markdown parser gives it, and where each of its characters is written."""

    text: str
    at: list[int]

    def source(self, offset: int) -> int:
        return self.at[min(offset, len(self.at) - 1)] if self.at else 0


def code(text: str, cloze_field: bool = False) -> list[tuple[str | None, str]]:
    """Each inline code span and code block of ``text`` (a Markdown field; ``cloze_field``:
    read deletions as their answers), in order, with its code: (None, code) for a span, (the
    block's language, lowercase, "" if none, code) for a block. What a deck names in code
    beyond its config keys (a method, say) is read from here, as the keys are."""
    plain = _shown(text)[0] if cloze_field else text
    return [(kind, found.text) for kind, found in _code(plain)]


def _code(text: str) -> Iterator[tuple[str | None, _Text]]:
    """Each inline code span (None) and code block (its language: "json", "python", "" if
    none) of ``text``, and its code, as the deck's Markdown parser reads them."""
    char = _char_offsets(text)
    fence: tuple[str, int, list[str], list[int]] | None = None
    for event, span in markdown_syntax.parser().events_with_range(text):
        name, payload, edge = event_name(event)
        start, end = char(span["start"]), char(span["end"])
        if name == "Code" and edge is None:
            ticks = len(text[start:end]) - len(text[start:end].lstrip("`"))
            inner_start, inner_end = start + ticks, end - ticks
            yield (
                None,
                _Text(text[inner_start:inner_end], list(range(inner_start, inner_end + 1))),
            )
        elif name == "CodeBlock" and edge == "Start":
            info = payload.get("Fenced") if isinstance(payload, dict) else None
            words = info.split() if isinstance(info, str) else []
            fence = (words[0].lower() if words else "", start, [], [])
        elif name == "CodeBlock" and edge == "End" and fence is not None:
            language, at, parts, offsets = fence
            fence = None
            yield language, _Text("".join(parts), [*offsets, offsets[-1] if offsets else at])
        elif name == "Text" and fence is not None and isinstance(payload, str):
            fence[2].append(payload)
            if text[start:end] == payload:
                fence[3].extend(range(start, end))
            else:  # the parser changed it (a tab, a line end): its start is near enough
                fence[3].extend([start] * len(payload))


def _char_offsets(text: str) -> Callable[[int], int]:
    if text.isascii():
        return lambda byte: byte
    starts = list(itertools.accumulate((len(c.encode()) for c in text), initial=0))
    return lambda byte: bisect.bisect_left(starts, byte)


# -- JSON with the place of each key and value ------------------------------------------------


class _Member(NamedTuple):
    key: str
    at: int
    value: Any
    value_at: int


class _Object(NamedTuple):
    members: list[_Member]


_SPACE = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null")


def _skip(text: str, i: int) -> int:
    space = _SPACE.match(text, i)
    return space.end() if space is not None else i


def _string(text: str, i: int) -> tuple[str, int]:
    found = _STRING.match(text, i)
    assert found is not None, "checked by json.loads first"
    value = json.loads(found.group())
    assert isinstance(value, str)
    return value, found.end()


def _parse(text: str, i: int) -> tuple[Any, int]:
    """The JSON value at ``text[i:]`` (known to be valid) and where it ends; objects as
    :class:`_Object`, so each key and value keeps its offset (and a key given twice is kept)."""
    i = _skip(text, i)
    first = text[i]
    if first == "{":
        members: list[_Member] = []
        i = _skip(text, i + 1)
        while text[i] != "}":
            key_at = i
            key, i = _string(text, i)
            value_at = _skip(text, _skip(text, i) + 1)  # past the ':'
            value, i = _parse(text, value_at)
            members.append(_Member(key, key_at, value, value_at))
            i = _skip(text, i)
            if text[i] == ",":
                i = _skip(text, i + 1)
        return _Object(members), i + 1
    if first == "[":
        items: list[Any] = []
        i = _skip(text, i + 1)
        while text[i] != "]":
            item, i = _parse(text, i)
            items.append(item)
            i = _skip(text, i)
            if text[i] == ",":
                i = _skip(text, i + 1)
        return items, i + 1
    if first == '"':
        return _string(text, i)
    scalar = _SCALAR.match(text, i)
    assert scalar is not None, "checked by json.loads first"
    return json.loads(scalar.group()), scalar.end()
