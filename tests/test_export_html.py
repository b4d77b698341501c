"""Markdown → Anki HTML: escaping, links, images, highlighting and cloze markers."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zerodrill.deck import cloze
from zerodrill.deck.links import safe_link
from zerodrill.deck.load import load_paths
from zerodrill.export.html import _protect_cloze, escape, render
from zerodrill.export.notes import note_fields


def test_raw_html_is_escaped() -> None:
    out = render("<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>")
    assert "<script" not in out and "<img" not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out


@pytest.mark.parametrize(
    "link",
    [
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "<javascript:alert(1)>",
        "[x](data:text/html,hi)",
        "[x](vbscript:x)",
        "[x](file:///etc/passwd)",
        "[x](/relative)",
    ],
)
def test_only_web_and_mail_links_survive(link: str) -> None:
    out = render(link)
    assert "<a " not in out and "href" not in out


def test_safe_links_are_kept() -> None:
    out = render("[docs](https://www.deepspeed.ai/) and [me](mailto:a@b.c)")
    assert '<a href="https://www.deepspeed.ai/" rel="noopener noreferrer">docs</a>' in out
    assert 'href="mailto:a@b.c"' in out


def test_images_point_at_packed_media_or_become_their_alt_text() -> None:
    media = {"img/a b.png": "zerodrill-d-a-b-123.png"}
    out = render(
        "![one](<img/a b.png>) ![two](./img/a%20b.png) ![far](https://x/y.png)", media=media
    )
    assert out.count('src="zerodrill-d-a-b-123.png"') == 2
    assert "https://x" not in out and "far" in out


def test_cloze_markers_survive_in_text_code_spans_and_fences() -> None:
    src = (
        "Set `{{c1::zero_optimization}}.{{c2::stage::a key}}` to **{{c3::3}}**.\n\n"
        "```python\nconfig = {'stage': {{c4::3::number}} }\n```"
    )
    out = render(src, cloze_field=True)
    assert "<code>{{c1::zero_optimization}}.{{c2::stage::a key}}</code>" in out
    assert "<strong>{{c3::3}}</strong>" in out
    # The deletion in the fence wraps whole highlighted tokens, so Anki's markup nests.
    (fenced,) = re.findall(r"\{\{c4::(.*?)\}\}", out)
    assert fenced.startswith("<span") and fenced.endswith("::number")
    assert fenced.count("<span") == fenced.count("</span>")
    assert len(re.findall(r"\{\{c\d+::", out)) == 4 and out.count("}}") == 4


@pytest.mark.parametrize(
    "src",
    [
        "&#123;&#123;c1::x&#125;&#125;",
        "\\{\\{c1::x\\}\\}",
        "`{{ jinja }}`",
        '```json\n{"a": {"b": {}}}\n```',
        "{{c1::not in a cloze field}}",
    ],
)
def test_no_braces_pair_up_except_real_deletions(src: str) -> None:
    out = render(src)
    assert "{{" not in out and "}}" not in out


def test_anki_media_and_tts_tags_are_defused() -> None:
    out = render("[sound:x.mp3] [anki:tts]hi[/anki:tts]")
    assert "[sound:" not in out and "[anki:" not in out
    assert "[sound:" not in escape("[sound:x.mp3]")


def test_tables_and_fences_render() -> None:
    out = render('| a | b |\n|---|---|\n| 1 | 2 |\n\n```json\n{"stage": 3}\n```\n\n```\nplain\n```')
    assert "<table>" in out and "<td>1</td>" in out
    assert '<pre class="zd-code"><code><span class="p">' in out
    assert "<pre><code>plain\n</code></pre>" in out


def test_private_use_characters_cannot_forge_markers() -> None:
    # With a real deletion present the placeholders are restored, so forged ones would be too.
    out = render("{{c1::a}} \ue0002\ue001forged\ue003", cloze_field=True)
    assert out.count("{{") == 1 and "{{c1::a}}" in out
    assert "{{c2::" not in out


_CLOZE_PIECES = ["{{c1::", "{{c2::", "{{c0::", "{{c01::", "{{", "{", "}}", "}", "::", "a", " ", "`"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_CLOZE_PIECES), max_size=16).map("".join))
def test_cloze_placeholders_mark_exactly_the_deletions_cloze_parse_finds(text: str) -> None:
    # The export pairs deletions with cloze.deletions, validation with cloze.parse: one pairing.
    expected: list[str] = []
    last = 0
    for d in cloze.parse(text)[0]:
        expected += [text[last : d.start], f"<{d.ordinal}>{d.answer}"]
        expected += [f"|{d.hint}" if d.hint is not None else "", "</>"]
        last = d.end
    expected.append(text[last:])
    got = _protect_cloze(text)
    for placeholder, shown in (
        ("\ue000", "<"),
        ("\ue001", ">"),
        ("\ue002", "|"),
        ("\ue003", "</>"),
    ):
        got = got.replace(placeholder, shown)
    assert got == "".join(expected)


_HREFS = [
    "https://www.deepspeed.ai/",
    "HTTP://EXAMPLE.ORG/x",
    "mailto:a@b.c",
    "MailTo:a@b.c",
    "http:no-slashes",
    "ftp://example.org/f",
    "javascript:alert(1)",
    "data:text/html,hi",
    "/relative",
    "docs/page",
]


@pytest.mark.parametrize("href", _HREFS)
def test_links_in_fields_and_sources_follow_the_one_safe_link_rule(href: str) -> None:
    """Card text and the sources list keep a link exactly when deck.links.safe_link allows it
    (the drill draws links by the same rule)."""
    assert ("<a " in render(f"[x]({href})")) == safe_link(href)
    (deck,) = load_paths([Path(__file__).parent / "data" / "export" / "kinds"]).decks
    card = replace(deck.cards[0], refs=(href,))
    sources = note_fields(card, {})[-1]
    assert ("<a " in sources) == safe_link(href)
    assert safe_link(href) == href.lower().startswith(("http://", "https://", "mailto:"))


@pytest.mark.parametrize(
    ("markdown", "live"),
    [
        ("[latex]x[/latex]", "[latex]"),
        ("[LaTeX]x[/LATEX]", "[LaTeX]"),
        ("[$]x[/$]", "[$]"),
        ("[$$]x[/$$]", "[$$]"),
        ("\\\\(x\\\\)", "\\("),
        ("\\\\[x\\\\]", "\\["),
        ("`\\(x\\)`", "\\("),
        ("```\n\\[x\\]\n```", "\\["),
        ("[[type:front]]", "[[type:"),
        ("[SOUND:x.mp3]", "[SOUND:"),
        ("&#91;latex]x&#91;/latex]", "[latex]"),  # entities Markdown decodes
        ("&#92;(x&#92;)", "\\("),
    ],
)
def test_anki_math_and_field_syntax_are_defused_unless_asked_for(markdown: str, live: str) -> None:
    assert live not in render(markdown)
    if "&" not in markdown:
        assert live not in escape(markdown.strip("`\n"))
    if live != "[[type:" and not live.lower().startswith("[sound"):
        assert live in render(markdown, math=True)
    assert "[[type:" not in render("[[type:x]]", math=True)


def test_validate_refuses_an_anki_math_that_is_not_a_boolean(tmp_path: Path) -> None:
    deck = tmp_path / "d.yaml"
    deck.write_text(
        "deck: d\ntitle: D\ndescription: x\nanki_math: 'yes'\n"
        "cards:\n  - id: a\n    kind: basic\n    front: f\n    back: b\n"
    )
    (problem,) = load_paths([deck]).problems
    assert str(problem) == f"{deck}:4:12: field 'anki_math' must be true or false, not text"


def test_raw_html_that_unfolds_one_piece_a_round_costs_a_bounded_number_of_parses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each rewritten opener here turns the next backtick into a code span's end, revealing
    one more tag: without a bound, a field of n of them took n parses of the whole field."""
    from zerodrill.deck import raw_html

    parses = 0
    real = raw_html.raw_html_spans

    def counted(text: str) -> list[tuple[int, int]]:
        nonlocal parses
        parses += 1
        return real(text)

    monkeypatch.setattr(raw_html, "raw_html_spans", counted)
    out = render("<a href='`'>`" * 200)
    assert parses <= 10
    assert "<a" not in out and out.count("&lt;a href=") == 200


