"""New cards in an order that teaches: a card's ``level`` (which come first) and ``siblings``
(cards that teach the same thing, never on one study day), from the deck file to the queue."""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from cache_support import served
from cli_support import run_cli
from srs_support import DAY, NOW, card, deck, keys, record

from zerodrill.deck.cache import load_paths_cached
from zerodrill.deck.item_index import ItemIndex
from zerodrill.deck.kinds import RED_FLAG
from zerodrill.deck.load import load_paths
from zerodrill.deck.model import Card, Deck
from zerodrill.paths import bundled_decks_dir
from zerodrill.srs.queue import build_queue, items_of
from zerodrill.srs.sitting import Session
from zerodrill.srs.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


CARDS = """\
deck: d
title: T
description: D
retired: [old]
cards:
  - id: a
    kind: basic
    front: Q
    back: A
  - id: b
    kind: basic
    front: Q
    back: A
  - id: old
    kind: basic
    front: Q
    back: A
"""  # 17 lines: what each case adds starts at line 18


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "deck.yaml"
    path.write_text(CARDS + body, encoding="utf-8")
    return path


def problems(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str) -> list[str]:
    path = write(tmp_path, body)
    code, out, err = run_cli(capsys, "validate", str(path))
    assert code == 1, out
    assert "problem" in err
    return [line.removeprefix(f"{path}:") for line in out.splitlines()]


# -- the format: the loader takes the fields and refuses them at their place -------------------


def test_a_level_and_siblings_load_onto_their_cards(tmp_path: Path) -> None:
    # A sibling may be written below the card that names it; the relation goes both ways.
    path = write(
        tmp_path,
        "  - id: c\n    kind: basic\n    level: 1\n    siblings: [a, d]\n    front: Q\n"
        "    back: A\n"
        "  - id: d\n    kind: cloze\n    level: 9\n    text: '{{c1::x}}'\n",
    )
    (loaded,) = load_paths([path]).decks
    by_id = {c.id: c for c in loaded.cards}
    assert (by_id["c"].level, by_id["c"].siblings) == (1, ("a", "d"))
    assert (by_id["d"].level, by_id["d"].siblings) == (9, ())
    assert (by_id["a"].level, by_id["a"].siblings) == (None, ())
    assert loaded.study_items.siblings == {
        "d/c": ("d/a", "d/d"),
        "d/a": ("d/c",),
        "d/d": ("d/c",),
    }
    # Where they were written, as for every field.
    assert (by_id["c"].field_pos["level"].line, by_id["c"].field_pos["siblings"].line) == (20, 21)


LEVEL_RULE = "field 'level' must be a whole number from 1 (foundations, introduced first) to 9"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0", f"{LEVEL_RULE}, not '0'"),
        ("10", f"{LEVEL_RULE}, not '10'"),
        ("-1", f"{LEVEL_RULE}, not '-1'"),
        ("'1'", f"{LEVEL_RULE}, not text"),
        ("1.5", f"{LEVEL_RULE}, not a number"),
        ("true", f"{LEVEL_RULE}, not a boolean"),
        ("[1]", f"{LEVEL_RULE}, not a list"),
        ("", f"{LEVEL_RULE}, not empty"),  # (a YAML null stands right after the colon)
        ("9" * 5000, f"{LEVEL_RULE}, not a number"),
    ],
    ids=["0", "10", "negative", "text", "fraction", "boolean", "list", "empty", "huge"],
)
def test_a_level_is_a_whole_number_from_one_to_nine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, expected: str
) -> None:
    body = f"  - id: c\n    kind: basic\n    front: Q\n    back: A\n    level: {value}\n"
    assert problems(tmp_path, capsys, body) == [f"22:{12 if value else 11}: {expected}"]


@pytest.mark.parametrize(
    ("siblings", "expected"),
    [
        pytest.param("[a, bb]", ["22:19: unknown card 'bb' (did you mean 'b'?)"], id="unknown"),
        pytest.param(
            "[old]", ["22:16: card 'old' is retired: link a card the drill still shows"], id="old"
        ),
        pytest.param(
            "[a, c]",
            [
                "22:19: card 'c' lists itself in 'siblings': list the other cards that teach what "
                "it teaches"
            ],
            id="itself",
        ),
        pytest.param("[a, a]", ["22:19: card 'a' is listed twice in 'siblings'"], id="twice"),
        pytest.param("a", ["22:15: field 'siblings' must be a list, not text"], id="not-a-list"),
        pytest.param(
            "[A]",
            ["22:16: 'A' in 'siblings' must be lowercase letters, digits and hyphens"],
            id="not-an-id",
        ),
    ],
)
def test_each_sibling_is_a_card_of_the_deck_checked_at_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], siblings: str, expected: list[str]
) -> None:
    body = f"  - id: c\n    kind: basic\n    front: Q\n    back: A\n    siblings: {siblings}\n"
    assert problems(tmp_path, capsys, body) == expected


