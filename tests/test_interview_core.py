"""An interview attempt without a screen: each step logged, resumed after quitting, graded
follow-ups and red flags in the review log, missed points' cards due in the drill."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from srs_support import DAY, NOW, POS, ReviewKind, keys, kind, record, schedule

from zerodrill.deck.kinds import BASIC, CLOZE, FOLLOW_UP, RED_FLAG
from zerodrill.deck.model import Card, Deck, Interview, Point
from zerodrill.errors import UserError
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.interview_run import (
    AttemptMovedOn,
    AttemptResult,
    InterviewRun,
    Step,
    choose,
    follow_up_budget,
    history,
)
from zerodrill.srs.interview_steps import (
    FinishStep,
    FollowUpStep,
    PointsStep,
    QuestionStep,
    RedFlagsStep,
)
from zerodrill.srs.queue import build_queue
from zerodrill.srs.sitting import Session, choices
from zerodrill.srs.store import Store, StoreError


class Clock:
    """A clock that moves only when told."""

    def __init__(self, now: datetime = NOW) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def tick(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def basic(id: str) -> Card:
    return Card("z", id, BASIC, {"front": "q", "back": "a"}, (), (), POS, {})


def cloze(id: str, *ordinals: int) -> Card:
    text = " ".join(f"{{{{c{n}::x{n}}}}}" for n in ordinals)
    return Card("z", id, CLOZE, {"text": text}, (), (), POS, {}, ordinals)


def follow_up(id: str) -> Card:
    return Card("z", id, FOLLOW_UP, {"question": "why?", "answer": "so"}, (), (), POS, {})


def red_flag(id: str) -> Card:
    fields = {"claim": "wrong", "why": "because", "instead": "right"}
    return Card("z", id, RED_FLAG, fields, (), (), POS, {})


def interview(id: str = "stages", *, minutes: int = 4, **over: object) -> Interview:
    values: dict[str, object] = {
        "id": id,
        "title": id.title(),
        "question": "Walk me through it.",
        "minutes": minutes,
        "points": (
            Point("shards optimizer state", ("a",), POS),
            Point("shards gradients", ("b", "c"), POS),
            Point("shards parameters", ("c",), POS),
        ),
        "follow_ups": ("f1", "f2"),
        "red_flags": ("r1", "r2"),
        "pos": POS,
    }
    values.update(over)
    return Interview(**values)  # type: ignore[arg-type]


CARDS = (
    basic("a"),
    basic("b"),
    cloze("c", 1, 2),
    basic("d"),
    follow_up("f1"),
    follow_up("f2"),
    red_flag("r1"),
    red_flag("r2"),
)


def zdeck(*interviews: Interview) -> Deck:
    return Deck("z", "Z", "test", CARDS, Path("z.yaml"), POS, interviews=interviews)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


def run_through(run: InterviewRun, clock: Clock) -> AttemptResult:
    """Answer in 3 minutes, cover points 0 and 2, grade the follow-ups 4 and 2, say r2."""
    clock.tick(minutes=3)
    run.finish_question("typed answer")
    run.set_points({0, 2})
    clock.tick(seconds=30)
    run.grade_follow_up(4, None)
    clock.tick(seconds=50)
    run.grade_follow_up(2, "maybe")
    run.set_red_flags({"r2"})
    return run.finish()


# -- one attempt, step by step -------------------------------------------------------------


def test_a_full_attempt_logs_each_step_and_its_reviews(store: Store) -> None:
    clock = Clock()
    d = zdeck(interview())
    run = InterviewRun.start_or_resume(store, d, d.interviews[0], clock=clock)
    assert run.step is Step.QUESTION and run.day == DAY
    assert run.budget() == timedelta(minutes=4)
    clock.tick(minutes=5)
    assert run.elapsed() == timedelta(minutes=5) > run.budget()
    run.finish_question("I would shard")
    assert run.step is Step.POINTS and run.budget() == timedelta(0)
    assert run.follow_up_card() is None
    run.set_points([1])
    assert run.step is Step.FOLLOW_UP and run.follow_up_index == 0
    assert run.budget() == timedelta(minutes=1)
    card = run.follow_up_card()
    assert card is not None and card.id == "f1"
    clock.tick(seconds=40)
    assert run.elapsed() == timedelta(seconds=40) < run.budget()
    run.grade_follow_up(5, "typed")
    assert run.follow_up_card() is not None and run.follow_up_index == 1
    run.grade_follow_up(3, None)
    assert run.step is Step.RED_FLAGS
    assert [c.id for c in run.red_flag_cards()] == ["r1", "r2"]
    run.set_red_flags(["r1"])
    assert run.step is Step.FINISH
    result = run.finish()
    assert result.points_covered == (1,) and result.points_total == 3
    assert result.seconds_used == 300.0 and result.budget_seconds == 240
    assert dict(result.follow_up_grades) == {"f1": 5, "f2": 3}
    assert result.red_flags_said == ("r1",)
    assert result.missed_cards == ("a", "c") and result.trend == ()
    # The follow-ups are their cards' reviews, the red flag said a lapse; r2 is not reviewed.
    log = [(r.key, kind(r), r.grade, r.typed) for r in store.log.reviews_on(DAY)]
    assert log == [
        ("z/f1", ReviewKind.GRADE, 5, "typed"),
        ("z/f2", ReviewKind.GRADE, 3, None),
        ("z/r1", ReviewKind.GRADE, 1, None),
    ]
    assert (
        store.schedule.state("z/r1").sm2.lapses == 0 and store.schedule.state("z/r1").interval == 1
    )
    assert run.finish() == result  # asking again logs nothing more
    # Each step is logged as its own typed value, under the one name the run gives its step.
    steps = store.attempts.attempts()[0].steps
    assert [step.kind for step in steps] == [
        Step.QUESTION,
        Step.POINTS,
        Step.FOLLOW_UP,
        Step.FOLLOW_UP,
        Step.RED_FLAGS,
        Step.FINISH,
    ]
    reviews = [r.id for r in store.log.reviews_on(DAY)]
    assert steps == (
        QuestionStep(seconds=300.0, budget=240, typed="I would shard"),
        PointsStep(covered=(1,), total=3),
        FollowUpStep(card="f1", grade=5, typed="typed", seconds=40.0, review=reviews[0]),
        FollowUpStep(card="f2", grade=3, typed=None, seconds=0.0, review=reviews[1]),
        RedFlagsStep(said=("r1",), reviews=(reviews[2],)),
        FinishStep(missed=("a", "c")),
    )


#: An attempt's steps as the untyped release wrote them (the data column's JSON, keys sorted),
#: and with only the fields its reader required (a follow-up without its review, say).
OLD_STEPS = [
    ("question", '{"budget": 240, "seconds": 300.0, "typed": "I would shard"}'),
    ("points", '{"covered": [1], "total": 3}'),
    ("follow_up", '{"card": "f1", "grade": 5, "review": 1, "seconds": 40.0, "typed": "t"}'),
    ("follow_up", '{"card": "f2", "grade": 3}'),
    ("red_flags", '{"said": ["r1"]}'),
]


def test_an_attempt_logged_before_the_steps_were_typed_reads_and_resumes(
    tmp_path: Path,
) -> None:
    clock = Clock()
    d = zdeck(interview())
    db = tmp_path / "reviews.db"
    with Store.open(db) as s:
        InterviewRun.start_or_resume(s, d, d.interviews[0], clock=clock)  # makes the tables
    conn = sqlite3.connect(db)
    with conn:
        for kind, data in OLD_STEPS:
            conn.execute(
                "INSERT INTO attempt_step (attempt, at, step, data) VALUES (1, ?, ?, ?)",
                (NOW.isoformat(), kind, data),
            )
    conn.close()
    with Store.open(db) as s:
        (record,) = s.attempts.attempts()
        assert record.steps == (
            QuestionStep(seconds=300.0, budget=240, typed="I would shard"),
            PointsStep(covered=(1,), total=3),
            FollowUpStep(card="f1", grade=5, typed="t", seconds=40.0, review=1),
            FollowUpStep(card="f2", grade=3),
            RedFlagsStep(said=("r1",)),
        )
        run = InterviewRun.start_or_resume(s, d, d.interviews[0], clock=clock)
        assert run.attempt_id == 1 and run.step is Step.FINISH
        assert run.follow_up_grades == {"f1": 5, "f2": 3}
        assert run.finish().missed_cards == ("a", "c")
        (summary,) = history(s, "z", "stages")
        assert summary.finished and summary.follow_up_grades == (5, 3)


def test_a_follow_ups_choices_are_its_cards_and_none_past_them(store: Store) -> None:
    # What FollowUpScreen's grade bar shows, from the run (screens never see the store).
    clock = Clock()
    d = zdeck(interview())
    run = InterviewRun.start_or_resume(store, d, d.interviews[0], clock=clock)
    assert run.follow_up_choices() == ()
    run.finish_question(None)
    run.set_points([])
    session_like = choices(store, "z/f1", day=DAY, at=clock())
    assert run.follow_up_choices() == session_like and len(session_like) == 6
    assert all(o.moves_schedule for o in session_like)
    run.grade_follow_up(4, None)
    record(store, "z/f2", 4, DAY)  # f2 graded today already: a grade now moves nothing
    repeat = run.follow_up_choices()
    assert repeat == choices(store, "z/f2", day=DAY, at=clock())
    assert repeat and not any(o.moves_schedule for o in repeat)


def test_the_steps_come_in_order(store: Store) -> None:
    d = zdeck(interview())
    run = InterviewRun.start_or_resume(store, d, d.interviews[0], clock=Clock())
    with pytest.raises(RuntimeError):
        run.set_points([0])
    with pytest.raises(RuntimeError):
        run.finish()
    run.finish_question(None)
    with pytest.raises(ValueError):
        run.set_points([3])
    run.set_points([])
    with pytest.raises(ValueError):
        run.grade_follow_up(6, None)
    run.grade_follow_up(0, None)
    run.grade_follow_up(0, None)
    with pytest.raises(ValueError):
        run.set_red_flags(["a"])
    assert run.step is Step.RED_FLAGS


def test_an_interview_without_follow_ups_or_red_flags_skips_those_steps(store: Store) -> None:
    d = zdeck(interview(follow_ups=(), red_flags=()))
    run = InterviewRun.start_or_resume(store, d, d.interviews[0], clock=Clock())
    run.finish_question(None)
    run.set_points([0, 1, 2])
    assert run.step is Step.FINISH
    result = run.finish()
    assert result.missed_cards == () and result.points_covered == (0, 1, 2)
    assert store.log.reviews_on(DAY) == []


def test_a_follow_up_graded_earlier_today_takes_a_repeat(store: Store) -> None:
    record(store, "z/f1", 4, DAY)
    d = zdeck(interview())
    run = InterviewRun.start_or_resume(store, d, d.interviews[0], clock=Clock())
    run.finish_question(None)
    run.set_points([])
    run.grade_follow_up(1, None)
    assert kind(store.log.reviews_on(DAY)[-1]) is ReviewKind.REPEAT


def test_follow_up_budget_is_a_quarter_and_at_least_a_minute() -> None:
    assert follow_up_budget(interview(minutes=8)) == timedelta(minutes=2)
    assert follow_up_budget(interview(minutes=2)) == timedelta(minutes=1)
    assert follow_up_budget(interview(minutes=5)) == timedelta(seconds=75)


# -- quitting and coming back -------------------------------------------------------------

QUIT_POINTS = ["question", "points", "follow_up_1", "follow_up_2", "red_flags", "done"]


@pytest.mark.parametrize("quit_after", range(len(QUIT_POINTS)), ids=QUIT_POINTS)
def test_a_new_run_resumes_at_the_step_after_the_last_one_logged(
    store: Store, quit_after: int
) -> None:
    clock = Clock()
    d = zdeck(interview())
    i = d.interviews[0]
    actions = [
        lambda r: r.finish_question("typed answer"),
        lambda r: r.set_points({0, 2}),
        lambda r: r.grade_follow_up(4, None),
        lambda r: r.grade_follow_up(2, "maybe"),
        lambda r: r.set_red_flags({"r2"}),
    ]
    first = InterviewRun.start_or_resume(store, d, i, clock=clock)
    clock.tick(minutes=3)
    for action in actions[:quit_after]:
        action(first)
    expected = (first.step, first.follow_up_index)
    clock.tick(minutes=20)  # quit, and come back later the same day
    again = InterviewRun.start_or_resume(store, d, i, clock=clock)
    assert again.attempt_id == first.attempt_id
    assert (again.step, again.follow_up_index) == expected
    assert again.elapsed() == timedelta(0)  # the step's clock starts again
    clock.tick(minutes=1)
    for action in actions[quit_after:]:
        action(again)
    result = again.finish()
    # Quit during the question: its time is the minute after coming back.
    assert result.seconds_used == (60.0 if quit_after == 0 else 180.0)
    assert result.points_covered == (0, 2)
    assert dict(result.follow_up_grades) == {"f1": 4, "f2": 2}
    assert result.red_flags_said == ("r2",) and result.missed_cards == ("b", "c")
    assert [r.key for r in store.log.reviews_on(DAY)] == ["z/f1", "z/f2", "z/r2"]
    assert len(store.attempts.attempts()) == 1


def test_ticks_are_saved_as_given_and_a_resumed_checklist_starts_with_them(
    store: Store,
) -> None:
    """Quitting while ticking the points (or the red flags) and coming back keeps the ticks;
    a tick is no step: the step, and what is handed in, stay the learner's to decide."""
    clock = Clock()
    d = zdeck(interview())
    i = d.interviews[0]
    first = InterviewRun.start_or_resume(store, d, i, clock=clock)
    first.finish_question(None)
    assert first.ticked == ()
    first.tick([2])
    first.tick([2, 0, 0])
    assert first.ticked == (0, 2) and first.step is Step.POINTS
    clock.tick(minutes=20)  # quit, and come back later the same day
    again = InterviewRun.start_or_resume(store, d, i, clock=clock)
    assert (again.step, again.ticked) == (Step.POINTS, (0, 2))
    again.tick([2])  # one unticked after resuming
    again.set_points([2])
    assert again.covered == (2,) and again.ticked == ()
    again.grade_follow_up(4, None)
    again.grade_follow_up(4, None)
    assert again.step is Step.RED_FLAGS and again.ticked == ()
    again.tick([1])
    third = InterviewRun.start_or_resume(store, d, i, clock=clock)
    assert (third.step, third.ticked) == (Step.RED_FLAGS, (1,))
    third.set_red_flags(["r2"])
    assert third.finish().points_covered == (2,)
    # A new attempt starts with nothing ticked.
    fresh = InterviewRun.start_or_resume(store, d, i, clock=clock)
    fresh.finish_question(None)
    assert fresh.attempt_id != first.attempt_id and fresh.ticked == ()


