"""Cards that leave a deck: retired ones, and ones deleted without being retired."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_support import run_cli

from zerodrill.export import apkg

DATA = Path(__file__).parent / "data" / "export"


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run_cli(capsys, *args)


def test_the_retired_line_says_when_anki_suspends_them_and_how_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What Anki's importer does (tests/test_export_anki.py imports them both ways): it keeps
    the package's suspension only with scheduling, and never changes a card it has."""
    code, out, _ = _run(["export", str(DATA / "kinds"), "-o", str(tmp_path / "k.apkg")], capsys)
    assert code == 0
    (line,) = [line for line in out.splitlines() if not line.startswith("wrote ")]
    assert line.startswith("1 retired card tagged zerodrill::retired: ")
    said = (
        "Anki suspends them only where it is new to them and 'Import any learning progress' "
        "is on (its default import makes them new, and it leaves cards it already has as they "
        "are); in Anki's browser search  tag:zerodrill::retired  and suspend them"
    )
    assert said in line


def test_a_card_deleted_instead_of_retired_is_named_until_it_is_retired(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "src"
    shutil.copytree(DATA / "kinds", src)
    deck_file, target = src / "deck.yaml", tmp_path / "k.apkg"
    original = deck_file.read_text()
    assert _run(["export", str(src), "-o", str(target)], capsys)[0] == 0
    first = apkg.Manifest.load(apkg.manifest_path(target)).notes["export-kinds/fsdp"]

    # Delete the follow-up card outright.
    start = original.index("  - id: fsdp")
    deck_file.write_text(original[:start] + original[original.index("  - id: stage3-default") :])
    for _ in range(2):  # every export says so, not only the first after the deletion
        code, out, err = _run(["export", str(src), "-o", str(target)], capsys)
        assert code == 0 and out.startswith(f"wrote {target}: 1 deck, 5 notes")
        assert err == (
            "warning: card export-kinds/fsdp has left its deck without being retired: Anki "
            "keeps it in review wherever the package was imported; put it back and list its "
            "id under the deck's 'retired:'\n"
        )
        # The manifest keeps the note, so its ID is never given to another.
        assert apkg.Manifest.load(apkg.manifest_path(target)).notes["export-kinds/fsdp"] == first

    # Put back and retired: the same note, and no warning.
    deck_file.write_text(original.replace("[old-card]", "[old-card, fsdp]"))
    code, out, err = _run(["export", str(src), "-o", str(target)], capsys)
    assert code == 0 and err == "" and "2 retired cards" in out
    assert apkg.Manifest.load(apkg.manifest_path(target)).notes["export-kinds/fsdp"].id == first.id


def test_a_deck_left_out_of_a_shared_package_is_not_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "all.apkg"
    assert (
        _run(["export", str(DATA / "kinds"), str(DATA / "media"), "-o", str(target)], capsys)[0]
        == 0
    )
    code, _, err = _run(["export", str(DATA / "media"), "-o", str(target)], capsys)
    assert code == 0 and err == ""
