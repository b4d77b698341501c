"""Building packages: byte-identical rebuilds, the manifest's memory, and the command line."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest
from cli_support import run_cli

from zerodrill.deck.load import load_paths
from zerodrill.deck.model import Deck
from zerodrill.export import apkg, collection, ids, notes
from zerodrill.srs.sm2_formula import Sm2State
from zerodrill.srs.store import Store

DATA = Path(__file__).parent / "data" / "export"
REPO = Path(__file__).resolve().parent.parent
T0 = 1_760_000_000.0


def decks(*names: str) -> list[Deck]:
    result = load_paths([DATA / n for n in names])
    assert not result.problems, result.problems
    return list(result.decks)


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run_cli(capsys, *args)


def collection_of(data: bytes) -> sqlite3.Connection:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        raw = z.read("collection.anki2")
    conn = sqlite3.connect(":memory:")
    conn.deserialize(raw)
    return conn


def test_same_sources_and_manifest_give_the_same_bytes_at_any_clock_time() -> None:
    ds = decks("kinds", "media")
    first = apkg.build(ds, clock=lambda: T0)
    again = apkg.build(ds, manifest=first.manifest, clock=lambda: T0 + 86_400 * 90)
    assert again.data == first.data
    assert again.manifest == first.manifest


def test_a_package_prepared_has_its_manifest_before_its_bytes_are_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ds = decks("kinds", "media")
    first = apkg.build(ds, clock=lambda: T0)
    made: list[bytes] = []
    real = apkg.package_zip
    monkeypatch.setattr(apkg, "package_zip", lambda *args: made.append(real(*args)) or made[-1])
    prepared = apkg.prepare(ds, manifest=first.manifest, clock=lambda: T0 + 60)
    assert prepared.manifest == first.manifest
    assert made == []
    package = prepared.package()
    assert made == [first.data]
    assert (package.data, package.manifest, package.stats) == (
        first.data,
        first.manifest,
        first.stats,
    )


def test_rebuilding_on_disk_is_byte_identical(tmp_path: Path) -> None:
    out = tmp_path / "deck.apkg"
    apkg.export(decks("kinds"), out, clock=lambda: T0)
    package, manifest = out.read_bytes(), apkg.manifest_path(out).read_bytes()
    apkg.export(decks("kinds"), out, clock=lambda: T0 + 12_345)
    assert out.read_bytes() == package
    assert apkg.manifest_path(out).read_bytes() == manifest


def test_the_bytes_do_not_depend_on_time_zone_or_machine_clock(tmp_path: Path) -> None:
    """A fresh interpreter in another time zone, with the same manifest, writes the same file."""
    out = tmp_path / "a" / "deck.apkg"
    apkg.export(decks("kinds", "media"), out, clock=lambda: T0)
    other = tmp_path / "b" / "deck.apkg"
    other.parent.mkdir()
    shutil.copy(apkg.manifest_path(out), apkg.manifest_path(other))
    code = (
        "import sys; from pathlib import Path; from zerodrill.deck.load import load_paths; "
        "from zerodrill.export import apkg; "
        "r = load_paths([Path(p) for p in sys.argv[2:]]); "
        "apkg.export(list(r.decks), Path(sys.argv[1]))"
    )
    env = {**os.environ, "TZ": "Pacific/Kiritimati", "PYTHONPATH": str(REPO)}
    subprocess.run(
        [sys.executable, "-c", code, str(other), str(DATA / "kinds"), str(DATA / "media")],
        check=True,
        env=env,
        cwd=tmp_path,
    )
    assert other.read_bytes() == out.read_bytes()


def test_only_an_edited_note_gets_a_newer_time(tmp_path: Path) -> None:
    src = tmp_path / "kinds"
    shutil.copytree(DATA / "kinds", src)
    first = apkg.build(decks_at(src), clock=lambda: T0)
    yaml = (src / "deck.yaml").read_text().replace("PyTorch-native", "PyTorch's own")
    (src / "deck.yaml").write_text(yaml)
    second = apkg.build(decks_at(src), manifest=first.manifest, clock=lambda: T0 + 60)
    changed = {k for k, v in second.manifest.notes.items() if v != first.manifest.notes[k]}
    assert changed == {"export-kinds/fsdp"}
    before, after = (
        first.manifest.notes["export-kinds/fsdp"],
        second.manifest.notes["export-kinds/fsdp"],
    )
    assert after.id == before.id and after.mod == int(T0) + 60
    # Even with a clock that went backwards, an edit is newer than what Anki already has.
    third_yaml = yaml.replace("PyTorch's own", "PyTorch native")
    (src / "deck.yaml").write_text(third_yaml)
    third = apkg.build(decks_at(src), manifest=second.manifest, clock=lambda: T0 - 9_999)
    assert third.manifest.notes["export-kinds/fsdp"].mod == after.mod + 1


def decks_at(folder: Path) -> list[Deck]:
    result = load_paths([folder])
    assert not result.problems
    return list(result.decks)


def test_package_internals_are_pinned() -> None:
    package = apkg.build(decks("kinds", "media"), clock=lambda: T0)
    with zipfile.ZipFile(io.BytesIO(package.data)) as z:
        infos = z.infolist()
        assert [i.filename for i in infos] == ["collection.anki2", "media", "0"]
        assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
        assert {i.compress_type for i in infos} == {zipfile.ZIP_STORED}
        assert json.loads(z.read("media")) == {"0": next(iter(_media_names(package)))}
    conn = collection_of(package.data)
    conf = json.loads(conn.execute("SELECT conf FROM col").fetchone()[0])
    assert (conf["schedVer"], conf["rollover"], conf["creationOffset"]) == (2, 4, 0)
    ids = [r[0] for r in conn.execute("SELECT id FROM notes")]
    assert max(ids) <= T0 * 1000  # Anki refuses IDs from the future
    card_ids = {r[0] for r in conn.execute("SELECT id FROM cards")}
    assert len(card_ids) == package.stats.cards


def _media_names(package: apkg.Package) -> list[str]:
    conn = collection_of(package.data)
    flds = " ".join(r[0] for r in conn.execute("SELECT flds FROM notes"))
    return [n for n in flds.split('"') if n.startswith("zerodrill-export-media-")]


def test_new_notes_never_take_an_existing_id() -> None:
    first = apkg.build(decks("kinds"), clock=lambda: T0)
    both = apkg.build(decks("kinds", "media"), manifest=first.manifest, clock=lambda: T0)
    new_id = both.manifest.notes["export-media/diagram"].id
    assert new_id >= max(r.id for r in first.manifest.notes.values()) + 1000


def test_progress_becomes_review_cards_counted_from_the_collection_day() -> None:
    state = Sm2State(3, 15, 236, date(2026, 3, 1), 1)
    package = apkg.build(decks("kinds"), clock=lambda: T0, progress={"export-kinds/stage-2": state})
    conn = collection_of(package.data)
    rows = conn.execute("SELECT type, queue, due, ivl, factor, reps, lapses FROM cards").fetchall()
    assert (2, 2, (date(2026, 3, 1) - collection.CREATED).days, 15, 2360, 3, 1) in rows
    assert package.stats.reviewed_cards == 1
    assert Sm2State(ef_hundredths=130).ease_permille == 1300


def test_reserved_deck_id_is_refused(tmp_path: Path) -> None:
    deck = decks("media")[0]
    from dataclasses import replace

    for reserved in ("retired", "kind", "id"):
        with pytest.raises(apkg.ExportError, match="reserved"):
            apkg.build([replace(deck, id=reserved)])


# --- the command line ----------------------------------------------------------------------


def test_cli_writes_one_package_per_deck_into_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        ["export", str(DATA / "kinds"), str(DATA / "media"), "-o", str(tmp_path / "out") + "/"],
        capsys,
    )
    assert code == 0, err
    assert (tmp_path / "out" / "export-kinds.apkg").is_file()
    assert (tmp_path / "out" / "export-kinds.manifest.json").is_file()
    assert (tmp_path / "out" / "export-media.apkg").is_file()
    assert (
        f"wrote {tmp_path / 'out' / 'export-kinds.apkg'}: 1 deck, 6 notes, 7 cards "
        "(a note per deck card, a card per cloze deletion)" in out
    )
    assert "1 retired card tagged zerodrill::retired" in out
    assert "tag:zerodrill::retired" in out


def test_cli_writes_all_decks_into_one_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "all.apkg"
    code, out, _ = run(
        ["export", str(DATA / "kinds"), str(DATA / "media"), "-o", str(target)], capsys
    )
    assert code == 0
    assert out.startswith(
        f"wrote {target}: 2 decks, 7 notes, 8 cards "
        "(a note per deck card, a card per cloze deletion), 1 media file"
    )
    assert (tmp_path / "all.manifest.json").is_file()


def test_cli_defaults_to_exports_in_the_current_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["export", str(DATA / "media")], capsys)
    assert code == 0 and (tmp_path / "exports" / "export-media.apkg").is_file()


def test_cli_with_progress_reads_the_review_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "reviews.db"
    with Store.open(db) as store:
        assert store.schedule.states() == {}
    code, out, err = run(
        [
            "export",
            str(DATA / "media"),
            "-o",
            str(tmp_path / "p.apkg"),
            "--with-progress",
            "--db",
            str(db),
        ],
        capsys,
    )
    assert code == 0, err
    assert "(0 with review progress)" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["export", "no/such/deck.yaml"], "no/such/deck.yaml:1:1: no such file or folder"),
        (["export", str(DATA / "media"), "--with-progress", "--db", "missing.db"], "missing.db"),
    ],
)
def test_cli_errors_are_one_line(
    args: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(args, capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("zerodrill: ") and message in err


def test_cli_reports_a_bad_deck_and_an_unwritable_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("deck: x\ntitle: X\ndescription: d\ncards:\n  - id: a\n    kind: basic\n")
    code, _, err = run(["export", str(bad), "-o", str(tmp_path / "o.apkg")], capsys)
    # Every problem, as validate lists them, then the line counting them.
    lines = err.splitlines()
    assert code == 1 and len(lines) == 3 and all(line.startswith(f"{bad}:5:") for line in lines[:2])
    assert lines[2].startswith("zerodrill: 2 problems in the decks")
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, _, err = run(["export", str(DATA / "media"), "-o", str(blocker / "x.apkg")], capsys)
    assert code == 1 and err.count("\n") == 1 and str(blocker) in err
    assert not list(tmp_path.glob("**/.x.apkg.*"))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.write_text("{not json"), "cannot read manifest"),
        (lambda p: p.write_bytes(b"\xff\xfe"), "cannot read manifest"),
        (lambda p: p.write_text('{"format": 1, "notes": [], "notetypes": {}}'), "malformed"),
        (lambda p: p.mkdir(), "cannot read manifest"),
    ],
    ids=["json", "encoding", "shape", "directory"],
)
def test_cli_reports_a_corrupt_manifest_in_one_line_naming_it_once(
    make: Callable[[Path], object],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    target = tmp_path / "p.apkg"
    mpath = apkg.manifest_path(target)
    make(mpath)
    code, out, err = run(["export", str(DATA / "media"), "-o", str(target)], capsys)
    assert code == 1 and out == "" and not target.exists()
    assert err.count("\n") == 1 and err.startswith("zerodrill: ") and message in err
    assert err.count(mpath.name) == 1, err


def test_manifest_round_trips(tmp_path: Path) -> None:
    package = apkg.build(decks("kinds", "media"), clock=lambda: T0)
    path = tmp_path / "m.manifest.json"
    path.write_text(package.manifest.dumps(), encoding="utf-8")
    assert apkg.Manifest.load(path) == package.manifest
    json.loads(path.read_text())  # plain JSON, one note per line
    assert apkg.Manifest.load(tmp_path / "none.json") == apkg.Manifest()
    path.write_text('{"format": 99}')
    with pytest.raises(apkg.ExportError, match="not a zerodrill export manifest"):
        apkg.Manifest.load(path)


def test_notes_carry_tags_for_and_the_fields_digest() -> None:
    """Notes carry tags_for's tags, and the manifest's documented digest of (model ID, GUID,
    tags, fields)."""
    ds = decks("kinds", "media", "hostile")
    package = apkg.build(ds, clock=lambda: T0)
    conn = collection_of(package.data)
    rows = {
        guid: (mid, tags, flds)
        for guid, mid, tags, flds in conn.execute("SELECT guid, mid, tags, flds FROM notes")
    }
    cards = [card for deck in ds for card in deck.cards]
    assert len(rows) == len(cards)
    for card in cards:
        guid = ids.note_guid(card.deck, card.id)
        mid, tags, flds = rows[guid]
        assert tags == f" {notes.tags_for(card)} "
        text = f"{mid}\x1e{guid}\x1e{tags.strip(' ')}\x1e{flds}"
        digest = hashlib.sha256(text.encode()).hexdigest()
        assert package.manifest.notes[card.key].digest == digest


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("deck.txt", "deck.txt: name the file FILE.apkg, or a folder DIR/ for one per deck"),
        ("missing/x.apkg", "missing: no such folder"),
        ("missing/deeper/", "missing: no such folder"),
        # Issue 36, break 12: a file on the way is not a missing folder.
        ("afile/x.apkg", "afile: not a folder"),
        ("afile/deeper/", "afile: not a folder"),
    ],
)
def test_an_output_that_is_neither_a_package_nor_a_folder_is_refused(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    output: str,
    message: str,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    (work / "afile").write_bytes(b"mine")
    code, _, err = run(["export", str(DATA / "media"), "-o", output], capsys)
    assert (code, err) == (1, f"zerodrill: {message}\n")
    # No folder made, no package written.
    assert [p.name for p in work.iterdir()] == ["afile"]
    assert (work / "afile").read_bytes() == b"mine"


def test_a_new_folder_is_made_for_the_packages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["export", str(DATA / "media"), "-o", "new/"], capsys)
    assert code == 0 and out.startswith("wrote new/")
    assert [p.suffix for p in (tmp_path / "new").iterdir() if p.suffix == ".apkg"] == [".apkg"]


def test_db_without_with_progress_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["export", str(DATA / "media"), "-o", str(tmp_path / "o.apkg")]
    code, _, err = run([*args, "--db", str(tmp_path / "r.db")], capsys)
    assert code == 2 and "--db is read only with --with-progress" in err
    assert not (tmp_path / "o.apkg").exists()


def test_a_deck_named_more_than_once_by_any_spelling_is_loaded_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "decks").mkdir()
    shutil.copy(DATA / "kinds" / "deck.yaml", tmp_path / "decks" / "kinds.yaml")
    (tmp_path / "link.yaml").symlink_to(tmp_path / "decks" / "kinds.yaml")
    monkeypatch.chdir(tmp_path)
    spellings = ["decks/", "decks/kinds.yaml", str(tmp_path / "decks"), "./decks/../link.yaml"]
    code, out, err = run(["export", "-o", "out/", *spellings], capsys)
    assert (code, err) == (0, "")
    assert out.startswith(
        "wrote out/export-kinds.apkg: 1 deck, 6 notes, 7 cards "
        "(a note per deck card, a card per cloze deletion)"
    )
    code, out, err = run(["validate", *spellings], capsys)
    # One summary, and each of the deck's two give-away warnings once: the file was read once.
    assert (code, err) == (0, "")
    lines = out.splitlines()
    # Each line explains the other's count.
    assert (
        lines[-1] == "1 deck, 6 cards (7 in Anki: each cloze deletion is a card): ok (2 warnings)"
    )
    assert len(lines) == 3 and all(": warning: " in line for line in lines[:-1])
    code, out, err = run(["validate", "missing.yaml", "./missing.yaml", "missing.yaml"], capsys)
    assert code == 1 and out == "missing.yaml:1:1: no such file or folder\n"
