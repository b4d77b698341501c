"""``zerodrill import-progress``, with Anki's own backend: reviews given in Anki come back.

The round trip a user makes: drill in the terminal, export with progress, import into Anki,
answer cards there with Anki's scheduler, export a collection package, import its reviews
into zerodrill. The store's schedule is then SM-2 replayed over both sides' reviews in time
order, ``stats`` counts them, and importing again adds nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest
from anki.scheduler.v3 import CardAnswer
from cli_support import run_cli
from srs_support import reference_states, sm2_states

from zerodrill.export import ids
from zerodrill.srs.anki_package import copy_collection
from zerodrill.srs.days import study_day
from zerodrill.srs.events import time_order
from zerodrill.srs.grades import ANKI_EASE_TO_GRADE, Grade
from zerodrill.srs.sitting import record_grade
from zerodrill.srs.sm2_formula import Sm2State
from zerodrill.srs.store import Store

DECK = Path(__file__).parent / "data" / "export" / "kinds"
DECK_ID = "export-kinds"
#: Grades given in the terminal before the export, nine and five days ago.
DRILLED = {f"{DECK_ID}/stage-2": (4, 5), f"{DECK_ID}/stage-key#c1": (3, 4), f"{DECK_ID}/fsdp": (2,)}
RATINGS = [CardAnswer.AGAIN, CardAnswer.GOOD, CardAnswer.HARD, CardAnswer.EASY, CardAnswer.GOOD]


def noon(days_ago: int) -> datetime:
    """Noon, local time, ``days_ago`` study days before today."""
    today = study_day(datetime.now().astimezone())
    return (
        datetime.combine(today - timedelta(days=days_ago), datetime.min.time())
        .replace(hour=12)
        .astimezone()
    )


def drill_here(db: Path) -> None:
    """Reviews given in the terminal, on past days."""
    with Store.open(db) as store:
        for key, grades in DRILLED.items():
            for n, grade in enumerate(grades):
                at = noon(9 - 4 * n)
                record_grade(store, key, grade, day=study_day(at), at=at)


def into_anki(capsys: pytest.CaptureFixture[str], col: Collection, db: Path, out: Path) -> None:
    code, _, err = run_cli(
        capsys, "export", str(DECK), "--with-progress", "--db", str(db), "-o", str(out)
    )
    assert code == 0, err
    options = ImportAnkiPackageOptions(
        merge_notetypes=False, with_scheduling=True, with_deck_configs=False
    )
    col.import_anki_package(ImportAnkiPackageRequest(package_path=str(out), options=options))
    # A note of the user's own, reviewed too: not zerodrill's, left alone.
    note = col.new_note(col.models.by_name("Basic"))
    note["Front"], note["Back"] = "mine", "mine"
    col.add_note(note, col.decks.id("Default"))
    col.decks.select(col.decks.id("Default"))
    assert answer_in_anki(col, [CardAnswer.GOOD]) == 1
    (deck,) = [d for d in col.decks.all_names_and_ids() if d.name != "Default"]
    col.decks.select(deck.id)


def answer_in_anki(col: Collection, ratings: list[CardAnswer.Rating.V]) -> int:
    """Answer the cards Anki's scheduler queues, with ``ratings`` in turn; how many."""
    for n, rating in enumerate(ratings):
        queued = col.sched.get_queued_cards(fetch_limit=1)
        if not queued.cards:
            return n
        card = col.get_card(queued.cards[0].card.id)
        card.start_timer()
        answer = col.sched.build_answer(card=card, states=queued.cards[0].states, rating=rating)
        col.sched.answer_card(answer)
    return len(ratings)


