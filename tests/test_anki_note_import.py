"""``zerodrill anki sync`` imports the decks' package only when it would change something.

Anki updates a note only from a copy newer than its own (``anki_sync/note_updates.py``): the
import is skipped when nothing in the package is newer, and these tests hold that skipping it
never leaves Anki without what an import would have brought (a deleted note, an edit, a backup
restored), nor imports again and again for a second terminal. Run on a local collection
(``--collection``), as Anki on the desktop keeps it.
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
from zerodrill.export import apkg

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

    def counted(col: Collection, package: Path, guids: object) -> object:
        given.append(package)
        return real(col, package, guids)  # type: ignore[arg-type]

    monkeypatch.setattr(note_updates, "import_package", counted)
    return given


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each package's bytes made (its length): only a package that is imported is made."""
    sizes: list[int] = []
    real = apkg.package_zip

    def counted(collection: bytes, media: list[tuple[str, bytes]]) -> bytes:
        data = real(collection, media)
        sizes.append(len(data))
        return data

    monkeypatch.setattr(apkg, "package_zip", counted)
    return sizes


def sync(capsys: pytest.CaptureFixture[str], path: Path, *args: str) -> str:
    code, out, err = run_cli(
        capsys, "anki", "sync", str(path.parents[1] / "decks"), "--collection", str(path), *args
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


def note_stamps(path: Path) -> list[tuple[int, int, int]]:
    """Each note's id, time and sync number."""
    with closing(Collection(str(path))) as col:
        assert col.db is not None
        return sorted(col.db.all("SELECT id, mod, usn FROM notes"))


def test_unchanged_decks_are_imported_once(
    desk: Path,
    capsys: pytest.CaptureFixture[str],
    imports: list[Path],
    made: list[int],
    _private_review_db: Path,
) -> None:
    sync(capsys, desk)
    assert len(imports) == 1
    manifest = _private_review_db.parent / "anki" / "decks.manifest.json"
    written = manifest.read_bytes(), manifest.stat().st_mtime_ns
    sync(capsys, desk)
    sync(capsys, desk)
    assert len(imports) == 1
    # Nor is the package made again only to be left unread, nor its manifest written again.
    assert len(made) == 1
    assert (manifest.read_bytes(), manifest.stat().st_mtime_ns) == written
    assert len(backs(desk)) == 2


def test_an_edited_deck_is_imported(
    desk: Path, capsys: pytest.CaptureFixture[str], imports: list[Path], made: list[int]
) -> None:
    sync(capsys, desk)
    deck = desk.parents[1] / "decks" / "import.yaml"
    deck.write_text(deck.read_text().replace("Optimizer states.", "The optimizer states."))
    sync(capsys, desk)
    assert len(imports) == 2
    assert len(made) == 2
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


def test_a_second_terminals_first_sync_imports_once(
    desk: Path, capsys: pytest.CaptureFixture[str], imports: list[Path], tmp_path: Path
) -> None:
    """Another terminal's first build is newer than the notes the first one imported a minute
    before: Anki rewrites them (their times only, which the sync gives back), and from then on
    that terminal's builds carry the times given back. The first terminal's, newer than those
    now, alike."""
    sync(capsys, desk)
    with closing(Collection(str(desk))) as col:
        assert col.db is not None
        col.db.execute("UPDATE notes SET mod = mod - 60")
        col.db.execute("UPDATE notetypes SET mtime_secs = mtime_secs - 60")
    stamps = note_stamps(desk)
    other = tmp_path / "other" / "reviews.db"
    other.parent.mkdir()
    sync(capsys, desk, "--db", str(other))
    assert len(imports) == 2
    sync(capsys, desk, "--db", str(other))
    sync(capsys, desk)
    assert len(imports) == 3
    sync(capsys, desk)
    sync(capsys, desk, "--db", str(other))
    assert len(imports) == 3
    assert note_stamps(desk) == stamps


def test_a_note_edited_in_anki_keeps_the_edit(
    desk: Path, capsys: pytest.CaptureFixture[str], imports: list[Path]
) -> None:
    sync(capsys, desk)
    with closing(Collection(str(desk))) as col:
        (nid,) = col.find_notes('"front:*stage 1*"')
        note = col.get_note(nid)
        note["back"] = "Edited on the desktop."
        col.update_note(note)
    sync(capsys, desk)
    assert backs(desk)[STAGE_1] == "Edited on the desktop."
    assert len(imports) == 1
