"""The cases the Anki-sync fuzz (tests/test_anki_fuzz.py) found, each reduced to a few
scripted steps: terminals on ``anki sync``, and a phone (a second Anki client) where one
is needed, against a collection file or Anki's real sync server (tests/anki_sync_support.py).
"""

from __future__ import annotations

from contextlib import closing
from datetime import datetime, timedelta
from pathlib import Path

import anki.collection  # noqa: F401  (Anki's modules import in this order only)
import pytest
from anki.collection import Collection
from anki_sync_support import Phone
from cli_support import run_cli

from zerodrill.srs.card_actions import Action, CardMarks
from zerodrill.srs.days import study_day
from zerodrill.srs.settings import save_scheduler_name
from zerodrill.srs.store import Store

DECK_YAML = """\
deck: case-deck
title: Case deck
description: Cards of the fuzz's cases.
retired: []
cards:
  - id: one
    kind: basic
    front: What does ZeRO stage 1 partition?
    back: Optimizer states.
  - id: two
    kind: basic
    front: What does ZeRO stage 2 partition?
    back: Optimizer states and gradients.
"""
DECK_ID = "case-deck"
ONE, TWO = f"{DECK_ID}/one", f"{DECK_ID}/two"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _private_review_db: Path) -> Path:
    monkeypatch.setenv("ZERODRILL_CONFIG_DIR", str(tmp_path / "config"))
    deck = tmp_path / "decks" / "case.yaml"
    deck.parent.mkdir()
    deck.write_text(DECK_YAML)
    return tmp_path


def terminal(home: Path, name: str) -> Path:
    db = home / name / "reviews.db"
    db.parent.mkdir(exist_ok=True)
    return db


def yesterday_noon() -> datetime:
    day = study_day(datetime.now().astimezone()) - timedelta(days=1)
    return datetime.combine(day, datetime.min.time()).replace(hour=12).astimezone()


def grade(db: Path, key: str, quality: int, at: datetime) -> None:
    with Store.open(db) as store:
        store.log.grade(key, quality, day=study_day(at), at=at)


def desktop(home: Path) -> Path:
    path = home / "desktop" / "collection.anki2"
    path.parent.mkdir()
    Collection(str(path)).close()
    return path


def sync_with(capsys: pytest.CaptureFixture[str], home: Path, db: Path, path: Path) -> str:
    code, out, err = run_cli(
        capsys, "anki", "sync", str(home / "decks"), "--db", str(db), "--collection", str(path)
    )
    assert code == 0, err
    return out


def answers_in_anki(path: Path, card_id: str) -> int:
    with closing(Collection(str(path))) as col:
        cid = Phone(col, None).card_of(DECK_ID, card_id)  # type: ignore[arg-type]
        return int(col.db.scalar("SELECT count() FROM revlog WHERE cid = ? AND type < 4", cid))