def test_a_tick_is_checked_and_refused_once_another_terminal_moved_on(tmp_path: Path) -> None:
    clock = Clock()
    d = zdeck(interview())
    db = tmp_path / "reviews.db"
    with Store.open(db) as one, Store.open(db) as two:
        here = InterviewRun.start_or_resume(one, d, d.interviews[0], clock=clock)
        with pytest.raises(RuntimeError, match="not at a checklist"):
            here.tick([0])
        here.finish_question(None)
        with pytest.raises(ValueError, match="ticks must be 0-2"):
            here.tick([3])
        there = InterviewRun.start_or_resume(two, d, d.interviews[0], clock=clock)
        there.set_points([1])
        with pytest.raises(AttemptMovedOn):
            here.tick([0])
        assert one.attempts.ticks(here.attempt_id) == {}


def test_ticks_are_append_only_and_damaged_ones_are_one_line(tmp_path: Path) -> None:
    clock = Clock()
    d = zdeck(interview())
    db = tmp_path / "reviews.db"
    with Store.open(db) as s:
        run = InterviewRun.start_or_resume(s, d, d.interviews[0], clock=clock)
        run.finish_question(None)
        run.tick([1])
    conn = sqlite3.connect(db)
    try:
        for statement in ("UPDATE attempt_tick SET ticked = '[]'", "DELETE FROM attempt_tick"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                conn.execute(statement)
        with conn:
            conn.execute(
                "INSERT INTO attempt_tick (attempt, at, step, ticked) VALUES (1, ?, 'points', ?)",
                (NOW.isoformat(), '["one"]'),
            )
    finally:
        conn.close()
    with Store.open(db) as s:
        with pytest.raises(
            StoreError, match=rf"cannot read {db}: it is damaged \(bad attempt ticks"
        ):
            InterviewRun.start_or_resume(s, d, d.interviews[0], clock=clock)


def test_a_finished_attempt_is_not_resumed_and_joins_the_trend(store: Store) -> None:
    clock = Clock()
    d = zdeck(interview())
    first = run_through(InterviewRun.start_or_resume(store, d, d.interviews[0], clock=clock), clock)
    second = InterviewRun.start_or_resume(store, d, d.interviews[0], clock=clock)
    assert second.step is Step.QUESTION
    result = run_through(second, clock)
    assert first.trend == ()
    assert [(s.points_covered, s.points_total, s.finished) for s in result.trend] == [(2, 3, True)]
    assert result.trend[0].follow_up_grades == (4, 2) and result.trend[0].budget_seconds == 240


def test_an_unfinished_attempt_of_an_earlier_day_is_left_abandoned(store: Store) -> None:
    clock = Clock()
    d = zdeck(interview())
    first = InterviewRun.start_or_resume(store, d, d.interviews[0], clock=clock)
    first.finish_question(None)
    clock.tick(days=1)
    again = InterviewRun.start_or_resume(store, d, d.interviews[0], clock=clock)
    assert again.attempt_id != first.attempt_id and again.step is Step.QUESTION
    assert again.day == DAY + timedelta(days=1)
    summaries = history(store, "z", "stages")
    assert [s.finished for s in summaries] == [False, False]


def test_an_interview_changed_since_starts_afresh(store: Store) -> None:
    clock = Clock()
    d = zdeck(interview())
    first = InterviewRun.start_or_resume(store, d, d.interviews[0], clock=clock)
    first.finish_question(None)
    changed = zdeck(interview(follow_ups=("f2",)))
    again = InterviewRun.start_or_resume(store, changed, changed.interviews[0], clock=clock)
    assert again.attempt_id != first.attempt_id and again.step is Step.QUESTION


def test_attempts_are_append_only(store: Store, tmp_path: Path) -> None:
    clock = Clock()
    d = zdeck(interview())
    run_through(InterviewRun.start_or_resume(store, d, d.interviews[0], clock=clock), clock)
    conn = sqlite3.connect(tmp_path / "reviews.db")
    try:
        for statement in (
            "UPDATE attempt SET day = '2000-01-01'",
            "DELETE FROM attempt_step",
            "DELETE FROM event WHERE action = 'bring_forward'",
            "UPDATE event SET day = '2000-01-01' WHERE action = 'bring_forward'",
        ):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                conn.execute(statement)
    finally:
        conn.close()


# -- what was missed feeds the drill -------------------------------------------------------


def test_missed_points_cards_come_due_today_new_ones_beyond_the_limit(store: Store) -> None:
    clock = Clock()
    d = zdeck(interview())
    schedule(store, "z/b", DAY + timedelta(days=10))
    run = InterviewRun.start_or_resume(store, d, d.interviews[0], clock=clock)
    run.finish_question(None)
    run.set_points([0])  # missed: b (scheduled later), c (a new cloze card)
    run.grade_follow_up(5, None)
    run.grade_follow_up(5, None)
    run.set_red_flags([])
    assert run.finish().missed_cards == ("b", "c")
    queue = build_queue(d.items(), store, DAY, new_limit=0)
    # One deletion of c today: its siblings wait, as they always do.
    assert keys(queue.reviews) == ["z/b", "z/c#c1"] and keys(queue.new) == []
    # The two follow-ups were new cards, introduced by their grades; the slots left stay the
    # other cards'.
    queue = build_queue(d.items(), store, DAY, new_limit=4)
    assert keys(queue.new) == ["z/a", "z/d"]

    session = Session([d], store, clock=clock, new_limit=0)
    assert session.remaining().reviews == 2
    shown = []
    while (item := session.current) is not None:
        shown.append(item.key)
        session.grade(5)
    assert shown == ["z/b", "z/c#c1"]
    # Reviewed since: not due again, tomorrow the other deletion comes up.
    assert keys(build_queue(d.items(), store, DAY, new_limit=0).reviews) == []
    tomorrow = build_queue(d.items(), store, DAY + timedelta(days=1), new_limit=0)
    assert "z/c#c2" in keys(tomorrow.reviews)


def test_a_brought_forward_card_not_drilled_stays_due_and_undo_brings_it_back(
    store: Store,
) -> None:
    clock = Clock()
    d = zdeck(interview(follow_ups=(), red_flags=()))
    run = InterviewRun.start_or_resume(store, d, d.interviews[0], clock=clock)
    run.finish_question(None)
    run.set_points([1, 2])
    run.finish()
    later = DAY + timedelta(days=3)
    assert keys(build_queue(d.items(), store, later, new_limit=0).reviews) == ["z/a"]
    session = Session([d], store, clock=lambda: NOW + timedelta(days=3), new_limit=0)
    session.grade(2)
    assert keys(build_queue(d.items(), store, later, new_limit=0).reviews) == []
    assert session.undo() is not None and session.current is not None
    assert session.current.key == "z/a"


def test_an_older_review_arriving_by_sync_leaves_a_brought_forward_card_due(
    store: Store,
) -> None:
    # "Reviewed since" is judged by when a review was given, not when it reached this log.
    clock = Clock()
    d = zdeck(interview(follow_ups=(), red_flags=()))
    run = InterviewRun.start_or_resume(store, d, d.interviews[0], clock=clock)
    run.finish_question(None)
    run.set_points([1, 2])  # "a" missed: brought forward
    run.finish()
    assert keys(build_queue(d.items(), store, DAY, new_limit=0).reviews) == ["z/a"]
    # Another machine reviewed it before the interview (due tomorrow by that schedule); the
    # sync brings its reviews only now.
    older = [
        ReviewEvent("m2", n, "z/a", NOW - timedelta(days=d), DAY - timedelta(days=d), 5)  # type: ignore[arg-type]
        for n, d in ((1, 7), (2, 5))
    ]
    assert store.log.add_events(older).added == 2
    assert store.schedule.state("z/a").due == DAY + timedelta(days=1)
    assert keys(build_queue(d.items(), store, DAY, new_limit=0).reviews) == ["z/a"]
    # One given after the interview, on another machine, settles it.
    newer = ReviewEvent("m2", 3, "z/a", NOW + timedelta(hours=1), DAY, 4)  # type: ignore[arg-type]
    store.log.add_events([newer])
    assert keys(build_queue(d.items(), store, DAY, new_limit=0).reviews) == []


def test_a_card_drilled_earlier_today_and_missed_comes_back_as_a_repeat(store: Store) -> None:
    clock = Clock()
    d = zdeck(interview(follow_ups=(), red_flags=()))
    record(store, "z/a", 5, DAY)
    run = InterviewRun.start_or_resume(store, d, d.interviews[0], clock=clock)
    run.finish_question(None)
    run.set_points([1, 2])
    run.finish()
    session = Session([d], store, clock=clock, new_limit=0)
    assert session.current is not None and session.current.key == "z/a"
    assert session.is_repeat
    session.grade(4)
    assert kind(store.log.reviews_on(DAY)[-1]) is ReviewKind.REPEAT
    assert session.current is None


# -- choosing the interview ---------------------------------------------------------------


def take(store: Store, d: Deck, interview_id: str, covered: set[int], clock: Clock) -> None:
    i = next(i for i in d.interviews if i.id == interview_id)
    run = InterviewRun.start_or_resume(store, d, i, clock=clock)
    run.finish_question(None)
    run.set_points(covered)
    run.finish()


def test_choose_takes_the_least_recently_taken_weakest_first(store: Store) -> None:
    clock = Clock()
    plain = {"follow_ups": (), "red_flags": ()}
    d = zdeck(interview("one", **plain), interview("two", **plain), interview("three", **plain))
    assert choose(store, [d])[1].id == "one"  # never taken: deck order
    take(store, d, "one", {0}, clock)
    assert choose(store, [d])[1].id == "two"
    take(store, d, "two", {0, 1}, clock)
    take(store, d, "three", {0, 1, 2}, clock)
    # All taken today: the weakest last time first.
    assert choose(store, [d])[1].id == "one"
    clock.tick(days=1)
    take(store, d, "one", {0, 1, 2}, clock)
    assert choose(store, [d])[1].id == "two"


def test_choose_resumes_an_unfinished_attempt_of_today_first(store: Store) -> None:
    clock = Clock()
    d = zdeck(interview("one"), interview("two"))
    i = d.interviews[1]
    InterviewRun.start_or_resume(store, d, i, clock=clock).finish_question(None)
    assert choose(store, [d], today=DAY)[1].id == "two"
    assert choose(store, [d], today=DAY + timedelta(days=1))[1].id == "one"


def test_choose_by_id_and_its_errors(store: Store) -> None:
    d = zdeck(interview("one"), interview("two"))
    other = Deck("y", "Y", "t", (), Path("y.yaml"), POS)
    assert choose(store, [other, d], interview_id="two")[1].id == "two"
    assert choose(store, [other, d], deck_id="z")[0] is d
    with pytest.raises(UserError, match=r"no interview with id 'twoo' \(did you mean 'two'\?\)"):
        choose(store, [d], interview_id="twoo")
    with pytest.raises(UserError, match=r"no deck with id 'zz'"):
        choose(store, [d], deck_id="zz")
    with pytest.raises(UserError, match="deck 'y' has no interviews"):
        choose(store, [other, d], deck_id="y")
    with pytest.raises(UserError, match="the decks have no interviews"):
        choose(store, [other])


def test_the_attempt_tables_are_made_by_the_first_attempt_only(tmp_path: Path) -> None:
    db = tmp_path / "reviews.db"
    d = zdeck(interview())
    with Store.open(db) as s:
        record(s, "z/a", 4, DAY)
        # The drill, stats and choosing read attempts: none there, nothing written for it.
        assert build_queue(d.items(), s, DAY).reviews == ()
        assert history(s, "z", "stages") == () and choose(s, [d])[1].id == "stages"
    before = db.read_bytes()
    with Store.open(db) as s:
        build_queue(d.items(), s, DAY)
        assert s.attempts.attempts() == []
    assert db.read_bytes() == before
    with Store.open(db) as s:
        InterviewRun.start_or_resume(s, d, d.interviews[0], clock=Clock())
    with Store.open(db) as s:
        assert len(history(s, "z", "stages")) == 1


# -- two terminals, and a damaged file -----------------------------------------------------


def test_a_step_taken_in_another_terminal_meanwhile_is_refused_and_nothing_logged(
    tmp_path: Path,
) -> None:
    clock = Clock()
    d = zdeck(interview())
    db = tmp_path / "reviews.db"
    with Store.open(db) as one, Store.open(db) as two:
        here = InterviewRun.start_or_resume(one, d, d.interviews[0], clock=clock)
        there = InterviewRun.start_or_resume(two, d, d.interviews[0], clock=clock)
        assert there.attempt_id == here.attempt_id
        there.finish_question("there")
        there.set_points([0])
        with pytest.raises(AttemptMovedOn, match="carried on in another terminal"):
            here.finish_question("here")
        assert here.step is Step.QUESTION
        assert len(one.attempts.attempts()[0].steps) == 2
        # A new run goes on from the log: at the first follow-up.
        again = InterviewRun.start_or_resume(one, d, d.interviews[0], clock=clock)
        assert (again.step, again.question_typed, again.covered) == (
            Step.FOLLOW_UP,
            "there",
            (0,),
        )
        there.grade_follow_up(4, None)
        with pytest.raises(AttemptMovedOn):
            again.grade_follow_up(1, None)
        assert [(r.key, r.grade) for r in one.log.reviews_on(DAY)] == [("z/f1", 4)]


@pytest.mark.parametrize(
    "data",
    ['{"covered": "all", "total": 3}', '{"total": 3}', "[1, 2]", '{"covered": [-1], "total": 3}'],
)
def test_a_damaged_step_is_one_line_naming_the_file(tmp_path: Path, data: str) -> None:
    clock = Clock()
    d = zdeck(interview())
    db = tmp_path / "reviews.db"
    with Store.open(db) as s:
        InterviewRun.start_or_resume(s, d, d.interviews[0], clock=clock).finish_question(None)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute(
            "INSERT INTO attempt_step (attempt, at, step, data) VALUES (1, ?, 'points', ?)",
            (NOW.isoformat(), data),
        )
    conn.close()
    with Store.open(db) as s:
        with pytest.raises(StoreError, match=rf"cannot read {db}: it is damaged \(bad points"):
            InterviewRun.start_or_resume(s, d, d.interviews[0], clock=clock)
        with pytest.raises(StoreError):
            choose(s, [d])
