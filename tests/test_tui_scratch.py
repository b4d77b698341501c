"""Trying a deck without touching one's progress (issue 24, point 3): a deck that is neither
bundled nor in the personal database, or ``--scratch``, is drilled in a throwaway database with
no daily limit, and the screen says so; ``--personal`` and ``--db`` keep the grades."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_terminal_faults import plain_deck

from zerodrill.cli import main
from zerodrill.cli.scratch import decks_not_yours
from zerodrill.deck.load import load_paths
from zerodrill.paths import bundled_decks_dir
from zerodrill.srs.days import local_now, study_day
from zerodrill.srs.sitting import record_grade
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import ZeroDrillApp
from zerodrill.tui.widgets.session_header import SessionHeader


@pytest.fixture
def personal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    db = tmp_path / "personal.db"
    monkeypatch.setenv("ZERODRILL_DB", str(db))
    return db


class Seen(list[str]):
    """What each drill's header said; and ``notices``, what each said at the start."""

    notices: list[str | None]


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Iterator[Seen]:
    """Runs the drill app under Pilot in place of the terminal: reveal and grade one card,
    then quit; what the header said is kept."""
    headers = Seen()
    headers.notices = []

    def run(self: ZeroDrillApp) -> object:
        async def go() -> object:
            async with self.run_test(size=(100, 24)) as pilot:
                headers.append(str(self.screen.query_one(SessionHeader).render()))
                headers.notices.append(self.notice)
                await pilot.press("enter", "4", "q")
            return self.return_value

        return asyncio.run(go())

    monkeypatch.setattr(ZeroDrillApp, "run", run)
    yield headers


def drill(*args: str) -> int:
    try:
        main(["drill", *args])
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def grades_in(db: Path) -> list[str]:
    if not db.exists():
        return []
    with Store.open(db, create=False) as store:
        return [r.key for r in store.log.entries()]


def test_a_deck_new_to_the_database_is_tried_in_scratch_with_no_daily_limit(
    tmp_path: Path, personal: Path, seen: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    deck = plain_deck(tmp_path / "faults.yaml", 25)
    assert drill(str(deck)) == 0
    (header,) = seen
    # Every one of the 25 cards is new today, past the daily limit of 20.
    assert header.startswith("SCRATCH Terminal faults") and "25 new" in header
    out = capsys.readouterr().out
    assert out == "1 grade given in a scratch sitting, now dropped; your progress is untouched.\n"
    assert grades_in(personal) == []


def test_personal_keeps_the_grades_and_then_the_deck_is_the_learners(
    tmp_path: Path, personal: Path, seen: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    deck = plain_deck(tmp_path / "faults.yaml", 25)
    assert drill(str(deck), "--personal") == 0
    assert "SCRATCH" not in seen[0] and "20 new" in seen[0]
    assert grades_in(personal) == ["faults/q01"]
    assert "saved to" in capsys.readouterr().out
    # Now in the database: the next drill of it is a real one without being told.
    assert drill(str(deck)) == 0
    assert "SCRATCH" not in seen[1]
    assert len(grades_in(personal)) == 2


def test_scratch_is_asked_for_on_the_bundled_decks_and_a_db_named_is_always_used(
    tmp_path: Path, personal: Path, seen: list[str]
) -> None:
    assert drill("--scratch") == 0
    assert seen[0].startswith("SCRATCH ")
    assert grades_in(personal) == []
    assert drill() == 0  # the bundled decks are the learner's
    assert "SCRATCH" not in seen[1] and len(grades_in(personal)) == 1
    other = tmp_path / "other.db"
    deck = plain_deck(tmp_path / "faults.yaml", 3)
    assert drill(str(deck), "--db", str(other)) == 0
    assert "SCRATCH" not in seen[2] and grades_in(other) == ["faults/q01"]


def test_which_decks_are_not_the_learners(tmp_path: Path) -> None:
    deck = plain_deck(tmp_path / "faults.yaml", 2)
    decks = load_paths([deck, bundled_decks_dir()]).decks
    db = tmp_path / "personal.db"
    assert decks_not_yours(decks, db) == ["faults"]  # no database yet: only the bundled
    now = local_now()
    with Store.open(db) as store:
        record_grade(store, "faults/q02", 4, day=study_day(now), at=now)
    assert decks_not_yours(decks, db) == []


def test_the_bundled_deck_from_a_checkout_is_the_learners(tmp_path: Path) -> None:
    # `zerodrill drill decks/` in a clone of the repository: the same deck id as the bundled
    # one, at another path; the learner's own, so its grades are kept from the first.
    copy = tmp_path / "checkout" / "deepspeed-zero.yaml"
    copy.parent.mkdir()
    copy.write_bytes((bundled_decks_dir() / "deepspeed-zero.yaml").read_bytes())
    decks = load_paths([copy, plain_deck(tmp_path / "faults.yaml", 2)]).decks
    assert decks_not_yours(decks, tmp_path / "personal.db") == ["faults"]


def fresh_deck(path: Path) -> Path:
    """A deck of two cards, new to every database: id ``fresh``."""
    text = plain_deck(path, 2).read_text()
    path.write_text(text.replace("deck: faults", "deck: fresh").replace("Terminal", "Fresh"))
    return path


def test_one_new_deck_among_the_learners_leaves_the_sitting_theirs(
    tmp_path: Path, personal: Path, seen: Seen, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 36, break 2: one new deck among the paths made the whole sitting a scratch one,
    # and the learner's grades on the bundled deck were dropped at the end.
    fresh = fresh_deck(tmp_path / "fresh.yaml")
    assert drill(str(bundled_decks_dir()), str(fresh)) == 0
    assert not seen[0].startswith("SCRATCH")
    graded = grades_in(personal)
    assert len(graded) == 1 and graded[0].startswith("deepspeed-zero/")
    assert "saved to" in capsys.readouterr().out
    # The new deck is left out, and the notice says how to drill it.
    notice = seen.notices[0] or ""
    assert "Left out: fresh (not in your database yet)" in notice
    assert "--deck fresh tries it in a scratch sitting" in notice
    # --deck naming the learner's deck: only its standing counts.
    assert drill(str(bundled_decks_dir()), str(fresh), "--deck", "deepspeed-zero") == 0
    assert not seen[1].startswith("SCRATCH") and len(grades_in(personal)) == 2
    # --deck naming the new one: tried in scratch, as ever.
    assert drill(str(bundled_decks_dir()), str(fresh), "--deck", "fresh") == 0
    assert seen[2].startswith("SCRATCH Fresh faults")
    assert len(grades_in(personal)) == 2
    assert "now dropped" in capsys.readouterr().out
