"""``zerodrill export --format csv`` and ``--format txt``: the cards as plain text for apps that
read no markup (Mochi's CSV import, a spreadsheet; Quizlet's paste import), read back with the
csv module and line by line, on the bundled deck's real cards and on hostile generated ones."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from cli_support import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from zerodrill.deck import cloze, kinds
from zerodrill.deck.control_chars import CONTROL
from zerodrill.deck.load import load_paths
from zerodrill.deck.model import Card, Deck, Pos
from zerodrill.export import plain, plain_files

REPO = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data" / "export"
FORMULA = ("=", "+", "-", "@")


def load(path: Path) -> Deck:
    result = load_paths([path])
    assert not result.problems, result.problems
    (deck,) = result.decks
    return deck


@pytest.fixture(scope="module")
def zero() -> Deck:
    return load(REPO / "decks" / "deepspeed-zero.yaml")


def read_csv(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.reader(f, strict=True))


def read_txt(path: Path) -> list[list[str]]:
    data = path.read_text(encoding="utf-8")
    assert data.endswith("\n") and "\r" not in data
    return [line.split("\t") for line in data.split("\n")[:-1]]


def by_key(deck: Deck, rows: list[list[str]]) -> dict[str, list[str]]:
    """The rows by the key of the item each is (the files hold the items in deck order)."""
    items = deck.items()
    assert len(rows) == len(items)
    return {item.key: row for item, row in zip(items, rows, strict=True)}


def make_card(kind: kinds.CardKind, fields: dict[str, str], refs: tuple[str, ...] = ()) -> Card:
    pos = Pos("d.yaml", 1, 1)
    ordinals = ()
    if kind.cloze_field is not None:
        ordinals = tuple(sorted({d.ordinal for d in cloze.deletions(fields[kind.cloze_field])}))
    return Card("d", "c", kind, fields, ("t",), refs, pos, {}, ordinals=ordinals)


def deck_of(*cards: Card) -> Deck:
    pos = Pos("d.yaml", 1, 1)
    return Deck("d", "D", "x", cards, Path("d.yaml"), pos)


# -- the bundled deck, read back -------------------------------------------------------------


def test_the_csv_reads_back_as_a_row_of_two_cells_per_item(tmp_path: Path, zero: Deck) -> None:
    out = tmp_path / "zero.csv"
    stats = plain_files.export_csv([zero], out)
    rows = read_csv(out)
    assert all(len(row) == 2 for row in rows)
    assert len(rows) == stats.cards == len(zero.items())
    assert stats.notes == sum(not card.retired for card in zero.cards) < stats.cards
    # RFC 4180: every field quoted (as Mochi's import is told to read it), CRLF between rows,
    # a quote inside a field doubled.
    data = out.read_bytes()
    assert data.startswith(b'"') and data.endswith(b'"\r\n')
    assert data.count(b'"\r\n"') == len(rows) - 1
    assert b'""zero_optimization""' in data
    # No header line: each row is a card.
    assert rows[0][0].startswith("In a DeepSpeed JSON config the ZeRO stage is the key [...]")
    # The retired card is left out.
    assert not any("hf-auto-what-filled" in item.key for item in zero.items())
    assert "retired" not in data.decode().lower()


def test_no_markup_reaches_the_csv(tmp_path: Path, zero: Deck) -> None:
    out = tmp_path / "zero.csv"
    plain_files.export_csv([zero], out)
    text = out.read_text(encoding="utf-8")
    assert "`" not in text and "**" not in text and "{{c" not in text
    assert "<p>" not in text and "<code" not in text and "&quot;" not in text
    assert "](" not in text  # no Markdown link
    assert not CONTROL.search(text.replace("\r\n", "\n"))


def test_cloze_rows_show_the_blank_and_name_what_it_hid(tmp_path: Path, zero: Deck) -> None:
    out = tmp_path / "zero.csv"
    plain_files.export_csv([zero], out)
    rows = by_key(zero, read_csv(out))
    front, back = rows["deepspeed-zero/stage-key#c1"]
    assert front == (
        "In a DeepSpeed JSON config the ZeRO stage is the key [...], and it takes the values "
        "0 to 3."
    )
    # The answer first, then the card's extra (its code block, line by line), then sources.
    assert back.startswith("zero_optimization.stage\n\n{\n")
    assert '\n  "zero_optimization": {\n    "stage": 2\n  }\n}\n' in back
    assert back.endswith(
        "ZeRO paper §7.1-§7.2.2; DeepSpeed zero/config.py L119-L124 @edaa722; "
        "DeepSpeed zero/stage_1_and_2.py L1438-L1468 @edaa722; DeepSpeed "
        "zero/stage_1_and_2.py L2394-L2400 @edaa722"
    )
    front, back = rows["deepspeed-zero/stage-key#c2"]
    assert "the key zero_optimization.stage, and it takes the values [...]." in front
    assert back.startswith("0 to 3\n\n")
    # An answer that is code (a code span inside the deletion) is its text, marks and all.
    front, back = rows["deepspeed-zero/activation-checkpointing-block#c4"]
    assert "unless partitioning is on and [...] is set." in front
    assert back.startswith("number_checkpoints\n\n")


def test_lists_tables_and_quotes_read_as_plain_lines(tmp_path: Path, zero: Deck) -> None:
    out = tmp_path / "zero.csv"
    plain_files.export_csv([zero], out)
    rows = by_key(zero, read_csv(out))
    _front, back = rows["deepspeed-zero/fsdp-strategy-map"]
    assert back.startswith(
        "FSDP strategy | closest DeepSpeed setup\n"
        "FULL_SHARD | stage 3\n"
        "SHARD_GRAD_OP | between stages 2 and 3: "
    )
    assert "\nNO_SHARD | stage 0, i.e. DDP\nHYBRID_SHARD | full shard in a node" in back
    _front, back = rows["deepspeed-zero/fu-resume-different-dp"]
    assert "Best first:\n\n1. Convert with ds_to_universal.py and load with " in back
    assert "\n2. Load weights only (load_optimizer_states=False): Adam restarts empty.\n" in back
    assert "\n3. Export with zero_to_fp32.py and start a new run.\n\n" in back
    # Bullets; a "<" that would open an HTML tag where the CSV's cell is read as Markdown and
    # HTML (Mochi) is escaped, so <N> is not taken for a tag and dropped.
    _front, back = rows["deepspeed-zero/zero-checkpoint-files"]
    assert back.startswith("• save_dir/latest, written last by global rank 0: the tag (by ")
    assert "global_step\\<N>" in back and "<N>" not in back.replace("\\<", "")
    assert "\n• In save_dir/\\<tag>/, one zero_pp_rank_\\<r>_mp_rank_\\<m>_optim_states.pt" in back
    # A red flag asks its question above the claim; its back tells why, then what to say.
    flag = next(card for card in zero.cards if card.kind is kinds.RED_FLAG)
    front, back = rows[flag.key]
    assert front.startswith("What is wrong with saying this?\n\n")
    assert re.match(r"Why it is a red flag\n\n.+\n\nSay instead\n\n", back, re.DOTALL)


def test_the_txt_is_a_card_a_line_for_quizlets_paste_import(tmp_path: Path, zero: Deck) -> None:
    out = tmp_path / "zero.txt"
    stats = plain_files.export_txt([zero], out)
    rows = read_txt(out)
    assert all(len(row) == 2 for row in rows)  # one tab a line, so Tab splits term from definition
    assert len(rows) == stats.cards == len(zero.items())
    keyed = by_key(zero, rows)
    front, back = keyed["deepspeed-zero/stage-key#c1"]
    assert front.endswith("the key [...], and it takes the values 0 to 3.")
    assert back.startswith('zero_optimization.stage / { / "zero_optimization": { / "stage": 2')
    _front, back = keyed["deepspeed-zero/zero-checkpoint-files"]
    # Quizlet shows text as typed: no escape.
    assert back.startswith("• save_dir/latest, written last by global rank 0: the tag (by ")
    assert "global_step<N>" in back and "\\<" not in back
    text = out.read_text(encoding="utf-8")
    assert "`" not in text and "**" not in text and "{{c" not in text and "<p>" not in text
    assert not CONTROL.search(text)


def test_both_hold_the_same_cards(tmp_path: Path, zero: Deck) -> None:
    plain_files.export_csv([zero], tmp_path / "z.csv")
    plain_files.export_txt([zero], tmp_path / "z.txt")
    for (csv_front, csv_back), (txt_front, txt_back) in zip(
        read_csv(tmp_path / "z.csv"), read_txt(tmp_path / "z.txt"), strict=True
    ):
        assert plain.one_line(csv_front.replace("\\<", "<")) == txt_front
        assert plain.one_line(csv_back.replace("\\<", "<")) == txt_back


# -- hostile cards -----------------------------------------------------------------------------


def test_cells_that_would_start_a_formula_start_with_a_quote(tmp_path: Path) -> None:
    cards = [
        make_card(kinds.BASIC, {"front": front, "back": "=1+1"})
        for front in ('=HYPERLINK("http://x","y")', "+1", "-1 is odd", "@SUM(A1)", "  =2")
    ]
    deck = deck_of(*cards)
    plain_files.export_csv([deck], tmp_path / "d.csv")
    plain_files.export_txt([deck], tmp_path / "d.txt")
    for rows in (read_csv(tmp_path / "d.csv"), read_txt(tmp_path / "d.txt")):
        assert [row[0] for row in rows] == [
            '\'=HYPERLINK("http://x","y")',
            "'+1",
            "'-1 is odd",
            "'@SUM(A1)",
            "'=2",
        ]
        assert all(row[1] == "'=1+1" for row in rows)


def test_typed_html_and_script_links_stay_text(tmp_path: Path) -> None:
    deck = load(DATA / "hostile")
    plain_files.export_csv([deck], tmp_path / "d.csv")
    plain_files.export_txt([deck], tmp_path / "d.txt")
    csv_text = "\n".join(cell for row in read_csv(tmp_path / "d.csv") for cell in row)
    txt_text = "\n".join(cell for row in read_txt(tmp_path / "d.txt") for cell in row)
    # Typed, the text reads as typed; where a cell is read as HTML (Mochi), no tag opens.
    assert "<script>alert(1)</script> plain" in txt_text
    assert "\\<script>alert(1)\\</script> plain" in csv_text
    assert not re.search(r"(?<!\\)<[A-Za-z/!?]", csv_text)
    # A link is its text, whatever its target: no address is written for it.
    assert "click me and javascript:alert(4)" in txt_text
    assert "fine and data" in txt_text
    assert "https://example.com/)" not in txt_text and "](" not in txt_text
    # The entity is text, the cloze is a blank and its answer.
    front, back = next(row for row in read_txt(tmp_path / "d.txt") if "[...]" in row[0])
    assert front.startswith("Real [...]; fake {{c2::no}} and [sound:evil.mp3]")
    assert back == "answer"


def test_a_cloze_hint_shows_and_each_answer_of_the_number_is_named() -> None:
    card = make_card(
        kinds.CLOZE,
        {"text": "{{c1::Paris::city}} is in {{c2::France}}; {{c1::Lyon}} too.", "extra": ""},
    )
    first, second = plain.rows([deck_of(card)])
    assert first == plain.Row("[city] is in France; [...] too.", "Paris; Lyon")
    assert second == plain.Row("Paris is in [...]; Lyon too.", "France")


_PIECES = st.sampled_from(
    [
        "\t",
        "\n",
        "\n\n",
        "\r\n",
        '"',
        ",",
        "```\n",
        "    ",
        "- ",
        "> ",
        "1. ",
        "| a | b |\n| - | - |\n",
        "=",
        "+",
        "@",
        "<b>",
        "<img src=x onerror=alert(1)>",
        "[x](javascript:alert(1))",
        "{{c1::",
        "}}",
        "\x00",
        "\x1b[2J",
        "\u2028",
        "\x85",
        "\u202e",
        "\ue000",
        "\ue001",
    ]
)
_FIELD = st.lists(
    st.one_of(_PIECES, st.text(st.characters(blacklist_categories=("Cs",)), max_size=5)),
    min_size=1,
).map("".join)


@settings(max_examples=150, deadline=None)
@given(st.lists(_FIELD, min_size=3, max_size=3), st.booleans())
def test_no_field_text_breaks_a_row_or_leaves_a_control_character(
    tmp_path_factory: pytest.TempPathFactory, texts: list[str], as_cloze: bool
) -> None:
    first, second, extra = texts
    if as_cloze:
        card = make_card(
            kinds.CLOZE, {"text": f"{first}{{{{c1::{second}}}}}", "extra": extra}, refs=(extra,)
        )
    else:
        card = make_card(kinds.BASIC, {"front": first, "back": second, "extra": extra})
    deck = deck_of(card)
    expected = plain.rows([deck])
    folder = tmp_path_factory.mktemp("hostile")
    plain_files.export_csv([deck], folder / "d.csv")
    plain_files.export_txt([deck], folder / "d.txt")
    csv_rows = read_csv(folder / "d.csv")
    txt_rows = read_txt(folder / "d.txt")
    assert len(csv_rows) == len(txt_rows) == len(expected) == len(deck.items())
    assert csv_rows == [list(plain_files.csv_cells(row)) for row in expected]
    for row in csv_rows:
        assert len(row) == 2
        for cell in row:
            assert not CONTROL.search(cell) and "\t" not in cell and "\r" not in cell
            assert not cell.lstrip(" ").startswith(FORMULA)
            assert not re.search(r"(?<!\\)<[A-Za-z/!?]", cell)
    for row in txt_rows:
        assert len(row) == 2
        for cell in row:
            assert not CONTROL.search(cell) and "\n" not in cell
            assert not cell.lstrip(" ").startswith(FORMULA)


# -- the command -------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "txt"])
def test_the_cli_writes_a_file_per_deck_or_one_for_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    code, out, err = run_cli(
        capsys, "export", "--format", fmt, str(DATA / "kinds"), "-o", f"{tmp_path}/"
    )
    assert (code, err) == (0, "")
    # A line a card: each cloze deletion is a card of its own, so the counts say so.
    assert out == (
        f"wrote {tmp_path}/export-kinds.{fmt}: 1 deck, 6 cards "
        "(from 5 deck cards: a card per cloze deletion)\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"export-kinds.{fmt}"]
    one = tmp_path / f"all.{fmt}"
    code, out, err = run_cli(capsys, "export", "--format", fmt, str(DATA / "kinds"), "-o", str(one))
    assert code == 0 and one.read_bytes() == (tmp_path / f"export-kinds.{fmt}").read_bytes()


@pytest.mark.parametrize(
    "args, says",
    [
        (["-o", "deck.tsv"], "deck.tsv: name the file FILE.csv, or a folder DIR/"),
        (["--with-progress"], "--with-progress: a csv file carries no progress"),
    ],
)
def test_what_a_csv_cannot_be_is_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    code, out, err = run_cli(capsys, "export", "--format", "csv", str(DATA / "kinds"), *args)
    assert code != 0 and out == ""
    assert says in err


def test_a_deck_anki_would_refuse_still_exports_as_plain_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Plain text asks nothing of a deck: a title with "::" and a cloze marker Anki would read
    # otherwise are the package's concerns, not a CSV's.
    src = tmp_path / "d.yaml"
    text = (DATA / "kinds" / "deck.yaml").read_text(encoding="utf-8")
    text = text.replace("title: Export kinds", "title: ZeRO::Stages")
    src.write_text(
        text.replace("{{c2::stage::a key}}", "{{c2::stage::a key}}` *{{c3::x*}}`"),
        encoding="utf-8",
    )
    code, out, err = run_cli(capsys, "export", "--format", "csv", str(src), "-o", f"{tmp_path}/")
    assert (code, err) == (0, "")
    rows = read_csv(tmp_path / "export-kinds.csv")
    assert len(rows) == 7  # the cloze card's c3 is a card too
    assert ["The stage is set by zero_optimization.stage *[...]``.", "x"] in [
        [front, back.split("\n")[0]] for front, back in rows
    ]


def test_the_export_reads_as_csv_whatever_the_platform(tmp_path: Path, zero: Deck) -> None:
    # Read from bytes, as an importer on any system would: UTF-8, CRLF between records.
    out = tmp_path / "zero.csv"
    plain_files.export_csv([zero], out)
    reader = csv.reader(io.StringIO(out.read_bytes().decode("utf-8"), newline=""), strict=True)
    assert sum(1 for _ in reader) == len(zero.items())
