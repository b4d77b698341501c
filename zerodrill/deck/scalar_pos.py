"""Where each character of a YAML scalar's value sits in the file.

A problem found inside a value (a control character, a cloze error, an image path) is reported
at the character itself. The value is not a slice of the file: quotes, escapes (``"\\e"`` is
one character, written as two), line folding (a break between two lines of a ``>`` or plain
scalar becomes a space), a block scalar's header, indentation and chomping all come between.
:func:`source_offsets` scans the scalar's source again the way YAML does and keeps, for each
character of the value, the offset in the file it came from: the escape's backslash for an
escaped character, the line break for a folded space.

Our scan is checked against the value the parser made; when they differ (a corner of YAML
this scan does not follow) it gives up, and the caller reports at the scalar's start.
Deck files reach here with ``\\n`` or ``\\r\\n`` line breaks only: the loader refuses the
other breaks YAML knows (U+0085, U+2028, U+2029, a lone CR) before parsing.
"""

from __future__ import annotations

_BLANK = " \t"
_ESCAPES = frozenset('0abt\tnvfre "/\\N_LP')
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def source_offsets(
    text: str, start: int, end: int, style: str | None, value: str
) -> list[int] | None:
    """For each character of ``value``, its offset in ``text``; None if the scan disagrees.

    ``start`` and ``end`` are the scalar's marks' indexes; ``style`` its node's style.
    """
    if style in ("|", ">"):
        return _block(text, start, value, folded=style == ">")
    if style in ("'", '"'):
        scanned = _flow(text, start + 1, end - 1, quote=style)
    else:
        scanned = _flow(text, start, end, quote=None)
    if scanned is None or scanned[0] != value:
        return None
    return scanned[1]


def _break_len(text: str, i: int) -> int:
    if text.startswith("\r\n", i):
        return 2
    return 1 if text[i : i + 1] == "\n" else 0


def _flow(text: str, i: int, end: int, quote: str | None) -> tuple[str, list[int]] | None:
    """A plain or quoted scalar's value, folded as YAML folds flow scalars."""
    out: list[str] = []
    at: list[int] = []
    pending: list[int] = []  # blanks seen on this line, kept only if more text follows
    while i < end:
        char = text[i]
        if char in _BLANK:
            pending.append(i)
            i += 1
            continue
        width = _break_len(text, i)
        if width:
            fold_at = i
            i += width
            empty: list[int] = []
            while True:
                while i < end and text[i] in _BLANK:
                    i += 1
                width = _break_len(text, i) if i < end else 0
                if not width:
                    break
                empty.append(i)
                i += width
            pending = []
            if empty:
                out.extend("\n" * len(empty))
                at.extend(empty)
            else:
                out.append(" ")
                at.append(fold_at)
            continue
        for p in pending:
            out.append(text[p])
            at.append(p)
        pending = []
        if quote == "'" and char == "'":
            if text[i + 1 : i + 2] != "'":
                return None
            out.append("'")
            at.append(i)
            i += 2
            continue
        if quote == '"' and char == "\\":
            consumed = _escape(text, i, end, out, at)
            if consumed is None:
                return None
            i = consumed
            continue
        out.append(char)
        at.append(i)
        i += 1
    for p in pending:
        out.append(text[p])
        at.append(p)
    return "".join(out), at


def _escape(text: str, i: int, end: int, out: list[str], at: list[int]) -> int | None:
    """The escape at ``text[i]`` (a backslash) appended; the offset after it, or None."""
    code = text[i + 1 : i + 2]
    width = _break_len(text, i + 1)
    if width:
        # An escaped line break joins the lines; blank lines after it still count.
        i += 1 + width
        while True:
            while i < end and text[i] in _BLANK:
                i += 1
            width = _break_len(text, i) if i < end else 0
            if not width:
                return i
            out.append("\n")
            at.append(i)
            i += width
    if code in _HEX_ESCAPES:
        digits = text[i + 2 : i + 2 + _HEX_ESCAPES[code]]
        try:
            out.append(chr(int(digits, 16)))
        except ValueError:
            return None
        at.append(i)
        return i + 2 + len(digits)
    if code in _ESCAPES:
        # The character itself does not matter here: only its place. The value comparison
        # at the end catches an escape this scan would have got wrong.
        out.append(_ESCAPED.get(code, code))
        at.append(i)
        return i + 2
    return None


_ESCAPED = {
    "0": "\0",
    "a": "\x07",
    "b": "\x08",
    "t": "\t",
    "n": "\n",
    "v": "\x0b",
    "f": "\x0c",
    "r": "\r",
    "e": "\x1b",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}


def _block(text: str, start: int, value: str, *, folded: bool) -> list[int] | None:
    """A ``|`` or ``>`` scalar's offsets; the indentation is the one that gives ``value``."""
    i = start + 1
    explicit = False
    chomping: bool | None = None
    while i < len(text) and text[i] in "+-123456789":
        if text[i] in "+-":
            chomping = text[i] == "+"
        else:
            explicit = True
        i += 1
    while i < len(text) and text[i] not in "\r\n":
        i += 1  # blanks and a comment
    i += _break_len(text, i)
    widest = _first_content_indent(text, i)
    # Without an indicator the indentation is the first content line's; with one it is the
    # parent's plus the indicator, and the parent is not in the node: try each in turn.
    candidates = range(max(widest, 1), 0, -1) if explicit else (widest,)
    for indent in candidates:
        scanned = _block_lines(text, i, indent, folded, chomping)
        if scanned[0] == value:
            return scanned[1]
    return None


def _first_content_indent(text: str, i: int) -> int:
    widest = 0
    while i < len(text):
        column = 0
        while i < len(text) and text[i] == " ":
            i += 1
            column += 1
        widest = max(widest, column)
        width = _break_len(text, i)
        if not width:
            return widest
        i += width
    return widest


def _block_lines(
    text: str, i: int, indent: int, folded: bool, chomping: bool | None
) -> tuple[str, list[int]]:
    out: list[str] = []
    at: list[int] = []
    i, breaks = _block_breaks(text, i, indent)
    line_break: int | None = None
    while i < len(text) and _column(text, i) == indent:
        for b in breaks:
            out.append("\n")
            at.append(b)
        leading_non_space = text[i] not in _BLANK
        while i < len(text) and text[i] not in "\r\n":
            out.append(text[i])
            at.append(i)
            i += 1
        line_break = i if i < len(text) else None
        i += _break_len(text, i)
        i, breaks = _block_breaks(text, i, indent)
        if i < len(text) and _column(text, i) == indent:
            if folded and leading_non_space and text[i] not in _BLANK and line_break is not None:
                if not breaks:
                    out.append(" ")
                    at.append(line_break)
            elif line_break is not None:
                out.append("\n")
                at.append(line_break)
        else:
            break
    if chomping is not False and line_break is not None:
        out.append("\n")
        at.append(line_break)
    if chomping is True:
        for b in breaks:
            out.append("\n")
            at.append(b)
    return "".join(out), at


def _block_breaks(text: str, i: int, indent: int) -> tuple[int, list[int]]:
    """Skip empty lines (up to ``indent`` spaces each): the offset after them, their breaks."""
    breaks: list[int] = []
    while True:
        line_start = i
        while i < len(text) and text[i] == " " and i - line_start < indent:
            i += 1
        width = _break_len(text, i)
        if not width:
            return i, breaks
        breaks.append(i)
        i += width


def _column(text: str, i: int) -> int:
    return i - (text.rfind("\n", 0, i) + 1)
