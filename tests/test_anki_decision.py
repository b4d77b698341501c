"""An answer given in Anki carries Anki's decision (:mod:`zerodrill.srs.schedulers.decision`):
the store keeps it, the sync line carries it, and every scheduler's replay takes it."""

from __future__ import annotations

import json
from datetime import datetime, time, timedelta, timezone
from pathlib import Path

import pytest

from zerodrill.srs.card_actions import Action, CardActionEvent
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import ANKI_LAYOUT, Grade
from zerodrill.srs.schedulers import AnkiDecision, scheduler_named
from zerodrill.srs.schedulers.decision import from_revlog
from zerodrill.srs.store import Store
from zerodrill.srs.sync.wire import BadLine, parse_line

KEY = "deck/card"
AT = datetime(2026, 3, 2, 12, 0, tzinfo=timezone(timedelta(hours=1)))


def anki_answer(seq: int, grade: Grade, days: int, decided: AnkiDecision | None) -> ReviewEvent:
    at = AT + timedelta(days=days)
    return ReviewEvent("anki", seq, KEY, at, at.date(), grade, buttons=ANKI_LAYOUT, decided=decided)


HISTORY = [
    anki_answer(1, Grade.GOOD, 0, AnkiDecision(3, 2500)),
    anki_answer(2, Grade.PERFECT, 3, AnkiDecision(11, 2650, stability=9.5, difficulty=4.25)),
    anki_answer(3, Grade.BLACKOUT, 14, AnkiDecision(0, 2450, 600, True)),
]


def test_the_decision_survives_the_sync_line_and_the_store(tmp_path: Path) -> None:
    for event in HISTORY:
        assert parse_line(event.to_json()) == event
    with Store.open(tmp_path / "a.db") as store:
        store.log.add_events(HISTORY)
        assert [e for e in store.log.events() if e.origin == "anki"] == HISTORY


@pytest.mark.parametrize("name", ["sm2", "fsrs"])
def test_every_machine_replays_ankis_decision_the_same_way(tmp_path: Path, name: str) -> None:
    """One machine logs Anki's answers, another gets them over the sync line: the same state,
    with Anki's interval and ease (SM-2) or memory state (FSRS), whichever way it is derived."""
    states = []
    for n, events in enumerate((HISTORY, [parse_line(e.to_json()) for e in HISTORY])):
        with Store.open(tmp_path / f"{n}.db", scheduler=scheduler_named(name)) as store:
            for event in events:
                store.log.add_events([event])  # one at a time: the cache's update of one grade
            states.append(store.schedule.state(KEY))
            other = "fsrs" if name == "sm2" else "sm2"
            store.use(scheduler_named(other))
            store.use(scheduler_named(name))  # derived again from the log, all at once
            states.append(store.schedule.state(KEY))
    assert all(s == states[0] for s in states)
    failed = states[0]
    last = HISTORY[-1]
    assert (failed.due, failed.again_on) == (last.day, last.day)
    assert failed.step_due == last.at + timedelta(seconds=600)
    if name == "sm2":
        assert failed.sm2.ef_hundredths == 245  # type: ignore[attr-defined]
    else:
        assert failed.phase.value == "relearning"


def test_sm2_takes_ankis_interval_and_ease_and_goes_on_from_them() -> None:
    sm2 = scheduler_named("sm2")
    from zerodrill.srs.schedulers.protocol import When, replay

    state, _ = replay(sm2, [(e.grade, e.day, e.at, e.buttons, e.decided) for e in HISTORY[:2]])  # type: ignore[misc]
    assert (state.interval, state.sm2.ef_hundredths) == (11, 265)  # type: ignore[attr-defined]
    assert state.due == HISTORY[1].day + timedelta(days=11)
    # A terminal's Good on the due day: SM-2 from Anki's state, ⌈11 × 2.65⌉ days.
    assert state.due is not None
    at = datetime.combine(state.due, time(12), tzinfo=AT.tzinfo)
    after = sm2.review(state, Grade.GOOD, When(at, state.due))
    assert after.interval == 30


def test_a_revlog_row_reads_as_ankis_decision() -> None:
    assert from_revlog(4, 2500, 1, None) == AnkiDecision(4, 2500)
    assert from_revlog(-600, 0, 0, None) == AnkiDecision(0, 0, 600, False)
    assert from_revlog(-600, 2300, 1, (1.5, 7.0)) == AnkiDecision(0, 2300, 600, True, 1.5, 7.0)
    # A memory state out of bounds is left to FSRS; a row no Anki writes gives none.
    assert from_revlog(4, 2500, 1, (float("nan"), 7.0)) == AnkiDecision(4, 2500)
    assert from_revlog(0, 2500, 1, None) is None
    assert from_revlog("4", 2500, 1, None) is None


