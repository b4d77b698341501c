"""Anki's own backend as the oracle for cloze text: what `validate` accepts, Anki reads as the
deck means it, both as written and as the HTML the export renders from its Markdown."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest
from anki.collection import Collection
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from zerodrill.deck import cloze
from zerodrill.export.anki_cloze import cloze_issues
from zerodrill.export.html import render

SCALE = 20 if os.environ.get("ZERODRILL_HEAVY") else 1
# The hint is read up to the span's end: a hint may itself hold "]<" (`[r]` in code).
_ANKI_HINT = re.compile(
    r'<span class="cloze" data-cloze="[^"]*" data-ordinal="(\d+)">\[(.*?)\]</span>'
)
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*?(/?)>")
_VOID = {"br", "img", "hr"}


@pytest.fixture(scope="module")
def col(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Collection]:
    folder: Path = tmp_path_factory.mktemp("anki")
    c = Collection(str(folder / "collection.anki2"))
    try:
        yield c
    finally:
        c.close()


def anki_reads(col: Collection, field: str) -> dict[int, tuple[list[str], list[str]]]:
    """Each cloze number Anki finds in ``field``: the answers it asks for and the hints it shows."""
    note = col.new_note(col.models.by_name("Cloze"))
    note["Text"] = field
    out: dict[int, tuple[list[str], list[str]]] = {}
    for n in note.cloze_numbers_in_fields():
        answers = col.extract_cloze_for_typing(field, n).split(", ")
        question = note.ephemeral_card(ord=n - 1).question()
        hints = [hint for o, hint in _ANKI_HINT.findall(question) if int(o) == n]
        out[n] = (answers, hints)
    return out


def accepted(text: str) -> list[cloze.Deletion] | None:
    """The deletions validate finds in a cloze card's ``text``, or None if it refuses it."""
    deletions, issues = cloze.parse(text)
    if issues or cloze_issues(text, deletions):
        return None
    return deletions


def ours(deletions: list[cloze.Deletion]) -> dict[int, tuple[list[str], list[str]]]:
    out: dict[int, tuple[list[str], list[str]]] = {}
    for d in deletions:
        answers, hints = out.setdefault(d.ordinal, ([], []))
        answers.append(d.answer)
        hints.append(d.hint if d.hint is not None else "...")
    for answers, _hints in out.values():
        if len(set(answers)) == 1:  # Anki asks once for an answer that every deletion shares
            del answers[1:]
    return out


@pytest.mark.parametrize(
    "text",
    [
        "{{{c1::x}}",
        "{{c01::x}} and {{c1::y::why}}",
        "{{c1::a:::b}}",
        "{{c1::x}} {{c2::y::h::i}}",
        "{{c1::x {{ y}}",
    ],
)
def test_corners_that_validate_accepts_read_the_same_in_anki(col: Collection, text: str) -> None:
    deletions = accepted(text)
    assert deletions is not None
    assert anki_reads(col, text) == ours(deletions)


@pytest.mark.parametrize(
    "text",
    [
        "{{c1::a}}}",  # Anki: answer "a", then "}"; the author may have meant "a}"
        "{{c1:: }}",  # Anki asks for a blank
        "{{c1::a::}}",  # Anki shows "[]", the drill "[...]"
        "{{c1::a {{c2::b}} c}}",  # nested: Anki supports it, the drill and export do not
        "{{c1::`std::vector`}}",  # Anki: answer "`std", hint "vector`"
        "{{c1001::x}}",  # beyond the export's card IDs
        "{{c\u0661::x}}",  # Anki reads only ASCII digits
    ],
)
def test_corners_that_anki_reads_otherwise_are_refused(text: str) -> None:
    assert accepted(text) is None


_RAW_PIECES = ["{", "}", ":", "a", "b c", "`"]


def cloze_texts(pieces: list[str], noise: list[str]) -> st.SearchStrategy[str]:
    """Text from ``pieces``, with whole deletions (of pieces) and some ``noise`` mixed in:
    most random text is refused, and a property of accepted text needs accepted text."""
    fill = st.lists(st.sampled_from(pieces), max_size=4).map("".join)
    answer = st.lists(st.sampled_from(pieces), min_size=1, max_size=4).map("".join)
    deletion = st.builds(
        lambda n, answer, hint: f"{{{{c{n}::{answer}{'' if hint is None else '::' + hint}}}}}",
        st.sampled_from(["1", "2", "01"]),
        answer,
        st.none() | answer,
    )
    return st.lists(st.one_of(fill, deletion, deletion, st.sampled_from(noise)), max_size=6).map(
        "".join
    )


