"""``zerodrill stats`` and the figures behind it."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from msgspec import structs

from zerodrill.cli import main
from zerodrill.deck.kinds import BASIC
from zerodrill.deck.load import load_paths
from zerodrill.deck.model import Card, Deck, Pos
from zerodrill.srs.days import local_now, study_day
from zerodrill.srs.events import LoggedEvent
from zerodrill.srs.review_stats import FORECAST_DAYS, compute_stats, forecast_chart, render_text
from zerodrill.srs.sitting import record_grade
from zerodrill.srs.store import Store

DAY = date(2025, 3, 10)
NOW = datetime(2025, 3, 10, 12, tzinfo=UTC)
POS = Pos("t.yaml", 1, 1)

DECK_YAML = """\
deck: tiny
title: Tiny
description: Three cards, four study items.
cards:
  - id: stages
    kind: cloze
    text: Stage 2 shards {{c1::gradients}} and {{c2::optimizer states}}.
  - id: offload
    kind: basic
    front: What does ZeRO-Offload move to the CPU?
    back: Optimizer states and the optimizer step.
  - id: fsdp
    kind: follow_up
    question: How does FSDP differ from ZeRO-3?
    answer: Much the same sharding, in PyTorch itself.
"""


def basic(deck: str, id: str, *, retired: bool = False) -> Card:
    return Card(deck, id, BASIC, {"front": "q", "back": "a"}, (), (), POS, {}, retired=retired)


def deck(id: str, *cards: Card) -> Deck:
    return Deck(id, id, "test", cards, Path(f"{id}.yaml"), POS)


def record(store: Store, key: str, q: int, day: date, **kw: object) -> LoggedEvent:
    return record_grade(store, key, q, day=day, at=NOW, **kw)  # type: ignore[arg-type]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "stats.db") as s:
        yield s


# -- the figures -------------------------------------------------------------------------------


def test_figures(store: Store) -> None:
    d = deck("d", *(basic("d", f"k{i}") for i in range(6)), basic("d", "old", retired=True))
    before = DAY - timedelta(days=6)
    record(store, "d/k0", 5, before)  # due DAY - 5: overdue, counted today
    record(store, "d/k1", 4, DAY - timedelta(days=1))  # due today
    record(store, "d/k2", 4, DAY)  # due tomorrow
    record(store, "d/k3", 5, before)
    record(store, "d/k3", 4, before + timedelta(days=1))  # a recall passed: due tomorrow
    record(store, "d/k4", 5, before)
    record(store, "d/k4", 1, DAY)  # a recall failed, today: due tomorrow
    record(store, "d/k4", 3, DAY)  # the same day again, a repeat: a review, not a recall
    record(store, "d/old", 5, DAY)  # retired: its reviews count, its card does not
    record(store, "e/x", 5, DAY)  # another deck: nothing of it counts
    k5 = record(store, "d/k5", 5, DAY)
    store.log.undo(k5.id, at=NOW)  # ... undone: k5 is new again and that review is gone

    stats = compute_stats([d], store, DAY)
    assert (stats.cards, stats.known, stats.new) == (6, 5, 1)
    # k4, graded 3 today, comes back today ("again", as the drill's header says): due today.
    assert (stats.due_today, stats.again, stats.due_tomorrow) == (3, 1, 3)
    assert stats.forecast == (3, 3) + (0,) * (FORECAST_DAYS - 2)
    assert (stats.reviews, stats.reviews_today) == (9, 4)
    assert (stats.retention, stats.retention_reviews) == (0.5, 2)


def test_figures_without_a_store() -> None:
    d = deck("d", basic("d", "a"), basic("d", "b"))
    stats = compute_stats([d], None, DAY)
    assert (stats.cards, stats.known, stats.new, stats.reviews) == (2, 0, 2, 0)
    assert stats.retention is None and stats.forecast == (0,) * FORECAST_DAYS
    assert "nothing due in the next 30 days" in render_text(stats)


def test_forecast_chart() -> None:
    rows = forecast_chart([8, 0, 1, 4, 2] + [0] * 25, height=2)
    assert rows[:2] == [
        "8 │█",  # 4 of 8 fills the lower row exactly
        "  │█ ▂█▄",
    ]
    assert rows[2] == "  └" + "─" * 30
    assert rows[3].strip().startswith("today") and rows[3].endswith("+29d")


# -- the command -------------------------------------------------------------------------------


def write_deck(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(DECK_YAML, encoding="utf-8")
    return path


def stats_cli(*args: str) -> tuple[int, str, str]:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["stats", *args])
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_json(tmp_path: Path) -> None:
    deck_file, db = write_deck(tmp_path), tmp_path / "r.db"
    today = study_day(local_now())
    with Store.open(db) as s:
        record(s, "tiny/stages#c1", 4, today - timedelta(days=1))  # due today
        record(s, "tiny/offload", 5, today)  # due tomorrow
    code, out, err = stats_cli("--db", str(db), "--json", str(deck_file))
    assert (code, err) == (0, "")
    figures = json.loads(out)
    assert {"reviews", "cards", "new", "due_today", "retention", "forecast"} <= set(figures)
    assert (figures["cards"], figures["known"], figures["new"]) == (4, 2, 2)
    assert (figures["due_today"], figures["due_tomorrow"], figures["reviews"]) == (1, 1, 2)
    assert figures["retention"] is None
    assert figures["forecast"][:2] == [1, 1] and len(figures["forecast"]) == 30


def test_text(tmp_path: Path) -> None:
    deck_file, db = write_deck(tmp_path), tmp_path / "r.db"
    today = study_day(local_now())
    with Store.open(db) as s:
        record(s, "tiny/fsdp", 5, today - timedelta(days=1))
        record(s, "tiny/fsdp", 2, today)
    code, out, _ = stats_cli("--db", str(db), str(deck_file))
    assert code == 0
    assert "cards              4  (known 1, new 3)" in out
    assert "due tomorrow       1" in out
    assert "reviews            2  (today 1)" in out
    assert "retention         0%  (1 review, last 30 days)" in out
    assert "due in the next 30 days" in out and "█" in out


def test_no_database_yet_at_the_default_place(tmp_path: Path) -> None:
    default = Path(os.environ["ZERODRILL_DB"])  # the autouse fixture's, in tmp_path
    code, out, _ = stats_cli(str(write_deck(tmp_path)))
    assert code == 0
    assert f"No reviews yet (no database at {default})" in out and "new 4" in out
    assert not default.exists()


def test_missing_database_named_with_db_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "typo.db"
    code, out, err = stats_cli("--db", str(missing), str(write_deck(tmp_path)))
    assert (code, out) == (1, "")
    assert err == f"zerodrill: no review database at {missing}\n"
    assert not missing.exists()


def test_bad_database_is_one_line_and_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    db.write_bytes(b"this is not SQLite at all\n" * 100)
    code, out, err = stats_cli("--db", str(db), str(write_deck(tmp_path)))
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and str(db) in err and "not a zerodrill review database" in err
    assert db.read_bytes() == b"this is not SQLite at all\n" * 100


def test_deck_problems_are_all_listed_as_validate_lists_them(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(DECK_YAML.replace("front:", "frnt:").replace("answer:", "anwser:"))
    # The database is checked before the decks are read.
    code, out, err = stats_cli("--db", str(tmp_path / "r.db"), str(bad))
    assert code == 1 and out == "" and "no review database" in err
    code, out, err = stats_cli(str(bad))
    listed = [str(problem) for problem in load_paths([bad]).problems]
    assert len(listed) == 4 and "'frnt'" in " ".join(listed) and "'anwser'" in " ".join(listed)
    assert code == 1 and out == ""
    assert err.splitlines() == [
        *listed,
        "zerodrill: 4 problems in the decks; fix them (zerodrill validate checks) and run again",
    ]


def test_bundled_decks_by_default() -> None:
    code, out, _ = stats_cli("--json")
    assert code == 0 and json.loads(out)["cards"] > 0


@pytest.mark.parametrize("retention", [None, 0.0, 0.5, 1.0])
def test_text_figures_end_in_one_column(store: Store, retention: float | None) -> None:
    d = deck("d", basic("d", "a"))
    stats = structs.replace(
        compute_stats([d], store, DAY), retention=retention, retention_reviews=12, again=1
    )
    figures = render_text(stats).splitlines()[:5]
    assert [line.split()[0] for line in figures] == ["cards", "due", "due", "reviews", "retention"]
    # Each figure is the first word after the label that is a number (or the retention's -).
    ends = {len(line.split("  (")[0].rstrip()) for line in figures}
    assert len(ends) == 1, figures