def test_a_sibling_with_its_own_problem_is_not_also_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its own problem is the one to fix; then the sibling resolves. A card with a problem of
    # its own still has its siblings checked.
    body = (
        "  - id: c\n    kind: basic\n    siblings: [e]\n    front: Q\n    back: A\n"
        "  - id: e\n    kind: basic\n    front: Q\n    siblings: [f]\n"
    )
    assert problems(tmp_path, capsys, body) == [
        "23:5: a basic card is missing required field 'back'",
        "26:16: unknown card 'f'",
    ]


def test_the_cache_gives_back_levels_and_siblings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(
        tmp_path,
        "  - id: c\n    kind: basic\n    level: 2\n    siblings: [b]\n    front: Q\n    back: A\n",
    )
    cache = tmp_path / "cache"
    load_paths_cached([path], cache)
    (cached,) = served([path], cache, monkeypatch).decks
    (parsed,) = load_paths([path]).decks
    assert [(c.id, c.level, c.siblings) for c in cached.cards] == [
        ("a", None, ()),
        ("b", None, ()),
        ("old", None, ()),
        ("c", 2, ("b",)),
    ]
    assert cached == parsed
    assert cached.study_items == parsed.study_items
    assert dict(cached.study_items.siblings) == {"d/c": ("d/b",), "d/b": ("d/c",)}


# -- the order: level by level, kinds and topics mixed within each -----------------------------


def made(id: str, level: int | None = None, *, kind: str = "basic", **more: object) -> Card:
    base = card("d", id, cloze=more.pop("cloze", ()))  # type: ignore[arg-type]
    if kind == "red_flag":
        base = dataclasses.replace(base, kind=RED_FLAG)
    return dataclasses.replace(base, level=level, **more)  # type: ignore[arg-type]


def test_new_cards_come_level_by_level_with_kinds_mixed_in_each() -> None:
    d = deck(
        "d",
        made("b0", 2),
        made("r0", 1, kind="red_flag"),
        made("b1", 1),
        made("none"),
        made("r1", 2, kind="red_flag"),
        made("b2", 1),
        made("gone", 1, retired=True),
        made("b3", 3),
    )
    assert keys(items_of([d])) == [
        "d/r0",  # level 1: the first of each kind first, in the order they appear
        "d/b1",
        "d/b2",
        "d/b0",  # level 2
        "d/r1",
        "d/b3",  # level 3
        "d/none",  # no level: after every leveled card
    ]


def test_a_deck_without_levels_keeps_its_order() -> None:
    cards = [made(f"b{i}", kind="red_flag" if i % 3 == 0 else "basic") for i in range(9)]
    leveled = deck("d", *(dataclasses.replace(c, level=4) for c in cards))
    assert keys(items_of([deck("d", *cards)])) == keys(items_of([leveled]))


# -- the queue: siblings never come on one study day -------------------------------------------


def sibling_deck() -> Deck:
    return deck("d", made("a"), made("b", siblings=("a",)), made("c"), made("z", cloze=(1, 2)))


@pytest.mark.parametrize("index", [ItemIndex, lambda decks: items_of(decks)])
def test_a_card_waits_while_its_sibling_is_new_graded_or_due(store: Store, index: object) -> None:
    # Over the decks' own index, and over items as a caller lists them: one rule.
    def new(day: object) -> list[str]:
        return keys(build_queue(index([sibling_deck()]), store, day).new)  # type: ignore[operator]

    assert new(DAY) == ["d/a", "d/z#c1", "d/c"]  # b waits for a, as z's c2 for its c1
    record(store, "d/a", 4, DAY)
    assert new(DAY) == ["d/z#c1", "d/c"]  # a was graded today: b still waits
    later = DAY + timedelta(days=1)
    q = build_queue(index([sibling_deck()]), store, later)  # type: ignore[operator]
    assert keys(q.reviews) == ["d/a"] and keys(q.new) == ["d/z#c1", "d/c"]  # a is due
    record(store, "d/a", 4, later)
    assert new(later + timedelta(days=1)) == ["d/z#c1", "d/b", "d/c"]  # a is not due again yet


def test_the_relation_goes_both_ways_and_is_not_transitive(store: Store) -> None:
    # b lists a; c lists b. a keeps b back; so would b keep a. But a and c, each teaching
    # what b teaches, are not each other's siblings.
    d = deck("d", made("b", siblings=("a",)), made("a"), made("c", siblings=("b",)))
    assert keys(build_queue(items_of([d]), store, DAY).new) == ["d/b"]
    d = deck("d", made("a"), made("b", siblings=("a",)), made("c", siblings=("b",)))
    assert keys(build_queue(items_of([d]), store, DAY).new) == ["d/a", "d/c"]


