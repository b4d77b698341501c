"""The day's cards as the drill shows them: why nothing is due, the daily limit on new cards
over every deck, failed cards coming back soon, and the counts every screen agrees on."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from srs_support import deck
from textual.widgets import OptionList
from tui_support import START, Clock, make_app, run_async, shown, tui_decks

from zerodrill.srs.days import study_day
from zerodrill.srs.queue import items_of
from zerodrill.srs.review_stats import compute_stats
from zerodrill.srs.sitting import record_grade
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import create_app
from zerodrill.tui.screens.deck_picker import DeckPickerScreen
from zerodrill.tui.screens.drill_screen import DrillScreen
from zerodrill.tui.screens.nothing_due import NothingDueScreen
from zerodrill.tui.screens.stats_screen import StatsScreen
from zerodrill.tui.screens.summary import SummaryScreen
from zerodrill.tui.widgets.card_view import CardView
from zerodrill.tui.widgets.session_header import SessionHeader

SIZE = (80, 24)
TODAY = study_day(START)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "reviews.db") as s:
        yield s


def body(app) -> str:  # type: ignore[no-untyped-def]
    assert isinstance(app.screen, NothingDueScreen)
    return str(app.screen.query_one("#nothing-due-body").render())


def current_key(app) -> str:  # type: ignore[no-untyped-def]
    key: str = app.screen.query_one(CardView).item.key
    return key


def introduce(store: Store, *keys: str) -> None:
    for key in keys:
        record_grade(store, key, 5, day=TODAY, at=START)


# -- nothing due: every case says what is true ---------------------------------------------------


@run_async
async def test_no_cards_at_all_says_so_and_promises_nothing(store: Store) -> None:
    app = create_app([deck("empty")], store, clock=Clock())
    async with app.run_test(size=SIZE):
        text = body(app)
        assert "There are no cards in these decks." in text
        assert "come back" not in text and "due" not in text


@run_async
async def test_the_daily_limit_is_named_with_the_count_waiting_and_the_way_round_it(
    store: Store,
) -> None:
    introduce(store, "zero-tui/stage-key#c1", "zero-tui/stage-2-shards")
    app = make_app(store, "zero", new_limit=2)
    async with app.run_test(size=SIZE):
        text = body(app)
        assert "Today's 2 new cards are done: that is the daily limit" in text
        assert "4 new cards still waiting" in text
        assert "up to 2 more come tomorrow at 04:00" in text
        assert "zerodrill drill --new 6" in text
        assert "The next review is due tomorrow at 04:00" in text


@run_async
async def test_new_cards_turned_off_say_how_many_wait_and_how_to_get_them(store: Store) -> None:
    introduce(store, "zero-tui/stage-2-shards")
    app = make_app(store, "zero", new_limit=0)
    async with app.run_test(size=SIZE):
        text = body(app)
        assert "New cards are off for this sitting (--new 0); 5 new cards waiting" in text
        assert "zerodrill drill --new N" in text
        assert "no cards" not in text


@run_async
async def test_all_known_and_done_says_when_the_next_review_is(store: Store) -> None:
    for item in items_of(tui_decks("zero")):
        for back in (1, 0):  # 1 day, then 6 days: due on Sunday 17 May
            record_grade(store, item.key, 5, day=TODAY - timedelta(days=back), at=START)
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE):
        text = body(app)
        assert "new card" not in text
        assert "The next review is due Sun 17 May at 04:00 (in 6 days)" in text
        assert "come back then" in text


# -- the daily limit on new cards is one over every deck -----------------------------------------


@run_async
async def test_picking_a_deck_never_gives_more_new_cards_than_the_limit(store: Store) -> None:
    introduce(store, "comm-tui/all-gather-bytes")  # one new card of the other deck, today
    app = make_app(store, new_limit=3)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("d")
        assert isinstance(app.screen, DeckPickerScreen)
        rows = {c.deck_id: c.new for c in app.screen.counts}
        # 3 a day, 1 already introduced: 2 left, wherever they come from (comm-tui has 1).
        assert rows == {None: 2, "zero-tui": 2, "comm-tui": 1}
        options = app.screen.query_one(OptionList)
        zero_row = next(
            n
            for n in range(options.option_count)
            if options.get_option_at_index(n).id == "zero-tui"
        )
        options.highlighted = zero_row
        await pilot.press("enter")
        assert app.session.remaining().new == 2  # what the picker said
        for _ in range(2):
            await pilot.press("enter", "5")
        assert isinstance(app.screen, SummaryScreen)


def test_the_summary_counts_every_deck_the_drill_started_with(store: Store) -> None:
    from zerodrill.srs.sitting import Session

    decks = tui_decks()
    clock = Clock()
    session = Session(decks, store, clock=clock)
    session.select_deck("comm-tui")
    session.grade(1)  # a fail in comm-tui: due tomorrow
    session.select_deck("zero-tui")
    stats = compute_stats(decks, store, TODAY)
    summary = session.summary()
    assert stats.due_tomorrow == 1
    assert summary.due_tomorrow == stats.due_today - stats.again + stats.due_tomorrow == 1


# -- a failed card comes back as a learning step -------------------------------------------------


@run_async
async def test_a_failed_card_comes_back_after_three_cards(store: Store) -> None:
    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        first = current_key(app)
        await pilot.press("enter", "1")
        shown_keys = []
        for _ in range(3):
            shown_keys.append(current_key(app))
            await pilot.press("enter", "5")
        assert first not in shown_keys
        assert current_key(app) == first  # before the last new card
        assert app.session.remaining().new == 1


def test_a_failed_card_comes_back_after_ten_minutes_in_a_new_sitting(store: Store) -> None:
    from zerodrill.srs.sitting import Session

    decks = tui_decks("zero")
    clock = Clock()
    first = Session(decks, store, clock=clock)
    failed = first.current
    assert failed is not None
    first.grade(0)
    clock.advance(minutes=9)
    assert Session(decks, store, clock=clock).current != failed  # not yet: new cards first
    clock.advance(minutes=1)
    again = Session(decks, store, clock=clock)
    assert again.current == failed and again.is_repeat


# -- what is due today: header, stats and picker agree -------------------------------------------


@run_async
async def test_header_stats_and_picker_agree_on_what_is_due_today(store: Store) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter", "1")  # a fail, waiting to come back
        assert isinstance(app.screen, DrillScreen)
        header = shown(app.screen.query_one(SessionHeader))
        assert "1 again · 0 due" in header
        await pilot.press("s")
        assert isinstance(app.screen, StatsScreen)
        assert app.screen.stats.due_today == 1 and app.screen.stats.again == 1
        totals = str(app.screen.query_one("#totals").render())
        assert "1 due today" in totals
        # Issue 24: a review of a new card is a review; the retention is over known cards
        # only, and the dialog says so as the CLI does (it said "no reviews in 30 days").
        assert "retention (no reviews of known cards in 30 days)" in totals
        await pilot.press("escape", "d")
        assert isinstance(app.screen, DeckPickerScreen)
        assert app.screen.counts[0].due == 1  # All decks


@run_async
async def test_an_empty_forecast_says_nothing_is_due_instead_of_an_empty_chart(
    store: Store,
) -> None:
    from zerodrill.tui.widgets.forecast_chart import ForecastChart

    app = make_app(store, "zero", new_limit=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s")
        assert isinstance(app.screen, StatsScreen)
        labels = " ".join(str(label.render()) for label in app.screen.query(".chart-title"))
        assert "Nothing due in the next 30 days" in labels
        assert not app.screen.query(ForecastChart)
        chart = ForecastChart([0] * 30)
        assert all(
            not line.strip().startswith(("0", "1")) for line in str(chart.render()).split("\n")
        )


@run_async
async def test_the_help_says_when_a_failed_card_comes_back(store: Store) -> None:
    from textual.widgets import Static

    app = make_app(store, "zero")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        text = " ".join(" ".join(str(s.render()).split()) for s in app.screen.query(Static))
        assert "after a fail (0-2), once 3 other cards or 10 minutes have passed" in text
