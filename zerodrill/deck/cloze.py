"""Anki's cloze syntax, ``{{c1::answer}}`` and ``{{c1::answer::hint}}``, parsed and checked.

Anki knows nothing of Markdown: the first ``}}`` after an opener ends the deletion, even when it
sits inside a code span. The checks here catch that, and every other way a deletion would
render differently in Anki than its author meant.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

_TOKEN = re.compile(r"\{\{c(\d+)::|\{\{|\}\}")
_BACKTICKS = re.compile(r"`+")


@dataclass(frozen=True, slots=True)
class Deletion:
    ordinal: int
    answer: str
    hint: str | None
    start: int  # offset of "{{"
    end: int  # offset just past "}}"


@dataclass(frozen=True, slots=True)
class ClozeIssue:
    offset: int
    message: str


def code_spans(text: str) -> list[tuple[int, int]]:
    """Offsets of Markdown code spans and fences: a run of N backticks up to the next run of N."""
    spans: list[tuple[int, int]] = []
    runs = list(_BACKTICKS.finditer(text))
    i = 0
    while i < len(runs):
        opener = runs[i]
        for j in range(i + 1, len(runs)):
            if len(runs[j].group()) == len(opener.group()):
                spans.append((opener.start(), runs[j].end()))
                i = j + 1
                break
        else:
            i += 1
    return spans


def _span_at(spans: list[tuple[int, int]], offset: int) -> tuple[int, int] | None:
    for start, end in spans:
        if start <= offset < end:
            return (start, end)
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


def parse(text: str) -> tuple[list[Deletion], list[ClozeIssue]]:
    """The deletions in ``text``, and every problem with them."""
    found: list[Deletion] = []
    issues: list[ClozeIssue] = []
    spans = code_spans(text) if "`" in text else []
    open_at: re.Match[str] | None = None
    # After a deletion has been cut short, the braces that follow are its debris: one report
    # about the cause helps more than a cascade about the symptoms.
    broken = False
    for role, token, opener in _tokens(text):
        in_code = _span_at(spans, token.start())
        if role == _OPEN:
            open_at = token
            if int(token.group(1)) == 0:
                issues.append(ClozeIssue(token.start(), "cloze numbers start at c1, not c0"))
        elif role == _NESTED:
            issues.append(ClozeIssue(token.start(), "nested cloze deletions are not supported"))
            broken = True
        elif role == _BRACES:
            if open_at is None and in_code is None:
                issues.append(
                    ClozeIssue(
                        token.start(),
                        "'{{' does not open a cloze deletion (write {{c1::answer}})",
                    )
                )
        elif role == _STRAY:
            if in_code is None and not broken:
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
            if not deletion.answer.strip():
                issues.append(ClozeIssue(opener.start(), "empty cloze deletion"))
            found.append(deletion)
            open_at = None
    if open_at is not None:
        issues.append(ClozeIssue(open_at.start(), "cloze deletion is never closed with '}}'"))
    if not found and not issues:
        issues.append(ClozeIssue(0, "cloze card has no deletion (mark one as {{c1::answer}})"))
    return found, issues


def render(
    text: str,
    ordinal: int,
    *,
    reveal: bool,
    hidden: Callable[[Deletion], str] = lambda d: f"[{d.hint or '...'}]",
    shown: Callable[[Deletion], str] = lambda d: d.answer,
) -> str:
    """``text`` with deletion ``ordinal`` hidden (or marked when revealed), others filled in."""
    out: list[str] = []
    last = 0
    for d in deletions(text):
        out.append(text[last : d.start])
        if d.ordinal == ordinal:
            out.append(shown(d) if reveal else hidden(d))
        else:
            out.append(d.answer)
        last = d.end
    out.append(text[last:])
    return "".join(out)


def answers(text: str, ordinal: int) -> list[str]:
    """The answers a learner must recall for deletion ``ordinal``, in order."""
    return [d.answer for d in deletions(text) if d.ordinal == ordinal]