@pytest.mark.parametrize(
    "decided",
    [
        "x",
        {"ivl": -1},
        {"ivl": 0},
        {"ivl": 3, "step": 60},
        {"ivl": 1, "factor": True},
        {"ivl": 1, "s": 2.0},
        {"ivl": 1, "s": 0, "d": 5},
        {"ivl": 10**9},
        {"ivl": 1, "more": 1},
        {"ivl": 1, "relearning": "yes"},
    ],
)
def test_a_sync_line_with_a_decision_no_anki_made_is_refused(decided: object) -> None:
    line = json.loads(HISTORY[0].to_json())
    line["decided"] = decided
    with pytest.raises(BadLine):
        parse_line(json.dumps(line))


def test_the_sync_leaves_a_card_anki_decided_and_schedules_one_logged_before_decisions() -> None:
    """A card whose latest answer carries Anki's decision keeps Anki's row; an answer given in
    Anki but logged before decisions were kept is scheduled as zerodrill derives it, as it
    was (so the two sides still agree)."""
    from zerodrill.anki_sync.note_updates import CardRow
    from zerodrill.anki_sync.schedule import Today, wanted
    from zerodrill.anki_sync.store_bridge import derive

    row = CardRow(KEY, 7, 3, 1, 1_800_000_000, 0, 2450, 3, 1, 1001, 0, 0)
    today = Today(HISTORY[-1].day, 100)
    sm2 = scheduler_named("sm2")
    decided = derive(HISTORY, [], [KEY], sm2)[KEY]
    assert decided.anki_decides and wanted(row, decided, today) == row
    before = [structs_without_decision(e) for e in HISTORY]
    undecided = derive(before, [], [KEY], sm2)[KEY]
    assert not undecided.anki_decides
    # The failure is zerodrill's to schedule: relearning, in Anki's learning queue, due at the
    # drill's step (10 minutes on), as the drill brings it back.
    step = HISTORY[-1].at + timedelta(minutes=10)
    new = wanted(row, undecided, today)
    assert (new.type, new.queue, new.due) == (3, 1, int(step.timestamp()))


def structs_without_decision(event: ReviewEvent) -> ReviewEvent:
    from msgspec.structs import replace

    return replace(event, decided=None)


def by_hand(seq: int, days: int, decided: AnkiDecision | None) -> CardActionEvent:
    at = AT + timedelta(days=days)
    action = Action.SET_DUE if decided is not None else Action.FORGET
    return CardActionEvent("anki", seq, KEY, at, at.date(), action, decided=decided)


def terminal_grade(seq: int, grade: Grade, days: int) -> ReviewEvent:
    at = AT + timedelta(days=days, hours=1)
    return ReviewEvent("m1", seq, KEY, at, at.date(), grade)


#: Answers in Anki, a due date set there, a terminal's grade, a Forget, and a first grade again.
BY_HAND = [
    *HISTORY[:2],
    by_hand(10, 5, AnkiDecision(11, 2650, due_days=20)),
    terminal_grade(1, Grade.GOOD, 6),
    by_hand(11, 8, None),
    terminal_grade(2, Grade.GOOD, 9),
]


@pytest.mark.parametrize("name", ["sm2", "fsrs"])
def test_every_way_of_deriving_replays_a_due_date_set_and_a_forget_alike(
    tmp_path: Path, name: str
) -> None:
    """The store's cache, a grade or a change at a time and all at once, the schedule's
    projection, and the sync's own replay give one state at each step; a due date set moves
    the card to that day, a Forget makes it new, and the grade after it is a first sight."""
    from zerodrill.anki_sync.store_bridge import derive, log_events
    from zerodrill.srs.projections import schedule

    scheduler = scheduler_named(name)
    with Store.open(tmp_path / "a.db", scheduler=scheduler) as store:
        for event in BY_HAND:
            line = parse_line(event.to_json())
            assert line == event
            store.log.add_events([line])
            state = store.schedule.state(KEY)
            synced = derive(log_events(store, [KEY]), [], [KEY], scheduler)[KEY]
            assert synced.anki == scheduler.anki(state)
            assert store.log.project(schedule(scheduler)).get(KEY, scheduler.new_state()) == state
            if event is BY_HAND[2]:
                assert (state.due, state.interval) == (event.day + timedelta(days=20), 11)
            if event is BY_HAND[4]:
                assert state == scheduler.new_state()
        store.use(scheduler_named("fsrs" if name == "sm2" else "sm2"))
        store.use(scheduler)
        assert store.schedule.state(KEY) == state
        first = [e for e in store.log.entries() if e.identity == ("m1", 2)]
        assert first[0].introduced


