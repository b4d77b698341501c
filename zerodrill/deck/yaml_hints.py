"""A short hint after PyYAML's syntax error, naming the usual cause in a deck file.

PyYAML says what its parser met ("mapping values are not allowed in this context"); a deck
writer needs to know what they typed. The hint is chosen from the error and the line it points
at, and only for the causes that make up nearly every broken deck: an unquoted ``: `` inside a
value, text after a closing quote, a value that starts with a character YAML reserves,
indentation that does not match the lines above, and a bracket never closed. (A tab in the
indentation and a quote never closed get their own messages in :mod:`yaml_nodes`.)
"""

from __future__ import annotations

import re

from zerodrill.words import plural

# A line's key, after any "- " list markers: what precedes the first ": " (or a final ":").
_KEY = re.compile(r"^((?:- +)*)([^\s\"'#\[\]{}:-][^:#]*?|-[^\s:#][^:#]*?):(?: +|$)")
_INDENT = "did not find expected key", "did not find expected '-' indicator"


def hint(problem: str, lines: list[str], line: int, col: int, opened: int | None) -> str | None:
    """The hint for ``problem`` met at 0-based ``line``/``col`` of ``lines``, if one fits.

    ``opened`` is the 0-based line where the construct PyYAML was reading began, if it says.
    """
    row = lines[line]
    value = _value_start(row)
    after_value = value is not None and col > value
    if problem == "mapping values are not allowed in this context":
        if after_value and ": " in row[value : col + 2]:
            return (
                "an unquoted ': ' inside a value reads as a new key: put the whole value in "
                "quotes, or write it as a block (key: | and the text on the lines below)"
            )
        return _indentation(lines, line)
    if problem in _INDENT or problem == "could not find expected ':'":
        if value is not None and after_value and row[value] in "\"'[{":
            return _after_closing(row[value])
        subject = opened if problem == "could not find expected ':'" and opened else line
        return _indentation(lines, subject)
    if problem.startswith("did not find expected ','"):
        bracket = "[" if problem.endswith("']'") else "{"
        where = f" at line {opened + 1}" if opened is not None else ""
        return (
            f"the {bracket} opened{where} is never closed, or an item inside holds an "
            "unquoted ',', ']' or '}': quote such an item"
        )
    if problem == "found character that cannot start any token" and col < len(row):
        return f"YAML reserves {row[col]!r} at the start of a value: put the whole value in quotes"
    if problem == "block sequence entries are not allowed in this context":
        return "a value that starts with '- ' reads as a list: put the whole value in quotes"
    return None


def _value_start(row: str) -> int | None:
    """Where the value of a ``key: value`` line starts, or None if the line has no value."""
    match = _KEY.match(row.lstrip(" "))
    if match is None:
        return None
    start = len(row) - len(row.lstrip(" ")) + match.end()
    return start if start < len(row) else None


def _after_closing(opener: str) -> str:
    if opener in "[{":
        return (
            f"a value that starts with {opener!r} is read as a list or mapping up to its closing "
            "bracket, and text after it is an error: put the whole value in quotes"
        )
    inside = "write '' for a ' inside" if opener == "'" else 'write \\" for a " inside'
    return (
        f"the value's {opener} quote closes before the line ends: put the whole value in "
        f"quotes ({inside}), or write it as a block (key: | and the text below)"
    )


def _indentation(lines: list[str], line: int) -> str:
    """The hint for a line whose indentation does not fit the lines above it."""
    here = _indent(lines[line])
    above = next(
        (n for n in range(line - 1, -1, -1) if lines[n].strip() and not _comment(lines[n])),
        None,
    )
    if above is None:
        return "indentation does not match: keys of one mapping line up"
    there = _indent(lines[above])
    spaces = f"line {line + 1} is indented {plural(here, 'space')}, line {above + 1} {there}"
    if here > there:
        return (
            f"{spaces}: keys of one card line up; text that goes on from the line above "
            "must be in quotes or a block (key: |)"
        )
    return (
        f"{spaces}: keys of one mapping line up, each card's '- ' lines up with the others', "
        "and a block's text stays indented deeper than its key"
    )


def _indent(row: str) -> int:
    return len(row) - len(row.lstrip(" "))


def _comment(row: str) -> bool:
    return row.lstrip(" ").startswith("#")