def zerodrill_answers(col: Collection) -> list[tuple[int, str, int]]:
    """(revlog id, item key, ease) of each answer Anki logged for zerodrill's cards."""
    guids = {ids.note_guid(DECK_ID, cid): cid for cid in ("stage-2", "stage-key", "fsdp")}
    guids |= {ids.note_guid(DECK_ID, cid): cid for cid in ("stage3-default", "config-fence")}
    rows = col.db.all(
        "SELECT r.id, n.guid, c.ord, r.ease, r.type FROM revlog r "
        "JOIN cards c ON c.id = r.cid JOIN notes n ON n.id = c.nid ORDER BY r.id"
    )
    out = []
    for rid, guid, ord_, ease, kind in rows:
        if guid in guids and ease and kind < 4:
            card = guids[guid]
            cloze = card in ("stage-key", "config-fence")
            out.append((rid, f"{DECK_ID}/{card}" + (f"#c{ord_ + 1}" if cloze else ""), ease))
    return out


@pytest.mark.parametrize("legacy", [False, True], ids=["anki21b", "legacy"])
def test_reviews_given_in_anki_come_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], col: Collection, legacy: bool
) -> None:
    db = tmp_path / "reviews.db"
    drill_here(db)
    into_anki(capsys, col, db, tmp_path / "kinds.apkg")
    answered = answer_in_anki(col, RATINGS * 4)
    # A due date set by hand is logged too: no answer, but taken as the change it is.
    fsdp = col.db.scalar(
        "SELECT c.id FROM cards c JOIN notes n ON n.id = c.nid WHERE n.guid = ?",
        ids.note_guid(DECK_ID, "fsdp"),
    )
    col.sched.set_due_date([fsdp], "0")
    answers = zerodrill_answers(col)
    assert answered >= 8 and len(answers) == answered
    # The first answer to each card answered more than once: seven days ago, as if given on a
    # phone then. One of these cards is graded in the terminal in between, five days ago.
    firsts = {}
    for rid, key, _ in answers:
        firsts.setdefault(key, []).append(rid)
    moved = [rids[0] for rids in firsts.values() if len(rids) > 1]
    late = next(key for key, rids in firsts.items() if len(rids) > 1 and key not in DRILLED)
    for rid in moved:
        col.db.execute("UPDATE revlog SET id = ? WHERE id = ?", rid - 7 * 86_400_000, rid)
    answers = zerodrill_answers(col)
    with Store.open(db) as store:
        record_grade(store, late, 4, day=study_day(noon(5)), at=noon(5))
    colpkg = tmp_path / "backup.colpkg"
    col.export_collection_package(str(colpkg), include_media=False, legacy=legacy)

    code, out, err = run_cli(capsys, "import-progress", str(colpkg), str(DECK), "--db", str(db))
    assert code == 0, err
    keys = {key for _, key, _ in answers}
    assert out.splitlines() == [
        f"{len(answers)} reviews imported from Anki, {len(keys)} cards affected; "
        "0 reviews already present.",
        "1 note not zerodrill's (left alone); "
        "1 change made by hand in Anki (Set Due Date, Forget) taken.",
    ]
    with Store.open(db) as store:
        log = list(store.log.entries())
        # Added a card at a time: in the order of their identity (the revlog id) by card.
        from_anki = sorted((r for r in log if r.identity[0] == "anki"), key=lambda r: r.identity)
        assert [(r.identity[1], r.key, r.grade) for r in from_anki] == [
            (rid, key, ANKI_EASE_TO_GRADE[ease]) for rid, key, ease in sorted(answers)
        ]
        # The due date set in Anki holds (today, as Anki shows it); the rest is the grades'.
        set_due = f"{DECK_ID}/fsdp"
        states = sm2_states(store)
        assert states.pop(set_due).due == study_day(datetime.now().astimezone())
        assert states == without(reference_states(store.log.events()), set_due)
        # Reviewed on the phone a week ago, in the terminal five days ago, in Anki today.
        events = sorted(store.log.events(), key=time_order)
        sides = [e.origin == "anki" for e in events if e.key == late]
        assert sides[:2] == [True, False] and sides[-1]
    code, out, _ = run_cli(capsys, "stats", str(DECK), "--db", str(db), "--json")
    assert code == 0 and json.loads(out)["reviews"] == len(log) == 6 + len(answers)

    code, out, _ = run_cli(capsys, "import-progress", str(colpkg), str(DECK), "--db", str(db))
    assert code == 0 and out.startswith(
        f"0 reviews imported from Anki, 0 cards affected; {len(answers)} reviews already present."
    )
    with Store.open(db) as store:
        assert list(store.log.entries()) == log
        # The drill goes on from there: a grade today, for a card Anki answered today.
        today = study_day(datetime.now().astimezone())
        graded = record_grade(store, late, 5, day=today, at=datetime.now().astimezone())
        states = without(sm2_states(store), set_due)
        assert graded.repeat and states == without(reference_states(store.log.events()), set_due)