def test_a_cards_two_answers_a_second_apart_both_reach_anki_when_another_card_took_the_first_second(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Fuzz seeds 9 and 11: two terminals graded one card a second apart, the later answer
    reached Anki first, and another card was graded in the earlier one's second. That card's
    row took the only marked revlog id of the second, and the earlier answer found none free
    before the later one's: it never reached Anki (its schedule did), and the phone's review
    log stayed one answer short."""
    path = desktop(home)
    first, second = terminal(home, "T1"), terminal(home, "T2")
    noon = yesterday_noon()
    grade(first, ONE, 4, noon)
    grade(first, TWO, 5, noon)
    grade(second, TWO, 3, noon + timedelta(seconds=1))
    for db in (second, first, second, first):
        sync_with(capsys, home, db, path)
    assert answers_in_anki(path, "one") == 1
    assert answers_in_anki(path, "two") == 2
    # Each answer found in Anki at the next sync: nothing moves.
    out = sync_with(capsys, home, second, path)
    assert "zerodrill → Anki: 0 reviews, 0 cards rescheduled" in out


def logged(db: Path) -> list[object]:
    """The store's grades, whole (an answer given in Anki with the decision read there)."""
    with Store.open(db) as store:
        return sorted(store.log.events(), key=lambda e: e.identity)


def flag_in_anki(path: Path, card_id: str, flag: int | None = None) -> int:
    """The card's flag in the collection; set first to ``flag`` if given, as the phone does."""
    from anki.cards import CardId

    with closing(Collection(str(path))) as col:
        cid = Phone(col, None).card_of(DECK_ID, card_id)  # type: ignore[arg-type]
        if flag is not None:
            col.set_user_flag_for_cards(flag, [CardId(cid)])
        return int(col.db.scalar("SELECT flags FROM cards WHERE id = ?", cid)) & 7


def flag_in_drill(db: Path, key: str) -> int:
    with Store.open(db) as store:
        return store.actions.marks().get(key, CardMarks()).flag


def test_a_flag_read_back_from_the_phone_is_not_undone_by_a_terminal_that_lacked_it(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Fuzz seed 9 under FSRS (and the offline phone's seed 2): a terminal read the phone's
    flag back as a card action, but sent it to the other machines only at its next run. A
    terminal syncing meanwhile took the first one's older flag and wrote it into Anki over
    the phone's, which the first then read as another change made there: the phone's flag
    lost, and with a third machine the flag flipped at every sync."""
    path = desktop(home)
    first, second = terminal(home, "T1"), terminal(home, "T2")
    at = yesterday_noon()
    with Store.open(first) as store:
        store.actions.record(ONE, Action.FLAG, at=at, day=study_day(at), flag=1)
    sync_with(capsys, home, first, path)
    assert flag_in_anki(path, "one") == 1
    flag_in_anki(path, "one", 4)  # the phone, later
    sync_with(capsys, home, first, path)  # reads the phone's flag back
    sync_with(capsys, home, second, path)  # had neither flag yet
    assert flag_in_anki(path, "one") == 4
    for db in (first, second, first):
        sync_with(capsys, home, db, path)
    assert flag_in_anki(path, "one") == flag_in_drill(first, ONE) == flag_in_drill(second, ONE) == 4


def test_under_fsrs_two_terminals_keep_one_reading_of_the_phones_answer(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Fuzz seed 11 under FSRS: the phone's answer carries its memory state in the card row
    only while it is the card's latest. The first terminal read it so, then wrote its own
    later answer; its reading reached the media only at its next run, so the second read the
    phone's answer without it, and each kept its own: the two derived the card differently
    and rescheduled it, one after the other, at every sync."""
    from anki.scheduler.v3 import CardAnswer

    path = desktop(home)
    with closing(Collection(str(path))) as col:
        col.set_config("fsrs", True)
    first, second = terminal(home, "T1"), terminal(home, "T2")
    for db in (first, second):
        with Store.open(db) as store:
            save_scheduler_name(store, "fsrs")
        sync_with(capsys, home, db, path)
    with closing(Collection(str(path))) as col:
        phone = Phone(col, None)  # type: ignore[arg-type]
        phone.answer(phone.card_of(DECK_ID, "one"), CardAnswer.EASY)
    grade(first, ONE, 4, datetime.now().astimezone() + timedelta(seconds=2))
    for db in (first, second, first, second):
        sync_with(capsys, home, db, path)
    # One reading of the phone's answer (its memory state) on both.
    assert logged(first) == logged(second)
    for db in (first, second):
        out = sync_with(capsys, home, db, path)
        assert "zerodrill → Anki: 0 reviews, 0 cards rescheduled" in out


def test_a_phones_answer_of_an_earlier_day_whose_row_was_replaced_is_written_as_learning(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Offline fuzz, seed 10: the phone answered a new card Good two days ago, offline, while
    a terminal suspended it; Anki's sync kept the terminal's newer row (new) and the phone's
    answer in the review log. That answer is Anki's decision, a learning step, and the card
    is to be written as it left it: learning (overdue, so due now), as the phone shows it when
    the row survives and as the drill has it; it was written as a review, the step's day past."""
    from anki.scheduler.v3 import CardAnswer

    path = desktop(home)
    db = terminal(home, "T1")
    sync_with(capsys, home, db, path)
    days = 2
    with closing(Collection(str(path))) as col:
        phone = Phone(col, None)  # type: ignore[arg-type]
        cid = phone.card_of(DECK_ID, "one")
        phone.answer(cid, CardAnswer.GOOD)
        # Two days back, as a phone whose answer that was; then the terminal's newer row.
        back = days * 86_400
        col.db.execute("UPDATE revlog SET id = id - ? WHERE cid = ?", back * 1000, cid)
        col.db.execute(
            "UPDATE cards SET type = 0, queue = -1, due = 1, ivl = 0, left = 0, reps = 0, "
            "mod = mod + 1, usn = -1 WHERE id = ?",
            cid,
        )
    sync_with(capsys, home, db, path)
    with Store.open(db) as store:
        assert store.schedule.state(ONE).phase.value == "learning"
    with closing(Collection(str(path))) as col:
        card_type, due = col.db.first("SELECT type, due FROM cards WHERE id = ?", cid)
    assert card_type == 1  # learning, as the phone's answer left it
    assert due < datetime.now().timestamp()  # its step long past: due now
    assert "0 cards rescheduled" in sync_with(capsys, home, db, path)