# -- an answer whose card row Anki's sync did not keep (found by tests/test_anki_fuzz.py) ----


def test_a_card_row_is_the_answers_only_where_its_schedule_is_as_the_answer_left_it() -> None:
    from zerodrill.srs.anki_import import left_as

    rid = 1_800_000_000_123
    lrt = '{"s":2.3,"d":5.0,"lrt":1800000000}'
    days, step = AnkiDecision(4, 2500), AnkiDecision(0, 0, 600)
    assert left_as(days, 2, 4, lrt, rid)  # in review, that interval, reviewed then
    assert left_as(step, 1, 0, "", rid) and left_as(AnkiDecision(0, 0, 600, True), 3, 1, "", rid)
    assert not left_as(step, 0, 0, "", rid)  # new: the drill's row, kept by Anki's sync
    assert not left_as(days, 2, 6, lrt, rid)  # another interval
    assert not left_as(step, 2, 4, lrt, rid)  # in review: not on a step
    assert not left_as(days, 2, 4, lrt, rid + 5_000)  # reviewed at another time
    # A change by hand sets no review time; Anki's interval under FSRS may be 0 for it.
    assert left_as(AnkiDecision(1, 2500), 2, 0, lrt, rid + 5_000, by_hand=True)


def test_a_card_anki_decided_whose_row_lost_that_answer_is_written_as_it_decided() -> None:
    """The phone's answer (4 days) is the card's latest, but Anki's sync kept the drill's
    newer row (new, suspended): the sync writes the answer's schedule, and the suspend stays."""
    from zerodrill.anki_sync.note_updates import CardRow
    from zerodrill.anki_sync.schedule import Today, wanted
    from zerodrill.anki_sync.store_bridge import derive

    # Numbered by its revlog id, its time in ms, as Anki's answers are.
    phone = anki_answer(int(AT.timestamp()) * 1000 + 123, Grade.GOOD, 0, AnkiDecision(4, 2500))
    history = derive([phone], [], [KEY], scheduler_named("sm2"))[KEY]
    assert history.anki_decides
    today = Today(phone.day, 100)
    drills = CardRow(KEY, 7, 0, -1, 1, 0, 0, 0, 0, 0, 0, 0, '{"pos":1}')
    written = wanted(drills, history, today)
    assert (written.type, written.queue, written.due, written.ivl) == (2, -1, 104, 4)
    assert written.factor == 2500
    # As the answer left it (suspended on the phone later): left alone.
    lrt = int(phone.at.timestamp())
    phones = CardRow(KEY, 7, 2, -1, 105, 4, 2500, 1, 0, 0, 0, 0, f'{{"lrt":{lrt}}}')
    assert wanted(phones, history, today) == phones


@pytest.mark.parametrize("lost", [False, True], ids=["kept", "lost"])
def test_fsrs_memory_is_read_from_the_card_only_where_the_row_is_the_answers(
    tmp_path: Path, lost: bool
) -> None:
    """Under FSRS the card's data holds Anki's memory state after its latest answer: taken
    where the row is that answer's; where Anki's sync kept the drill's newer row, the
    decision is the revlog row's alone (FSRS's own memory state then follows)."""
    from anki.collection import Collection
    from anki.scheduler.v3 import CardAnswer

    from zerodrill.srs.anki_import import read_reviews

    path = tmp_path / "collection.anki2"
    col = Collection(str(path))
    col.set_config("fsrs", True)
    note = col.new_note(col.models.by_name("Basic"))
    note["Front"], note["Back"] = "q", "a"
    col.add_note(note, col.decks.id("Default"))
    card = note.cards()[0]
    card.start_timer()
    states = col._backend.get_scheduling_states(card.id)
    col.sched.answer_card(col.sched.build_answer(card=card, states=states, rating=CardAnswer.GOOD))
    (ivl,) = col.db.first("SELECT ivl FROM revlog")
    memory = json.loads(col.db.scalar("SELECT data FROM cards WHERE id = ?", card.id))
    if lost:  # the drill's row: new, suspended, an older memory state of its own
        col.db.execute(
            "UPDATE cards SET type = 0, queue = -1, ivl = 0, data = ? WHERE id = ?",
            '{"s":9.0,"d":9.0,"lrt":1}',
            card.id,
        )
    col.close()
    (event,) = read_reviews(path, {note.guid: {0: KEY}}).reviews
    assert event.decided is not None and event.decided.step_seconds == -ivl
    expected = None if lost else (round(memory["s"], 4), round(memory["d"], 4))
    got = event.decided.stability, event.decided.difficulty
    assert (None if got == (None, None) else got) == expected