def without(states: dict[str, Sm2State], key: str) -> dict[str, Sm2State]:
    return {k: state for k, state in states.items() if k != key}


def test_a_collection_anki_has_open_is_read_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], col: Collection
) -> None:
    db = tmp_path / "reviews.db"
    drill_here(db)
    into_anki(capsys, col, db, tmp_path / "kinds.apkg")
    answer_in_anki(col, RATINGS)
    answers = zerodrill_answers(col)
    path = Path(col.path)
    files = sorted(path.parent.glob(path.name + "*"))
    assert path.with_name(path.name + "-wal") in files  # the answers may be there only
    before = {f: f.read_bytes() for f in files}
    code, out, err = run_cli(capsys, "import-progress", str(path), str(DECK), "--db", str(db))
    assert code == 0, err
    assert out.startswith(f"{len(answers)} reviews imported from Anki")
    assert sorted(path.parent.glob(path.name + "*")) == files
    assert {f: f.read_bytes() for f in files} == before
    # Anki goes on as if nothing happened.
    assert answer_in_anki(col, [CardAnswer.GOOD]) == 1


def test_a_first_import_makes_the_data_folder_as_drill_does(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    col: Collection,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Someone who drilled elsewhere, then only in Anki: no zerodrill data folder here, no --db.
    drill_here(tmp_path / "elsewhere.db")
    into_anki(capsys, col, tmp_path / "elsewhere.db", tmp_path / "kinds.apkg")
    answer_in_anki(col, RATINGS)
    col.close()
    data = tmp_path / "xdg-data"
    monkeypatch.delenv("ZERODRILL_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    code, out, err = run_cli(
        capsys, "import-progress", str(tmp_path / "anki" / "collection.anki2"), str(DECK)
    )
    assert code == 0, err
    assert "reviews imported from Anki" in out
    assert (data / "zerodrill" / "reviews.db").is_file()
    col.reopen()


def refused(capsys: pytest.CaptureFixture[str], file: Path, db: Path) -> str:
    code, out, err = run_cli(capsys, "import-progress", str(file), str(DECK), "--db", str(db))
    assert (code, out) == (1, "") and len(err.splitlines()) == 1, err
    assert not db.exists()
    return err


def test_what_is_not_an_anki_collection_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], col: Collection
) -> None:
    db = tmp_path / "reviews.db"
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    assert "is not an Anki collection or package" in refused(capsys, text, db)
    assert "no such file" in refused(capsys, tmp_path / "nope.colpkg", db)
    assert "is a folder" in refused(capsys, tmp_path, db)
    other = tmp_path / "other.db"
    Store.open(other).close()
    assert "SQLite file but not an Anki collection" in refused(capsys, other, db)
    bare = tmp_path / "bare.zip"
    with zipfile.ZipFile(bare, "w") as z:
        z.writestr("readme.txt", "hi")
    assert "holds no Anki collection" in refused(capsys, bare, db)

    col.export_collection_package(str(tmp_path / "c.colpkg"), include_media=False, legacy=False)
    whole = (tmp_path / "c.colpkg").read_bytes()
    cut = tmp_path / "cut.colpkg"
    cut.write_bytes(whole[: len(whole) // 2])
    assert "damaged or incomplete package" in refused(capsys, cut, db)
    newer = tmp_path / "newer.colpkg"
    with zipfile.ZipFile(tmp_path / "c.colpkg") as src, zipfile.ZipFile(newer, "w") as dst:
        for name in src.namelist():
            dst.writestr(name, b"\x08\x04" if name == "meta" else src.read(name))
    assert "newer Anki (package format 4" in refused(capsys, newer, db)
    for schema, age in ((19, "a newer"), (10, "an older")):
        copy = tmp_path / f"schema{schema}.anki2"
        shutil.copyfile(Path(col.path), copy)
        conn = sqlite3.connect(copy)
        with conn:
            conn.execute("UPDATE col SET ver = ?", (schema,))
        conn.close()
        assert f"from {age} Anki (collection schema {schema}" in refused(capsys, copy, db)


def test_the_ease_table_is_sm2s_grades() -> None:
    assert ANKI_EASE_TO_GRADE == {1: Grade.WRONG, 2: Grade.HARD, 3: Grade.GOOD, 4: Grade.PERFECT}


def export(col: Collection, path: Path) -> Path:
    col.export_collection_package(str(path), include_media=False, legacy=False)
    return path


def import_progress(capsys: pytest.CaptureFixture[str], file: Path, db: Path) -> list[str]:
    code, out, err = run_cli(capsys, "import-progress", str(file), str(DECK), "--db", str(db))
    assert code == 0, err
    return out.splitlines()


def snapshot(col: Collection, path: Path) -> None:
    """The collection Anki has open, as it is now, in one file at ``path``."""
    folder = path.with_suffix(".copy")
    folder.mkdir()
    src = sqlite3.connect(copy_collection(Path(col.path), folder))
    dst = sqlite3.connect(path)
    src.backup(dst)
    src.close()
    dst.close()


def filtered_deck(col: Collection, name: str, *, reschedule: bool) -> None:
    """A filtered deck of every zerodrill card, selected for study."""
    did = col.decks.new_filtered(name)
    deck = col.decks.get(did)
    assert deck is not None
    deck["resched"], deck["terms"] = reschedule, [["-deck:Default", 100, 0]]
    col.decks.save(deck)
    col.sched.rebuild_filtered_deck(did)
    col.decks.select(did)


def test_answers_with_rescheduling_off_are_no_grades(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], col: Collection
) -> None:
    db = tmp_path / "reviews.db"
    Store.open(db).close()
    into_anki(capsys, col, db, tmp_path / "kinds.apkg")
    # Easy: every card leaves learning, due in days, so the filtered decks below take it early.
    answered = answer_in_anki(col, [CardAnswer.EASY] * 10)
    graded = zerodrill_answers(col)
    # Previewed in a filtered deck with rescheduling off: Anki moves nothing, logs type 3
    # with no ease factor. Then reviewed early in one with rescheduling on: type 3 too, but
    # Anki reschedules, so it is a grade.
    filtered_deck(col, "Preview", reschedule=False)
    previewed = answer_in_anki(col, [CardAnswer.GOOD] * 3)
    col.sched.empty_filtered_deck(col.decks.id("Preview"))
    filtered_deck(col, "Early", reschedule=True)
    early = answer_in_anki(col, [CardAnswer.GOOD])
    kinds = col.db.all("SELECT type, factor FROM revlog ORDER BY id")[-(previewed + early) :]
    assert kinds[:previewed] == [[3, 0]] * previewed and kinds[-1][0] == 3 and kinds[-1][1] > 0
    lines = import_progress(capsys, export(col, tmp_path / "c.colpkg"), db)
    assert lines[0].startswith(f"{answered + early} reviews imported from Anki")
    assert f"{previewed} revlog rows that are not answers (skipped)" in lines[-1]
    with Store.open(db) as store:
        seqs = {e.seq for e in store.log.events() if e.origin == "anki"}
        assert {rid for rid, _, _ in graded} < seqs and len(seqs) == answered + early
        assert sm2_states(store) == reference_states(store.log.events())


def test_an_answer_undone_in_anki_is_withdrawn_at_the_next_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], col: Collection
) -> None:
    db = tmp_path / "reviews.db"
    drill_here(db)
    into_anki(capsys, col, db, tmp_path / "kinds.apkg")
    answered = answer_in_anki(col, RATINGS[:-1]) + 1
    # A package exported before the last answer (zip times are the export's).
    snapshot(col, tmp_path / "older.anki2")
    with zipfile.ZipFile(tmp_path / "older.colpkg", "w") as older:
        older.write(tmp_path / "older.anki2", "collection.anki2")
    assert answer_in_anki(col, RATINGS[-1:]) == 1
    (last, key, _) = zerodrill_answers(col)[-1]
    # Imported from the collection Anki has open.
    open_collection = Path(col.path)
    lines = import_progress(capsys, open_collection, db)
    assert lines[0].startswith(f"{answered} reviews imported")
    # The older package lacks the last answer, but is older than it: nothing is withdrawn.
    lines = import_progress(capsys, tmp_path / "older.colpkg", db)
    assert lines[0].startswith("0 reviews imported") and len(lines) == 2
    col.undo()  # Anki's Edit > Undo of the last answer: its revlog row goes
    assert last not in [rid for rid, _, _ in zerodrill_answers(col)]
    # Undo puts the collection's time back: nothing in it is later than the answer yet, so
    # nothing proves it undone rather than not yet given (a file's time is no proof).
    lines = import_progress(capsys, open_collection, db)
    assert lines[0].startswith("0 reviews imported") and len(lines) == 2
    # The card answered again, as after an undo: the collection now shows a later moment.
    assert answer_in_anki(col, RATINGS[-1:]) == 1
    lines = import_progress(capsys, open_collection, db)
    assert lines[:2] == [
        f"1 review imported from Anki, 1 card affected; {answered - 1} reviews already present.",
        "1 review imported before and undone in Anki since: withdrawn.",
    ]
    with Store.open(db) as store:
        events = store.log.events()
        assert [e.undoes for e in events if e.undoes is not None] == [("anki", last)]
        assert ("anki", last) in {e.identity for e in events if e.key == key}
        assert sm2_states(store) == reference_states(store.log.events())
        withdrawn = sm2_states(store)
    # Both again: nothing changes (the undo is not made twice).
    for file in (tmp_path / "older.colpkg", open_collection):
        lines = import_progress(capsys, file, db)
        assert lines[0].startswith("0 reviews imported") and len(lines) == 2
    with Store.open(db) as store:
        assert sm2_states(store) == withdrawn and len(store.log.events()) == len(events)


