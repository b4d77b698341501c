"""`zerodrill sheet`: the night-before sheet in the terminal, as Markdown and as one HTML page,
escaped like every export; and as the Anki deck's description."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest
from cli_support import run_cli

from zerodrill.deck.load import load_paths
from zerodrill.export import apkg

DATA = Path(__file__).parent / "data"
HOSTILE = DATA / "sheet" / "hostile.yaml"
SAMPLE = DATA / "decks" / "sample.yaml"  # a deck without a sheet


def test_the_terminal_shows_every_bullet_of_the_bundled_sheet(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_cli(capsys, "sheet", "--deck", "deepspeed-zero")
    assert (code, err) == (0, "")
    lines = [line.rstrip() for line in out.splitlines()]
    assert lines[0] == "The night before: DeepSpeed ZeRO"
    assert " 1. zero_optimization.stage takes 0 to 3; 0, the default, means ZeRO is off." in lines
    assert "    cards: stage-key, stage0-meaning, rf-only-three-stages" in lines
    assert any(line.startswith("12. FSDP's FULL_SHARD") for line in lines)


def test_markdown_holds_each_bullet_and_its_cards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sheet.md"
    code, stdout, _ = run_cli(capsys, "sheet", "-o", str(out))
    assert code == 0 and stdout.strip() == f"wrote {out}"
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# The night before: DeepSpeed ZeRO\n\n")
    assert (
        "1. `zero_optimization.stage` takes 0 to 3; 0, the default, means ZeRO is off.  \n"
        "   *cards: stage-key, stage0-meaning, rf-only-three-stages*\n"
    ) in text
    assert len(re.findall(r"^\d+\. ", text, re.M)) == 12


def test_html_is_one_self_contained_page_for_light_dark_and_print(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sheet.html"
    assert run_cli(capsys, "sheet", "-o", str(out))[0] == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>The night before: DeepSpeed ZeRO</title>" in page
    assert "<code>zero_optimization.stage</code> takes 0 to 3" in page
    assert page.count("<li>") == 12
    assert "prefers-color-scheme: dark" in page
    assert "@media print" in page and "@page { size: A4" in page
    # Nothing is loaded from anywhere: no scripts, stylesheets, fonts, images or frames.
    for reference in ("<script", "<link", "<img", "<iframe", "src=", "url(", "@import"):
        assert reference not in page.lower(), reference


def test_deck_text_reaches_html_and_markdown_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    html_out, md_out = tmp_path / "h.html", tmp_path / "h.md"
    assert run_cli(capsys, "sheet", str(HOSTILE), "-o", str(html_out))[0] == 0
    assert run_cli(capsys, "sheet", str(HOSTILE), "-o", str(md_out))[0] == 0
    page = html_out.read_text(encoding="utf-8")
    assert "<script" not in page and "<img" not in page and "<b>" not in page
    assert not re.search(r"<[^>]*\son\w+\s*=", page)
    assert "javascript:" not in page
    assert "&lt;script&gt;alert('sheet')&lt;/script&gt; stays text" in page
    assert '<a href="https://example.org/" rel="noopener noreferrer">a good one</a>' in page
    assert "<title>The night before: Sheet &lt;b&gt;bold&lt;/b&gt; &amp;" in page
    # Anki's markup, were the page pasted into a card, is text too.
    assert "{{" not in page and "[sound:" not in page
    text = unescape(re.sub(r"<[^>]+>", "", page))
    assert "<script>alert('sheet')</script> stays text" in text
    markdown = md_out.read_text(encoding="utf-8")
    # Raw HTML is made text in the Markdown too: a viewer shows it as typed.
    assert "<script" not in markdown and "<img" not in markdown and "<b>" not in markdown
    assert "&lt;script>alert('sheet')&lt;/script> stays text" in markdown


def test_the_terminal_shows_deck_markup_as_typed(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "sheet", str(HOSTILE))
    assert code == 0
    assert "<script>alert('sheet')</script> stays text" in out
    assert "\x1b" not in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            [str(SAMPLE)],
            "zerodrill: no sheet in the decks (sample): add a 'sheet:' list of bullets to a "
            "deck (decks/README.md shows how)",
        ),
        (
            [str(SAMPLE), "--deck", "sample"],
            f"zerodrill: deck 'sample' has no sheet: add a 'sheet:' list of bullets to {SAMPLE} "
            "(decks/README.md shows how)",
        ),
        (["--deck", "nope"], "zerodrill: no deck with id 'nope' (decks: deepspeed-zero)"),
    ],
)
def test_no_sheet_is_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = run_cli(capsys, "sheet", *args)
    assert (code, out, err) == (1, "", message + "\n")


def test_a_file_that_is_neither_md_nor_html_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(capsys, "sheet", "-o", str(tmp_path / "sheet.txt"))
    assert code == 2
    assert "the sheet is written as FILE.md or FILE.html" in err
    assert not (tmp_path / "sheet.txt").exists()


def test_a_missing_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "nowhere" / "sheet.html"
    code, _, err = run_cli(capsys, "sheet", "-o", str(out))
    assert code == 1
    assert err == f"zerodrill: cannot write {out}: no folder {out.parent}\n"
    assert not out.parent.exists()


@pytest.mark.anki
def test_the_anki_deck_description_carries_the_sheet_escaped(tmp_path: Path) -> None:
    from anki.collection import Collection
    from test_export_anki import import_package

    (deck,) = load_paths([HOSTILE]).decks
    (zero,) = load_paths([Path(__file__).parent.parent / "decks"]).decks
    out = tmp_path / "pkg.apkg"
    apkg.export([deck, zero], out, clock=lambda: 1_760_000_000.0)
    (tmp_path / "anki").mkdir()
    col = Collection(str(tmp_path / "anki" / "collection.anki2"))
    try:
        import_package(col, out)
        descriptions = {d.name: col.decks.get(d.id)["desc"] for d in col.decks.all_names_and_ids()}
    finally:
        col.close()
    hostile = descriptions[deck.title]
    assert "Deck text is untrusted." in hostile
    assert "<h3>The night before</h3>" in hostile
    assert "&lt;script&gt;alert('sheet')&lt;/script&gt; stays text" in hostile
    assert "<script" not in hostile and "<img" not in hostile
    assert not re.search(r"<[^>]*\son\w+\s*=", hostile) and "javascript:" not in hostile
    assert "{{" not in hostile and "[sound:" not in hostile
    ours = descriptions[zero.title]
    assert ours.count("<li>") == 12
    assert "<li><p><code>zero_optimization.stage</code> takes 0 to 3" in ours


def test_a_link_or_image_in_the_title_is_text_in_the_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyromark

    title = "Evil [click](javascript:alert(1)) ![t](https://tracker.example/t.png) <b>x</b> *em*"
    deck = tmp_path / "deck.yaml"
    deck.write_text(
        HOSTILE.read_text(encoding="utf-8").replace(
            'title: "Sheet <b>bold</b> & {{title}}"', f"title: '{title}'"
        ),
        encoding="utf-8",
    )
    out = tmp_path / "sheet.md"
    assert run_cli(capsys, "sheet", str(deck), "-o", str(out))[0] == 0
    heading = out.read_text(encoding="utf-8").splitlines()[0]
    # Read by a CommonMark renderer as it is (no vetting of links, raw HTML allowed).
    html = pyromark.html(heading)
    assert "<a" not in html and "<img" not in html and "<b>" not in html and "<em>" not in html
    assert unescape(re.sub(r"<[^>]+>", "", html)).strip() == f"The night before: {title}"


def test_the_sheet_piped_has_no_padding_at_line_ends(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "sheet", "--deck", "deepspeed-zero")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "The night before: DeepSpeed ZeRO"
    assert not [line for line in lines if line != line.rstrip()]
    assert out.endswith("\n") and not out.endswith("\n\n")
