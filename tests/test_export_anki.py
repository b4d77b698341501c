"""Exported packages, opened by Anki's own backend: what a user sees after importing one."""

from __future__ import annotations

import re
import shutil
from datetime import datetime, timedelta
from html import unescape
from pathlib import Path

import pytest
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest
from kind_support import write_deck

from zerodrill.deck.kinds import CardKind
from zerodrill.deck.load import load_paths
from zerodrill.deck.model import Deck
from zerodrill.export import apkg, ids, notes
from zerodrill.srs.days import study_day
from zerodrill.srs.sm2_formula import Sm2State

DATA = Path(__file__).parent / "data" / "export"
T0 = 1_760_000_000.0  # a fixed, past build time (Anki refuses IDs from the future)


def load(path: Path) -> Deck:
    result = load_paths([path])
    assert not result.problems, result.problems
    (deck,) = result.decks
    return deck


def import_package(col: Collection, path: Path, *, scheduling: bool = False):  # type: ignore[no-untyped-def]
    """Import as Anki's import dialog does by default: update notes and note types if newer."""
    options = ImportAnkiPackageOptions(
        merge_notetypes=False, with_scheduling=scheduling, with_deck_configs=False
    )
    return col.import_anki_package(
        ImportAnkiPackageRequest(package_path=str(path), options=options)
    ).log


def build_to(tmp_path: Path, decks: list[Deck], name: str = "pkg.apkg", **kw) -> Path:  # type: ignore[no-untyped-def]
    out = tmp_path / "out" / name
    apkg.export(decks, out, **kw)
    return out


def note_by_card_id(col: Collection, deck: Deck, card_id: str):  # type: ignore[no-untyped-def]
    # By SQL: a GUID holds characters that Anki's search syntax would need escaped.
    nid = col.db.scalar("SELECT id FROM notes WHERE guid = ?", ids.note_guid(deck.id, card_id))
    assert nid, f"no note for {deck.id}/{card_id}"
    return col.get_note(nid)


def text(html: str) -> str:
    """Rendered card HTML without its <style> block and tags, whitespace collapsed."""
    html = re.sub(r"<style>.*?</style>", "", html, flags=re.DOTALL)
    html = re.sub(r"</?(?:span|code|strong|em|a)\b[^>]*>", "", html)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def assert_renders(card) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    q, a = card.question(), card.answer()
    for side in (q, a):
        assert "has a problem" not in side and "template-error" not in side
    return text(q), text(a)


def test_import_gives_one_note_per_card_and_one_card_per_deletion(
    tmp_path: Path, col: Collection
) -> None:
    deck = load(DATA / "kinds" / "deck.yaml")
    log = import_package(col, build_to(tmp_path, [deck]))
    assert len(log.new) == len(deck.cards) == col.note_count()
    assert col.card_count() == sum(len(c.items()) for c in deck.cards)
    cloze = note_by_card_id(col, deck, "stage-key")
    assert sorted(c.ord for c in cloze.cards()) == [0, 1]
    assert note_by_card_id(col, deck, "config-fence").note_type()["type"] == 1  # real cloze
    # Anki matches decks by name (and gives a new one its own ID): the title is the name.
    (anki_deck,) = [d for d in col.decks.all_names_and_ids() if d.name == deck.title]
    assert {c.did for c in cloze.cards()} == {anki_deck.id}


def test_every_card_renders_its_question_and_answer(tmp_path: Path, col: Collection) -> None:
    deck = load(DATA / "kinds" / "deck.yaml")
    import_package(col, build_to(tmp_path, [deck]))

    basic = note_by_card_id(col, deck, "stage-2").cards()[0]
    q, a = assert_renders(basic)
    assert q == "What does ZeRO stage 2 partition?"
    assert "Optimizer states and gradients." in a and "Sources" in a
    assert '<a href="https://www.deepspeed.ai/tutorials/zero/"' in basic.answer()
    assert "ZeRO paper, section 5" in a

    c1, c2 = sorted(note_by_card_id(col, deck, "stage-key").cards(), key=lambda c: c.ord)
    q, a = assert_renders(c1)
    assert q == "The stage is set by [...].stage." and "zero_optimization" not in q
    assert a.startswith("The stage is set by zero_optimization.stage.")
    assert "Valid values are 0 to 3." in a
    q, _ = assert_renders(c2)
    assert q == "The stage is set by zero_optimization.[a key]."

    (fence,) = note_by_card_id(col, deck, "config-fence").cards()
    q, a = assert_renders(fence)
    assert q == 'Turn on stage 3: {"zero_optimization": {"stage": [a number] } }'
    assert a == 'Turn on stage 3: {"zero_optimization": {"stage": 3 } }'
    assert 'class="zd-code"' in fence.question()  # highlighted by Pygments

    (follow,) = note_by_card_id(col, deck, "fsdp").cards()
    q, a = assert_renders(follow)
    assert "How does FSDP differ from ZeRO-3?" in q and "Answer it out loud first" in q
    assert "Same idea, PyTorch-native." in a and "Same idea" not in q

    (flag,) = note_by_card_id(col, deck, "stage3-default").cards()
    q, a = assert_renders(flag)
    assert "what is wrong with saying this?" in q and "Just use stage 3 by default." in q
    assert "It adds communication" in a and "Start from the smallest stage" in a
    assert "It adds communication" not in q


