"""Every image the export renders is one the loader checked and packed: reference-style images
(``![alt][ref]`` with ``[ref]: path``) and inline ones a pattern misreads (brackets in the alt
text, parentheses or an entity in the path), so an exported card shows its picture."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from zerodrill.deck.load import load_paths
from zerodrill.export import apkg

T0 = 1_760_000_000.0
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def deck_with(tmp_path: Path, front: str) -> Path:
    body = "".join(f"      {line}\n" if line else "\n" for line in front.split("\n"))
    path = tmp_path / "deck.yaml"
    path.write_text(
        "deck: d\ntitle: T\ndescription: D\ncards:\n  - id: a\n    kind: basic\n"
        "    front: |\n" + body + "    back: B\n",
        encoding="utf-8",
    )
    (tmp_path / "img").mkdir(exist_ok=True)
    (tmp_path / "img" / "a.png").write_bytes(PNG)
    return path


@pytest.mark.parametrize(
    "front",
    [
        "![the diagram][d]\n\n[d]: img/a.png",
        '![d][]\n\n[d]: <img/a.png> "title"',
        "![d]\n\n[d]: ./img/a.png",
        "![the [big] picture](img/a.png)",
        "![a \\] b](img/a.png)",
        "![a](img/a&#46;png)",
    ],
    ids=["full", "collapsed", "shortcut", "brackets-in-alt", "escaped-bracket", "entity"],
)
def test_an_image_the_export_renders_is_packed(tmp_path: Path, front: str) -> None:
    result = load_paths([deck_with(tmp_path, front)])
    assert not result.problems
    (deck,) = result.decks
    assert deck.cards[0].media == ("img/a.png",)
    package = apkg.build(list(deck for deck in result.decks), clock=lambda: T0)
    with zipfile.ZipFile(io.BytesIO(package.data)) as z:
        (packed,) = json.loads(z.read("media")).values()
        assert z.read("0") == PNG
    assert packed.startswith("zerodrill-d-a-")


def test_a_parenthesis_in_an_image_path_is_part_of_it(tmp_path: Path) -> None:
    path = deck_with(tmp_path, "![a](img/a(1).png)")
    (tmp_path / "img" / "a(1).png").write_bytes(PNG)
    result = load_paths([path])
    assert not result.problems
    assert result.decks[0].cards[0].media == ("img/a(1).png",)


def test_an_image_in_code_is_text_not_an_image(tmp_path: Path) -> None:
    result = load_paths([deck_with(tmp_path, "`![a](../x.png)` is how not to do it")])
    assert not result.problems
    assert result.decks[0].cards[0].media == ()


def test_a_reference_style_image_outside_the_deck_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "deck").mkdir()
    path = deck_with(tmp_path / "deck", "See ![x][d].\n\n[d]: ../secret.png")
    (tmp_path / "secret.png").write_bytes(PNG)
    result = load_paths([path])
    assert [(p.pos.line, p.pos.col, p.message) for p in result.problems] == [
        (8, 11, "image '../secret.png' is outside the deck's folder")
    ]


# -- issue 36, break 4: a '%' in an image's path, one rule for validate and export ----------


def shown_by_export(path: Path) -> tuple[tuple[str, ...], str]:
    """The files the deck's one card packs, and its front as exported HTML."""
    from zerodrill.export.html import render
    from zerodrill.export.package import collect_media

    result = load_paths([path])
    assert not result.problems, result.problems
    (deck,) = result.decks
    media = collect_media([deck])
    return deck.cards[0].media, render(deck.cards[0].fields["front"], media=media.names["d"])


def test_a_percent_escape_in_an_image_path_is_read_as_a_url_by_validate_and_export(
    tmp_path: Path,
) -> None:
    # An image path is a URL: export (as Anki and a browser) decodes its escapes. Validate
    # read "sp%20ace.png" literally and refused it; now it names "sp ace.png" for both.
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "sp ace.png").write_bytes(PNG)
    media, html = shown_by_export(deck_with(tmp_path, "![x](img/sp%20ace.png)"))
    assert media == ("img/sp ace.png",)
    assert '<img src="zerodrill-d-sp-ace-' in html
    # A file whose name holds a '%' is named with '%25', and shown.
    (tmp_path / "img" / "pct%20.png").write_bytes(PNG)
    media, html = shown_by_export(deck_with(tmp_path, "![x](img/pct%2520.png)"))
    assert media == ("img/pct%20.png",)
    assert '<img src="zerodrill-d-pct-20-' in html


def test_a_literal_percent_name_is_refused_with_how_to_write_it(tmp_path: Path) -> None:
    # "pct%20.png" validated (the file exists under that name) but the export looked for
    # "pct .png" and showed the alt text: now validate reads it as export does, and says why.
    path = deck_with(tmp_path, "![x](img/pct%20.png)")
    (tmp_path / "img" / "pct%20.png").write_bytes(PNG)
    result = load_paths([path])
    assert [p.message for p in result.problems] == [
        "image 'img/pct%20.png' does not exist (read as a URL, it names 'img/pct .png': "
        "write %25 for a '%' in a file name)"
    ]
