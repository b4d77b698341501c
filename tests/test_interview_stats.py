"""Interview attempts in ``zerodrill stats`` (text and JSON), and a finished attempt's numbers
against what was ticked and graded."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_interview_core import Clock, interview, zdeck

from zerodrill.cli import main
from zerodrill.deck.load import load_file
from zerodrill.deck.model import Deck
from zerodrill.srs.days import local_now, study_day
from zerodrill.srs.interview_run import InterviewRun, history
from zerodrill.srs.review_stats import compute_stats, render_text
from zerodrill.srs.store import Store

DECK_YAML = """\
deck: tiny
title: Tiny
description: Two cards and an interview.
cards:
  - id: stages
    kind: basic
    front: What does stage 2 shard?
    back: Gradients and optimizer states.
  - id: offload
    kind: basic
    front: What does ZeRO-Offload move to the CPU?
    back: Optimizer states and the optimizer step.
  - id: fsdp
    kind: follow_up
    question: How does FSDP differ from ZeRO-3?
    answer: Much the same sharding, in PyTorch itself.
interviews:
  - id: walk
    title: Walk through the stages
    question: What does each stage shard?
    minutes: 2
    points:
      - text: Stage 2 shards gradients.
        cards: [stages]
      - text: Offload moves optimizer states to the CPU.
        cards: [offload]
    follow_ups: [fsdp]
  - id: never
    title: Never taken
    question: Why?
    minutes: 1
    points:
      - Because.
"""


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


def stats_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["stats", *args])
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def attempt(store: Store, d: Deck, covered: set[int], clock: Clock) -> None:
    run = InterviewRun.start_or_resume(store, d, d.interviews[0], clock=clock)
    clock.tick(seconds=90)
    run.finish_question(None)
    run.set_points(covered)
    while run.follow_up_card() is not None:
        run.grade_follow_up(3, None)
    run.finish()


def test_stats_count_attempts_abandoned_ones_and_the_trend(tmp_path: Path) -> None:
    deck_file, db = tmp_path / "tiny.yaml", tmp_path / "r.db"
    deck_file.write_text(DECK_YAML, encoding="utf-8")
    d, problems = load_file(deck_file)
    assert d is not None and not problems
    today = study_day(local_now())
    clock = Clock(datetime.combine(today, datetime.min.time().replace(hour=12)).astimezone())
    with Store.open(db) as s:
        clock.tick(days=-2)
        InterviewRun.start_or_resume(s, d, d.interviews[0], clock=clock)  # left: abandoned
        clock.tick(days=1)
        attempt(s, d, {0}, clock)
        clock.tick(days=1)
        attempt(s, d, {0, 1}, clock)
        InterviewRun.start_or_resume(s, d, d.interviews[0], clock=clock)  # open: not abandoned
    code, out, err = stats_cli("--db", str(db), "--json", str(deck_file))
    assert (code, err) == (0, "")
    walk, never = json.loads(out)["interviews"]
    assert walk["deck"] == "tiny" and walk["id"] == "walk"
    assert (walk["attempts"], walk["abandoned"]) == (2, 1)
    assert (walk["last_day"], walk["last_points_covered"], walk["points_total"]) == (
        today.isoformat(),
        2,
        2,
    )
    assert [(t["points_covered"], t["follow_up_grades"]) for t in walk["trend"]] == [
        (1, [3]),
        (2, [3]),
    ]
    assert walk["trend"][0] == {
        "day": (today - timedelta(days=1)).isoformat(),
        "points_covered": 1,
        "points_total": 2,
        "seconds_used": 90.0,
        "budget_seconds": 120,
        "follow_up_grades": [3],
        "red_flags_said": 0,
    }
    assert never == {
        "deck": "tiny",
        "id": "never",
        "attempts": 0,
        "abandoned": 0,
        "last_day": None,
        "last_points_covered": None,
        "points_total": None,
        "trend": [],
    }
    code, out, _ = stats_cli("--db", str(db), str(deck_file))
    assert code == 0
    lines = out.splitlines()
    head = lines.index("interview   attempts  last taken  points  trend")
    assert (
        lines[head + 1]
        == f"tiny/walk          2  {today.isoformat()}  2/2     ▄█  (1 left unfinished)"
    )
    assert lines[head + 2] == "tiny/never         0  never       –"


def test_stats_count_cards_brought_forward_as_due_today(store: Store) -> None:
    clock = Clock()
    d = zdeck(interview(follow_ups=(), red_flags=()))
    before = compute_stats([d], store, clock.now.date())
    attempt(store, d, {1, 2}, clock)  # missed: a
    after = compute_stats([d], store, clock.now.date())
    assert (before.due_today, after.due_today) == (0, 1)
    assert "stages" in render_text(after)


def test_stats_without_a_store_list_the_interviews_never_taken() -> None:
    d = zdeck(interview())
    figures = compute_stats([d], None, Clock().now.date())
    assert [(i.id, i.attempts, i.last) for i in figures.interviews] == [("stages", 0, None)]


# -- a finished attempt's numbers are what was ticked and graded ----------------------------

steps = st.tuples(
    st.sets(st.integers(0, 2)),
    st.lists(st.integers(0, 5), min_size=2, max_size=2),
    st.sets(st.sampled_from(["r1", "r2"])),
    st.integers(0, 600),
    st.sets(st.integers(0, 4)),
)


@settings(max_examples=40, deadline=None)
@given(steps)
def test_a_finished_attempt_is_what_was_ticked_and_graded(
    case: tuple[set[int], list[int], set[str], int, set[int]],
) -> None:
    covered, grades, said, seconds, quits = case
    d = zdeck(interview())
    clock = Clock()
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "r.db") as s:
        run = InterviewRun.start_or_resume(s, d, d.interviews[0], clock=clock)
        clock.tick(seconds=seconds)
        actions = [
            lambda r: r.finish_question(None),
            lambda r: r.set_points(covered),
            lambda r: r.grade_follow_up(grades[0], None),
            lambda r: r.grade_follow_up(grades[1], None),
            lambda r: r.set_red_flags(said),
        ]
        for n, action in enumerate(actions):
            if n in quits and n > 0:  # quit here: a new run on the same store goes on
                run = InterviewRun.start_or_resume(s, d, d.interviews[0], clock=clock)
            action(run)
        result = run.finish()
        assert result.points_covered == tuple(sorted(covered))
        assert dict(result.follow_up_grades) == {"f1": grades[0], "f2": grades[1]}
        assert set(result.red_flags_said) == said
        assert result.seconds_used == seconds
        missed = {
            c for i, p in enumerate(d.interviews[0].points) if i not in covered for c in p.cards
        }
        assert set(result.missed_cards) == missed
        (summary,) = history(s, "z", "stages")
        assert summary.finished and summary.points_covered == len(covered)
        assert summary.follow_up_grades == tuple(grades)
        assert summary.red_flags_said == len(said)
        # The log holds the follow-ups' grades and a lapse for each red flag said.
        logged = {(r.key, int(r.grade or 0)) for r in s.log.reviews_on(clock.now.date())}
        assert logged == {("z/f1", grades[0]), ("z/f2", grades[1])} | {(f"z/{c}", 1) for c in said}