def test_tags_name_deck_kind_own_tags_and_retired(tmp_path: Path, col: Collection) -> None:
    deck = load(DATA / "kinds" / "deck.yaml")
    import_package(col, build_to(tmp_path, [deck]))
    tags = note_by_card_id(col, deck, "stage-2").tags
    assert set(tags) == {
        "zerodrill::export-kinds",
        "zerodrill::id::export-kinds/stage-2",
        "zerodrill::kind::basic",
        "zerodrill::export-kinds::stages",
    }
    assert col.find_notes(apkg.RETIRED_SEARCH) == [note_by_card_id(col, deck, "old-card").id]
    assert len(col.find_notes("tag:zerodrill::kind::cloze")) == 2


_OTHER_DECK = """\
deck: other-kinds
title: Other kinds
description: Cards whose ids export-kinds uses too.
cards:
  - id: stage-2
    kind: basic
    front: Another deck's stage-2
    back: Its own card.
  - id: stage-key
    kind: cloze
    text: "Another {{c1::deletion}} and {{c2::another}}."
"""


@pytest.mark.parametrize("scheduling", [False, True], ids=["default-options", "with-scheduling"])
def test_a_cards_id_finds_exactly_its_note_and_each_of_its_cards(
    scheduling: bool, tmp_path: Path, col: Collection
) -> None:
    """``tag:zerodrill::id::<deck>/<card>`` in Anki's browser, as README says: one note (a
    cloze card's with a card per deletion), whichever deck shares the card's id or a prefix of
    it, and under either import option."""
    deck = load(DATA / "kinds" / "deck.yaml")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "deck.yaml").write_text(_OTHER_DECK)
    other = load(tmp_path / "other" / "deck.yaml")
    import_package(col, build_to(tmp_path, [deck, other]), scheduling=scheduling)

    found = 0
    for d in (deck, other):
        for card in d.cards:  # the retired card too
            note = note_by_card_id(col, d, card.id)
            search = notes.id_search(card.key)
            assert search == f"tag:zerodrill::id::{d.id}/{card.id}"
            assert col.find_notes(search) == [note.id], search
            assert sorted(col.find_cards(search)) == sorted(c.id for c in note.cards()), search
            found += 1
    assert found == len(deck.cards) + len(other.cards) == col.note_count()
    # Typed as README has it; Anki's tag search ignores case.
    key = note_by_card_id(col, deck, "stage-key")
    assert col.find_notes("tag:zerodrill::id::export-kinds/stage-key") == [key.id]
    assert col.find_notes("tag:ZeroDrill::ID::Export-Kinds/Stage-Key") == [key.id]
    assert len(col.find_cards("tag:zerodrill::id::export-kinds/stage-key")) == 2
    # An id that begins another's finds neither (stage-2, stage-key, stage3-default).
    assert col.find_notes("tag:zerodrill::id::export-kinds/stage") == []
    # A deck's cards, and all of them: the tags sit under one node, zerodrill::id.
    assert len(col.find_notes("tag:zerodrill::id::other-kinds/*")) == len(other.cards)
    assert len(col.find_notes("tag:zerodrill::id")) == col.note_count()
    id_tags = [t for t in col.tags.all() if t.lower().startswith("zerodrill::id")]
    assert len(id_tags) == col.note_count()
    assert all(t.count("::") == 2 for t in id_tags)  # one leaf each under zerodrill::id


def _with_a_retired_cloze(tmp_path: Path) -> Deck:
    src = tmp_path / "retired-src"
    shutil.copytree(DATA / "kinds", src)
    deck_file = src / "deck.yaml"
    deck_file.write_text(deck_file.read_text().replace("[old-card]", "[old-card, stage-key]"))
    return load(deck_file)


