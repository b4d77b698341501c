"""Anki's cloze syntax, ``{{c1::answer}}`` and ``{{c1::answer::hint}}``, parsed and checked.

Anki knows nothing of Markdown: the first ``}}`` after an opener ends the deletion, even when it
sits inside a code span. The checks here catch that, and every other way a deletion would
render differently in Anki than its author meant.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator

from msgspec import Struct

#: The largest cloze number a deck may use: the export gives a note's cards consecutive IDs
#: from the note's, and note IDs are spaced this far apart.
MAX_ORDINAL = 1000
# Read as Anki's tokenizer (rslib cloze.rs) reads text, one character at a time: an opener
# wherever "{{c<ASCII digits>::" starts, even after another brace ("{{{c1::" opens at 1), and
# a closer at each "}}". "{{" that opens nothing is matched at the last brace of a run, so a
# run of braces before an opener does not hide it, and no lookahead scans the run again.
_TOKEN = re.compile(r"\{\{c([0-9]+)::|\}\}|\{\{(?!\{|c[0-9]+::)")
_BACKTICKS = re.compile(r"`+")
# Anything written like a deletion's opener, from the first brace of its run: braces, a c,
# a number, colons, with blanks between. Anki reads only "{{c<digits>::" (after any braces)
# as one; the rest is a typo of one (:func:`_misread`). Possessive, so a long run of braces
# or blanks that ends in no opener is passed over once.
_MARKER = re.compile(r"(?<!\{)(\{++)([ \t]*+)([cC])([ \t]*+)([0-9]*+)([ \t]*+)(:++)", re.ASCII)


class Deletion(Struct, frozen=True):
    ordinal: int
    answer: str
    hint: str | None
    start: int  # offset of "{{"
    end: int  # offset just past "}}"


class ClozeIssue(Struct, frozen=True):
    offset: int
    message: str


def code_spans(text: str) -> list[tuple[int, int]]:
    """Offsets of Markdown code spans and fences: a run of N backticks up to the next run of N."""
    spans: list[tuple[int, int]] = []
    runs = list(_BACKTICKS.finditer(text))
    # Each run's next run of the same length, found in one pass from the end: pairing then
    # never searches ahead, so text full of unmatched runs costs no more than any other.
    following: list[int | None] = [None] * len(runs)
    last_of_length: dict[int, int] = {}
    for j in range(len(runs) - 1, -1, -1):
        length = runs[j].end() - runs[j].start()
        following[j] = last_of_length.get(length)
        last_of_length[length] = j
    i = 0
    while i < len(runs):
        closer = following[i]
        if closer is None:
            i += 1
        else:
            spans.append((runs[i].start(), runs[closer].end()))
            i = closer + 1
    return spans


def span_at(spans: list[tuple[int, int]], offset: int) -> tuple[int, int] | None:
    """The span of ``spans`` (sorted, disjoint, as :func:`code_spans` gives) holding ``offset``."""
    i = bisect_right(spans, offset, key=lambda span: span[0]) - 1
    if i >= 0 and spans[i][0] <= offset < spans[i][1]:
        return spans[i]
    return None


# How Anki reads each token: a deletion's opener, an opener inside an open deletion (Anki
# ignores it), braces that open nothing, the closer of the open deletion, a closer with none
# open.
_OPEN, _NESTED, _BRACES, _CLOSE, _STRAY = "open", "nested", "braces", "close", "stray"


def _tokens(text: str) -> Iterator[tuple[str, re.Match[str], re.Match[str] | None]]:
    """Each cloze token in ``text`` as Anki reads it: (role, token, the deletion's opener).

    The one place deletions are paired: a deletion opens at ``{{cN::`` and ends at the first
    ``}}`` after it; anything else between is text to Anki.
    """
    open_at: re.Match[str] | None = None
    for token in _TOKEN.finditer(text):
        if token.group(1) is not None:
            if open_at is None:
                open_at = token
                yield _OPEN, token, token
            else:
                yield _NESTED, token, open_at
        elif token.group() == "{{":
            yield _BRACES, token, open_at
        elif open_at is None:
            yield _STRAY, token, None
        else:
            yield _CLOSE, token, open_at
            open_at = None


def _deletion(text: str, opener: re.Match[str], closer: re.Match[str]) -> Deletion:
    answer, sep, hint = text[opener.end() : closer.start()].partition("::")
    return Deletion(
        int(opener.group(1)), answer, hint if sep else None, opener.start(), closer.end()
    )


def deletions(text: str) -> list[Deletion]:
    """The deletions Anki finds in ``text``, in order (:func:`parse` also checks them)."""
    if "{{" not in text:
        return []
    return [
        _deletion(text, opener, token)
        for role, token, opener in _tokens(text)
        if role == _CLOSE and opener is not None
    ]


def _misread(marker: re.Match[str]) -> str | None:
    """What Anki makes of a would-be deletion opener, if it is not the one its author meant.

    Anki's tokenizer (rslib cloze.rs) opens a deletion only at ``{{c`` and ASCII digits then
    ``::``, case and blanks as written; anything else is shown as typed, in a code span as
    much as in prose. Three colons or more open a deletion whose answer keeps the others.
    """
    braces, blank1, c, blank2, digits, blank3, colons = marker.groups()
    number = digits or "1"
    right = f"{{{{c{number}::"
    faults: list[str] = []
    if len(braces) < 2:
        if not digits or len(colons) < 2:
            return None  # "{c: 1}" is code, not a typo of a marker
        faults.append("one opening brace")
    if c == "C":
        faults.append("a capital C")
    if blank1 or blank2 or blank3:
        faults.append("blanks inside")
    if not digits:
        faults.append("no number")
    if len(colons) == 1:
        faults.append("one colon")
    written = marker.group().lstrip("{")
    written = "{" * min(len(braces), 2) + written
    if faults:
        return (
            f"'{written}' is not a cloze marker to Anki ({', '.join(faults)}): it opens no "
            "deletion there, and Anki and the drill show it as typed, braces and all; "
            f"write '{right}'"
        )
    if len(colons) > 2:
        others = "colon" if len(colons) == 3 else "colons"
        return (
            f"'{written}' has {len(colons)} colons: Anki opens the deletion at '{right}' and "
            f"reads the other {others} as part of it (the answer's start, or a hint's "
            f"separator); write '{right}'"
        )
    return None


def misread_markers(text: str) -> list[ClozeIssue]:
    """Every would-be deletion opener in ``text`` that Anki reads otherwise than meant (or not
    at all), in code spans and fences too (:func:`_misread`)."""
    if "{" not in text:
        return []
    issues: list[ClozeIssue] = []
    for marker in _MARKER.finditer(text):
        message = _misread(marker)
        if message is not None:
            issues.append(ClozeIssue(marker.start(), message))
    return issues


def parse(text: str) -> tuple[list[Deletion], list[ClozeIssue]]:
    """The deletions in ``text``, and every problem with them."""
    found: list[Deletion] = []
    issues: list[ClozeIssue] = []
    spans = code_spans(text) if "`" in text else []
    open_at: re.Match[str] | None = None
    # After a deletion has been cut short, the braces that follow are its debris: one report
    # about the cause helps more than a cascade about the symptoms.
    broken = False
    # A misread opener is reported as such (:func:`misread_markers`), where it stands; the
    # braces it starts and the first '}}' after it are its own, and not reported again.
    misread = misread_markers(text)
    issues.extend(misread)
    misread_at = {issue.offset for issue in misread}
    pending = 0  # misread openers passed whose '}}' is still to come
    marked = 0  # how many of them have been passed
    opener_misread = False
    for role, token, opener in _tokens(text):
        in_code = span_at(spans, token.start())
        while marked < len(misread) and misread[marked].offset < token.end():
            marked += 1
            pending += 1
        if role == _OPEN:
            open_at = token
            opener_misread = _run_start(text, token.start()) in misread_at
            if opener_misread:
                pending -= 1  # its '}}' closes this deletion
            number = int(token.group(1))
            if number == 0:
                issues.append(ClozeIssue(token.start(), "cloze numbers start at c1, not c0"))
            elif number > MAX_ORDINAL:
                issues.append(
                    ClozeIssue(
                        token.start(),
                        f"cloze number c{number} is too large (a card may number its "
                        f"deletions up to c{MAX_ORDINAL})",
                    )
                )
        elif role == _NESTED:
            issues.append(ClozeIssue(token.start(), "nested cloze deletions are not supported"))
            broken = True
        elif role == _BRACES:
            start = _run_start(text, token.start())
            if start in misread_at:
                pass
            elif open_at is None and in_code is None:
                issues.append(
                    ClozeIssue(
                        start,
                        "'{{' does not open a cloze deletion (write {{c1::answer}})",
                    )
                )
        elif role == _STRAY:
            if pending > 0:
                pending -= 1
            elif in_code is None and not broken:
                issues.append(ClozeIssue(token.start(), "'}}' has no matching '{{c1::' before it"))
        else:
            assert opener is not None
            if in_code is not None and in_code[0] > opener.start():
                issues.append(
                    ClozeIssue(
                        token.start(),
                        "'}}' inside code ends the cloze deletion early in Anki; "
                        "keep braces out of deletions or add a space between them",
                    )
                )
                broken = True
            elif text.startswith("}", token.end()):
                issues.append(
                    ClozeIssue(
                        token.start(),
                        "'}}}' is ambiguous: Anki ends the deletion at the first '}}'",
                    )
                )
                broken = True
            deletion = _deletion(text, opener, token)
            if opener_misread:
                pass  # its colons are reported, and explain its answer
            elif not deletion.answer.strip():
                issues.append(ClozeIssue(opener.start(), "empty cloze deletion"))
            elif deletion.hint is not None and not deletion.hint.strip():
                issues.append(
                    ClozeIssue(
                        opener.start(),
                        "empty hint after '::' (Anki would show '[]'): write a hint or "
                        "leave out the '::'",
                    )
                )
            found.append(deletion)
            open_at = None
    if open_at is not None:
        issues.append(ClozeIssue(open_at.start(), "cloze deletion is never closed with '}}'"))
    if not found and not issues:
        issues.append(ClozeIssue(0, "cloze card has no deletion (mark one as {{c1::answer}})"))
    return found, issues


def _run_start(text: str, at: int) -> int:
    """Where the run of braces that ``text[at]`` belongs to starts."""
    while at > 0 and text[at - 1] == "{":
        at -= 1
    return at


def rewrite(text: str, each: Callable[[Deletion], str]) -> str:
    """``text`` with each deletion, markers and all, replaced by ``each(deletion)``."""
    out: list[str] = []
    last = 0
    for d in deletions(text):
        out += (text[last : d.start], each(d))
        last = d.end
    out.append(text[last:])
    return "".join(out)


def render(
    text: str,
    ordinal: int,
    *,
    reveal: bool,
    hidden: Callable[[Deletion], str] = lambda d: f"[{d.hint or '...'}]",
    shown: Callable[[Deletion], str] = lambda d: d.answer,
) -> str:
    """``text`` with deletion ``ordinal`` hidden (or marked when revealed), others filled in."""
    mine = shown if reveal else hidden
    return rewrite(text, lambda d: mine(d) if d.ordinal == ordinal else d.answer)


def answers(text: str, ordinal: int) -> list[str]:
    """The answers a learner must recall for deletion ``ordinal``, in order."""
    return [d.answer for d in deletions(text) if d.ordinal == ordinal]


def markdown(text: str, ordinal: int, *, reveal: bool) -> str:
    """What a cloze item shows as Markdown: deletion ``ordinal`` blanked, or its answer in bold."""
    # Inside a code span Markdown shows characters as they are, so markup must stay out; in
    # prose the blank is escaped (so "[...]" is never read as a link) and the answer is bold.
    spans = code_spans(text) if "`" in text else []

    def in_code(d: Deletion) -> bool:
        return span_at(spans, d.start) is not None

    def hidden(d: Deletion) -> str:
        blank = f"[{d.hint or '...'}]"
        return blank if in_code(d) else blank.replace("[", r"\[").replace("]", r"\]")

    def shown(d: Deletion) -> str:
        if in_code(d):
            return d.answer
        # Markdown emphasises nothing whose inside starts or ends with a space ("** a **"
        # shows its asterisks): the answer's own spaces stay, outside the bold.
        core = d.answer.strip()
        if not core:
            return d.answer
        start = d.answer.index(core)
        return f"{d.answer[:start]}**{core}**{d.answer[start + len(core) :]}"

    return render(text, ordinal, reveal=reveal, hidden=hidden, shown=shown)


def blanks(text: str, ordinal: int) -> tuple[list[str], list[str]]:
    """The answers to deletion ``ordinal`` in order, and the text the card shows between
    each two of them (the other deletions filled in), to check a typed answer against."""
    mine = [d for d in deletions(text) if d.ordinal == ordinal]
    pairs = zip(mine, mine[1:], strict=False)
    between = [render(text[a.end : b.start], ordinal, reveal=True) for a, b in pairs]
    return [d.answer for d in mine], between
