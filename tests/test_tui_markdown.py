"""Card Markdown → one Rich renderable: what a reader sees, and what must never be interpreted."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style
from rich.text import Text

from zerodrill.deck.markdown_syntax import parser
from zerodrill.deck.raw_html import without_raw_html
from zerodrill.export.html import render as render_html
from zerodrill.tui.markdown import MarkdownStyles, parse, parse_markdown, quoted, render
from zerodrill.tui.markdown_tree import MAX_BLOCK_NESTING

CODE = Style(color="red")
LINK = Style(underline=True, color="blue")
STRING = Style(color="green")
KEY = Style(color="magenta")
NUMBER = Style(color="yellow")
STYLES = MarkdownStyles(
    code=CODE,
    link=LINK,
    syntax=(
        ("Token.Name.Tag", KEY),
        ("Token.Literal.String", STRING),
        ("Token.Literal.Number", NUMBER),
    ),
)


def lines(markdown: str, width: int = 60) -> list[str]:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(render(parse(markdown), STYLES))
    return [line.rstrip() for line in console.export_text().splitlines()]


def spans(markdown: str) -> list[tuple[str, Style]]:
    """(text, style) of each styled run of a one-paragraph document."""
    text = render(parse(markdown), STYLES)
    assert isinstance(text, Text)
    return [(text.plain[s.start : s.end], Style.parse(str(s.style))) for s in text.spans]


def test_paragraphs_are_a_blank_line_apart_and_soft_breaks_join() -> None:
    assert lines("one\ntwo\n\nthree") == ["one two", "", "three"]


def test_raw_html_is_shown_as_text_never_interpreted() -> None:
    shown = "\n".join(lines('<script>alert(1)</script>\n\nx <img src=x onerror="y"> z'))
    assert "<script>alert(1)</script>" in shown
    assert '<img src=x onerror="y">' in shown


def test_emphasis_and_code_carry_their_styles() -> None:
    runs = dict(spans("a **bold** and *it* and `code`"))
    assert runs["bold"].bold
    assert runs["it"].italic
    assert runs["code"] == CODE


def test_the_terminal_reads_the_decks_one_syntax_as_the_export_renders_it() -> None:
    # Strikethrough is no part of it: Anki shows ~~gone~~ as typed, and so does the drill.
    assert "~~gone~~" in render_html("a ~~gone~~ b")
    assert lines("a ~~gone~~ b") == ["a ~~gone~~ b"]
    assert not any(style.strike for _text, style in spans("a ~~gone~~ b"))
    # Tables are: a table in both.
    assert "<table>" in render_html("| a |\n|---|\n| b |")
    assert lines("| a |\n|---|\n| b |")[1:4] == ["│ a │", "├───┤", "│ b │"]


def test_only_safe_links_become_links() -> None:
    runs = dict(spans("[web](https://example.org) [ftp](ftp://example.org/f) [mail](mailto:a@b.c)"))
    assert runs["web"].link == "https://example.org"
    assert runs["mail"].link == "mailto:a@b.c"
    assert runs["ftp"].link is None
    assert runs["ftp"].underline  # still looks like the link it claims to be
    # Schemes are matched in any case, as the export matches them.
    assert dict(spans("[up](HTTPS://example.org)"))["up"].link == "HTTPS://example.org"
    # A script link is not even parsed as a link: it stays the text it was.
    assert lines("[js](javascript:alert(1))") == ["[js](javascript:alert(1))"]


def test_lists_keep_their_markers_numbers_and_nesting() -> None:
    assert lines("- one\n- two\n  - deeper") == ["• one", "• two", "  • deeper"]
    assert lines("3. three\n4. four") == ["3. three", "4. four"]


def test_a_long_list_item_wraps_under_its_text_not_under_the_bullet() -> None:
    out = lines("- " + "word " * 20, width=30)
    assert out[0].startswith("• word")
    assert all(line.startswith("  word") for line in out[1:] if line)


def test_tables_show_headers_and_cells_in_columns() -> None:
    out = lines("| stage | shards |\n|---|--:|\n| 1 | optimizer |\n| 2 | + grads |")
    header = next(line for line in out if "stage" in line)
    assert header.index("stage") < header.index("shards")
    row = next(line for line in out if "optimizer" in line)
    assert row.index("1") < row.index("optimizer")
    # The right-aligned column puts its shorter cell's end under the longer one's.
    grads = next(line for line in out if "+ grads" in line)
    assert row.index("optimizer") + len("optimizer") == grads.index("+ grads") + len("+ grads")


def test_fenced_json_is_highlighted_and_unknown_languages_are_plain() -> None:
    code = render(parse('```json\n{"stage": "all", "n": 3}\n```'), STYLES)
    console = Console(width=40, color_system=None, file=io.StringIO())
    segments = list(console.render(code))
    styled = {seg.text: seg.style for seg in segments if seg.text.strip()}
    assert styled['"stage"'] is not None and styled['"stage"'].color == KEY.color
    assert styled['"all"'] is not None and styled['"all"'].color == STRING.color
    assert styled["3"] is not None and styled["3"].color == NUMBER.color
    assert lines("```nosuchlanguage\nplain <b>text</b>\n```") == [" plain <b>text</b>"]


def test_block_quotes_are_barred_and_images_show_their_alt_text() -> None:
    assert lines("> careful\n> now") == ["▌ careful now"]
    assert lines("![the memory chart](chart.png)") == ["[image: the memory chart]"]


def test_a_quoted_claim_reads_as_a_markdown_quote_would() -> None:
    def drawn(renderable: object) -> list[str]:
        console = Console(width=40, record=True, color_system=None, file=io.StringIO())
        console.print(renderable)
        return [line.rstrip() for line in console.export_text().splitlines()]

    for claim in ("Just use stage 3.", "Use `stage: 3`\nalways."):
        assert drawn(quoted(parse(claim), STYLES)) == lines(f"> {claim}")


def test_empty_and_blank_text_render_as_nothing() -> None:
    for blank in ("", "   \n\n"):
        text = render(parse(blank), STYLES)
        assert isinstance(text, Text) and text.plain == ""


def shown_by_markdown(markdown: str) -> str:
    """The text CommonMark shows of a document read as the deck's syntax, its raw HTML as
    text (as the export reads it): no markers, link targets or fence info strings; an image
    is its alt text (its source when it has none)."""
    shown: list[str] = []
    images: list[tuple[str, int]] = []  # each open image's source, and where its alt starts
    for event in parser().events(without_raw_html(markdown)):
        match event:
            case {"Text": str(text)} | {"Code": str(text)}:
                shown.append(text)
            case {"Start": {"Image": {"dest_url": str(source)}}}:
                images.append((source, len(shown)))
            case {"End": "Image"}:
                source, start = images.pop()
                if not images and not "".join(shown[start:]):
                    shown.append(source)
    return "".join(shown)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab *_`#>-|[]()!<>\n\\1.~:"))))
def test_any_text_renders_and_shows_what_markdown_shows(markdown: str) -> None:
    lines(markdown, width=20)  # narrow: wrapped text, squeezed tables and lists, no error
    # Wide enough that nothing is cut: every "b" the parser shows is drawn, once, and no
    # other (the renderer's own marks have none). "[b]" drawn as text, never Rich markup.
    drawn = "".join(lines(markdown, width=40 + 4 * len(markdown)))
    assert drawn.count("b") == shown_by_markdown(markdown).count("b")


def test_plain_text_reads_as_paragraphs_and_markup_is_never_missed() -> None:
    assert lines("What does stage 2 shard? \n And why?\n \n\n  Second ") == [
        "What does stage 2 shard? And why?",
        "",
        "Second",
    ]
    # Text that is almost plain still gets its Markdown.
    assert dict(spans("What does `stage` shard?"))["stage"] == CODE
    assert lines("- a list") == ["• a list"]
    assert lines("a hard  \nbreak") == ["a hard", "break"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab Z9.,;:?()'\"/=-+>1\n\u00a0"))))
def test_plain_text_reads_exactly_as_the_parser_reads_it(text: str) -> None:
    def drawn(parsed: object) -> str:
        console = Console(width=30, record=True, color_system=None, file=io.StringIO())
        console.print(render(parsed, STYLES))  # type: ignore[arg-type]
        return console.export_text()

    assert drawn(parse(text)) == drawn(parse_markdown(text))


def test_the_terminal_parses_as_the_deck_parser_where_markdown_it_read_otherwise() -> None:
    # A tab and a space ending a line: pulldown-cmark (validate, the export) reads a hard
    # break, markdown-it read a soft one. The drill follows the deck's one parser.
    assert "<br />" in render_html("a\t \nb")
    assert lines("a\t \nb") == ["a", "b"]


def test_raw_html_reads_as_the_export_shows_it() -> None:
    # An HTML block is text, and the Markdown inside it is read, as the export reads it.
    assert render_html("<div>\n*x*\n</div>") == "<p>&lt;div&gt;\n<em>x</em>\n&lt;/div&gt;</p>"
    assert lines("<div>\n*x*\n</div>") == ["<div> x </div>"]
    assert dict(spans("<div>\n*x*\n</div>"))["x"].italic
    # A script link shows the source its author typed, raw HTML in it included.
    assert lines("[<b>x</b>](javascript:y)") == ["[<b>x</b>](javascript:y)"]


def test_quotes_and_lists_nested_thousands_deep_are_drawn_to_the_limit() -> None:
    # A field validate accepts must not exhaust the stack: deeper blocks are drawn at the
    # limit's depth, their text kept.
    deep_quote = lines(">" * 3000 + " x", width=200)
    assert deep_quote[0].count("▌") == MAX_BLOCK_NESTING
    assert deep_quote[0].rstrip().endswith("x")
    for deep in ("- " * 3000 + "x", "1. " * 2000 + "x\n" * 20, "> - " * 1500 + "x"):
        drawn = "".join(lines(deep, width=200))
        assert drawn.count("x") == deep.count("x")


def test_emphasis_nested_hundreds_deep_keeps_its_style() -> None:
    deep = "*a " * 300 + "core" + " b*" * 300
    assert all(style.italic for _text, style in spans(deep))
    assert "core" in "".join(text for text, _style in spans(deep))