_NOISE = ["{{c1::", "{{c2::", "{{", "}}", "::"]


@settings(max_examples=600 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cloze_texts(_RAW_PIECES, _NOISE))
def test_what_validate_accepts_anki_reads_as_we_do(col: Collection, text: str) -> None:
    # Anki's tokenizer on the text as written: the same numbers, answers and hints.
    deletions = accepted(text)
    event("accepted" if deletions is not None else "refused")
    if deletions is None:
        return
    assert anki_reads(col, text) == ours(deletions)


# Markdown around and inside deletions: links, images, code, fences, tables, headings,
# emphasis, entities, escapes and raw HTML.
_MARKDOWN_PIECES = [
    "a",
    "b c",
    " ",
    "`",
    "```",
    "\n",
    "\n\n",
    "*",
    "**",
    "[l](https://x.org/",
    '"t")',
    ")",
    "![alt](a.png)",
    "![",
    "](a.png)",
    "<https://x.org/",
    ">",
    "| ",
    " |",
    "|---|\n",
    "# ",
    "- ",
    "&#58;",
    "&#32;",
    "&#123;",
    "\\",
    "<b>",
    "[r]: https://x.org/",
    "[r]",
]


def _text(html: str) -> str:
    return unescape(_TAG.sub("", html)).strip()


def balanced(html: str) -> bool:
    """Whether every tag ``html`` opens it also closes, in order, and it closes no other."""
    stack: list[str] = []
    for closing, name, self_closing in _TAG.findall(html):
        name = name.lower()
        if name in _VOID or self_closing:
            continue
        if not closing:
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack


@settings(max_examples=600 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cloze_texts(_MARKDOWN_PIECES, _NOISE))
@example("{{c2::*ab c}}{{c2::\\*ab c}}")  # found by the fuzzer: two spellings, one answer
@example("{{c2::```}}{{c2::![alt](a.png)}}")  # found by the fuzzer: two answers with no text
@example("{{c1::a::`[r]`}}")  # found by the fuzzer: a hint holding "]<"
@example("{{c1::[r]: https://x.org/}}{{c1::[r]: https://x.org/a}}")  # found by the fuzzer
@example("`{{c2::\na}}`{{c2::\na}}")  # found by the fuzzer: one answer rendered two ways
def test_what_validate_accepts_exports_to_html_anki_reads_as_meant(
    col: Collection, text: str
) -> None:
    # The fuzzer over cloze-in-Markdown: the exported field has the deck's cloze numbers, as
    # many answers for each, and every answer and hint is whole HTML (no element cut in two).
    deletions = accepted(text)
    event("accepted" if deletions is not None else "refused")
    if deletions is None:
        return
    field = render(text, media={"a.png": "a.png"}, cloze_field=True)
    read = anki_reads(col, field)
    expected = ours(deletions)
    assert sorted(read) == sorted(expected), field
    for n, (answers, hints) in read.items():
        # Anki asks for each answer as the field renders it: answers written differently can
        # render alike (`*a` and `\\*a` are both "*a") and are asked once, as answers written
        # alike are; one answer written twice can render apart (a line break inside code is a
        # space, outside it is not) and is asked twice. Asking for each is never wrong ("```"
        # and an image have no text, yet differ), so only asking once must be explained.
        written = [d.answer for d in deletions if d.ordinal == n]
        shown = {_text(render(a, media={"a.png": "a.png"})) for a in written}
        asked_each = len(set(written)) <= len(answers) <= len(written)
        assert asked_each or (len(answers) == 1 and len(shown) == 1), field
        for part in answers + hints:
            assert balanced(part), (part, field)
        for answer in answers:  # no blank to recall
            assert "<img" in answer or unescape(_TAG.sub("", answer)).strip(), field
        if len(answers) != len(expected[n][0]):
            continue  # merged or split by rendering: no answer to pair with its own
        for ours_answer, anki_answer in zip(expected[n][0], answers, strict=True):
            if re.fullmatch(r"[a-z ]+", ours_answer):
                assert anki_answer == ours_answer, field
