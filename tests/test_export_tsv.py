"""``zerodrill export --format tsv``: header lines, then one line a card (front, back, tags, note
type, GUID), read by Anki's own text importer here without being told anything, and a deck's
hostile text kept out of the importer's hands as markup."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest
from anki.import_export_pb2 import CsvMetadata, ImportCsvRequest
from cli_support import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from zerodrill.deck import kinds
from zerodrill.deck.load import load_paths
from zerodrill.deck.model import Card, Deck, Pos
from zerodrill.export import apkg, tsv
from zerodrill.export.ids import note_guid
from zerodrill.export.notes import note_fields

DATA = Path(__file__).parent / "data" / "export"
ROWS_IN_KINDS = 5  # six cards, one retired
HEADER_LINES = 6


def load(path: Path) -> Deck:
    result = load_paths([path])
    assert not result.problems, result.problems
    (deck,) = result.decks
    return deck


def import_tsv(col: Collection, path: Path) -> object:
    """Import as Anki's import dialog does, with what it reads in the file left as read, and
    check that it read the header: what the file says, not what Anki guessed."""
    metadata = col.get_csv_metadata(str(path), None)
    assert metadata.delimiter == CsvMetadata.Delimiter.TAB and metadata.force_delimiter
    assert metadata.is_html and metadata.force_is_html
    assert list(metadata.column_labels) == ["Front", "Back", "Tags", "Notetype", "GUID"]
    assert metadata.tags_column == 3
    assert metadata.notetype_column == 4  # each line names its note type
    assert metadata.guid_column == 5
    log = col.import_csv(ImportCsvRequest(path=str(path), metadata=metadata)).log
    assert not log.missing_notetype and not log.empty_first_field and not log.conflicting
    return log


def notes(col: Collection) -> dict[str, object]:
    found = {}
    for nid in col.find_notes(""):
        note = col.get_note(nid)
        found[note.fields[0]] = note
    return found


def text(html: str) -> str:
    html = re.sub(r"<style>.*?</style>", "", html, flags=re.DOTALL)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_header_then_each_active_card_is_one_line_of_five_columns(tmp_path: Path) -> None:
    out = tmp_path / "deck.tsv"
    stats = tsv.export([load(DATA / "kinds")], out)
    lines = out.read_text(encoding="utf-8").split("\n")
    assert lines[:HEADER_LINES] == [
        "#separator:tab",
        "#html:true",
        "#columns:Front\tBack\tTags\tNotetype\tGUID",
        "#tags column:3",
        "#notetype column:4",
        "#guid column:5",
    ]
    assert lines[-1] == ""  # every line ends with a newline
    body = lines[HEADER_LINES:-1]
    assert len(body) == ROWS_IN_KINDS == stats.notes
    assert all(line.count("\t") == 4 for line in body)
    assert [line.split("\t")[3] for line in body] == ["Basic", "Cloze", "Cloze", "Basic", "Basic"]
    assert stats.cards == 6  # three cards of one side, and 2 + 1 cloze deletions
    assert "Retired" not in out.read_text(encoding="utf-8")


def test_anki_imports_the_basic_cards_with_their_fields_and_tags(
    tmp_path: Path, col: Collection
) -> None:
    deck = load(DATA / "kinds")
    out = tmp_path / "deck.tsv"
    tsv.export([deck], out)
    import_tsv(col, out)
    by_front = notes(col)
    stage2 = next(card for card in deck.cards if card.id == "stage-2")
    front, back, *_ = note_fields(stage2, {})
    note = by_front[front]  # the very HTML of the package's field
    assert note.note_type()["name"] == "Basic"  # type: ignore[attr-defined]
    assert note.guid == note_guid("export-kinds", "stage-2")  # type: ignore[attr-defined]
    assert back in note.fields[1]  # type: ignore[attr-defined]
    assert sorted(note.tags) == [  # type: ignore[attr-defined]
        "zerodrill::export-kinds",
        "zerodrill::export-kinds::stages",
        "zerodrill::id::export-kinds/stage-2",
        "zerodrill::kind::basic",
    ]
    assert col.find_notes("tag:zerodrill::id::export-kinds/stage-2") == [note.id]  # type: ignore[attr-defined]
    (card,) = note.cards()  # type: ignore[attr-defined]
    answer = card.answer()
    assert "Optimizer states" in text(answer) and "<strong>and</strong>" in answer
    # The sources as the terminal labels them, each a link to its address.
    assert '<a href="https://www.deepspeed.ai/tutorials/zero/"' in answer
    assert "deepspeed.ai tutorials/zero" in text(answer)
    assert "ZeRO paper, section 5" in text(answer)
    # A red flag's why and instead are told apart on its back.
    flag = next(n for f, n in by_front.items() if "Just use stage 3" in f)
    assert re.search(r"Why.*It adds.*Instead.*Start from", text(flag.fields[1]))  # type: ignore[attr-defined]


def test_anki_makes_cloze_cards_of_the_cloze_lines_in_the_same_import(
    tmp_path: Path, col: Collection
) -> None:
    out = tmp_path / "deck.tsv"
    tsv.export([load(DATA / "kinds")], out)
    import_tsv(col, out)
    by_type: dict[str, list[object]] = {}
    for note in notes(col).values():
        by_type.setdefault(note.note_type()["name"], []).append(note)  # type: ignore[attr-defined]
    assert {name: len(found) for name, found in by_type.items()} == {"Basic": 3, "Cloze": 2}
    assert len(col.find_cards("")) == 6
    cloze_notes = by_type["Cloze"]
    assert all("zerodrill::kind::cloze" in n.tags for n in cloze_notes)  # type: ignore[attr-defined]
    key = next(n for n in cloze_notes if "zero_optimization" in n.fields[0])  # type: ignore[attr-defined]
    cards = sorted(key.cards(), key=lambda c: c.ord)  # type: ignore[attr-defined]
    assert len(cards) == 2
    assert "[...]" in text(cards[0].question()) and "[a key]" in text(cards[1].question())
    # The back is the Cloze note's Back Extra.
    assert key.fields[1].startswith("<p>Valid values")  # type: ignore[attr-defined]
    assert "Valid values are 0 to 3." in text(cards[0].answer())
    # The code fence's lines stay lines: its newline is a character reference.
    fence = next(n for n in cloze_notes if "Turn on stage 3" in n.fields[0])  # type: ignore[attr-defined]
    assert "&#10;" in fence.fields[0]  # type: ignore[attr-defined]
    (card,) = fence.cards()  # type: ignore[attr-defined]
    assert "[a number]" in text(card.question())


def test_the_bundled_deck_imports_whole_without_a_question(tmp_path: Path, col: Collection) -> None:
    deck = load(Path(__file__).parents[1] / "decks" / "deepspeed-zero.yaml")
    out = tmp_path / "deck.tsv"
    stats = tsv.export([deck], out)
    log = import_tsv(col, out)
    assert len(log.new) == stats.notes == sum(not card.retired for card in deck.cards)  # type: ignore[attr-defined]
    assert len(col.find_cards("")) == stats.cards
    assert len(col.find_notes("note:Cloze")) == sum(
        card.kind.is_cloze and not card.retired for card in deck.cards
    )


def test_importing_again_updates_each_note_in_place(tmp_path: Path, col: Collection) -> None:
    src = tmp_path / "d.yaml"
    text_ = (DATA / "kinds" / "deck.yaml").read_text(encoding="utf-8")
    src.write_text(text_, encoding="utf-8")
    out = tmp_path / "deck.tsv"
    tsv.export([load(src)], out)
    import_tsv(col, out)
    before = sorted(col.find_notes(""))
    src.write_text(
        text_.replace("What does ZeRO stage 2 partition?", "What does stage 2 shard?"),
        encoding="utf-8",
    )
    tsv.export([load(src)], out)
    log = import_tsv(col, out)
    assert len(log.new) == 0 and len(log.updated) == 1  # type: ignore[attr-defined]
    assert sorted(col.find_notes("")) == before
    (nid,) = col.find_notes("tag:zerodrill::export-kinds::stages")
    assert "What does stage 2 shard?" in col.get_note(nid).fields[0]


def test_a_collection_with_the_package_gets_no_second_copy(tmp_path: Path, col: Collection) -> None:
    deck = load(DATA / "kinds")
    package = tmp_path / "deck.apkg"
    apkg.export([deck], package)
    col.import_anki_package(
        ImportAnkiPackageRequest(package_path=str(package), options=ImportAnkiPackageOptions())
    )
    before = sorted(col.find_notes(""))
    out = tmp_path / "deck.tsv"
    tsv.export([deck], out)
    metadata = col.get_csv_metadata(str(out), None)
    log = col.import_csv(ImportCsvRequest(path=str(out), metadata=metadata)).log
    # Same GUIDs, another note type: Anki keeps the package's notes and adds none.
    assert len(log.conflicting) == ROWS_IN_KINDS and len(log.new) == 0
    assert sorted(col.find_notes("")) == before


def test_hostile_text_reaches_anki_as_text(tmp_path: Path, col: Collection) -> None:
    src = tmp_path / "hostile"
    shutil.copytree(DATA / "hostile", src)
    with open(src / "deck.yaml", "a", encoding="utf-8") as f:
        f.write(
            "  - id: splitters\n"
            "    kind: basic\n"
            '    front: "\\"quoted start\\ttab\\nsep"\n'
            '    back: "```\\nline one\\n\\tindented {{c1::not a cloze}}\\n```\\n\\n'
            '[[type:back]] [latex]x[/latex] [sound:a.mp3]"\n'
        )
    deck = load(src)
    out = tmp_path / "deck.tsv"
    tsv.export([deck], out)
    data = out.read_text(encoding="utf-8")
    lines = data.split("\n")[HEADER_LINES:-1]
    assert len(lines) == len(deck.cards)
    assert all(line.count("\t") == 4 for line in lines)
    # Nothing opens a quoted field, and no line reads as a comment.
    assert not any(line.startswith(('"', "#")) or '\t"' in line for line in lines)
    # The deck's markup is text: no tag of its own, no handler, no script link.
    assert "<script" not in data and "<img" not in data
    assert not re.search(r"<[^>]*\bon\w+=", data)
    assert 'href="javascript' not in data.lower()
    assert "[sound:" not in data and "[[type:" not in data and "[latex]" not in data
    # No cloze marker outside a cloze card's text.
    for line in lines:
        front, back, tags, _notetype, _guid = line.split("\t")
        if "zerodrill::kind::cloze" not in tags:
            assert "{{" not in front + back
    import_tsv(col, out)
    by_front = notes(col)
    assert len(by_front) == len(deck.cards)
    for note in by_front.values():
        for card in note.cards():  # type: ignore[attr-defined]
            for side in (card.question(), card.answer()):
                assert "<script" not in side and not re.search(r"<[^>]*\bon\w+=", side)
                assert "[anki:play" not in side  # no sound tag became a player
                assert "typeans" not in side  # no answer box
    splitters = next(n for f, n in by_front.items() if "quoted start" in f)
    (card,) = splitters.cards()  # type: ignore[attr-defined]
    assert '"quoted start' in card.question().replace("&quot;", '"')
    assert "line one\n\tindented" in card.answer().replace("&#10;", "\n").replace("&#9;", "\t")


def test_the_cli_writes_a_tsv_per_deck_or_one_for_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(
        capsys, "export", "--format", "tsv", str(DATA / "kinds"), "-o", f"{tmp_path}/"
    )
    assert (code, err) == (0, "")
    assert out == (
        f"wrote {tmp_path}/export-kinds.tsv: 1 deck, 5 notes, 6 cards "
        "(a note per deck card, a card per cloze deletion)\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export-kinds.tsv"]  # no manifest
    one = tmp_path / "all.tsv"
    code, out, err = run_cli(
        capsys, "export", "--format", "tsv", str(DATA / "kinds"), "-o", str(one)
    )
    assert code == 0 and one.read_bytes() == (tmp_path / "export-kinds.tsv").read_bytes()


@pytest.mark.parametrize(
    "args, says",
    [
        (["-o", "deck.apkg"], "deck.apkg: name the file FILE.tsv, or a folder DIR/"),
        (["--with-progress"], "--with-progress: a tsv file carries no progress"),
    ],
)
def test_what_a_tsv_cannot_be_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    code, out, err = run_cli(capsys, "export", "--format", "tsv", str(DATA / "kinds"), *args)
    assert code != 0 and out == ""
    assert says in err and "Traceback" not in err


def test_anki_deck_name_rules_hold_for_the_package_not_the_drill_or_a_tsv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "d.yaml"
    text = (DATA / "kinds" / "deck.yaml").read_text(encoding="utf-8")
    src.write_text(text.replace("title: Export kinds", "title: ZeRO::Stages"), encoding="utf-8")
    nested = "'::' is not allowed in a deck title: Anki would make nested decks of it"
    # The drill loads the deck: Anki's rules are no concern of the terminal's.
    assert load_paths([src]).ok
    code, _out, err = run_cli(capsys, "validate", str(src))
    assert code == 1 and nested in capsys.readouterr().out + _out + err
    code, _out, err = run_cli(capsys, "export", str(src), "-o", str(tmp_path / "x.apkg"))
    assert code == 1 and err == f"zerodrill: {src}:2:12: {nested}\n"
    assert not (tmp_path / "x.apkg").exists()
    code, _out, err = run_cli(
        capsys, "export", "--format", "tsv", str(src), "-o", str(tmp_path / "x.tsv")
    )
    assert (code, err) == (0, "")


def test_anki_cloze_rules_hold_for_a_tsv_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "d.yaml"
    text = (DATA / "kinds" / "deck.yaml").read_text(encoding="utf-8")
    src.write_text(
        text.replace("{{c2::stage::a key}}", "{{c2::stage::a key}}` *{{c3::x*}}`"),
        encoding="utf-8",
    )
    assert load_paths([src]).ok
    for fmt in ("apkg", "tsv"):
        code, _out, err = run_cli(
            capsys, "export", "--format", fmt, str(src), "-o", f"{tmp_path}/out/"
        )
        assert code == 1 and "in another Markdown element" in err, err


_PIECES = st.sampled_from(["\t", "\n", "\n\n", '"', "```\n", "    ", "{{c1::", "}}", "<b>", "\r\n"])
_FIELD = st.lists(
    st.one_of(_PIECES, st.text(st.characters(blacklist_categories=("Cs",)), max_size=5)),
    min_size=1,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(_FIELD, min_size=3, max_size=3))
def test_no_field_text_splits_a_line_or_a_column(texts: list[str]) -> None:
    front, back, extra = texts
    fields = {"front": front, "back": back, "extra": extra}
    pos = Pos("d.yaml", 1, 1)
    card = Card("d", "c", kinds.BASIC, fields, ("t",), (), pos, {})
    deck = Deck("d", "D", "x", (card,), Path("d.yaml"), pos)
    (row,) = tsv.rows([deck])
    assert all("\t" not in cell and "\n" not in cell and "\r" not in cell for cell in row)
    assert not any(cell.startswith(('"', "#")) for cell in row)
