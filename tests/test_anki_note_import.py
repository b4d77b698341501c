"""``zerodrill anki sync`` imports the decks' package only when it would change something.

The collection records, in its config, the digest of the package each terminal last imported
(``anki_sync/note_updates.py``); these tests hold that skipping the import never leaves Anki
without what an import would have brought: a deleted note, an edit, a backup restored. Run
on a local collection (``--collection``), as Anki on the desktop keeps it.
"""

from __future__ import annotations

import shutil
from contextlib import closing
from pathlib import Path

import anki.collection  # noqa: F401  (Anki's modules import in this order only)
import pytest
from anki.collection import Collection
from cli_support import run_cli

from zerodrill.anki_sync import note_updates

DECK = """\
deck: import-deck
title: Import deck
description: Cards whose notes the sync imports into Anki.
cards:
  - id: stage-1
    kind: basic
    front: What does ZeRO stage 1 partition?
    back: Optimizer states.
  - id: stage-2
    kind: basic
    front: What does ZeRO stage 2 partition?
    back: Optimizer states and gradients.
"""


@pytest.fixture
def desk(tmp_path: Path, _private_review_db: Path) -> Path:
    """An empty desktop collection; the deck in ``tmp_path/decks``."""
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "import.yaml").write_text(DECK)
    path = tmp_path / "desktop" / "collection.anki2"
    path.parent.mkdir()
    Collection(str(path)).close()
    return path


@pytest.fixture
def imports(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Each package Anki's importer is given."""
    given: list[Path] = []
    real = note_updates.import_package

    def counted(col: Collection, package: Path, guids: object) -> tuple[int, int]:
        given.append(package)
        return real(col, package, guids)  # type: ignore[arg-type]

    monkeypatch.setattr(note_updates, "import_package", counted)
    return given


def sync(capsys: pytest.CaptureFixture[str], path: Path) -> str:
    code, out, err = run_cli(
        capsys, "anki", "sync", str(path.parents[1] / "decks"), "--collection", str(path)
    )
    assert code == 0, err
    return out


STAGE_1 = "<p>What does ZeRO stage 1 partition?</p>"


def backs(path: Path) -> dict[str, str]:
    """Each note's answer field (HTML), by its question field."""
    with closing(Collection(str(path))) as col:
        assert col.db is not None
        rows = col.db.all("SELECT flds FROM notes")
    return {flds.split("\x1f")[0]: flds.split("\x1f")[1] for (flds,) in rows}


def test_unchanged_decks_are_imported_once(
    desk: Path, capsys: pytest.CaptureFixture[str], imports: list[Path]
) -> None:
    sync(capsys, desk)
    assert len(imports) == 1
    sync(capsys, desk)
    sync(capsys, desk)
    assert len(imports) == 1
    assert len(backs(desk)) == 2


def test_an_edited_deck_is_imported(
    desk: Path, capsys: pytest.CaptureFixture[str], imports: list[Path]
) -> None:
    sync(capsys, desk)
    deck = desk.parents[1] / "decks" / "import.yaml"
    deck.write_text(deck.read_text().replace("Optimizer states.", "The optimizer states."))
    sync(capsys, desk)
    assert len(imports) == 2
    assert "The optimizer states." in backs(desk)[STAGE_1]


def test_a_note_deleted_in_anki_comes_back(
    desk: Path, capsys: pytest.CaptureFixture[str], imports: list[Path]
) -> None:
    sync(capsys, desk)
    with closing(Collection(str(desk))) as col:
        (nid,) = col.find_notes('"front:*stage 2*"')
        col.remove_notes([nid])
    assert len(backs(desk)) == 1
    sync(capsys, desk)
    assert len(backs(desk)) == 2


def test_a_restored_backup_gets_the_edit_again(
    desk: Path, capsys: pytest.CaptureFixture[str], imports: list[Path]
) -> None:
    """The record is the collection's own: a backup taken before an edit, restored after it,
    says the edit was never imported (a record kept by the terminal would say it was)."""
    sync(capsys, desk)
    backup = desk.with_name("backup.anki2")
    shutil.copy2(desk, backup)
    deck = desk.parents[1] / "decks" / "import.yaml"
    deck.write_text(deck.read_text().replace("Optimizer states.", "The optimizer states."))
    sync(capsys, desk)
    shutil.copy2(backup, desk)
    assert "The optimizer states." not in backs(desk)[STAGE_1]
    sync(capsys, desk)
    assert "The optimizer states." in backs(desk)[STAGE_1]


@pytest.mark.parametrize("written", [[1, 2], "x", {"a": 3}, None])
def test_a_record_another_device_garbled_means_an_import(
    desk: Path, capsys: pytest.CaptureFixture[str], imports: list[Path], written: object
) -> None:
    sync(capsys, desk)
    with closing(Collection(str(desk))) as col:
        (record,) = col.get_config(note_updates.IMPORTED_KEY)
        col.set_config(
            note_updates.IMPORTED_KEY, {record: written} if isinstance(written, dict) else written
        )
    sync(capsys, desk)
    assert len(imports) == 2
    sync(capsys, desk)
    assert len(imports) == 2
