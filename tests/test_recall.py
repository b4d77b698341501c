"""FSRS's retrievability in the stats: the figure, its line in ``zerodrill stats`` and in the
stats dialog, on fixed instants. None of it under SM-2, which forecasts no recall."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from cli_support import run_cli
from msgspec import structs
from tui_support import TUI_DECKS, Clock, run_async, shown, tui_decks

from zerodrill.deck.kinds import BASIC
from zerodrill.deck.model import Card, Deck, Pos
from zerodrill.srs.days import local_now, study_day
from zerodrill.srs.grades import Grade
from zerodrill.srs.recall import Recall, recall_of
from zerodrill.srs.review_stats import Stats, compute_stats, render_text
from zerodrill.srs.schedulers.fsrs import FsrsCard, FsrsScheduler
from zerodrill.srs.schedulers.protocol import When
from zerodrill.srs.schedulers.sm2 import Sm2Scheduler
from zerodrill.srs.settings import chosen_scheduler, save_scheduler_name
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import create_app
from zerodrill.tui.screens.stats_screen import recall_text

T0 = datetime(2026, 5, 11, 8, 0, tzinfo=UTC)
DAY = timedelta(days=1)
POS = Pos("t.yaml", 1, 1)
FSRS = FsrsScheduler()


def graded(grade: Grade, at: datetime = T0, scheduler: FsrsScheduler = FSRS) -> FsrsCard:
    return scheduler.review(scheduler.new_state(), grade, When(at, at.date()))


def test_sm2_forecasts_no_recall() -> None:
    sm2 = Sm2Scheduler()
    state = sm2.review(sm2.new_state(), Grade.GOOD, When(T0, T0.date()))
    assert recall_of(sm2, [state], T0) is None


def test_the_average_chance_of_recall_and_the_cards_below_the_desired_retention() -> None:
    easy = graded(Grade.PERFECT)  # due in 8 days: about 0.9 then
    good = graded(Grade.GOOD)  # a learning step: stability 2.3 days
    states = [easy, good, FSRS.new_state()]  # a new card has no retrievability
    now = T0 + 5 * DAY
    recall = recall_of(FSRS, states, now)
    assert recall is not None and (recall.cards, recall.desired, recall.at) == (2, 0.9, now)
    chances = [FSRS.retrievability(s, now) for s in (easy, good)]
    assert recall.average == pytest.approx(sum(c or 0 for c in chances) / 2)
    # Five days on, the Easy card (stability 8.3) is above 90%, the Good one (2.3) below.
    assert chances[0] is not None and chances[0] > 0.9 > (chances[1] or 1)
    assert recall.below == 1
    # Right after the reviews every card is certain: nothing below.
    fresh = recall_of(FSRS, states, T0)
    assert fresh is not None and (fresh.average, fresh.below) == (1.0, 0)


def test_no_studied_cards_is_no_average() -> None:
    recall = recall_of(FSRS, [FSRS.new_state()], T0)
    assert recall == Recall(T0, 0.9, 0, None, 0, "FSRS")


def test_the_desired_retention_moves_the_line() -> None:
    picky = FsrsScheduler(0.97)
    state = graded(Grade.PERFECT, scheduler=picky)
    recall = recall_of(picky, [state], T0 + 5 * DAY)
    assert recall is not None and recall.desired == 0.97 and recall.below == 1


# -- the lines -------------------------------------------------------------------------------


def stats_with(recall: Recall | None, scheduler: str) -> Stats:
    d = Deck(
        "d",
        "d",
        "t",
        (Card("d", "a", BASIC, {"front": "q", "back": "a"}, (), (), POS, {}),),
        Path("d.yaml"),
        POS,
    )
    return structs.replace(
        compute_stats([d], None, date(2026, 5, 11)), recall=recall, scheduler=scheduler
    )


def test_stats_text_has_a_recall_line_under_fsrs_only() -> None:
    recall = Recall(T0, 0.9, 42, 0.8712, 3, "FSRS")
    lines = render_text(stats_with(recall, "fsrs")).splitlines()
    assert lines[5] == "recall now       87%  (FSRS, average of 42 cards; 3 below the desired 90%)"
    # The figure ends in the column every other figure ends in.
    assert len(lines[5].split("  (")[0]) == len(lines[4].split("  (")[0])
    sm2 = render_text(stats_with(None, "sm2")).splitlines()
    assert not any("recall" in line for line in sm2)
    empty = render_text(stats_with(Recall(T0, 0.9, 0, None, 0, "FSRS"), "fsrs"))
    assert "recall now         –  (FSRS; no studied cards)" in empty


def test_stats_json_names_the_scheduler_and_its_recall() -> None:
    recall = Recall(T0, 0.9, 42, 0.8712, 3, "FSRS")
    data = stats_with(recall, "fsrs").as_json()
    assert data["scheduler"] == "fsrs"
    assert data["recall"] == {
        "at": "2026-05-11T08:00:00+00:00",
        "desired": 0.9,
        "cards": 42,
        "average": 0.8712,
        "below": 3,
    }
    assert stats_with(None, "sm2").as_json()["recall"] is None


def test_the_stats_dialog_says_the_recall_under_fsrs_only() -> None:
    assert recall_text(None) == ""
    text = recall_text(Recall(T0, 0.9, 42, 0.8712, 3, "FSRS"))
    assert text == "\n[b]87%[/b] average recall now (FSRS; 3 of 42 below the desired 90%)"


# -- zerodrill stats and the stats dialog, over a database ------------------------------------


def drilled_db(tmp_path: Path, scheduler: str | None) -> tuple[Path, datetime]:
    """Two cards of the test deck graded three days ago (and a bit), under ``scheduler``."""
    db = tmp_path / "r.db"
    three_days_ago = local_now() - 3 * DAY - timedelta(minutes=5)
    with Store.open(db) as store:
        if scheduler is not None:
            save_scheduler_name(store, scheduler)
        store.scheduler = chosen_scheduler(store)
        day = study_day(three_days_ago)
        store.log.grade("zero-tui/stage-2-shards", 5, day=day, at=three_days_ago)
        store.log.grade("zero-tui/fsdp", 4, day=day, at=three_days_ago)
    return db, three_days_ago


def test_zerodrill_stats_shows_fsrs_recall_where_fsrs_is_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, at = drilled_db(tmp_path, "fsrs")
    code, out, _ = run_cli(capsys, "stats", "--db", str(db), "--json", str(TUI_DECKS / "zero.yaml"))
    data = json.loads(out)
    assert code == 0 and data["scheduler"] == "fsrs"
    # Easy: 8.3 days of stability, three days on; Good on a new card: 2.3 days, three days on.
    easy = FSRS.review(FSRS.new_state(), Grade.PERFECT, When(at, at.date()))
    good = FSRS.review(FSRS.new_state(), Grade.GOOD, When(at, at.date()))
    now = at + 3 * DAY
    chances = [FSRS.retrievability(easy, now), FSRS.retrievability(good, now)]
    assert data["recall"]["cards"] == 2 and data["recall"]["desired"] == 0.9
    assert data["recall"]["average"] == pytest.approx(sum(c or 0 for c in chances) / 2)
    assert data["recall"]["below"] == 1  # the Good card's ten-minute step is long overdue
    code, out, _ = run_cli(capsys, "stats", "--db", str(db), str(TUI_DECKS / "zero.yaml"))
    assert code == 0
    assert "recall now" in out and "(FSRS, average of 2 cards; 1 below the desired 90%)" in out


def test_zerodrill_stats_under_sm2_has_no_recall(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, _ = drilled_db(tmp_path, None)
    code, out, _ = run_cli(capsys, "stats", "--db", str(db), "--json", str(TUI_DECKS / "zero.yaml"))
    data = json.loads(out)
    assert code == 0 and (data["scheduler"], data["recall"]) == ("sm2", None)
    code, out, _ = run_cli(capsys, "stats", "--db", str(db), str(TUI_DECKS / "zero.yaml"))
    assert code == 0 and "recall" not in out


@run_async
async def test_the_stats_dialog_shows_the_recall_under_fsrs(tmp_path: Path) -> None:
    db, at = drilled_db(tmp_path, "fsrs")
    with Store.open(db) as store:
        app = create_app(tui_decks("zero"), store, clock=Clock(at + 3 * DAY))
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("s")
            totals = " ".join(shown(app.screen.query_one("#totals")).split())
    assert "average recall now (FSRS; 1 of 2 below the desired 90%)" in totals