def test_one_import_gives_the_same_study_days_in_every_time_zone(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    col: Collection,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    Store.open(tmp_path / "unused.db").close()
    into_anki(capsys, col, tmp_path / "unused.db", tmp_path / "kinds.apkg")
    answer_in_anki(col, RATINGS)
    # The collection's own clock in UTC, whatever zone it was made in (Anki records the
    # maker's offset): it, not the reader's zone, says which day an answer belongs to.
    for name in ("localOffset", "creationOffset"):
        col.set_config(name, 0)
    # Every answer at 20:00 UTC on its own day: the next morning in Tokyo, the afternoon
    # before in New York.
    for n, (rid, _, _) in enumerate(zerodrill_answers(col)):
        at = datetime(2025, 3, 1 + n, 20, 0, tzinfo=UTC)
        col.db.execute("UPDATE revlog SET id = ? WHERE id = ?", int(at.timestamp() * 1000), rid)
    colpkg = export(col, tmp_path / "c.colpkg")
    seen = []
    try:
        for zone in ("Asia/Tokyo", "America/New_York"):
            monkeypatch.setenv("TZ", zone)
            time.tzset()
            db = tmp_path / f"{zone.replace('/', '-')}.db"
            import_progress(capsys, colpkg, db)
            with Store.open(db) as store:
                seen.append(
                    sorted((e.seq, e.key, e.at.isoformat(), e.day) for e in store.log.events())
                )
    finally:
        monkeypatch.undo()
        time.tzset()
    tokyo, new_york = seen
    assert tokyo == new_york and len(tokyo) == len(RATINGS)
    # The collection's own clock (creationOffset 0, rollover 4): 20:00 UTC is that day.
    assert [day.day for _, _, _, day in tokyo] == [1 + n for n in range(len(RATINGS))]


def test_notes_of_a_deck_not_named_are_called_zerodrills_and_the_fix_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], col: Collection
) -> None:
    db = tmp_path / "reviews.db"
    drill_here(db)
    into_anki(capsys, col, db, tmp_path / "kinds.apkg")
    assert answer_in_anki(col, [CardAnswer.GOOD]) == 1
    exported = col.db.scalar("SELECT count() FROM notes") - 1  # less the user's own note
    colpkg = tmp_path / "backup.colpkg"
    col.export_collection_package(str(colpkg), include_media=False, legacy=False)
    other = Path(__file__).parent / "data" / "export" / "media"
    code, out, err = run_cli(capsys, "import-progress", str(colpkg), str(other), "--db", str(db))
    assert code == 0, err
    # The user's own note alone is "not zerodrill's"; the exported ones are named by deck.
    assert (
        f"1 note not zerodrill's (left alone); {exported} notes of zerodrill decks not named "
        f"here ({DECK_ID}): name their files"
    ) in out


