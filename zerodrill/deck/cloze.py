"""Anki's cloze syntax, ``{{c1::answer}}`` and ``{{c1::answer::hint}}``, parsed and checked.

Anki knows nothing of Markdown: the first ``}}`` after an opener ends the deletion, even when it
sits inside a code span. The checks here catch that, and every other way a deletion would
render differently in Anki than its author meant.
"""

from __future__ import annotations

import re
from collections.abc import Callable
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


def parse(text: str) -> tuple[list[Deletion], list[ClozeIssue]]:
    """The deletions in ``text``, and every problem with them."""
    deletions: list[Deletion] = []
    issues: list[ClozeIssue] = []
    spans = code_spans(text) if "`" in text else []
    open_at: re.Match[str] | None = None
    # After a deletion has been cut short, the braces that follow are its debris: one report
    # about the cause helps more than a cascade about the symptoms.
    broken = False
    for token in _TOKEN.finditer(text):
        raw = token.group()
        in_code = _span_at(spans, token.start())
        if token.group(1) is not None:
            if open_at is not None:
                issues.append(ClozeIssue(token.start(), "nested cloze deletions are not supported"))
                broken = True
                continue
            open_at = token
            if int(token.group(1)) == 0:
                issues.append(ClozeIssue(token.start(), "cloze numbers start at c1, not c0"))
        elif raw == "{{":
            if open_at is None and in_code is None:
                issues.append(
                    ClozeIssue(
                        token.start(),
                        "'{{' does not open a cloze deletion (write {{c1::answer}})",
                    )
                )
        else:  # "}}"
            if open_at is None:
                if in_code is None and not broken:
                    issues.append(
                        ClozeIssue(token.start(), "'}}' has no matching '{{c1::' before it")
                    )
                continue
            if in_code is not None and in_code[0] > open_at.start():
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
            body = text[open_at.end() : token.start()]
            answer, sep, hint = body.partition("::")
            if not answer.strip():
                issues.append(ClozeIssue(open_at.start(), "empty cloze deletion"))
            deletions.append(
                Deletion(
                    int(open_at.group(1)),
                    answer,
                    hint if sep else None,
                    open_at.start(),
                    token.end(),
                )
            )
            open_at = None
    if open_at is not None:
        issues.append(ClozeIssue(open_at.start(), "cloze deletion is never closed with '}}'"))
    if not deletions and not issues:
        issues.append(ClozeIssue(0, "cloze card has no deletion (mark one as {{c1::answer}})"))
    return deletions, issues


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
    for d in parse(text)[0]:
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
    return [d.answer for d in parse(text)[0] if d.ordinal == ordinal]