def test_a_huge_field_is_rendered_without_pygments(monkeypatch: pytest.MonkeyPatch) -> None:
    from zerodrill.export import html

    code = "x = {'a': [1, 2]} < 3\n" * 11_000  # 242,000 characters
    monkeypatch.setattr(html, "_highlight", lambda *_: pytest.fail("highlighted"))
    out = render(f"```python\n{code}```\n")
    assert len(code) > html.HIGHLIGHT_MAX_CHARS
    assert out.count("x = &#123;'a': [1, 2]&#125; &lt; 3\n") == code.count("\n")
    monkeypatch.undo()
    assert 'class="zd-code"' in render(f"```python\n{code[:1000]}```\n")


def test_deletions_in_highlighted_code_cost_linear_work() -> None:
    """Counted in lines of html.py run (no clock): each token once, each deletion once.

    Each token of the code used to look at every deletion still to come, so a fence with
    thousands of deletions took seconds."""
    import sys

    from zerodrill.export import html

    def lines_run(deletions: int) -> int:
        code = "".join(
            f"x{i} = {{{{c1::{i}::h}}}}; y = 'a{{{{c2::b}}}}'\n" for i in range(deletions)
        )
        count = 0

        def trace(frame, event, _arg):  # type: ignore[no-untyped-def]
            nonlocal count
            if frame.f_code.co_filename != html.__file__:
                return None
            count += event == "line"
            return trace

        sys.settrace(trace)
        try:
            out = render(f"```python\n{code}```\n", cloze_field=True)
        finally:
            sys.settrace(None)
        assert out.count("{{c1::") == deletions and out.count("{{c2::") == deletions
        return count

    small, large = lines_run(100), lines_run(400)
    assert large < 5 * small  # 4 times the deletions: about 4 times the work, not 16


def test_the_markdown_parser_is_configured_in_one_place() -> None:
    # Validate's checks, the export, the preview and the sheet parse the deck's Markdown with
    # one configuration (zerodrill/deck/markdown_syntax.py), so they cannot drift apart.
    import zerodrill

    package = Path(zerodrill.__file__).parent
    makers = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if "pyromark.Markdown(" in path.read_text(encoding="utf-8")
    )
    assert makers == ["deck/markdown_syntax.py"]
