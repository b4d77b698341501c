"""The formats' registry (``zerodrill/export/formats.py``): what ``export`` says of a format, in its
help and after writing a file, comes from the format's own entry, so a format added there needs
no edit to the command."""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from pathlib import Path
from typing import cast

import pytest
from cli_support import run_cli

from zerodrill.deck.model import Deck
from zerodrill.deck.target_rules import TargetRules
from zerodrill.export import formats
from zerodrill.export.formats import FORMATS, ExportStats, Format, Progress

DATA = Path(__file__).parent / "data" / "export"


def _write_lines(decks: Sequence[Deck], out: Path, progress: Progress | None) -> ExportStats:
    ids = [card.id for deck in decks for card in deck.cards if not card.retired]
    out.write_text("".join(f"{card_id}\n" for card_id in ids), encoding="utf-8")
    return ExportStats(decks=len(decks), notes=len(ids), cards=len(ids))


LINES = Format(
    "lines",
    ".lines",
    "each card's id on a line of its own, for a test",
    TargetRules("lines", app="a test"),
    _write_lines,
    lambda stats: f"{stats.cards} ids on {stats.cards} lines",
)


@pytest.fixture
def lines_format(monkeypatch: pytest.MonkeyPatch) -> Format:
    """A fifth format, registered for one test and taken away after it."""
    monkeypatch.setitem(cast(MutableMapping[str, Format], FORMATS), "lines", LINES)
    return LINES


def test_help_lists_each_format_with_its_own_words(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run_cli(capsys, "export", "--help")
    assert code == 0
    flat = " ".join(out.split())
    for fmt in FORMATS.values():
        assert f"{fmt.name}: {fmt.summary}" in flat
    assert "--format [apkg|tsv|csv|txt]" in flat
    assert "FILE.apkg (or FILE.tsv, FILE.csv, FILE.txt, as --format says)" in flat


def test_a_format_added_to_the_registry_is_in_the_help_and_writes_its_own_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines_format: Format
) -> None:
    code, out, _err = run_cli(capsys, "export", "--help")
    assert code == 0
    flat = " ".join(out.split())
    assert "--format [apkg|tsv|csv|txt|lines]" in flat
    assert "lines: each card's id on a line of its own, for a test." in flat
    assert "FILE.txt, FILE.lines, as --format says" in flat

    code, out, err = run_cli(
        capsys, "export", "--format", "lines", str(DATA / "kinds"), "-o", f"{tmp_path}/"
    )
    assert (code, err) == (0, "")
    written = tmp_path / "export-kinds.lines"
    assert out == f"wrote {written}: 5 ids on 5 lines\n"
    assert written.read_text(encoding="utf-8").split() == [
        "stage-2",
        "stage-key",
        "config-fence",
        "fsdp",
        "stage3-default",
    ]
    code, _out, err = run_cli(
        capsys, "export", "--format", "lines", str(DATA / "kinds"), "-o", str(tmp_path / "x.csv")
    )
    assert code != 0 and "name the file FILE.lines" in err
    # The format's rules are checked with every other format's.
    assert LINES.rules in formats.all_rules()


def test_a_format_taken_away_is_no_choice(capsys: pytest.CaptureFixture[str]) -> None:
    # The fixture above restored the registry: "lines" is unknown again.
    assert "lines" not in FORMATS
    code, out, err = run_cli(capsys, "export", "--format", "lines", str(DATA / "kinds"))
    assert code == 2 and out == ""
    assert "'lines'" in err and all(f"'{name}'" in err for name in ("apkg", "tsv", "csv", "txt"))


@pytest.mark.parametrize(
    "name, stats, says",
    [
        (
            "apkg",
            ExportStats(1, 5, 6, media=2),
            "1 deck, 5 notes, 6 cards (a note per deck card, "
            "a card per cloze deletion), 2 media files",
        ),
        ("tsv", ExportStats(2, 3, 3), "2 decks, 3 notes, 3 cards"),
        (
            "csv",
            ExportStats(1, 5, 6),
            "1 deck, 6 cards (from 5 deck cards: a card per cloze deletion)",
        ),
        ("txt", ExportStats(1, 1, 1), "1 deck, 1 card"),
    ],
)
def test_each_format_counts_what_its_file_holds(name: str, stats: ExportStats, says: str) -> None:
    # Notes and cards only for Anki's formats; a card a line, cards alone.
    assert FORMATS[name].counts(stats) == says