def test_easy_in_anki_on_a_new_card_keeps_the_days_anki_gave(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], col: Collection
) -> None:
    # Whoever answers decides: Easy pressed in Anki keeps Anki's interval (its easy interval,
    # fuzzed), not the drill's four-button Easy rule, nor SM-2's 1 day for a 5.
    db = tmp_path / "reviews.db"
    Store.open(db).close()  # no reviews in the drill: every card is new in Anki
    into_anki(capsys, col, db, tmp_path / "kinds.apkg")
    assert answer_in_anki(col, [CardAnswer.EASY]) == 1
    ((rid, key, ease),) = zerodrill_answers(col)
    assert ease == 4
    ((ivl,),) = col.db.all("SELECT ivl FROM revlog WHERE id = ?", rid)
    assert 3 <= ivl <= 5
    import_progress(capsys, export(col, tmp_path / "easy.colpkg"), db)
    with Store.open(db) as store:
        (event,) = store.log.events()
        assert (event.identity, event.grade, event.buttons) == (("anki", rid), Grade.PERFECT, 4)
        state = store.schedule.state(key)
        assert (state.interval, state.due) == (ivl, event.day + timedelta(days=ivl))
        assert sm2_states(store) == reference_states(store.log.events())


# -- with ``zerodrill anki sync`` (issue 35: nothing of the user's lost) -------------------


