"""Typed cloze answers and card sides: the pure text work under the card view."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from rich.style import Style
from rich.text import Text
from tui_support import TUI_DECKS, tui_decks

from zerodrill.srs.answer_check import check, check_cloze
from zerodrill.srs.answer_marks import normalize


def test_space_and_backticks_do_not_matter_but_a_key_s_case_does() -> None:
    assert normalize("  `Zero_Optimization` ") == "zero_optimization"
    result = check("  `zero_optimization`  ", ["zero_optimization"])
    assert result.right and result.suggested_grade == 4
    # DeepSpeed reads its keys as written: in capitals the key is not the key.
    capitals = check("  `Zero_Optimization`  ", ["zero_optimization"])
    assert capitals.suggested_grade == 2
    assert capitals.parts[0].reason.startswith("case differs: `zero_optimization` is lowercase")


def test_a_near_miss_is_marked_where_it_differs_and_suggests_3() -> None:
    result = check("memory-centric tilling", ["memory-centric tiling"])
    assert not result.right and result.suggested_grade == 3
    (part,) = result.parts
    assert part.runs == ((True, "memory-centric til"), (False, "l"), (True, "ing"))


def test_a_wrong_answer_suggests_1() -> None:
    assert check("offload", ["zero_optimization"]).suggested_grade == 1


def test_several_blanks_of_one_number_are_typed_in_order() -> None:
    expected = ["reduce-scatter", "all-gather"]
    assert check("Reduce-Scatter, all-gather", expected).right
    result = check("reduce-scatter; all-reduce", expected)
    assert [p.right for p in result.parts] == [True, False]
    # Punctuation never matters: "all gather" is all-gather.
    assert check("reduce-scatter; all gather", expected).right
    assert not check("all-gather, reduce-scatter", expected).right


def test_blanks_side_by_side_are_checked_against_the_text_the_card_shows() -> None:
    # `{{c1::zero_optimization}}.{{c1::stage}}`: the card shows "zero_optimization.stage".
    expected, between = ["zero_optimization", "stage"], ["."]
    result = check("zero_optimization.stage", expected, between)
    assert result.right and [p.expected for p in result.parts] == ["zero_optimization.stage"]
    assert check("zero_optimization, stage", expected, between).right
    # A dotted key typed with a space is not the key: an identifier must be exact.
    wrong = check("zero_optimization stage", expected, between)
    assert not wrong.right and wrong.suggested_grade == 1
    # Blanks with words between them are typed apart, as before.
    apart = check("reduce-scatter all-gather", ["reduce-scatter", "all-gather"], [" then an "])
    assert [p.expected for p in apart.parts] == ["reduce-scatter, all-gather"]


def test_every_side_by_side_cloze_shape_in_the_decks_accepts_the_text_it_shows() -> None:
    from zerodrill.deck import cloze
    from zerodrill.deck.load import load_paths

    root = Path(__file__).resolve().parents[1]
    shapes = [
        "`{{c1::zero_optimization}}.{{c1::stage}}`",
        "{{c1::reduce}}-{{c1::scatter}} then {{c1::all}}::{{c1::gather}}",
        "{{c1::a}}{{c1::b}} and {{c2::x}} {{c1::c}}",
    ]
    texts = [
        card.fields["text"]
        for path in (root / "decks", root / "tests" / "data" / "decks", TUI_DECKS)
        for deck in load_paths([path]).decks
        for card in deck.cards
        if card.kind.is_cloze
    ]
    assert len(texts) > 20
    for text in [*shapes, *texts]:
        for ordinal in sorted({d.ordinal for d in cloze.deletions(text)}):
            answers, between = cloze.blanks(text, ordinal)
            shown = cloze.render(text, ordinal, reveal=True)
            # Typed as the blanks read on the card, groups apart by commas, it is right.
            groups = [answers[0]]
            for gap, answer in zip(between, answers[1:], strict=True):
                assert gap in shown
                if len(gap) <= 3 and not any(c.isalnum() for c in gap) and gap.strip() == gap:
                    groups[-1] += gap + answer
                else:
                    groups.append(answer)
            assert check(", ".join(groups), answers, between).right, (text, ordinal)
            assert check(", ".join(answers), answers, between).right, (text, ordinal)
            # As the drill checks it, knowing which blanks are code: still right.
            assert check_cloze(", ".join(groups), text, ordinal).right, (text, ordinal)


def test_the_verdict_and_the_suggested_grade_never_disagree() -> None:
    cases = {
        "zero_optimization": ("Right: 4 good suggested", 4),
        "zero_optimisation": ("Almost, a name in code not exact: 2 almost suggested", 2),
        "offload": ("Not right: 1 wrong suggested", 1),
    }
    for typed, (start, grade) in cases.items():
        result = check(typed, ["zero_optimization"])
        assert result.suggested_grade == grade and result.verdict().startswith(start)
    prose = {
        "memory-centric tiling": ("Right: 4 good suggested", 4),
        "memory-centric tilling": ("Nearly right, a slip where marked ≈: 3 hard suggested", 3),
    }
    for typed, (start, grade) in prose.items():
        result = check(typed, ["memory-centric tiling"])
        assert result.suggested_grade == grade and result.verdict().startswith(start)
    # One part right and one a miss: wrong, never "almost" with a passing grade.
    mixed = check("reduce-scatter, broadcast", ["reduce-scatter", "all-gather"])
    assert mixed.suggested_grade == 1
    assert mixed.verdict().startswith("1 of 2 parts wrong: 1 wrong suggested")


def test_cloze_sides_hide_only_the_active_deletion() -> None:
    by_key = {item.key: item for deck in tui_decks("zero") for item in deck.items()}
    c2 = by_key["zero-tui/stage-key#c2"].sides()
    # In code the blank shows its hint as typed; the other deletion is filled in.
    assert c2.question == "The ZeRO stage is set by `zero_optimization.[key]` in the config."
    assert c2.answer == "The ZeRO stage is set by `zero_optimization.stage` in the config."


def test_cloze_blank_in_prose_is_escaped_and_the_answer_bold() -> None:
    by_key = {item.key: item for deck in tui_decks("comm") for item in deck.items()}
    s = by_key["comm-tui/reduce-scatter#c1"].sides()
    assert s.question == r"An all-reduce is a \[...\] followed by an \[...\]."
    assert s.answer == "An all-reduce is a **reduce-scatter** followed by an **all-gather**."


def test_a_cloze_answer_with_spaces_inside_is_bold_without_asterisks() -> None:
    # Issue 36, break 10: "{{c1:: a }}" showed "** a **", as Markdown emphasises nothing
    # whose inside starts or ends with a space.
    from zerodrill.deck import cloze
    from zerodrill.tui.markdown import MarkdownStyles, parse, render

    cases = [("x {{c1:: a }} y", "x  a  y", "a"), ("{{c1:: 0 to 3}}.", "0 to 3.", "0 to 3")]
    for text, plain, answer in cases:
        shown = render(parse(cloze.markdown(text, 1, reveal=True)), MarkdownStyles())
        assert isinstance(shown, Text) and shown.plain == plain
        bold = [shown.plain[s.start : s.end] for s in shown.spans if Style.parse(str(s.style)).bold]
        assert bold == [answer]


def test_red_flag_asks_what_is_wrong_and_answers_why_and_instead() -> None:
    by_key = {item.key: item for deck in tui_decks("zero") for item in deck.items()}
    s = by_key["zero-tui/stage3-default"].sides()
    assert s.quote.startswith("Just use stage 3")
    assert s.question == "What is wrong with saying this?"
    assert "Why it is a red flag" in s.answer and "Say instead" in s.answer


def test_a_small_day_beside_a_tall_peak_still_shows_in_the_chart() -> None:
    from zerodrill.srs.review_stats import bar_eighths

    assert bar_eighths(1, 150, 6) == 1  # rounded, it would vanish
    assert bar_eighths(150, 150, 6) == 48 and bar_eighths(0, 150, 6) == 0


def test_dates_are_written_without_a_leading_zero_portably() -> None:
    from datetime import datetime

    from zerodrill.tui import time_labels

    now = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
    later = datetime(2026, 12, 5, 4, 0, tzinfo=UTC)
    assert time_labels.when(later, now) == "Sat 5 Dec at 04:00 (in 3 days)"