def test_retired_cards_new_to_anki_arrive_suspended_with_scheduling(
    tmp_path: Path, col: Collection
) -> None:
    """Import any learning progress on: Anki adds the package's cards as they are, and every
    card of a retired note (a cloze's too) is in its suspended queue."""
    deck = _with_a_retired_cloze(tmp_path)
    import_package(col, build_to(tmp_path, [deck]), scheduling=True)
    for card_id, count in (("old-card", 1), ("stage-key", 2)):
        retired = note_by_card_id(col, deck, card_id).cards()
        assert len(retired) == count and all(card.queue == -1 for card in retired)  # suspended
    live = [c for card in deck.cards if not card.retired for c in _cards(col, deck, card.id)]
    assert live and all(card.queue == 0 for card in live)  # new, as the package has them
    assert sorted(col.find_cards("is:suspended")) == sorted(col.find_cards(apkg.RETIRED_SEARCH))


def test_retired_cards_new_to_anki_arrive_new_under_the_default_import_options(
    tmp_path: Path, col: Collection
) -> None:
    """What no package can change: without scheduling (Anki's default, "Import any learning
    progress" off), Anki's importer makes every card it adds a new card (rslib, 25.9:
    import_export/gather.rs, ``ExchangeData::reset_cards`` -> ``Card::schedule_as_new``, which
    sets the queue to New whatever the package holds; no field, tag, note type or deck of a
    package reaches a card's queue). So the retired card says it is retired, the tag finds it,
    and the user suspends it, as the export's summary line says. Should Anki ever keep the
    queue, this fails: the summary line, README and RETIRED_NOTICE are then to change."""
    deck = _with_a_retired_cloze(tmp_path)
    import_package(col, build_to(tmp_path, [deck]))
    retired = [c for card_id in ("old-card", "stage-key") for c in _cards(col, deck, card_id)]
    assert len(retired) == 3 and all((c.type, c.queue) == (0, 0) for c in retired)
    assert col.find_cards("is:suspended") == []
    for card in retired:
        q, a = assert_renders(card)
        assert q.startswith("Retired from zerodrill: suspend this card (press @)"), q
        assert "tag:zerodrill::retired" in q and "Retired from zerodrill" in a
    assert not any("Retired" in assert_renders(c)[0] for c in _cards(col, deck, "stage-2"))
    # What the summary line and README tell users to do, as Anki's browser does it.
    found = col.find_cards(apkg.RETIRED_SEARCH)
    assert sorted(found) == sorted(c.id for c in retired)
    col.sched.suspend_cards(found)
    assert sorted(col.find_cards("is:suspended")) == sorted(found)


def _cards(col: Collection, deck: Deck, card_id: str) -> list:  # type: ignore[type-arg]
    return list(note_by_card_id(col, deck, card_id).cards())