def anki_sync_into(capsys: pytest.CaptureFixture[str], path: Path, db: Path) -> str:
    code, out, err = run_cli(
        capsys, "anki", "sync", str(DECK), "--collection", str(path), "--db", str(db)
    )
    assert code == 0, err
    return out


def desktop(tmp_path: Path) -> tuple[Path, Path]:
    """A closed collection of the user's, and a review store in a folder of its own."""
    path = tmp_path / "desktop" / "collection.anki2"
    path.parent.mkdir()
    Collection(str(path)).close()
    (tmp_path / "data").mkdir()
    return path, tmp_path / "data" / "reviews.db"


def test_the_answers_anki_sync_wrote_into_anki_are_not_imported_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, db = desktop(tmp_path)
    drill_here(db)
    out = anki_sync_into(capsys, path, db)
    assert "zerodrill → Anki: 5 reviews" in out
    with Store.open(db) as store:
        before = store.log.events()
    lines = import_progress(capsys, path, db)
    assert lines[0] == "0 reviews imported from Anki, 0 cards affected; 0 reviews already present."
    assert "5 answers zerodrill wrote (skipped: its own)" in lines[1]
    with Store.open(db) as store:
        assert store.log.events() == before


@pytest.mark.parametrize("packed", [False, True], ids=["file", "colpkg"])
def test_an_older_copy_withdraws_none_of_the_answers_anki_sync_brought_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], packed: bool
) -> None:
    """The copy is older than the answers, though its file (or zip entry) was written after
    them: only the collection's own content dates it."""
    path, db = desktop(tmp_path)
    drill_here(db)
    anki_sync_into(capsys, path, db)
    older = tmp_path / "older.anki2"
    shutil.copyfile(path, older)
    col = Collection(str(path))
    try:
        col.decks.select(col.decks.id("Export kinds"))
        assert answer_in_anki(col, [CardAnswer.GOOD, CardAnswer.GOOD]) == 2
    finally:
        col.close()
    assert "Anki → zerodrill: 2 reviews" in anki_sync_into(capsys, path, db)
    with Store.open(db) as store:
        before = store.log.events()
    os.utime(older)  # copied again today, after the answers
    copy = older
    if packed:
        copy = tmp_path / "older.colpkg"
        with zipfile.ZipFile(copy, "w") as z:
            z.write(older, "collection.anki2")  # the zip time is the file's
    lines = import_progress(capsys, copy, db)
    assert not [line for line in lines if "withdrawn" in line], lines
    with Store.open(db) as store:
        assert not [e for e in store.log.events() if e.undoes is not None]
    assert lines[0].startswith("0 reviews imported") and len(lines) == 2, lines
    with Store.open(db) as store:
        assert store.log.events() == before