def test_a_held_sibling_leaves_its_slot_to_the_next_card(store: Store) -> None:
    d = deck("d", made("a"), made("b", siblings=("a",)), made("c"), made("e"))
    assert keys(build_queue(items_of([d]), store, DAY, new_limit=2).new) == ["d/a", "d/c"]


def test_a_sitting_never_shows_two_siblings_on_one_day(store: Store) -> None:
    d = deck("d", made("a"), made("b", siblings=("a",)), made("c", siblings=("a",)), made("e"))
    days: list[list[str]] = []
    for n in range(3):
        now = NOW + timedelta(days=n)
        s = Session([d], store, clock=lambda now=now: now)  # type: ignore[misc]
        shown = []
        while (item := s.current) is not None:
            shown.append(item.key)
            s.grade(4)
        days.append(shown)
    assert days[0] == ["d/a", "d/e"]
    assert days[1] == ["d/a", "d/e"]  # the reviews SM-2 brings back the next day
    assert days[2] == ["d/b", "d/c"]  # each waited for a; they are not each other's siblings


# -- the bundled deck ----------------------------------------------------------------------------


def zero_deck() -> Deck:
    result = load_paths([bundled_decks_dir()])
    assert result.ok, result.problems
    (found,) = (d for d in result.decks if d.id == "deepspeed-zero")
    return found


#: The foundations: the stage key, what each stage shards, memory per stage, communication.
FOUNDATIONS = (
    "stage-key",
    "stage0-meaning",
    "stage1-shards",
    "stage2-shards",
    "stage3-shards",
    "model-state-bytes",
    "per-stage-memory-formulas",
    "comm-volume",
    "dp-allreduce-2psi",
    "stage3-3psi",
)
#: What the learner of the issue met on day 0, before what each stage shards.
ADVANCED = ("mics", "fu-zeropp-hpz-memory", "multi-rank-allreduce-volume", "zeropp-hpz")


def test_the_shipped_deck_gives_foundations_first_and_advanced_cards_last() -> None:
    by_id = {c.id: c for c in zero_deck().cards}
    assert {by_id[i].level for i in FOUNDATIONS} == {1}
    assert all(by_id[i].level not in (None, 1) for i in ADVANCED)
    assert {by_id[i].level for i in ("mics", "fu-zeropp-hpz-memory", "zeropp-hpz")} == {3}


def test_the_shipped_decks_first_day_brings_foundations_only(store: Store) -> None:
    d = zero_deck()
    s = Session([d], store, clock=lambda: NOW)
    day0 = []
    while (item := s.current) is not None:
        day0.append(item.card)
        s.grade(4)
    assert len(day0) == 20
    assert {c.level for c in day0} == {1}, [(c.id, c.level) for c in day0 if c.level != 1]
    ids = {c.id for c in day0}
    assert {"stage-key", "stage1-shards", "stage2-shards", "stage3-shards"} <= ids
    assert not ids & set(ADVANCED)


def test_the_shipped_decks_siblings_never_share_a_study_day(store: Store) -> None:
    # The learner met `rf-only-three-stages` minutes after `stage-key`.
    d = zero_deck()
    siblings = d.study_items.siblings
    assert "deepspeed-zero/stage-key" in siblings["deepspeed-zero/rf-only-three-stages"]
    start = datetime(2025, 3, 10, 12, 0).astimezone()
    met: set[str] = set()
    for n in range(10):
        now = start + timedelta(days=n)
        s = Session([d], store, clock=lambda now=now: now)  # type: ignore[misc]
        shown: set[str] = set()
        repeats: dict[str, int] = {}
        while (item := s.current) is not None:
            shown.add(item.card.key)
            # Some fails and hards too: their repeats come back the same day. Each grade is drawn
            # from the item, the day and the repeat, not from its place in the day's queue, so
            # adding a card to the deck does not reshuffle every other card's grades.
            repeats[item.key] = repeats.get(item.key, 0) + 1
            draw = zlib.crc32(f"{item.key} {n} {repeats[item.key]}".encode())
            s.grade((4, 4, 4, 1, 3)[draw % 5])
        for key in shown:
            assert not shown & set(siblings.get(key, ())), (n, key)
        met |= shown
    # Holding them apart delays them a few days, never for good.
    assert {"deepspeed-zero/rf-only-three-stages", "deepspeed-zero/rf-every-stage-more-comm"} <= met
