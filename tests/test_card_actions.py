"""Anki's keys besides the grades (issue 24, point 1): bury (-), suspend (@), mark (*) and
flags (Ctrl+1..7) as events in the log, undone by u like a grade, replayed into each card's
marks; suspended and buried cards kept out of the queue; the way back by the palette and by
``zerodrill unsuspend``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from cli_support import run_cli
from tui_support import Clock, make_app, run_async

from zerodrill.srs.card_actions import Action, CardActionEvent, CardMarks, replay
from zerodrill.srs.store import Store
from zerodrill.tui.widgets.card_view import CardView

SIZE = (80, 24)
FIRST, SECOND = "zero-tui/stage-key#c1", "zero-tui/stage-key#c2"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


def shown_key(app) -> str:  # type: ignore[no-untyped-def]
    return app.screen.query_one(CardView).item.key


def notices(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(n.message) for n in app._notifications]


# -- the events, replayed ------------------------------------------------------------------


def event(
    origin: str, seq: int, minute: int, action: Action, *, flag: int = 0, undoes=None
) -> CardActionEvent:  # type: ignore[no-untyped-def]
    at = datetime(2026, 3, 1, 12, minute, tzinfo=UTC)
    return CardActionEvent(origin, seq, "d/c", at, date(2026, 3, 1), action, flag, undoes)


def test_marks_are_the_replay_of_the_events_and_an_undo_withdraws_exactly_its_event() -> None:
    a1 = event("a", 1, 0, Action.SUSPEND)
    b1 = event("b", 1, 5, Action.FLAG, flag=3)
    a2 = event("a", 2, 10, Action.MARK)
    assert replay([a2, b1, a1]) == {
        "d/c": CardMarks(suspended=True, flag=3, marked=True),
    }
    # Machine a undoes its suspend after machine b's later flag arrived: the flag stays.
    undo = event("a", 3, 20, Action.UNDO, undoes=a1.identity)
    assert replay([a1, b1, a2, undo]) == {"d/c": CardMarks(flag=3, marked=True)}
    cleared = event("b", 2, 30, Action.FLAG, flag=0)
    unmarked = event("a", 4, 40, Action.UNMARK)
    assert replay([a1, b1, a2, undo, cleared, unmarked]) == {}


def test_a_bury_lasts_its_study_day_only() -> None:
    marks = replay([event("a", 1, 0, Action.BURY)])["d/c"]
    assert marks.hidden_on(date(2026, 3, 1)) and not marks.hidden_on(date(2026, 3, 2))


def test_an_action_event_is_checked() -> None:
    with pytest.raises(ValueError):
        event("a", 1, 0, Action.UNDO)
    with pytest.raises(ValueError):
        event("a", 1, 0, Action.MARK, flag=2)
    with pytest.raises(ValueError):
        event("a", 1, 0, Action.FLAG, flag=8)


# -- the drill's keys ------------------------------------------------------------------------


@run_async
async def test_minus_buries_until_tomorrow_and_u_takes_it_back(store: Store) -> None:
    clock = Clock()
    app = make_app(store, "zero", clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        assert shown_key(app) == FIRST
        await pilot.press("minus")
        assert shown_key(app) != FIRST
        assert "Card buried until tomorrow: u takes it back." in notices(app)
        assert store.actions.marks()[FIRST].buried_on == app.session.day
        await pilot.press("u")
        assert shown_key(app) == FIRST
        assert notices(app)[-1] == "Bury undone."
        assert FIRST not in store.actions.marks()
        await pilot.press("minus", "q")
    # Later the same day the buried card stays out; the next day it is back.
    app = make_app(store, "zero", clock=clock)
    async with app.run_test(size=SIZE):
        assert shown_key(app) != FIRST
    clock.advance(days=1)
    app = make_app(store, "zero", clock=clock)
    async with app.run_test(size=SIZE):
        assert shown_key(app) == FIRST
    # Nothing was graded: a bury is no review.
    assert list(store.log.entries()) == []


@run_async
async def test_at_suspends_for_good_and_the_palette_brings_it_back(store: Store) -> None:
    clock = Clock()
    app = make_app(store, "zero", clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("at")
        assert shown_key(app) != FIRST and store.actions.marks()[FIRST].suspended
    clock.advance(days=3)
    app = make_app(store, "zero", clock=clock)
    async with app.run_test(size=SIZE) as pilot:
        assert shown_key(app) != FIRST
        await app.action_unsuspend_all()
        await pilot.pause()
        assert notices(app)[-1] == "1 card unsuspended."
        assert FIRST not in store.actions.marks()
    app = make_app(store, "zero", clock=clock)
    async with app.run_test(size=SIZE):
        assert shown_key(app) == FIRST


@run_async
async def test_grades_and_actions_undo_in_the_order_given(store: Store) -> None:
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter", "4")  # a grade of the first card
        second = shown_key(app)
        await pilot.press("asterisk", "ctrl+3")
        assert store.actions.marks()[second] == CardMarks(flag=3, marked=True)
        assert notices(app)[-2:] == ["Card marked.", "Flagged green."]
        await pilot.press("ctrl+3")  # the same flag again clears it, as in Anki
        assert store.actions.marks()[second] == CardMarks(marked=True)
        await pilot.press("u", "u", "u")  # the flag cleared, the flag, the mark
        assert store.actions.marks() == {}
        assert len(list(store.log.entries())) == 1
        await pilot.press("u")  # then the grade
        assert shown_key(app) == FIRST
        assert [r.undoes is not None for r in store.log.entries()] == [
            False,
            True,
        ]  # a grade, its undo


# -- zerodrill unsuspend ---------------------------------------------------------------------


def test_unsuspend_lists_then_brings_back_by_card_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "reviews.db"
    now = datetime.now().astimezone()
    with Store.open(db) as store:
        for key in (FIRST, SECOND, "zero-tui/stage-2"):
            store.actions.record(key, Action.SUSPEND, at=now, day=now.date())
    code, out, _ = run_cli(capsys, "unsuspend", "--db", str(db))
    assert code == 0
    assert out.splitlines() == [
        "zero-tui/stage-2",
        FIRST,
        SECOND,
        "3 cards suspended; zerodrill unsuspend CARD-ID (or --all) brings them back.",
    ]
    code, out, err = run_cli(capsys, "unsuspend", "--db", str(db), "zero-tui/nope")
    assert code == 1 and "not suspended: zero-tui/nope" in err
    # A cloze card's id brings back each of its deletions.
    code, out, _ = run_cli(capsys, "unsuspend", "--db", str(db), "zero-tui/stage-key")
    assert (code, out) == (0, "2 cards unsuspended.\n")
    code, out, _ = run_cli(capsys, "unsuspend", "--db", str(db), "--all")
    assert (code, out) == (0, "1 card unsuspended.\n")
    code, out, _ = run_cli(capsys, "unsuspend", "--db", str(db))
    assert out == "No card is suspended.\n"
    with Store.open(db) as store:
        assert store.actions.marks() == {}
        assert len(store.actions.events()) == 6


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        ((), 0, "No card is suspended.\n"),
        (("--all",), 0, "No card is suspended.\n"),
        (("zero-tui/stage-key",), 1, "not suspended: zero-tui/stage-key"),
    ],
)
def test_unsuspend_on_an_empty_file_writes_nothing_into_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], code: int, said: str
) -> None:
    # Issue 36, break 13: listing made an empty file a zerodrill database, tables and all.
    db = tmp_path / "reviews.db"
    db.touch()
    result = run_cli(capsys, "unsuspend", "--db", str(db), *args)
    assert result[0] == code and said in result[1] + result[2]
    assert db.read_bytes() == b""
    assert [p.name for p in tmp_path.iterdir()] == ["reviews.db"]


def test_listing_what_is_suspended_changes_no_byte_of_the_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "reviews.db"
    now = datetime.now().astimezone()
    with Store.open(db) as store:
        store.actions.record(FIRST, Action.SUSPEND, at=now, day=now.date())
    before = db.read_bytes()
    code, out, _ = run_cli(capsys, "unsuspend", "--db", str(db))
    assert code == 0 and out.splitlines()[0] == FIRST
    assert db.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["reviews.db"]


def test_listing_leaves_a_database_of_an_earlier_zerodrill_unmigrated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    from zerodrill.srs.store.migrations import APPLICATION_ID, MIGRATIONS

    db = tmp_path / "reviews.db"
    conn = sqlite3.connect(db)
    conn.executescript(MIGRATIONS[0])
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    before = db.read_bytes()
    assert run_cli(capsys, "unsuspend", "--db", str(db))[:2] == (0, "No card is suspended.\n")
    assert db.read_bytes() == before


def test_the_action_log_is_append_only(store: Store) -> None:
    import sqlite3

    now = datetime.now().astimezone()
    store.actions.record(FIRST, Action.SUSPEND, at=now, day=now.date() - timedelta(days=1))
    conn = store._conn
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM event WHERE action IS NOT NULL")


# -- stats and the deck picker count them ----------------------------------------------------


def test_stats_and_the_deck_picker_count_suspended_and_buried_cards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tui_support import TUI_DECKS, tui_decks

    from zerodrill.srs.review_stats import compute_stats
    from zerodrill.srs.sitting import Session

    db = tmp_path / "reviews.db"
    clock = Clock()
    with Store.open(db) as store:
        session = Session(tui_decks("zero"), store, clock=clock)
        before = session.deck_counts()[-1]
        session.act(Action.SUSPEND)
        session.act(Action.BURY)
        after = session.deck_counts()[-1]
        # Six new cards, two put aside: four left (the cloze card's second deletion, held back
        # while its first was new today, comes forward now that the first is suspended).
        assert (before.new, before.put_aside) == (5, 0)
        assert (after.new, after.put_aside) == (4, 2)
        stats = compute_stats(tui_decks("zero"), store, session.day)
        assert (stats.suspended, stats.buried) == (1, 1)
        # The next day the buried card is back; the suspended one is still aside.
        tomorrow = compute_stats(tui_decks("zero"), store, session.day + timedelta(days=1))
        assert (tomorrow.suspended, tomorrow.buried) == (1, 0)
    code, out, _ = run_cli(capsys, "stats", str(TUI_DECKS / "zero.yaml"), "--db", str(db))
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("put aside"))
    assert "suspended 1" in line and "zerodrill unsuspend" in line


def test_a_suspended_card_is_due_on_no_day_for_the_quit_line_the_summary_and_stats(
    tmp_path: Path,
) -> None:
    # Issue 36, break 3: a suspended card was counted due tomorrow, every day.
    from tui_support import tui_decks

    from zerodrill.cli.drill import saved_line
    from zerodrill.srs.review_stats import compute_stats, render_text
    from zerodrill.srs.sitting import Session

    db = tmp_path / "reviews.db"
    clock = Clock()
    decks = tui_decks("zero")
    with Store.open(db) as store:
        session = Session(decks, store, clock=clock)
        graded = []
        for _ in range(2):
            assert session.current is not None
            graded.append(session.current.key)
            session.grade(4)  # Good on a new card: due tomorrow
        assert session.summary().due_tomorrow == 2
        store.actions.record(graded[0], Action.SUSPEND, at=clock(), day=session.day)
        summary = session.summary()
        assert summary.due_tomorrow == 1
        assert saved_line(summary, db).endswith("; 1 due tomorrow.")
        today = compute_stats(decks, store, session.day)
        assert (today.due_tomorrow, sum(today.forecast)) == (1, 1)
        assert "due tomorrow       1" in render_text(today)
        # Days on, both overdue: only the card not suspended is due, on no day the other.
        later = compute_stats(decks, store, session.day + timedelta(days=5))
        assert (later.due_today, later.due_tomorrow, sum(later.forecast)) == (1, 0, 1)


@pytest.mark.parametrize("action", [Action.BURY, Action.SUSPEND])
def test_a_new_card_put_aside_gives_its_place_in_the_day_to_the_next(
    store: Store, action: Action
) -> None:
    # Issue 36, break 5: burying or suspending a new card used up a new-card slot for the
    # sitting, while the deck picker (rightly) counted the next new card in.
    from tui_support import tui_decks

    from zerodrill.srs.sitting import Session

    session = Session(tui_decks("zero"), store, clock=Clock(), new_limit=2)
    assert session.remaining().new == 2
    assert session.current is not None
    aside = session.current.key
    session.act(action)
    assert session.remaining().new == 2 == session.deck_counts()[-1].new
    # Undone, the card is back first and the day's two new cards are two again.
    session.undo()
    assert session.current is not None and session.current.key == aside
    assert session.remaining().new == 2
    session.act(action)
    graded = []
    while session.current is not None:
        graded.append(session.current.key)
        session.grade(4)
    assert len(graded) == 2 and aside not in graded