def test_the_reviews_read_are_alike_whoever_holds_most_of_the_cards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], col: Collection
) -> None:
    """The review log is read in id order where zerodrill's cards are most of the collection,
    by card where the user's own are (the two ways anki_import reads it): the same reviews
    and changes made by hand either way."""
    from zerodrill.cli.common import load_decks, usable_decks
    from zerodrill.cli.import_progress import note_keys
    from zerodrill.srs.anki_import import read_reviews

    db = tmp_path / "reviews.db"
    drill_here(db)
    into_anki(capsys, col, db, tmp_path / "kinds.apkg")
    answer_in_anki(col, RATINGS * 3)
    fsdp = col.db.scalar(
        "SELECT c.id FROM cards c JOIN notes n ON n.id = c.nid WHERE n.guid = ?",
        ids.note_guid(DECK_ID, "fsdp"),
    )
    col.sched.set_due_date([fsdp], "3")
    notes = note_keys(usable_decks(load_decks([DECK])))
    ours = sum(len(ords) for ords in notes.values())
    mostly_ours = read_reviews(Path(col.path), notes)
    for n in range(2 * ours):
        note = col.new_note(col.models.by_name("Basic"))
        note["Front"], note["Back"] = f"mine {n}", "mine"
        col.add_note(note, col.decks.id("Default"))
    col.decks.select(col.decks.id("Default"))
    assert answer_in_anki(col, [CardAnswer.GOOD] * 3) == 3
    mostly_theirs = read_reviews(Path(col.path), notes)
    assert len(mostly_ours.reviews) >= 8 and len(mostly_ours.by_hand) == 1
    assert mostly_theirs.foreign_notes == mostly_ours.foreign_notes + 2 * ours
    assert (mostly_theirs.reviews, mostly_theirs.by_hand) == (
        mostly_ours.reviews,
        mostly_ours.by_hand,
    )
