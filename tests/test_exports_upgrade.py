"""The shipped package imported over the last release's, as a learner updating would (issue 23):
notes update in place and every card studied keeps its schedule, whatever the rewrite of the
deck's text. ``tests/data/export/deepspeed-zero-v0.1.0.apkg`` is ``exports/`` as v0.1.0
shipped it (commit 7cc0083). This build of the deck is imported over it too: its notes carry
the card id tags (issue 37) that the release's lack."""

from __future__ import annotations

import sqlite3
import zipfile
from pathlib import Path

from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

from zerodrill.deck.load import load_paths
from zerodrill.export import apkg, ids, notes

ROOT = Path(__file__).resolve().parents[1]
RELEASED = ROOT / "tests" / "data" / "export" / "deepspeed-zero-v0.1.0.apkg"
SHIPPED = ROOT / "exports" / "deepspeed-zero.apkg"
DECK = ROOT / "decks" / "deepspeed-zero.yaml"


def _import(col: Collection, package: Path):  # type: ignore[no-untyped-def]
    # Anki's defaults for an update: the notes' content, never the user's scheduling.
    options = ImportAnkiPackageOptions(
        merge_notetypes=False, with_scheduling=False, with_deck_configs=False
    )
    request = ImportAnkiPackageRequest(package_path=str(package), options=options)
    return col.import_anki_package(request).log


def test_the_shipped_package_updates_the_last_release_in_place_and_keeps_progress(
    col: Collection,
) -> None:
    _import(col, RELEASED)
    old_guids = set(col.db.list("select guid from notes"))
    cards = list(col.find_cards(""))
    col.sched.set_due_date(cards, "9!")  # every card studied, due in 9 days
    before = {
        cid: (col.get_card(cid).type, col.get_card(cid).ivl, col.get_card(cid).due) for cid in cards
    }
    assert before and all(kind == 2 for kind, _ivl, _due in before.values())  # in review
    front = dict(col.db.all("select guid, flds from notes"))

    log = _import(col, SHIPPED)

    assert not log.duplicate and not log.conflicting and log.updated
    new_guids = set(col.db.list("select guid from notes"))
    assert new_guids >= old_guids  # nothing replaced: each card's note kept its identity
    assert col.note_count() == len(new_guids) == len(old_guids) + len(log.new)
    # Every card studied before is still studied, with the same interval and due day.
    after = {
        cid: (col.get_card(cid).type, col.get_card(cid).ivl, col.get_card(cid).due) for cid in cards
    }
    assert after == before
    # And the rewritten text reached the notes that kept their ids.
    changed = [
        g
        for g, flds in col.db.all("select guid, flds from notes")
        if front.get(g) not in (None, flds)
    ]
    assert len(changed) >= 50
    assert col.find_notes("tag:zerodrill::retired")


def _latest_note_time(package: Path, tmp_path: Path) -> int:
    with zipfile.ZipFile(package) as zf:
        path = Path(zf.extract("collection.anki2", tmp_path))
    conn = sqlite3.connect(path)
    try:
        (mod,) = conn.execute("select max(mod) from notes").fetchone()
    finally:
        conn.close()
    return int(mod)


def test_this_build_gives_the_last_releases_notes_their_id_tags_in_place(
    col: Collection, tmp_path: Path
) -> None:
    _import(col, RELEASED)
    assert col.find_notes("tag:zerodrill::id") == []  # the release has no id tags
    old_guids = set(col.db.list("select guid from notes"))
    cards = list(col.find_cards(""))
    col.sched.set_due_date(cards, "9!")
    before = {cid: (col.get_card(cid).ivl, col.get_card(cid).due) for cid in cards}

    (deck,) = load_paths([DECK]).decks
    # No manifest, as after a fresh clone: a build a minute after the release's last note.
    start = _latest_note_time(RELEASED, tmp_path) + 60
    package = apkg.build([deck], clock=lambda: start)
    (tmp_path / "now.apkg").write_bytes(package.data)
    log = _import(col, tmp_path / "now.apkg")

    assert not log.duplicate and not log.conflicting
    kept = old_guids & {ids.note_guid(deck.id, card.id) for card in deck.cards}
    assert len(log.updated) == len(kept) and len(log.new) == len(deck.cards) - len(kept)
    assert set(col.db.list("select guid from notes")) >= old_guids
    assert {cid: (col.get_card(cid).ivl, col.get_card(cid).due) for cid in cards} == before
    # Every note of the deck, updated or new, is found by its card's id, and only it.
    for card in deck.cards:
        nid = col.db.scalar("select id from notes where guid = ?", ids.note_guid(deck.id, card.id))
        assert col.find_notes(notes.id_search(card.key)) == [nid], card.key
    assert col.find_notes("tag:zerodrill::id::deepspeed-zero/stage-key")
    assert len(col.find_notes("tag:zerodrill::id")) == len(deck.cards)
