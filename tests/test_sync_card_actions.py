"""Card actions (suspend, bury, flag, mark) carried by ``zerodrill sync DIR`` (issue 24, point 1):
events of the one stream (issue 34, point 1), a line of their kind in each machine's log file,
received as a set union by identity under the rules of the hostile folder (issue 21, point 4),
undone by identity on every machine; files written before they joined the stream still read."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from cli_support import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tui_support import Clock, tui_decks

from zerodrill.srs.card_actions import (
    SCHEDULE_ACTIONS,
    Action,
    CardActionEvent,
    CardMarks,
    replay,
)
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.schedulers.decision import AnkiDecision
from zerodrill.srs.sitting import Session
from zerodrill.srs.store import Store
from zerodrill.srs.store.actions import NothingToUndo
from zerodrill.srs.sync.folder import sync_folder
from zerodrill.srs.sync.logfile import file_name, header, read_log
from zerodrill.srs.sync.wire import parse_line, unfit

#: The first card a sitting over the test deck shows.
FIRST = "zero-tui/stage-key#c1"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def machines(tmp_path: Path) -> Iterator[tuple[Store, Store]]:
    with Store.open(tmp_path / "a.db") as a, Store.open(tmp_path / "b.db") as b:
        yield a, b


def sitting(store: Store, clock: Clock) -> Session:
    return Session(tui_decks("zero"), store, clock=clock)


def both(a: Store, b: Store, folder: Path) -> None:
    """A syncs, then B, then A again: each has what the other had."""
    for store in (a, b, a):
        sync_folder(store, folder)


def line(
    origin: str, number: int, action: str = "suspend", /, legacy: bool = False, **change: object
) -> str:
    """Card action ``number`` of machine ``origin`` as it writes it (``legacy``: as a zerodrill
    from before actions joined the stream wrote it), ``change`` made to it."""
    clock = Clock()
    record: dict[str, object] = {
        "origin": origin, "seq": number, "key": FIRST, "kind": action,
        "at": (clock.now + timedelta(minutes=number % 1000)).isoformat(),
        "day": clock.now.date().isoformat(),
    }  # fmt: skip
    if legacy:
        record |= {"kind": "action", "action": action, "flag": 0, "undoes": None}
    elif action == "flag":
        record["flag"] = 0
    elif action == "undo":
        record |= {"grade": None, "undoes": None, "answer_ms": None}
    record.update(change)
    return json.dumps(record)


def plant(folder: Path, origin: str, *lines: str) -> Path:
    path = folder / file_name(origin)
    path.write_text("".join(f"{text}\n" for text in (header(origin), *lines)))
    return path


# -- two machines, one folder ----------------------------------------------------------------


def test_a_card_suspended_on_one_machine_leaves_the_others_queue(
    machines: tuple[Store, Store], folder: Path, clock: Clock
) -> None:
    a, b = machines
    assert sitting(b, clock).current is not None
    assert sitting(b, clock).current.key == FIRST  # type: ignore[union-attr]
    on_a = sitting(a, clock)
    suspended = on_a.act(Action.SUSPEND)
    assert suspended.key == FIRST
    report = sync_folder(a, folder)
    assert (report.sent, report.actions_sent) == (0, 1)
    report = sync_folder(b, folder)
    assert (report.received, report.actions_received) == (0, 1)
    assert b.actions.events() == [suspended]
    on_b = sitting(b, clock)
    assert on_b.current is not None and on_b.current.key != FIRST
    assert on_b.deck_counts()[-1].put_aside == 1


@pytest.mark.parametrize(
    ("action", "flag", "marks", "hidden"),
    [
        (Action.BURY, 0, CardMarks(buried_on=Clock().now.date()), True),
        (Action.FLAG, 4, CardMarks(flag=4), False),
        (Action.MARK, 0, CardMarks(marked=True), False),
    ],
    ids=["bury", "flag", "mark"],
)
def test_bury_flag_and_mark_reach_the_other_machine(
    machines: tuple[Store, Store],
    folder: Path,
    clock: Clock,
    action: Action,
    flag: int,
    marks: CardMarks,
    hidden: bool,
) -> None:
    a, b = machines
    sitting(a, clock).act(action, flag=flag)
    both(a, b, folder)
    assert b.actions.marks() == a.actions.marks() == {FIRST: marks}
    on_b = sitting(b, clock)
    assert (on_b.current is not None and on_b.current.key != FIRST) == hidden
    if not hidden:
        assert on_b.marks() == marks


def test_an_undo_on_one_machine_after_a_sync_is_withdrawn_on_the_other(
    machines: tuple[Store, Store], folder: Path, clock: Clock
) -> None:
    a, b = machines
    on_a = sitting(a, clock)
    on_a.act(Action.SUSPEND)
    both(a, b, folder)
    assert b.actions.marks()[FIRST].suspended
    # B flags another card meanwhile; A's undo withdraws its suspend, and only that.
    on_b = sitting(b, clock)
    clock.advance(minutes=1)
    flagged = on_b.act(Action.FLAG, flag=1)
    clock.advance(minutes=1)
    assert on_a.undo() is not None
    both(a, b, folder)
    assert a.actions.marks() == b.actions.marks() == {flagged.key: CardMarks(flag=1)}
    back = sitting(b, clock)
    assert back.current is not None and back.current.key == FIRST


def test_syncing_again_adds_nothing(
    machines: tuple[Store, Store], folder: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = machines
    sitting(a, clock).act(Action.MARK)
    sitting(b, clock).act(Action.FLAG, flag=2)
    for _ in range(3):
        both(a, b, folder)
    for store in (a, b):
        report = sync_folder(store, folder)
        assert (report.actions_sent, report.actions_received, report.warnings) == (0, 0, ())
        assert len(store.actions.events()) == 2
    for store in (a, b):
        assert len(read_log(folder / file_name(store.machine.id)).actions) == 1


def test_the_cli_says_how_many_card_actions_moved(
    tmp_path: Path, folder: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store.open(tmp_path / "a.db") as a:
        sitting(a, clock).act(Action.SUSPEND)
    code, out, err = run_cli(capsys, "sync", str(folder), "--db", str(tmp_path / "a.db"))
    assert (code, err) == (0, "")
    assert "Card actions (suspend, bury, flag, mark): 1 sent, 0 received." in out
    code, out, err = run_cli(capsys, "sync", str(folder), "--db", str(tmp_path / "b.db"))
    assert (code, err) == (0, "")
    assert "Card actions (suspend, bury, flag, mark): 0 sent, 1 received." in out
    code, out, err = run_cli(capsys, "sync", str(folder), "--db", str(tmp_path / "b.db"))
    assert "Card actions" not in out


# -- the file format ---------------------------------------------------------------------------


def test_an_action_line_round_trips_and_old_files_still_read(folder: Path) -> None:
    plant(folder, "0ld", json.dumps({
        "origin": "0ld", "seq": 1, "key": FIRST, "kind": "grade", "at": Clock().now.isoformat(),
        "day": Clock().now.date().isoformat(), "grade": 4, "undoes": None, "answer_ms": None,
    }))  # fmt: skip
    old = read_log(folder / file_name("0ld"))
    assert (len(old.entries), old.actions, old.damaged) == (1, [], [])
    plant(folder, "b0b", line("b0b", 1), line("b0b", 2, "flag", flag=7))
    read = read_log(folder / file_name("b0b"))
    assert (read.entries, read.damaged) == ([], [])
    assert [(e.action, e.flag) for e in read.actions] == [(Action.SUSPEND, 0), (Action.FLAG, 7)]
    assert [json.loads(e.to_json()) for e in read.actions] == [
        json.loads(line("b0b", 1)),
        json.loads(line("b0b", 2, "flag", flag=7)),
    ]
    # As a zerodrill wrote them before actions joined the stream: numbered apart from the
    # reviews, read under the numbers a migrated database gives them, undo and all.
    plant(
        folder,
        "0ld",
        line("0ld", 1, legacy=True),
        line("0ld", 2, "undo", legacy=True, undoes=["0ld", 1]),
        line("0ld", 2, "grade", grade=4, undoes=None, answer_ms=None),
    )
    old = read_log(folder / file_name("0ld"))
    assert old.damaged == [] and [e.seq for e in old.entries] == [2]
    assert [(e.identity, e.action, e.undoes) for e in old.actions] == [
        (("0ld", 2**63 - 1), Action.SUSPEND, None),
        (("0ld", 2**63 - 2), Action.UNDO, ("0ld", 2**63 - 1)),
    ]


@settings(max_examples=200, deadline=None)
@given(
    # A setting is no card's (tests/test_setting_events.py).
    action=st.sampled_from([a for a in Action if a is not Action.SETTING]),
    flag=st.integers(0, 7),
    seq=st.integers(1, 2**63 - 1),
    when=st.datetimes(
        min_value=datetime(1970, 1, 2), max_value=datetime(9000, 1, 1), timezones=st.timezones()
    ),
    origin=st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}", fullmatch=True),
)
def test_every_action_a_machine_may_write_reads_back_as_itself(
    action: Action, flag: int, seq: int, when: datetime, origin: str
) -> None:
    undoes = ("b0b", 7) if action is Action.UNDO else None
    # With its UTC offset, as a drill's clock gives it (datetime.now().astimezone()): a
    # zoneinfo time in a fold compares unequal to the same instant in any other zone.
    when = when.astimezone(timezone(when.utcoffset() or timedelta(0)))
    # A due date set in Anki says what was set (what every machine's replay takes).
    decided = AnkiDecision(3, 2500, due_days=4) if action is Action.SET_DUE else None
    event = CardActionEvent(
        origin,
        seq,
        FIRST,
        when,
        when.date(),
        action,
        flag if action is Action.FLAG else 0,
        undoes,
        decided=decided,
    )
    assert unfit(event) is None
    read = parse_line(event.to_json())
    if action is Action.UNDO:
        # An undo's line is one for every kind of event: the log says what it withdraws.
        assert isinstance(read, ReviewEvent) and read.grade is None
        assert (read.identity, read.key, read.at, read.undoes) == (
            event.identity, FIRST, when, undoes
        )  # fmt: skip
        assert read.to_json() == event.to_json()
    else:
        assert read == event


# -- the hostile folder ------------------------------------------------------------------------

BAD_LINES = {
    "an action no zerodrill has": dict(kind="delete"),
    "a flag past 7": dict(kind="flag", flag=8),
    "a flag on a suspend": dict(flag=3),
    "a date in year 9999": dict(at="9999-12-31T12:00:00+00:00", day="9999-12-31"),
    "a number past SQLite's": dict(seq=2**64),
    "a key no deck can give": dict(key="zero/\x1b[2J"),
    "a key past the longest": dict(key="zero/" + "c" * 70_000),
    "an undo naming nothing": dict(kind="undo"),
    "an old action line numbered past any": dict(legacy=True, seq=2**62 + 1),
    "no time zone": dict(at="2026-05-11T10:00:00"),
}


@pytest.mark.parametrize("change", BAD_LINES.values(), ids=BAD_LINES.keys())
def test_one_bad_action_line_is_skipped_alone_with_one_warning(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str], change: dict[str, object]
) -> None:
    plant(
        folder,
        "b0b",
        line("b0b", 1, "mark"),
        line("b0b", 2, **change),
        line("b0b", 3, "flag", flag=2, key="zero-tui/fsdp"),
    )
    code, out, err = run_cli(capsys, "sync", str(folder), "--db", str(tmp_path / "a.db"))
    assert code == 0 and err.count("\n") == 1, err
    assert f"{file_name('b0b')}:3: damaged review line" in err and "skipped" in err
    assert "0 sent, 2 received" in out
    with Store.open(tmp_path / "a.db") as a:
        assert a.actions.marks() == {
            FIRST: CardMarks(marked=True),
            "zero-tui/fsdp": CardMarks(flag=2),
        }


def test_a_forged_action_with_this_machines_identity_is_ignored(
    tmp_path: Path, folder: Path, clock: Clock
) -> None:
    with Store.open(tmp_path / "a.db") as a:
        victim = a.machine.id
        sitting(a, clock).act(Action.MARK)
        plant(folder, "b0b", line(victim, 2**63 - 1), line("b0b", 1, "flag", flag=5))
        report = sync_folder(a, folder)
        assert report.actions_received == 1
        assert len(report.warnings) == 1
        assert f"claiming to be this machine's events (machine {victim})" in (report.warnings[0])
        assert not a.actions.marks()[FIRST].suspended
        # Its next action is numbered from its own database, and sent.
        event = a.actions.record(FIRST, Action.UNMARK, at=clock.now, day=clock.now.date())
        assert event.identity == (victim, 2)
        assert sync_folder(a, folder).actions_sent == 1
    own = read_log(folder / file_name(victim))
    assert [e.seq for e in own.actions] == [1, 2]


def test_an_action_dated_far_ahead_is_held_back_until_its_time(
    tmp_path: Path, folder: Path
) -> None:
    when = datetime.now(UTC) + timedelta(days=30)
    plant(
        folder,
        "b0b",
        line("b0b", 1, at=when.isoformat(), day=when.date().isoformat()),
        line("b0b", 2, "mark", key="zero-tui/fsdp"),
    )
    with Store.open(tmp_path / "a.db") as a:
        report = sync_folder(a, folder)
        assert report.actions_received == 1
        assert any(
            "1 card action from b0b dated more than a day ahead" in w for w in report.warnings
        )
        assert set(a.actions.marks()) == {"zero-tui/fsdp"}
        # Offered again at every sync until its time comes.
        assert len(sync_folder(a, folder).warnings) == 1


def undo(origin: str, seq: int, target: tuple[str, int], key: str = FIRST) -> str:
    return line(origin, seq, "undo", undoes=list(target), key=key)


UNDOS = {
    "two undos of one action": [
        ("b0b", [line("b0b", 1), undo("b0b", 2, ("b0b", 1)), undo("b0b", 3, ("b0b", 1))]),
    ],
    "an undo of an undo": [
        ("b0b", [line("b0b", 1), undo("b0b", 2, ("b0b", 1))]),
        ("c0c", [undo("c0c", 1, ("b0b", 2))]),
    ],
    "an undo of another card's action": [
        ("b0b", [line("b0b", 1)]),
        ("c0c", [undo("c0c", 1, ("b0b", 1), "zero-tui/fsdp")]),
    ],
}


@pytest.mark.parametrize("files", UNDOS.values(), ids=UNDOS.keys())
def test_an_action_undo_that_can_never_merge_is_skipped_alone(
    tmp_path: Path, folder: Path, files: list[tuple[str, list[str]]]
) -> None:
    for origin, lines in files:
        plant(folder, origin, *lines, line(origin, 10, "mark", key="zero-tui/offload"))
    with Store.open(tmp_path / "a.db") as a:
        report = sync_folder(a, folder)
        assert len(report.warnings) == 1 and "skipped" in report.warnings[0]
        logged = {e.identity for e in a.actions.events()}
        assert {(o, 10) for o, _ in files} <= logged
        assert len(logged) == sum(len(lines) + 1 for _, lines in files) - 1
        assert a.actions.marks()["zero-tui/offload"] == CardMarks(marked=True)
        again = sync_folder(a, folder)
        assert again.actions_received == 0


def test_an_undo_waits_for_the_action_it_names(tmp_path: Path, folder: Path) -> None:
    # c0c's undo of b0b's suspend arrives before b0b's file: it waits, then withdraws it.
    plant(folder, "c0c", undo("c0c", 1, ("b0b", 1)))
    with Store.open(tmp_path / "a.db") as a:
        report = sync_folder(a, folder)
        assert (report.actions_received, report.warnings) == (0, ())
        plant(folder, "b0b", line("b0b", 1))
        report = sync_folder(a, folder)
        assert (report.actions_received, report.warnings) == (2, ())
        assert a.actions.marks() == {}


def test_a_card_action_of_a_key_no_log_may_carry_is_not_sent(
    tmp_path: Path, folder: Path, clock: Clock
) -> None:
    with Store.open(tmp_path / "a.db") as a:
        a.actions.record("Not A Key", Action.SUSPEND, at=clock.now, day=clock.now.date())
        sitting(a, clock).act(Action.MARK)
        first = sync_folder(a, folder)
        assert first.actions_sent == 1 and len(first.warnings) == 1
        assert "1 event in this database that no log file may carry" in first.warnings[0]
        own = folder / file_name(a.machine.id)
        written = own.read_bytes()
        assert sync_folder(a, folder).actions_sent == 0 and own.read_bytes() == written


def test_actions_and_reviews_share_a_file_and_one_numbering(
    machines: tuple[Store, Store], folder: Path, clock: Clock
) -> None:
    a, b = machines
    on_a = sitting(a, clock)
    on_a.grade(4)
    flagged = on_a.act(Action.FLAG, flag=3)
    assert flagged.seq == 2 and a.log.events()[0].seq == 1
    both(a, b, folder)
    assert b.log.events() == a.log.events() and b.actions.events() == [flagged]
    own = read_log(folder / file_name(a.machine.id))
    assert (len(own.entries), own.actions, own.damaged) == (1, [flagged], [])


def test_a_database_restored_from_a_backup_renumbers_its_card_actions_too(
    tmp_path: Path, folder: Path, clock: Clock
) -> None:
    # Backup, a suspend synced, the disk dies, the backup comes back and the learner flags a
    # card and undoes a mark: the flag gets the number the synced suspend has.
    Store.open(tmp_path / "a.db").close()
    shutil.copy(tmp_path / "a.db", tmp_path / "backup.db")
    with Store.open(tmp_path / "a.db") as a:
        old = a.machine.id
        first = sitting(a, clock).act(Action.SUSPEND)
        sync_folder(a, folder)
    for leftover in tmp_path.glob("a.db*"):
        leftover.unlink()
    shutil.copy(tmp_path / "backup.db", tmp_path / "a.db")
    with Store.open(tmp_path / "a.db") as a:
        on_a = sitting(a, clock)
        again = on_a.act(Action.FLAG, flag=6)
        on_a.act(Action.MARK)
        clock.advance(minutes=1)
        on_a.undo()
        assert again.identity == first.identity  # the number is used twice
        report = sync_folder(a, folder)
        assert len(report.warnings) == 1 and "3 of its events renumbered" in report.warnings[0]
        assert a.machine.id != old and report.actions_received == 1
        assert {e.origin for e in a.actions.events()} == {old, a.machine.id}
        assert a.actions.marks() == {FIRST: CardMarks(suspended=True, flag=6)}
        assert sync_folder(a, folder).warnings == ()
    with Store.open(tmp_path / "b.db") as b:
        sync_folder(b, folder)
        assert b.actions.marks() == {FIRST: CardMarks(suspended=True, flag=6)}
        assert len(b.actions.events()) == 4


# -- property: any order of actions, undos and syncs converges -------------------------------

KEYS = ("zero-tui/stage-key#c1", "zero-tui/fsdp", "zero-tui/offload")
ACTIONS = [
    a
    for a in Action
    if a not in (Action.UNDO, Action.BRING_FORWARD, Action.SETTING, *SCHEDULE_ACTIONS)
]
Step = st.one_of(
    st.tuples(
        st.just("act"), st.integers(0, 2), st.sampled_from(KEYS), st.sampled_from(ACTIONS),
        st.integers(0, 7), st.integers(0, 600),
    ),
    st.tuples(st.just("undo"), st.integers(0, 2)),
    st.tuples(st.just("sync"), st.integers(0, 2)),
)  # fmt: skip


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(Step, max_size=30))
def test_machines_that_act_undo_and_sync_in_any_order_end_with_the_same_marks(
    steps: list[tuple[object, ...]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "shared"
        folder.mkdir()
        stores = [Store.open(Path(tmp) / f"{n}.db") for n in range(3)]
        try:
            now = Clock().now
            made: list[list[CardActionEvent]] = [[], [], []]
            for step in steps:
                n = step[1]
                assert isinstance(n, int)
                store = stores[n]
                if step[0] == "act":
                    _, _, key, action, flag, minutes = step
                    assert isinstance(key, str) and isinstance(action, Action)
                    assert isinstance(flag, int) and isinstance(minutes, int)
                    now += timedelta(minutes=minutes)
                    flag = flag if action is Action.FLAG else 0
                    made[n].append(
                        store.actions.record(key, action, at=now, day=now.date(), flag=flag)
                    )
                elif step[0] == "undo" and made[n]:
                    now += timedelta(minutes=1)
                    try:
                        store.actions.undo(made[n].pop().identity, at=now)
                    except NothingToUndo:
                        pass
                elif step[0] == "sync":
                    assert sync_folder(store, folder).warnings == ()
            for _ in range(2):
                for store in stores:
                    sync_folder(store, folder)
            logs = [set(s.actions.events()) for s in stores]
            assert logs[0] == logs[1] == logs[2]
            # Nothing lost, nothing doubled: every machine's own actions, each once.
            own = {e for s in stores for e in s.actions.events() if e.origin == s.machine.id}
            assert logs[0] == own
            assert all(len(s.actions.events()) == len(logs[0]) for s in stores)
            marks = [s.actions.marks() for s in stores]
            assert marks[0] == marks[1] == marks[2] == replay(logs[0])
            for store in stores:
                again = sync_folder(store, folder)
                assert (again.actions_sent, again.actions_received) == (0, 0)
        finally:
            for store in stores:
                store.close()