@pytest.mark.parametrize("scheduling", [False, True], ids=["default-options", "with-scheduling"])
def test_notes_imported_before_the_id_tags_get_them_in_place(
    scheduling: bool, tmp_path: Path, col: Collection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A package built before notes had id tags (tags_for without them: that build's exact
    bytes), then this build beside its manifest: every note is updated in place, once, and the
    cards keep the user's schedule."""
    deck = load(DATA / "kinds" / "deck.yaml")
    with_ids = notes.tags_for
    with monkeypatch.context() as before:
        before.setattr(
            notes,
            "tags_for",
            lambda card: " ".join(
                t for t in with_ids(card).split() if not t.startswith(notes.ID_TAG_ROOT)
            ),
        )
        old = build_to(tmp_path, [deck], clock=lambda: T0)
    import_package(col, old, scheduling=scheduling)
    assert col.find_notes("tag:zerodrill::id") == []
    cards = list(col.find_cards(""))
    col.sched.set_due_date(cards, "9!")  # every card studied, due in 9 days
    studied = {cid: _schedule(col, cid) for cid in cards}
    nids = sorted(col.find_notes(""))

    new = build_to(tmp_path, [deck], clock=lambda: T0 + 60)
    log = import_package(col, new, scheduling=scheduling)
    assert (len(log.new), len(log.duplicate), len(log.conflicting)) == (0, 0, 0)
    assert len(log.updated) == len(deck.cards) == len(nids)
    assert sorted(col.find_notes("")) == nids and sorted(col.find_cards("")) == sorted(cards)
    assert {cid: _schedule(col, cid) for cid in cards} == studied
    for card in deck.cards:
        note = note_by_card_id(col, deck, card.id)
        assert col.find_notes(notes.id_search(card.key)) == [note.id]
        assert notes.id_tag(card.key) in note.tags


def _schedule(col: Collection, cid: int) -> tuple[int, int, int, int]:
    card = col.get_card(cid)  # type: ignore[arg-type]
    return card.type, card.queue, card.due, card.ivl


def test_second_import_adds_nothing(tmp_path: Path, col: Collection) -> None:
    deck = load(DATA / "kinds" / "deck.yaml")
    path = build_to(tmp_path, [deck])
    import_package(col, path)
    notes, cards = col.note_count(), col.card_count()
    log = import_package(col, path)
    assert (len(log.new), len(log.updated), len(log.duplicate)) == (0, 0, notes)
    assert (col.note_count(), col.card_count()) == (notes, cards)


def test_edited_card_updates_in_place_and_keeps_the_users_schedule(
    tmp_path: Path, col: Collection
) -> None:
    src = tmp_path / "src"
    shutil.copytree(DATA / "kinds", src)
    deck_file = src / "deck.yaml"
    first = build_to(tmp_path, [load(deck_file)], clock=lambda: T0)
    import_package(col, first)
    deck = load(deck_file)
    note = note_by_card_id(col, deck, "stage-2")
    card = note.cards()[0]
    col.sched.set_due_date([card.id], "9!")  # the user studies: a review card due in 9 days
    studied = col.get_card(card.id)
    assert studied.type == 2

    # Edit one card, add one, and rebuild later (the manifest sits beside the package).
    yaml = deck_file.read_text()
    yaml = yaml.replace(
        "Optimizer states **and** gradients.", "Optimizer states and gradients (edited)."
    )
    yaml += "  - id: brand-new\n    kind: basic\n    front: New front\n    back: New back\n"
    deck_file.write_text(yaml)
    second = build_to(tmp_path, [load(deck_file)], clock=lambda: T0 + 3600)
    log = import_package(col, second)

    assert (len(log.new), len(log.updated)) == (1, 1)
    assert len(log.duplicate) == len(deck.cards) - 1  # the unchanged notes are left alone
    after = col.get_note(note.id)
    assert "(edited)" in after["back"]
    kept = col.get_card(card.id)
    assert (kept.type, kept.queue, kept.due, kept.ivl) == (
        studied.type,
        studied.queue,
        studied.due,
        studied.ivl,
    )
    assert col.note_count() == len(deck.cards) + 1


def test_hostile_html_arrives_escaped(tmp_path: Path, col: Collection) -> None:
    deck = load(DATA / "hostile" / "deck.yaml")
    import_package(col, build_to(tmp_path, [deck]))
    stored = [f for nid in col.find_notes("") for f in col.get_note(nid).fields]
    rendered = []
    for cid in col.find_cards(""):
        card = col.get_card(cid)
        rendered += [card.question(), card.answer()]
    for html in stored + rendered:
        assert "<script" not in html.lower()
        assert not re.search(r"<[^>]*\son\w+\s*=", html, re.IGNORECASE), html
        assert not re.search(r"(href|src)\s*=\s*\"?\s*(javascript|data):", html, re.IGNORECASE)
    fields = " ".join(stored)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in fields
    assert '<a href="https://example.com/"' in fields
    # Only the real deletion became a cloze card; the entity-spelled one stays text.
    (card,) = col.get_note(col.find_notes("tag:zerodrill::kind::cloze")[0]).cards()
    assert "{{c2::" not in " ".join(stored) and "[sound:" not in " ".join(stored)
    assert "{{c2::no}}" in text(card.answer())  # shown as typed, never a deletion
    (deck_row,) = [d for d in col.decks.all_names_and_ids() if d.name == deck.title]
    assert "<script" not in col.decks.get(deck_row.id)["desc"]


def test_media_is_packed_into_the_collection(tmp_path: Path, col: Collection) -> None:
    deck = load(DATA / "media" / "deck.yaml")
    import_package(col, build_to(tmp_path, [deck]))
    image = (DATA / "media" / "img" / "dot.png").read_bytes()
    name = ids.media_name(deck.id, "img/dot.png", image)
    assert (Path(col.media.dir()) / name).read_bytes() == image
    note = note_by_card_id(col, deck, "diagram")
    assert f'<img src="{name}" alt="the diagram"' in note["front"]


def test_with_progress_lands_each_card_on_its_schedule(tmp_path: Path, col: Collection) -> None:
    deck = load(DATA / "kinds" / "deck.yaml")
    today = study_day(datetime.now().astimezone())
    states = {
        "export-kinds/stage-2": Sm2State(3, 15, 236, today + timedelta(days=5), 1),
        "export-kinds/stage-key#c2": Sm2State(1, 1, 250, today + timedelta(days=1), 0),
        "export-kinds/fsdp": Sm2State(5, 40, 130, today + timedelta(days=30), 2),
        "export-kinds/stage3-default": Sm2State(2, 6, 260, today, 0),
        "export-kinds/config-fence#c1": Sm2State(4, 20, 220, today - timedelta(days=3), 0),
    }
    import_package(col, build_to(tmp_path, [deck], progress=states), scheduling=True)
    anki_today = col.sched.today
    for key, state in states.items():
        card_id, _, cn = key.split("/")[1].partition("#c")
        note = note_by_card_id(col, deck, card_id)
        (card,) = [c for c in note.cards() if c.ord == (int(cn) - 1 if cn else 0)]
        assert (card.type, card.queue) == (2, 2), key
        assert card.ivl == state.interval, key
        assert card.factor == state.ease_permille, key
        assert (card.reps, card.lapses) == (state.repetitions, state.lapses), key
        assert state.due is not None
        assert card.due == anki_today + (state.due - today).days, key
    # The deck's other cards were never reviewed: they stay new.
    first_deletion = [c for c in note_by_card_id(col, deck, "stage-key").cards() if c.ord == 0]
    assert first_deletion[0].type == 0
    # Anki's own scheduler agrees on what is due today.
    due_today = {col.get_card(cid).note().guid for cid in col.find_cards("prop:due=0")}
    assert due_today == {ids.note_guid(deck.id, "stage3-default")}
    overdue = {col.get_card(cid).note().guid for cid in col.find_cards("prop:due=-3")}
    assert overdue == {ids.note_guid(deck.id, "config-fence")}


def test_deleting_the_manifest_updates_every_note_in_place(tmp_path: Path, col: Collection) -> None:
    """What a manifest error advises: without it, the next import still finds every note."""
    deck = load(DATA / "kinds" / "deck.yaml")
    path = build_to(tmp_path, [deck], clock=lambda: T0)
    import_package(col, path)
    card = note_by_card_id(col, deck, "stage-2").cards()[0]
    col.sched.set_due_date([card.id], "9!")
    studied = col.get_card(card.id)
    notes, cards = col.note_count(), col.card_count()

    apkg.manifest_path(path).unlink()
    log = import_package(col, build_to(tmp_path, [deck], clock=lambda: T0 + 60))
    assert (len(log.new), len(log.updated)) == (0, notes)
    assert (col.note_count(), col.card_count()) == (notes, cards)
    kept = col.get_card(card.id)
    assert (kept.type, kept.queue, kept.due, kept.ivl) == (
        studied.type,
        studied.queue,
        studied.due,
        studied.ivl,
    )


@pytest.mark.parametrize("legacy", [False, True], ids=["import-dialog", "legacy-importer"])
def test_retiring_a_card_anki_already_has_leaves_it_in_review(
    legacy: bool, tmp_path: Path, col: Collection
) -> None:
    """Anki's importer never changes a card it already has (only notes and note types), so a
    retired card reaches existing users tagged but not suspended: the export says so."""
    src = tmp_path / "src"
    shutil.copytree(DATA / "kinds", src)
    deck_file = src / "deck.yaml"
    import_package(col, build_to(tmp_path, [load(deck_file)], clock=lambda: T0))
    deck_file.write_text(deck_file.read_text().replace("[old-card]", "[old-card, stage-2]"))
    second = build_to(tmp_path, [load(deck_file)], clock=lambda: T0 + 60)
    if legacy:
        import anki.lang
        from anki.importing import AnkiPackageImporter  # type: ignore[attr-defined]

        # Its log strips HTML through the interface language, which Anki's window sets at
        # start and Anki before 26 does not set on opening a collection.
        anki.lang.set_lang("en")
        AnkiPackageImporter(col, str(second)).run()
    else:
        import_package(col, second, scheduling=True)
    note = note_by_card_id(col, load(deck_file), "stage-2")
    assert apkg.RETIRED_TAG in note.tags  # the note was updated ...
    assert [c.queue for c in note.cards()] == [0]  # ... its card was not: still new, not -1
    assert note.id in col.find_notes(apkg.RETIRED_SEARCH)  # what the export tells users to do
    # What a user studying it sees: the card says it is retired, and how to suspend it.
    q, a = assert_renders(note.cards()[0])
    assert q.startswith("Retired from zerodrill: suspend this card (press @)")
    assert "Retired from zerodrill" in a
    live = note_by_card_id(col, load(deck_file), "stage-key").cards()[0]
    assert "Retired" not in assert_renders(live)[0]


_MATH_CARDS = r"""
cards:
  - id: math
    kind: basic
    front: 'Inline \\(x^2\\) and display \\[y\\], [$]a[/$], [$$]b[/$$], [LaTeX]c[/latex]'
    back: '`\(code\)` [[type:front]] [sound:x.mp3] [ sound:y.mp3] [anki:tts lang=en]t[/anki:tts]'
  - id: math-cloze
    kind: cloze
    text: 'The area is {{c1::\\(\pi r^2\\)}}, [latex]{{c2::E=mc^2}}[/latex]'
"""
_MATH_MARKUP = ("\\(", "\\)", "\\[", "\\]", "[$]", "[$$]", "[latex]", "[LaTeX]", "[[type:")


def _math_deck(tmp_path: Path, opt_in: bool) -> Deck:
    folder = tmp_path / ("math-on" if opt_in else "math")
    folder.mkdir()
    head = "deck: math\ntitle: Math\ndescription: d\n" + ("anki_math: true\n" if opt_in else "")
    (folder / "deck.yaml").write_text(head + _MATH_CARDS)
    return load(folder / "deck.yaml")


def test_anki_math_and_field_syntax_arrive_as_text(tmp_path: Path, col: Collection) -> None:
    deck = _math_deck(tmp_path, opt_in=False)
    import_package(col, build_to(tmp_path, [deck]))
    cards = [c for nid in col.find_notes("") for c in col.get_note(nid).cards()]
    assert len(cards) == 3
    shown = ""
    for card in cards:
        q, a = card.question(), card.answer()
        for side in (q, a):
            assert "has a problem" not in side
            for markup in _MATH_MARKUP:  # as the backend hands the page to MathJax
                assert markup not in side, (markup, side)
            assert "latex-" not in side and "[anki:play" not in side  # no LaTeX image, no audio
            # The page MathJax sees decodes entities, so the card itself is one it skips.
            body = re.sub(r"<style>.*?</style>", "", side, flags=re.DOTALL)
            assert re.match(r'\s*<div class="(zd|zd-back) tex2jax_ignore mathjax_ignore', body)
        shown += text(q) + " " + text(a)
    for typed in ("\\(x^2\\)", "\\[y\\]", "[$]a[/$]", "[$$]b[/$$]", "[LaTeX]c[/latex]"):
        assert typed in shown  # what the user sees: the text as typed
    assert "[[type:front]]" in shown and "[sound:x.mp3]" in shown and "\\(code\\)" in shown


def test_a_deck_that_opts_in_gets_anki_math(tmp_path: Path, col: Collection) -> None:
    deck = _math_deck(tmp_path, opt_in=True)
    import_package(col, build_to(tmp_path, [deck]))
    basic = note_by_card_id(col, deck, "math").cards()[0]
    q = basic.question()
    assert '<div class="tex2jax_process mathjax_process">' in q  # MathJax typesets the field
    assert "\\(x^2\\)" in q and "\\[y\\]" in q
    assert q.count("<img class=latex") == 3  # each LaTeX snippet became an image
    c1, c2 = sorted(note_by_card_id(col, deck, "math-cloze").cards(), key=lambda c: c.ord)
    assert "\\(\\pi r^2\\)" in c1.answer()
    assert "latex-" in c2.question()
    # Anki's other field syntax stays text even so.
    a = basic.answer()
    assert "[[type:" not in a and "[anki:play" not in a


def test_progress_beyond_what_anki_stores_still_imports(tmp_path: Path, col: Collection) -> None:
    """An EF of 70 (some 630 perfect grades: SM-2 has no ceiling) made Anki refuse the whole
    package, since its ease column holds at most 65,535 permille."""
    deck = load(DATA / "kinds" / "deck.yaml")
    today = study_day(datetime.now().astimezone())
    states = {
        "export-kinds/stage-2": Sm2State(700, 30, 7000, today + timedelta(days=30), 0),
        "export-kinds/fsdp": Sm2State(2**33, 2**33, 250, today + timedelta(days=3), 2**33),
    }
    log = import_package(col, build_to(tmp_path, [deck], progress=states), scheduling=True)
    assert len(log.new) == len(deck.cards)
    card = note_by_card_id(col, deck, "stage-2").cards()[0]
    assert (card.type, card.factor, card.reps, card.ivl) == (2, 65_535, 700, 30)
    other = note_by_card_id(col, deck, "fsdp").cards()[0]
    assert (other.reps, other.lapses, other.ivl) == (2**31 - 1, 2**31 - 1, 2**31 - 1)


def test_a_card_whose_kind_changes_is_never_updated(tmp_path: Path, col: Collection) -> None:
    """Why README says to give a card a new id rather than a new kind."""
    src = tmp_path / "src"
    shutil.copytree(DATA / "kinds", src)
    deck_file = src / "deck.yaml"
    import_package(col, build_to(tmp_path, [load(deck_file)], clock=lambda: T0))
    yaml = deck_file.read_text().replace(
        "kind: follow_up\n    question: How does FSDP differ from ZeRO-3?\n    answer:",
        "kind: basic\n    front: How does FSDP differ from ZeRO-3?\n    back:",
    )
    deck_file.write_text(yaml.replace("PyTorch-native", "PyTorch's own"))
    log = import_package(col, build_to(tmp_path, [load(deck_file)], clock=lambda: T0 + 60))
    assert (len(log.updated), len(log.conflicting)) == (0, 1)
    note = note_by_card_id(col, load(deck_file), "fsdp")
    assert note.note_type()["name"] == "zerodrill follow-up" and "PyTorch-native" in note["answer"]


@pytest.mark.parametrize("name", ["kinds", "hostile"])
def test_the_preview_shows_each_card_as_anki_renders_it(
    tmp_path: Path, col: Collection, name: str
) -> None:
    from zerodrill.cli.preview import fill
    from zerodrill.export.notes import note_fields
    from zerodrill.export.notetypes import field_names, note_type

    deck = load(DATA / name / "deck.yaml")
    import_package(col, build_to(tmp_path, [deck]))
    compared = 0
    for card in deck.cards:
        fields = dict(zip(field_names(card.kind), note_fields(card, {}), strict=True))
        template = note_type(card.kind).model.templates[0]
        for anki_card in note_by_card_id(col, deck, card.id).cards():
            ordinal = anki_card.ord + 1 if card.ordinals else None
            front = fill(template["qfmt"], fields, ordinal=ordinal, reveal=False)
            back = fill(template["afmt"], fields, ordinal=ordinal, reveal=True, front=front)
            style = re.compile(r"<style>.*?</style>", re.DOTALL)
            assert style.sub("", anki_card.question()) == front
            assert style.sub("", anki_card.answer()) == back
            compared += 1
    assert compared == sum(len(card.items()) for card in deck.cards)


def test_a_kind_registered_in_a_test_reaches_anki_as_its_own_note_type(
    tmp_path: Path, col: Collection, definition_kind: CardKind
) -> None:
    # The kind is declared in tests/kind_support.py only: the export asks the registry for
    # its fields and templates, and Anki renders them.
    deck = load(write_deck(tmp_path))
    import_package(col, build_to(tmp_path, [deck]))
    note = note_by_card_id(col, deck, "shard")
    assert note.note_type()["name"] == "zerodrill test definition"
    assert [f["name"] for f in note.note_type()["flds"]] == ["term", "meaning", "extra", "sources"]
    (card,) = note.cards()
    q, a = assert_renders(card)
    assert q == "shard"
    assert a.startswith("shard One rank's slice of a tensor.") and "ZeRO shards" in a
    assert note_by_card_id(col, deck, "plain").note_type()["name"] == "zerodrill basic"


def test_sources_show_as_the_terminals_short_labels_linked_to_their_address(
    tmp_path: Path, col: Collection
) -> None:
    from zerodrill.deck.source_labels import source

    src = tmp_path / "src"
    shutil.copytree(DATA / "kinds", src)
    blob = (
        "https://github.com/deepspeedai/DeepSpeed/blob/edaa7221267243c7be7fb49c5d5f5c4fb97b4641"
        "/deepspeed/runtime/zero/config.py#L95-L138"
    )
    deck_file = src / "deck.yaml"
    deck_file.write_text(
        deck_file.read_text().replace(
            'refs: [https://www.deepspeed.ai/tutorials/zero/, "ZeRO paper, section 5"]',
            f'refs: ["{blob}", "ZeRO paper, arXiv:1910.02054v3, §7.2", "javascript:alert(1)"]',
        )
    )
    deck = load(deck_file)
    import_package(col, build_to(tmp_path, [deck]))
    answer = note_by_card_id(col, deck, "stage-2").cards()[0].answer()
    links = re.findall(r'<a href="([^"]*)"[^>]*>([^<]*)</a>', answer)
    assert links == [
        (blob, "DeepSpeed zero/config.py L95-L138 @edaa722"),
        ("https://arxiv.org/abs/1910.02054v3", "ZeRO paper §7.2"),
    ]
    assert [label for _url, label in links] == [source(blob).label, "ZeRO paper §7.2"]
    # A ref that is no web address is its text, never a link.
    assert "<li>javascript:alert(1)</li>" in answer


def test_with_progress_carries_suspend_bury_flags_and_marks_as_ankis_own(
    tmp_path: Path, col: Collection, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli_support import run_cli

    from zerodrill.srs.card_actions import Action
    from zerodrill.srs.sitting import record_grade
    from zerodrill.srs.store import Store

    deck_path = DATA / "kinds" / "deck.yaml"
    deck = load(deck_path)
    db = tmp_path / "reviews.db"
    now = datetime.now().astimezone()
    today = study_day(now)
    with Store.open(db) as store:
        then = now - timedelta(days=3)
        record_grade(store, "export-kinds/fsdp", 4, day=study_day(then), at=then)
        actions = store.actions
        actions.record("export-kinds/fsdp", Action.SUSPEND, at=now, day=today)
        actions.record("export-kinds/stage-2", Action.BURY, at=now, day=today)
        actions.record("export-kinds/stage-key#c2", Action.FLAG, at=now, day=today, flag=3)
        actions.record("export-kinds/stage3-default", Action.MARK, at=now, day=today)
    out = tmp_path / "kinds.apkg"
    code, _, err = run_cli(
        capsys, "export", str(deck_path), "--with-progress", "--db", str(db), "-o", str(out)
    )
    assert code == 0, err
    import_package(col, out, scheduling=True)

    def card(card_id: str, ord_: int = 0):  # type: ignore[no-untyped-def]
        (c,) = [c for c in note_by_card_id(col, deck, card_id).cards() if c.ord == ord_]
        return c

    assert (card("fsdp").type, card("fsdp").queue) == (2, -1)  # a review card, suspended
    assert card("stage-2").queue == -3  # buried by the user
    assert card("stage-key", 1).flags == 3 and card("stage-key", 0).flags == 0
    assert "marked" in note_by_card_id(col, deck, "stage3-default").tags
    assert "marked" not in note_by_card_id(col, deck, "fsdp").tags
    # Anki's own searches find them as it would its own.
    assert len(col.find_cards("is:suspended")) == 1 + len(col.find_cards("tag:*retired"))
    # stage-2, and stage-key's second deletion, held while the drill shows its first (as
    # Anki's own buried sibling: see test_with_progress_holds_the_siblings_...).
    assert len(col.find_cards("is:buried")) == 2
    assert len(col.find_cards("flag:3")) == 1
    assert len(col.find_cards("tag:marked")) == 1


def test_with_progress_holds_the_siblings_the_drill_holds_today(
    tmp_path: Path, col: Collection, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both deletions of a cloze card due: the drill shows one today, and so does Anki (the
    other arrives in Anki's own queue of buried siblings, gone at its next day)."""
    from cli_support import run_cli

    from zerodrill.srs.sitting import record_grade
    from zerodrill.srs.store import Store

    deck_path = DATA / "kinds" / "deck.yaml"
    deck = load(deck_path)
    db = tmp_path / "reviews.db"
    then = datetime.now().astimezone() - timedelta(days=8)
    with Store.open(db) as store:
        for key in ("export-kinds/stage-key#c1", "export-kinds/stage-key#c2"):
            record_grade(store, key, 4, day=study_day(then), at=then)
    out = tmp_path / "kinds.apkg"
    code, _, err = run_cli(
        capsys, "export", str(deck_path), "--with-progress", "--db", str(db), "-o", str(out)
    )
    assert code == 0, err
    col.sched.get_queued_cards(fetch_limit=1)  # a collection opened today, as Anki does
    import_package(col, out, scheduling=True)
    first, second = sorted(note_by_card_id(col, deck, "stage-key").cards(), key=lambda c: c.ord)
    col.decks.select(first.did)
    assert (first.type, first.queue) == (2, 2)
    assert (second.type, second.queue) == (2, -2)  # a review card, buried as a sibling
    queued = col.sched.get_queued_cards(fetch_limit=1000).cards
    assert first.id in {c.card.id for c in queued} and second.id not in {c.card.id for c in queued}
