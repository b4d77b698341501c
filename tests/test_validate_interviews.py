"""`validate` on a deck's interviews and sheet: each mistake at its file:line:col."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from cache_support import served
from cli_support import run_cli

from zerodrill.deck.cache import load_paths_cached
from zerodrill.deck.load import load_paths
from zerodrill.paths import bundled_decks_dir

CARDS = """\
deck: d
title: T
description: D
cards:
  - id: a
    kind: basic
    front: Q
    back: A
  - id: fu
    kind: follow_up
    question: Q
    answer: A
  - id: rf
    kind: red_flag
    claim: C
    why: W
    instead: I
  - id: old
    kind: basic
    front: Q
    back: A
retired: [old]
"""  # 22 lines: what each case adds starts at line 23

INTERVIEW = """\
interviews:
  - id: i
    title: T
    question: Q
    minutes: 4
    points:
      - text: P
        cards: [a]
"""  # lines 23-30


def problems(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str) -> list[str]:
    path = tmp_path / "deck.yaml"
    path.write_text(CARDS + textwrap.dedent(body), encoding="utf-8")
    code, out, err = run_cli(capsys, "validate", str(path))
    assert code == 1, out
    assert "problem" in err
    return [line.removeprefix(f"{path}:") for line in out.splitlines()]


CASES: dict[str, tuple[str, list[str]]] = {
    "unknown card in a point": (
        INTERVIEW.replace("[a]", "[a, b]"),
        ["30:20: unknown card 'b'"],
    ),
    "follow-up of the wrong kind": (
        INTERVIEW + "    follow_ups: [fu, rf]\n",
        ["31:22: card 'rf' is a red_flag card; 'follow_ups' lists follow_up cards"],
    ),
    "red flag of the wrong kind": (
        INTERVIEW + "    red_flags:\n      - a\n",
        ["32:9: card 'a' is a basic card; 'red_flags' lists red_flag cards"],
    ),
    "unknown follow-up": (
        INTERVIEW + "    follow_ups: [nope]\n",
        ["31:18: unknown card 'nope'"],
    ),
    "retired card": (
        INTERVIEW.replace("[a]", "[old]"),
        ["30:17: card 'old' is retired: link a card the drill still shows"],
    ),
    "card listed twice": (
        INTERVIEW + "    follow_ups: [fu, fu]\n",
        ["31:22: card 'fu' is listed twice in 'follow_ups'"],
    ),
    "blank point": (
        INTERVIEW + "      - text: '  '\n",
        ["31:15: field 'text' is empty"],
    ),
    "point with no text": (
        INTERVIEW + "      - cards: [a]\n",
        ["31:9: a point is missing required field 'text'"],
    ),
    "no points": (
        INTERVIEW.split("    points:")[0] + "    points: []\n",
        ["28:13: 'points' is empty: list what a strong answer says"],
    ),
    "missing fields": (
        "interviews:\n  - id: i\n    title: T\n",
        [
            "24:5: an interview is missing required field 'question'",
            "24:5: an interview is missing required field 'minutes'",
            "24:5: an interview is missing required field 'points'",
        ],
    ),
    "duplicate interview ids": (
        INTERVIEW + INTERVIEW.removeprefix("interviews:\n"),
        ["31:5: interview id 'i' is used twice (first at line 24)"],
    ),
    "more points than minutes": (
        INTERVIEW.replace("minutes: 4", "minutes: 1") + "      - Another point.\n",
        [
            "27:14: an interview's points must fit its time, a minute a point: 2 points "
            "need 'minutes: 2' or more, not 1 (or fewer points)"
        ],
    ),
    "budget of zero minutes": (
        INTERVIEW.replace("minutes: 4", "minutes: 0"),
        ["27:14: an interview's budget is 1 to 30 minutes, not 0"],
    ),
    "budget over half an hour": (
        INTERVIEW.replace("minutes: 4", "minutes: 45"),
        ["27:14: an interview's budget is 1 to 30 minutes, not 45"],
    ),
    "budget of five thousand digits": (
        INTERVIEW.replace("minutes: 4", "minutes: " + "9" * 5000),
        ["27:14: an interview's budget is 1 to 30 minutes, not 999999999..."],
    ),
    "budget as text": (
        INTERVIEW.replace("minutes: 4", "minutes: four"),
        ["27:14: field 'minutes' must be a whole number of minutes from 1 to 30, not text"],
    ),
    "fractional budget": (
        INTERVIEW.replace("minutes: 4", "minutes: 2.5"),
        ["27:14: field 'minutes' must be a whole number of minutes from 1 to 30, not a number"],
    ),
    "bad interview id": (
        INTERVIEW.replace("id: i", "id: Stage Key"),
        ["24:9: interview id must be lowercase letters, digits and hyphens"],
    ),
    "unknown field": (
        INTERVIEW + "    folow_ups: [fu]\n",
        ["31:5: unknown field 'folow_ups' in an interview (did you mean 'follow_ups'?)"],
    ),
    "two-line title": (
        INTERVIEW.replace("title: T", 'title: "T\\nU"'),
        ["25:14: an interview's title is one line"],
    ),
    "control character in the question": (
        INTERVIEW.replace("question: Q", 'question: "Q\\e[2J"'),
        [
            "26:17: control character U+001B is not allowed in field 'question' "
            "(only tab and newline are)"
        ],
    ),
    "control character reference in a point": (
        INTERVIEW.replace("text: P", "text: 'P &#x202e;'"),
        [
            "29:18: '&#x202e;' stands for control character U+202E, which is not allowed "
            "in field 'text'"
        ],
    ),
    "image in the question": (
        INTERVIEW.replace("question: Q", "question: See ![x](x.png)"),
        [
            "26:19: images are not allowed in an interview's question; "
            "link the card that shows it instead"
        ],
    ),
    "two paragraphs in a point": (
        INTERVIEW.replace("text: P", 'text: "P\\n\\nQ"'),
        ["29:17: a point is one paragraph: it has a blank line here"],
    ),
    "point too long": (
        INTERVIEW.replace("text: P", "text: " + "x" * 241),
        [
            "29:15: a point is 241 characters long, more than the 240 it may have: "
            "keep it to one short statement"
        ],
    ),
    "interviews not a list": (
        "interviews: {id: i}\n",
        ["23:13: 'interviews' must be a list of interviews, not a mapping"],
    ),
    "sheet not a list": (
        "sheet: tomorrow\n",
        ["23:8: 'sheet' must be a list of bullets, not text"],
    ),
    "empty sheet": (
        "sheet: []\n",
        ["23:8: 'sheet' is empty: leave it out, or give it at least one bullet"],
    ),
    "thirteen bullets": (
        "sheet:\n" + "".join(f"  - B{n}\n" for n in range(13)),
        [
            "36:5: the sheet has 13 bullets, more than the 12 it may have: it is read in a "
            "minute the night before"
        ],
    ),
    "bullet too long": (
        "sheet:\n  - text: " + "y" * 300 + "\n    cards: [a]\n",
        [
            "24:11: a sheet bullet is 300 characters long, more than the 240 it may have: "
            "keep it to one short statement"
        ],
    ),
    "unknown card in a bullet": (
        "sheet:\n  - text: B\n    cards: [a, fu, zz]\n",
        ["25:20: unknown card 'zz'"],
    ),
    "script link in a bullet": (
        "sheet:\n  - 'See [this](javascript:alert(1)) first'\n",
        [
            "24:10: a sheet bullet links to 'javascript:alert(1)': only http(s) and mailto links "
            "are allowed"
        ],
    ),
    "file autolink in a point": (
        INTERVIEW.replace("text: P", "text: P <file:///etc/passwd>"),
        ["29:17: a point links to 'file:///etc/passwd': only http(s) and mailto links are allowed"],
    ),
    "blank bullet": (
        "sheet:\n  - ''\n",
        ["24:5: field 'text' is empty"],
    ),
    "bullet card id not a slug": (
        "sheet:\n  - text: B\n    cards: [A]\n",
        ["25:13: 'A' in 'cards' must be lowercase letters, digits and hyphens"],
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_each_mistake_is_reported_at_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    body, expected = CASES[case]
    assert problems(tmp_path, capsys, body) == expected


def test_web_and_mail_links_in_a_bullet_are_fine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deck.yaml"
    body = "sheet:\n  - See [docs](https://www.deepspeed.ai/) and <mailto:a@b.c>\n"
    path.write_text(CARDS + body, encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", str(path))
    assert (code, out) == (0, "1 deck, 4 cards: ok\n")


def test_a_card_with_its_own_problem_is_not_also_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "  - id: bad\n    kind: basic\n    front: Q\n" + INTERVIEW.replace("[a]", "[bad]")
    path = tmp_path / "deck.yaml"
    path.write_text(CARDS.replace("retired: [old]\n", "") + body, encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", str(path))
    assert code == 1
    assert out.splitlines() == [f"{path}:22:5: a basic card is missing required field 'back'"]


def test_a_good_interview_and_sheet_load_with_their_positions(tmp_path: Path) -> None:
    path = tmp_path / "deck.yaml"
    body = (
        INTERVIEW
        + "    follow_ups: [fu]\n    red_flags: [rf]\n"
        + ("sheet:\n  - Plain bullet\n  - text: Linked `code`\n    cards: [a, rf]\n")
    )
    path.write_text(CARDS + body, encoding="utf-8")
    (deck,) = load_paths([path]).decks
    (interview,) = deck.interviews
    assert (interview.id, interview.title, interview.question, interview.minutes) == (
        "i",
        "T",
        "Q",
        4,
    )
    assert [(p.text, p.cards) for p in interview.points] == [("P", ("a",))]
    assert (interview.follow_ups, interview.red_flags) == (("fu",), ("rf",))
    assert deck.sheet is not None
    assert [(b.text, b.cards) for b in deck.sheet.bullets] == [
        ("Plain bullet", ()),
        ("Linked `code`", ("a", "rf")),
    ]
    assert [str(b.pos) for b in deck.sheet.bullets] == [f"{path}:34:5", f"{path}:35:5"]
    assert str(interview.pos) == f"{path}:24:5"
    assert str(interview.points[0].pos) == f"{path}:29:9"


def test_the_cache_gives_back_the_same_interviews_and_sheet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = load_paths([bundled_decks_dir()]).decks
    load_paths_cached([bundled_decks_dir()], tmp_path)  # fills the cache
    cached = served([bundled_decks_dir()], tmp_path, monkeypatch).decks
    assert any(d.interviews for d in fresh) and any(d.sheet for d in fresh)
    for a, b in zip(fresh, cached, strict=True):
        assert a.interviews == b.interviews and a.sheet == b.sheet
        assert [str(i.pos) for i in a.interviews] == [str(i.pos) for i in b.interviews]
        assert [str(p.pos) for i in a.interviews for p in i.points] == [
            str(p.pos) for i in b.interviews for p in i.points
        ]
        assert a.sheet is not None and b.sheet is not None
        assert [str(x.pos) for x in a.sheet.bullets] == [str(x.pos) for x in b.sheet.bullets]


def test_the_zero_deck_rehearses_the_seed_question_and_links_every_line() -> None:
    (deck,) = [d for d in load_paths([bundled_decks_dir()]).decks if d.id == "deepspeed-zero"]
    by_id = {i.id: i for i in deck.interviews}
    assert {"stage-key-walkthrough", "choose-stage-and-offload", "zero3-vs-fsdp"} <= set(by_id)
    seed = by_id["stage-key-walkthrough"]
    # The seed page gave its question 4 minutes; its strong answer's points take a minute each.
    assert all(len(i.points) <= i.minutes for i in deck.interviews)
    assert "zero_optimization.stage" in seed.points[0].text
    # The seed page's three follow-ups, in its order.
    assert seed.follow_ups == (
        "fu-stage1-to-2-free",
        "fu-offload-vs-bigger-gpu",
        "fu-fsdp-vs-zero3",
    )
    assert all(p.cards for i in deck.interviews for p in i.points)
    assert deck.sheet is not None and 1 <= len(deck.sheet.bullets) <= 12
    assert all(b.cards for b in deck.sheet.bullets)
