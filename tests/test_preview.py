"""``zerodrill preview``: every card as Anki shows it, on one page that loads nothing else.

That each card's HTML is exactly Anki's is checked against Anki's own renderer in
test_export_anki.py; here, the page: every card, both sides, both looks, escaping, no
outside resource.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from cli_support import run_cli

DATA = Path(__file__).parent / "data" / "export"


class Page(HTMLParser):
    """The page's tags, the attributes that load things, its captions and its styles."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.loads: list[tuple[str, str, str]] = []
        self.captions: list[str] = []
        self.styles: list[str] = []
        self.cards: list[str] = []
        self._in: str | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._in = tag
        for name, value in attrs:
            if name in ("src", "srcset", "poster", "data", "action", "background") or (
                name == "href" and tag != "a"
            ):
                self.loads.append((tag, name, value or ""))
            if name == "class" and value and value.split()[0] == "card":
                self.cards.append(value)

    def handle_data(self, data: str) -> None:
        if self._in == "figcaption":
            self.captions.append(data)
        elif self._in == "style":
            self.styles.append(data)

    def handle_endtag(self, tag: str) -> None:
        self._in = None


def write_page(tmp_path: Path, capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[str, str]:
    out = tmp_path / "preview.html"
    code, stdout, err = run_cli(capsys, "preview", *map(str, paths), "-o", str(out))
    assert (code, err) == (0, ""), err
    return out.read_text(encoding="utf-8"), stdout


def test_every_card_is_on_the_page_question_and_answer_light_and_night(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, said = write_page(tmp_path, capsys, DATA / "kinds", DATA / "media")
    # As many cards as the export makes: one per note, one per cloze deletion.
    assert said == f"wrote {tmp_path / 'preview.html'}: 8 cards from 2 decks\n"
    keys = re.findall(r'<section class="zp-card" id="card-\d+"><h2>([^ <]+)', text)
    assert keys == [
        "export-kinds/stage-2",
        "export-kinds/stage-key#c1",
        "export-kinds/stage-key#c2",
        "export-kinds/config-fence#c1",
        "export-kinds/fsdp",
        "export-kinds/stage3-default",
        "export-kinds/old-card",
        "export-media/diagram",
    ]
    page = Page(text)
    looks = ["question · light", "answer · light", "question · night", "answer · night"]
    assert page.captions == looks * len(keys)
    # Anki's classes: card<N> for the template or deletion, nightMode/night_mode at night.
    assert page.cards[8:12] == [
        "card card2",
        "card card2",
        "card card2 nightMode night_mode",
        "card card2 nightMode night_mode",
    ]
    # The note types' own CSS, light and night, is on the page.
    assert any(".card.nightMode, .card.night_mode" in style for style in page.styles)
    assert 'class="cloze" data-cloze="stage" data-ordinal="2">[a key]</span>' in text


def test_the_page_loads_nothing_from_outside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, _ = write_page(tmp_path, capsys, DATA / "kinds", DATA / "media", DATA / "hostile")
    page = Page(text)
    assert not {"script", "link", "iframe", "object", "embed", "base"} & set(page.tags)
    assert page.loads and all(
        value.startswith("data:image/png;base64,") for *_, value in page.loads
    )
    assert not any(re.search(r"url\(|@import", style) for style in page.styles)
    assert (
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">" in text
    )
    # Links in cards stay links (they open on a click, they load nothing).
    assert '<a href="https://example.com/" rel="noopener noreferrer">fine</a>' in text


def test_a_deck_s_text_arrives_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deck = (DATA / "hostile" / "deck.yaml").read_text(encoding="utf-8")
    path = tmp_path / "hostile.yaml"
    path.write_text(deck.replace("title: Export hostile", 'title: "A <b>bold</b> & co"'))
    text, _ = write_page(tmp_path, capsys, path)
    assert "<script" not in text.lower()
    assert not re.search(r"<[^>]*\son\w+\s*=", text, re.IGNORECASE)
    assert not re.search(r"(href|src)\s*=\s*\"?\s*javascript:", text, re.IGNORECASE)
    assert "<b>bold</b>" not in text and "A &lt;b&gt;bold&lt;/b&gt; &amp; co" in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt; plain" in text


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("page.txt", "page.txt: name the page FILE.html"),
        ("missing/page.html", "missing: no such folder"),
    ],
)
def test_an_output_it_cannot_write_is_one_line_and_nothing_is_made(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    output: str,
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, "preview", str(DATA / "kinds"), "-o", output)
    assert (code, err) == (1, f"zerodrill: {message}\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("output", ["afile/page.html", "afile/deeper/page.html"])
def test_a_file_where_the_folder_should_be_is_named_as_such(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    output: str,
) -> None:
    # Issue 36, break 12: "afile: no such folder", when afile is there and is a file.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_bytes(b"mine")
    code, _, err = run_cli(capsys, "preview", str(DATA / "kinds"), "-o", output)
    assert (code, err) == (1, "zerodrill: afile: not a folder\n")
    assert [p.name for p in tmp_path.iterdir()] == ["afile"]
    assert (tmp_path / "afile").read_bytes() == b"mine"


def test_the_four_panes_never_wrap_three_and_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 24: at 1200 px the panes wrapped 3 + 1 (auto-fit columns of at least 22em). The
    # page's own rules, read back: the columns at each viewport width are 1, 2 or 4.
    import re

    from zerodrill.cli.preview import _PAGE_CSS

    base = re.search(r"\.zp-grid \{[^}]*grid-template-columns: ([^;]+);", _PAGE_CSS)
    assert base is not None and "auto-fit" not in _PAGE_CSS and "auto-fill" not in _PAGE_CSS
    steps = [
        (float(em) * 16, int(n))
        for em, n in re.findall(
            r"@media \(min-width: ([\d.]+)em\) \{ \.zp-grid \{ grid-template-columns: "
            r"repeat\((\d+),",
            _PAGE_CSS,
        )
    ]
    assert steps

    def columns(px: int) -> int:
        found = 1
        for at, n in steps:
            if px >= at:
                found = n
        return found

    assert {columns(px) for px in range(240, 4000, 10)} == {1, 2, 4}
    assert columns(1200) == 4 and columns(1000) == 2 and columns(360) == 1
