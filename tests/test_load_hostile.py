"""Hostile deck values: control characters, ids that only look like slugs, titles Anki would
merge or nest, oversized fields. Each is refused with one line at the character's own place."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from zerodrill.deck.load import load_paths
from zerodrill.deck.model import MAX_DECK_ID_CHARS, MAX_FIELD_CHARS
from zerodrill.export.formats import all_rules

HEADER = "deck: d\ntitle: T\ndescription: D\ncards:\n"
CARD = "  - id: a\n    kind: basic\n    front: Q\n    back: A\n"


def lines(tmp_path: Path, text: str, name: str = "deck.yaml") -> list[str]:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    result = load_paths([path], all_rules())
    assert not result.decks
    return [str(p).removeprefix(f"{tmp_path}/") for p in result.problems]


def test_the_issues_escape_sequence_is_refused_at_the_escape(tmp_path: Path) -> None:
    text = HEADER + CARD.replace("front: Q", 'front: "x \\e]2;PWNED\\a \\e[2J\\e[H"')
    assert lines(tmp_path, text) == [
        "deck.yaml:7:15: control character U+001B is not allowed in field 'front' "
        "(only tab and newline are)"
    ]


@pytest.mark.parametrize(
    ("snippet", "where", "code"),
    [
        pytest.param('front: "\\x1f"', "7:13", "U+001F", id="unit-separator"),
        pytest.param('front: "ok \\u202e"', "7:16", "U+202E", id="bidi-override"),
        pytest.param('front: "a\\rb"', "7:14", "U+000D", id="carriage-return"),
        pytest.param('front: "\\N"', "7:13", "U+0085", id="next-line"),
        pytest.param('front: "x\\Ly"', "7:14", "U+2028", id="line-separator"),
        pytest.param('front: "\\P"', "7:13", "U+2029", id="paragraph-separator"),
        pytest.param('front: "\\0"', "7:13", "U+0000", id="nul"),
        pytest.param('front: "\\x7f"', "7:13", "U+007F", id="del"),
        pytest.param('front: "\\x9b"', "7:13", "U+009B", id="csi"),
    ],
)
def test_every_control_character_is_refused_in_a_field(
    tmp_path: Path, snippet: str, where: str, code: str
) -> None:
    text = HEADER + CARD.replace("front: Q", snippet)
    assert lines(tmp_path, text) == [
        f"deck.yaml:{where}: control character {code} is not allowed in field 'front' "
        "(only tab and newline are)"
    ]


@pytest.mark.parametrize(
    ("body", "where", "field"),
    [
        (HEADER.replace("title: T", 'title: "T\\e"') + CARD, "2:10", "title"),
        (HEADER.replace("description: D", 'description: "\\x1b"') + CARD, "3:15", "description"),
        (HEADER + CARD.replace("id: a", 'id: "a\\x1b"'), "5:11", "id"),
        (HEADER.replace("deck: d", 'deck: "d\\x1f"') + CARD, "1:9", "deck"),
        (HEADER + CARD + '    tags: [ok, "t\\e[2J"]\n', "9:18", "tags[]"),
        (HEADER + CARD + '    refs: ["https://x\\x07"]\n', "9:22", "refs[]"),
        (HEADER + CARD + '    extra: "\\x1b"\n', "9:13", "extra"),
        (HEADER + CARD + 'retired: ["a\\x1b"]\n', "9:13", "retired[]"),
    ],
)
def test_control_characters_are_refused_in_every_kind_of_value(
    tmp_path: Path, body: str, where: str, field: str
) -> None:
    (line,) = lines(tmp_path, body)
    assert line.startswith(f"deck.yaml:{where}: control character U+00")
    assert f"in field '{field}'" in line


@pytest.mark.parametrize(
    ("scalar", "where"),
    [
        pytest.param("|\n      line one\n      two\x1b here\n", "9:10", id="literal"),
        pytest.param(">2\n        one\n        two\x1b\n", "9:12", id="folded-indicator"),
        pytest.param("'it''s \x1b'\n", "7:19", id="single-quoted"),
        pytest.param("plain\n      continued\x1b\n", "8:16", id="plain-folded"),
    ],
)
def test_raw_control_characters_in_any_scalar_style(
    tmp_path: Path, scalar: str, where: str
) -> None:
    text = HEADER + CARD.replace("front: Q\n", f"front: {scalar}")
    assert lines(tmp_path, text) == [
        f"deck.yaml:{where}: control character U+001B is not allowed in a deck file "
        "(only tab and newline are)"
    ]


def test_backslash_e_is_text_outside_double_quotes(tmp_path: Path) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text(HEADER + CARD.replace("front: Q", "front: 'a \\e b'"), encoding="utf-8")
    result = load_paths([path])
    assert result.ok
    assert result.decks[0].cards[0].fields["front"] == "a \\e b"


@pytest.mark.parametrize(
    ("char", "name"),
    [("\x1b", "control character U+001B"), ("\x01", "control character U+0001")],
)
def test_a_raw_control_character_is_one_line_at_its_place(
    tmp_path: Path, char: str, name: str
) -> None:
    text = HEADER + CARD.replace("back: A", f"back: A{char}B")
    assert lines(tmp_path, text) == [
        f"deck.yaml:8:12: {name} is not allowed in a deck file (only tab and newline are)"
    ]


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\x85"])
def test_unicode_line_breaks_are_refused_where_an_editor_sees_them(
    tmp_path: Path, char: str
) -> None:
    # YAML counts these as line breaks; an editor does not: the position is the editor's.
    text = HEADER.replace("description: D", f"description: D{char}more") + CARD
    (line,) = lines(tmp_path, text)
    assert line.startswith(f"deck.yaml:3:15: line break U+{ord(char):04X} is not allowed")
    assert int(line.split(":")[1]) <= text.count("\n")


def test_a_lone_carriage_return_is_refused_but_crlf_line_ends_are_fine(tmp_path: Path) -> None:
    crlf = (HEADER + CARD).replace("\n", "\r\n")
    path = tmp_path / "crlf.yaml"
    path.write_bytes(crlf.encode())
    assert load_paths([path]).ok
    (line,) = lines(tmp_path, (HEADER + CARD).replace("back: A", "back: A\rB"))
    assert line.startswith("deck.yaml:8:12: line break U+000D is not allowed")


def test_a_file_full_of_control_characters_is_a_bounded_list(tmp_path: Path) -> None:
    got = lines(tmp_path, HEADER + "\x01" * 5000)
    assert len(got) == 21
    assert got[-1].endswith("more control characters follow")


@pytest.mark.parametrize(
    ("snippet", "where"),
    [
        pytest.param('id: "abc\\n"', "5:9", id="card-id"),
        pytest.param("id: |\n      abc\n", "5:9", id="card-id-block"),
    ],
)
def test_a_trailing_newline_does_not_pass_the_id_check(
    tmp_path: Path, snippet: str, where: str
) -> None:
    text = HEADER + CARD.replace("id: a\n", snippet + ("" if snippet.endswith("\n") else "\n"))
    assert lines(tmp_path, text) == [
        f"deck.yaml:{where}: card id must be lowercase letters, digits and hyphens"
    ]


def test_a_trailing_newline_does_not_pass_the_deck_tag_or_retired_checks(
    tmp_path: Path,
) -> None:
    text = HEADER.replace("deck: d", 'deck: "t\\n"') + CARD + '    tags: ["x\\n"]\n'
    text += 'retired: ["a\\n"]\n'
    got = lines(tmp_path, text)
    assert "deck.yaml:1:7: deck id must be lowercase letters, digits and hyphens" in got
    assert any(g.startswith("deck.yaml:9:12: ") and "in 'tags' must be" in g for g in got)
    assert any(g.startswith("deck.yaml:10:11: ") and "in 'retired' must be" in g for g in got)


@pytest.mark.parametrize("deck_id", ["retired", "kind", "id"])
def test_deck_ids_export_reserves_are_refused_by_the_loader(tmp_path: Path, deck_id: str) -> None:
    text = HEADER.replace("deck: d", f"deck: {deck_id}") + CARD
    assert lines(tmp_path, text) == [
        f"deck.yaml:1:7: deck id '{deck_id}' is reserved for zerodrill's Anki tags; rename the deck"
    ]


def test_a_title_with_double_colons_is_refused(tmp_path: Path) -> None:
    text = HEADER.replace("title: T", "title: Systems::ZeRO") + CARD
    assert lines(tmp_path, text) == [
        "deck.yaml:2:15: '::' is not allowed in a deck title: Anki would make nested decks of it"
    ]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Same Title", "same title"),
        ("Caf\u00e9", "Cafe\u0301"),  # NFC and NFD
        ("Title", "Title  "),
    ],
)
def test_titles_anki_would_merge_are_refused(tmp_path: Path, first: str, second: str) -> None:
    a = tmp_path / "a.yaml"
    b = tmp_path / "b.yaml"
    a.write_text(HEADER.replace("title: T", f"title: {first}") + CARD, encoding="utf-8")
    b.write_text(
        HEADER.replace("deck: d", "deck: e").replace("title: T", f'title: "{second}"') + CARD,
        encoding="utf-8",
    )
    result = load_paths([a, b], all_rules())
    assert [d.path for d in result.decks] == [a]
    (problem,) = result.problems
    assert (problem.pos.path, problem.pos.line, problem.pos.col) == (str(b), 2, 8)
    assert f"is the same to Anki as '{first}' ({a}:2)" in problem.message


def test_a_field_beyond_any_real_card_is_refused_at_its_place(tmp_path: Path) -> None:
    big = "x" * (MAX_FIELD_CHARS + 1)
    text = HEADER + CARD.replace("back: A", f"back: {big}")
    assert lines(tmp_path, text) == [
        f"deck.yaml:8:11: field 'back' is {MAX_FIELD_CHARS + 1:,} characters long, more than "
        f"the {MAX_FIELD_CHARS:,} a field may hold: split it into several cards"
    ]
    path = tmp_path / "ok.yaml"
    path.write_text(HEADER + CARD.replace("back: A", f"back: {big[1:]}"), encoding="utf-8")
    assert load_paths([path]).ok


def test_unterminated_quote_is_reported_where_it_opened(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """\
        deck: d
        title: T
        description: "D
        cards:
          - id: a
            kind: basic
            front: Q
            back: A

        """
    )
    assert lines(tmp_path, text) == [
        'deck.yaml:3:14: YAML syntax error: the " quote opened here is never closed'
    ]


@pytest.mark.parametrize(("title", "where"), [('"A\\nB"', "2:10"), ("|\n  Title\n", "3:8")])
def test_a_deck_title_is_one_line(tmp_path: Path, title: str, where: str) -> None:
    text = HEADER.replace("title: T\n", f"title: {title}\n".replace("\n\n", "\n")) + CARD
    assert lines(tmp_path, text) == [
        f"deck.yaml:{where}: a deck title is one line: it becomes the deck's name in Anki"
    ]


@pytest.mark.parametrize(("raw", "code"), [("\uffff", "U+FFFF"), ("\ufffe", "U+FFFE")])
def test_characters_yaml_refuses_are_one_line_at_their_place(
    tmp_path: Path, raw: str, code: str
) -> None:
    text = HEADER.replace("description: D", f"description: D {raw} x") + CARD
    assert lines(tmp_path, text) == [f"deck.yaml:3:16: {code} is not allowed in a deck file"]


@pytest.mark.parametrize(("text", "last"), [("deck: d\ntitle: [", 2), ("--- ", 1)])
def test_the_end_of_a_file_without_a_final_newline_is_on_its_last_line(
    tmp_path: Path, text: str, last: int
) -> None:
    (line,) = lines(tmp_path, text)
    assert line.startswith(f"deck.yaml:{last}:")


def test_a_deck_id_too_long_for_a_file_name_is_refused(tmp_path: Path) -> None:
    long_id = "a" * (MAX_DECK_ID_CHARS + 1)
    assert lines(tmp_path, HEADER.replace("deck: d", f"deck: {long_id}") + CARD) == [
        f"deck.yaml:1:7: deck id is {MAX_DECK_ID_CHARS + 1} characters long, more than the "
        f"{MAX_DECK_ID_CHARS} it may have (it names the exported package's file)"
    ]


def test_the_longest_deck_id_exports(tmp_path: Path) -> None:
    from zerodrill.export import apkg

    path = tmp_path / "deck.yaml"
    long_id = "a" * MAX_DECK_ID_CHARS
    path.write_text(HEADER.replace("deck: d", f"deck: {long_id}") + CARD, encoding="utf-8")
    result = load_paths([path])
    assert result.ok
    apkg.export(list(result.decks), tmp_path / "out" / f"{long_id}.apkg")
    assert (tmp_path / "out" / f"{long_id}.manifest.json").is_file()


@pytest.mark.parametrize(
    ("reference", "code"),
    [("&#x202e;", "U+202E"), ("&#8232;", "U+2028"), ("&#X1B;", "U+001B"), ("&#x85;", "U+0085")],
)
def test_character_references_to_control_characters_are_refused(
    tmp_path: Path, reference: str, code: str
) -> None:
    # Markdown turns a reference into its character: in the drill and in Anki alike.
    text = HEADER + CARD.replace("back: A", f"back: 'x {reference} y'")
    assert lines(tmp_path, text) == [
        f"deck.yaml:8:14: '{reference}' stands for control character {code}, which is not "
        "allowed in field 'back'"
    ]


def test_other_character_references_are_fine(tmp_path: Path) -> None:
    path = tmp_path / "deck.yaml"
    path.write_text(HEADER + CARD.replace("back: A", "back: '&#233; &#x2192; &#10;'"), "utf-8")
    assert load_paths([path]).ok


def test_tags_differing_only_in_case_cannot_exist(tmp_path: Path) -> None:
    # Anki's tags are case-insensitive: 'Config' beside 'config' would merge. Tags, like
    # ids, are lowercase only, so two of them never differ by case alone.
    text = HEADER + CARD + "    tags: [config, Config]\n"
    (line,) = lines(tmp_path, text)
    assert line.startswith("deck.yaml:9:20: 'Config' in 'tags' must be lowercase")


@pytest.mark.parametrize("title", ["Default", "default", " DEFAULT"])
def test_a_title_naming_ankis_own_default_deck_is_refused(tmp_path: Path, title: str) -> None:
    text = HEADER.replace("title: T", f'title: "{title}"') + CARD
    (line,) = lines(tmp_path, text)
    assert line.endswith(
        "'Default' is the name of Anki's own deck: the cards would be mixed into it"
    )
