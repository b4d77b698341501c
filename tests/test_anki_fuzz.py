"""A fuzz of issue 35's peers: terminals on ``anki sync`` alone, a folder-only machine, one
terminal on both, and a phone (a second Anki client), acting and syncing in a seeded random
order over several days against Anki's real sync server (tests/anki_sync_support.py).

After a last round of syncs until nothing moves, every machine and the phone show each card
with the same state, due day, flag and suspension, and so does a fresh machine that takes
every event from the folder and the collection; each store's schedule is its own replay.

Time: the run's days are the last few study days, ending today. Anki's backend reads the
real clock, so a phone's action on an earlier day is made on its card moved that many whole
days ahead (due day, learning time, last review time, review log) and moved back after, as
if the phone's clock had been there; a zerodrill machine logs at that day's time; syncs run
now. A failing case names its seed: ``ZERODRILL_FUZZ_SEEDS=N`` runs seeds 0..N-1 instead of
the fixed few.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import date, datetime, timedelta
from pathlib import Path

import anki.collection  # noqa: F401  (Anki's modules import in this order only)
import anki_sync_support
import pytest
from anki.cards import CardId
from anki.scheduler.v3 import CardAnswer
from anki_sync_support import Phone, SyncServer
from cli_support import run_cli

from zerodrill.srs.anki_import import ORIGIN as ANKI_ORIGIN
from zerodrill.srs.card_actions import Action, CardMarks
from zerodrill.srs.days import study_day
from zerodrill.srs.settings import save_scheduler_name
from zerodrill.srs.store import Store
from zerodrill.srs.store.actions import NothingToUndo
from zerodrill.srs.store.file import NotInEffect, UndoConflict

DECK_YAML = """\
deck: fuzz-deck
title: Fuzz deck
description: Cards the fuzz drills everywhere.
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
  - id: three
    kind: basic
    front: What does ZeRO stage 3 partition?
    back: Parameters too.
  - id: key
    kind: cloze
    text: "The stage is set by {{c1::zero_optimization}}.{{c2::stage}}."
"""
DECK_ID = "fuzz-deck"
CARDS = {  # key: (card id, Anki's template ordinal)
    f"{DECK_ID}/one": ("one", 0),
    f"{DECK_ID}/two": ("two", 0),
    f"{DECK_ID}/three": ("three", 0),
    f"{DECK_ID}/key#c1": ("key", 0),
    f"{DECK_ID}/key#c2": ("key", 1),
}
KEYS = sorted(CARDS)

#: The fixed seeds CI runs (each under both schedulers); ZERODRILL_FUZZ_SEEDS=N runs 0..N-1.
SEEDS = (
    list(range(int(os.environ["ZERODRILL_FUZZ_SEEDS"])))
    if os.environ.get("ZERODRILL_FUZZ_SEEDS")
    else [1, 2, 3]
)
DAYS, STEPS_PER_DAY = 4, 10

#: What the phone does, in Anki: answers with each button, flags, suspends and unsuspends,
#: sets a due date (0-7 days) and forgets.
PHONE_OPS = ("again", "hard", "good", "easy", "flag", "suspend", "unsuspend", "set-due", "forget")
#: Whether the phone syncs before and after each of its actions; False: it acts offline too,
#: on whatever copy it last synced (a card it changes may have changed on a terminal since).
PHONE_ONLINE = True
#: What a zerodrill machine does, in the drill.
DRILL_OPS = ("grade", "grade", "grade", "bury", "flag", "suspend", "unsuspend", "undo")
ANKI_ONLY, BOTH, FOLDER_ONLY, PHONE = ("T1", "T2"), "H", "F", "P"
RATINGS = {
    "again": CardAnswer.AGAIN,
    "hard": CardAnswer.HARD,
    "good": CardAnswer.GOOD,
    "easy": CardAnswer.EASY,
}
#: The states compared: new, learning (relearning too: a card first graded in a terminal and
#: then, before Anki had that grade, answered new on the phone is Anki's learning and the
#: drill's relearning, one step either way), review.
_PHASES = {0: "new", 1: "learning", 2: "review", 3: "learning"}

View = tuple[str, date | None, int, bool]  # state, due day, flag, suspended


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SyncServer]:
    # One account per case: more seeds by hand need more accounts.
    anki_sync_support.ACCOUNTS = max(anki_sync_support.ACCOUNTS, 2 * len(SEEDS) + 2)
    running = SyncServer(tmp_path_factory.mktemp("fuzz-sync-base"))
    try:
        yield running
    finally:
        running.stop()


class Clock:
    """The run's time: ``behind`` whole days before now (the time of day is the real one, so
    that Anki's day and zerodrill's agree on both clocks)."""

    def __init__(self, behind: int) -> None:
        self.behind = behind
        self._touched: dict[str, int] = {}

    def now(self) -> datetime:
        return datetime.now().astimezone() - timedelta(days=self.behind)

    def touch(self, key: str) -> datetime:
        """The time for an action on ``key``, a second after the last one on it at least:
        Anki times card changes and zerodrill its rows in Anki to the second, and a person
        does not change one card twice within one."""
        second = int(time.time())
        if self._touched.get(key) == second:
            time.sleep(second + 1.01 - time.time())
        self._touched[key] = int(time.time())
        return self.now()


def _shift_card(
    phone: Phone, cid: int, days: int, back: Mapping[int, int] | None = None
) -> dict[int, int]:
    """The card's times moved ``days`` whole days on (its due day or learning time, its last
    review time, its review log). Not its modification time: Anki's sync keeps the newer of
    two changes of a card by it, and the other machines' syncs run now. ``back``: where the
    move before put each of the card's rows (what this gives), put back exactly; a row new
    since moves by the days."""
    secs = days * 86_400
    db = phone.col.db
    due, card_type, data = db.first("SELECT due, type, data FROM cards WHERE id = ?", cid)
    if due > 1_000_000_000:
        due += secs
    elif card_type != 0:
        due += days
    try:
        memory = json.loads(data) if data else {}
    except ValueError:
        memory = {}
    if isinstance(memory, dict) and isinstance(memory.get("lrt"), int):
        memory["lrt"] += secs
        data = json.dumps(memory, separators=(",", ":"))
    db.execute("UPDATE cards SET due = ?, data = ? WHERE id = ?", due, data, cid)
    # Each row a millisecond on where it would land on another card's: the fuzz's days are
    # the same seconds of the real clock, and zerodrill's rows are timed to the second with
    # one mark, so two cards' rows days apart can be the days' shift apart exactly.
    taken = set(db.list("SELECT id FROM revlog WHERE cid != ?", cid)) | set((back or {}).values())
    moves: dict[int, int] = {}
    for rid in db.list("SELECT id FROM revlog WHERE cid = ? ORDER BY id", cid):
        if back is not None and rid in back:
            moves[rid] = back[rid]
            continue
        to = rid + secs * 1000
        while to in taken:
            to += 1
        taken.add(to)
        moves[rid] = to
    # Through negative ids: rows a day apart would take each other's ids on the way.
    for rid in moves:
        db.execute("UPDATE revlog SET id = ? WHERE id = ?", -rid, rid)
    for rid, to in moves.items():
        db.execute("UPDATE revlog SET id = ? WHERE id = ?", to, -rid)
    return {to: rid for rid, to in moves.items()}


def on_phone(phone: Phone, cid: int, behind: int, act: Callable[[], None]) -> None:
    """``act`` on card ``cid`` as a phone whose clock is ``behind`` days back would."""
    (before,) = phone.col.db.list("SELECT data FROM cards WHERE id = ?", cid)
    moved = _shift_card(phone, cid, behind)
    act()
    _shift_card(phone, cid, -behind, back=moved)
    (after,) = phone.col.db.list("SELECT data FROM cards WHERE id = ?", cid)
    if after != before and before and json.loads(after) == json.loads(before):
        # Untouched by ``act``: Anki's own JSON text back, not this file's rewrite of it.
        phone.col.db.execute("UPDATE cards SET data = ? WHERE id = ?", before, cid)


def phone_cid(phone: Phone, key: str) -> int:
    card_id, ordinal = CARDS[key]
    return phone.card_of(DECK_ID, card_id, ordinal)


def phone_view(phone: Phone) -> dict[str, View]:
    today = study_day(datetime.now().astimezone())
    out = {}
    for key in KEYS:
        card_type, queue, due, flags = phone.col.db.first(
            "SELECT type, queue, due, flags FROM cards WHERE id = ?", phone_cid(phone, key)
        )
        if card_type == 0:
            day = None
        elif due > 1_000_000_000:  # a learning card's time
            day = study_day(datetime.fromtimestamp(due).astimezone())
        else:
            day = today + timedelta(days=due - phone.col.sched.today)
        if day is not None:
            day = max(day, today)  # overdue: due today, as in the drill
        out[key] = (_PHASES[card_type], day, flags & 7, queue == -1)
    return out


def store_view(db: Path) -> dict[str, View]:
    today = study_day(datetime.now().astimezone())
    with Store.open(db) as store:
        marks = store.actions.marks()
        out = {}
        for key in KEYS:
            state = store.schedule.state(key)
            m = marks.get(key, CardMarks())
            phase = "learning" if state.phase.value == "relearning" else state.phase.value
            # The day the card shows next: a card coming back the same day shows at its
            # learning step (past the rollover: the next study day), as Anki's due time does;
            # a step whose day has passed is not owed any more (the drill shows the card on
            # its due day).
            day = state.due
            if state.again_on is not None and state.again_on >= today:
                day = study_day(state.step_due) if state.step_due else state.again_on
            if day is not None:
                day = max(day, today)  # overdue: due today, whichever day it was due
            out[key] = (phase, day, m.flag, m.suspended)
        return out


def own_replay_differs(db: Path) -> dict[str, tuple[object, object]]:
    """Cards whose cached schedule is not what replaying the store's whole log gives."""
    with Store.open(db) as store:
        cached = store.schedule.states(KEYS)
        store.schedule.rederive()
        again = store.schedule.states(KEYS)
    return {k: (cached.get(k), again.get(k)) for k in KEYS if cached.get(k) != again.get(k)}


class Fuzz:
    """One seeded run: the machines, the phone, and the steps taken."""

    def __init__(
        self,
        seed: int,
        scheduler: str,
        home: Path,
        phone: Phone,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        self.rng = random.Random(seed)
        self.seed, self.scheduler, self.home, self.phone, self.capsys = (
            seed,
            scheduler,
            home,
            phone,
            capsys,
        )
        self.folder = home / "shared"
        self.folder.mkdir()
        self.dbs = {
            name: home / name / "reviews.db" for name in (*ANKI_ONLY, BOTH, FOLDER_ONLY, "R")
        }
        for db in self.dbs.values():
            db.parent.mkdir()
            if scheduler == "fsrs":
                with Store.open(db) as store:
                    save_scheduler_name(store, "fsrs")
        self.clock = Clock(DAYS - 1)
        self.steps: list[str] = []
        #: Each machine's own grades and card actions, newest last, for its undo.
        self.done: dict[str, list[tuple[str, object]]] = {n: [] for n in self.dbs}

    # -- syncs ---------------------------------------------------------------------------

    def anki_sync(self, name: str) -> str:
        code, out, err = run_cli(
            self.capsys, "anki", "sync", str(self.home / "decks"), "--db", str(self.dbs[name])
        )
        assert code == 0, self.failure(f"{name}'s anki sync failed: {err}{out}")
        return out

    def folder_sync(self, name: str) -> None:
        code, out, err = run_cli(self.capsys, "sync", str(self.folder), "--db", str(self.dbs[name]))
        assert code == 0, self.failure(f"{name}'s folder sync failed: {err}{out}")

    def sync(self, name: str, how: str) -> None:
        self.steps.append(f"{name} {how}-sync")
        if name == PHONE:
            self.phone.sync()
        elif how == "folder":
            self.folder_sync(name)
        else:
            self.anki_sync(name)

    # -- actions -------------------------------------------------------------------------

    def phone_acts(self) -> None:
        key, op = self.rng.choice(KEYS), self.rng.choice(PHONE_OPS)
        if PHONE_ONLINE:
            self.sync(PHONE, "anki")
        cid = phone_cid(self.phone, key)
        queue = self.phone.col.db.scalar("SELECT queue FROM cards WHERE id = ?", cid)
        if op in RATINGS and queue == -1 or op == "unsuspend" and queue != -1:
            op = "suspend" if queue != -1 else "unsuspend"
        elif op == "suspend" and queue == -1:
            op = "unsuspend"
        flag = self.rng.randint(0, 4) if op == "flag" else 0
        days = self.rng.randint(0, 7) if op == "set-due" else 0
        self.clock.touch(key)
        self.steps.append(f"{PHONE} {op}{flag or days or ''} {key}")
        col = self.phone.col

        def act() -> None:
            if op in RATINGS:
                self.phone.answer(cid, RATINGS[op])
            elif op == "flag":
                col.set_user_flag_for_cards(flag, [CardId(cid)])
            elif op == "set-due":
                col.sched.set_due_date([CardId(cid)], str(days))
            elif op == "forget":
                col.sched.schedule_cards_as_new([CardId(cid)], restore_position=True)
            elif op == "suspend":
                col.sched.suspend_cards([CardId(cid)])
            else:
                col.sched.unsuspend_cards([CardId(cid)])

        on_phone(self.phone, cid, self.clock.behind, act)
        if PHONE_ONLINE:
            self.sync(PHONE, "anki")
        else:
            # Anki's sync keeps the newer of two changes of a card by its time, to the second;
            # two in one second are a tie each side keeps its own of, for good (Anki's own
            # clients too). A person does not change a card offline and have a terminal's
            # sync rewrite it within one second: the next sync starts in the next one.
            time.sleep(1.01 - time.time() % 1)

    def drill_acts(self, name: str) -> None:
        key, op = self.rng.choice(KEYS), self.rng.choice(DRILL_OPS)
        at = self.clock.touch(key)
        day = study_day(at)
        with Store.open(self.dbs[name]) as store:
            suspended = store.actions.marks().get(key, CardMarks()).suspended
            if op in ("grade", "bury") and suspended or op == "unsuspend" and not suspended:
                op = "unsuspend" if suspended else "suspend"
            elif op == "suspend" and suspended:
                op = "unsuspend"
            if op == "grade":
                quality = self.rng.randint(0, 5)
                self.steps.append(f"{name} grade{quality} {key}")
                logged = store.log.grade(key, quality, day=day, at=at)
                self.done[name].append(("grade", logged.event.identity))
            elif op == "undo":
                if not self.done[name]:
                    self.steps.append(f"{name} undo: nothing")
                    return
                kind, identity = self.done[name].pop()
                self.steps.append(f"{name} undo {kind} {identity}")
                try:
                    if kind == "grade":
                        store.log.undo(identity, at=at)  # type: ignore[arg-type]
                    else:
                        store.actions.undo(identity, at=at)  # type: ignore[arg-type]
                except (NotInEffect, UndoConflict, NothingToUndo) as exc:
                    self.steps.append(f"  (refused: {type(exc).__name__})")
            else:
                flag = self.rng.randint(0, 4) if op == "flag" else 0
                self.steps.append(f"{name} {op}{flag or ''} {key}")
                event = store.actions.record(key, Action(op), at=at, day=day, flag=flag)
                self.done[name].append(("action", event.identity))

    def step(self) -> None:
        who = self.rng.choice((*ANKI_ONLY, BOTH, FOLDER_ONLY, PHONE, PHONE))
        if self.rng.random() < 0.4:
            how = "folder" if who == FOLDER_ONLY else "anki"
            if who == BOTH and self.rng.random() < 0.5:
                how = "folder"
            self.sync(who, how)
        elif who == PHONE:
            self.phone_acts()
        else:
            self.drill_acts(who)

    # -- the end ---------------------------------------------------------------------------

    def views(self) -> dict[str, dict[str, View]]:
        out = {name: store_view(db) for name, db in self.dbs.items() if name != "R"}
        out[PHONE] = phone_view(self.phone)
        return out

    def settle(self) -> None:
        """Rounds of syncs until a whole round moves nothing."""
        self.steps.append("-- settling")
        last, moved = None, ""
        for _ in range(6):
            for name, how in (
                (FOLDER_ONLY, "folder"),
                (BOTH, "folder"),
                (BOTH, "anki"),
                *((n, "anki") for n in ANKI_ONLY),
                (PHONE, "anki"),
                (BOTH, "anki"),
                (BOTH, "folder"),
                (FOLDER_ONLY, "folder"),
            ):
                self.sync(name, how)
            now = (self.views(), {n: _identities(db) for n, db in self.dbs.items()})
            if now == last:
                return
            moved = _moved(last, now)
            last = now
        pytest.fail(self.failure(f"the machines do not settle: the last round moved {moved}"))

    def failure(self, what: str, cards: dict[str, dict[str, View]] | None = None) -> str:
        lines = [f"seed {self.seed} under {self.scheduler}: {what}"]
        for key, by_machine in (cards or {}).items():
            lines.append(f"  card {key}:")
            lines += [f"    {name}: {view}" for name, view in by_machine.items()]
        lines.append("steps (replay: the same seed):")
        lines += [f"  {n}. {s}" for n, s in enumerate(self.steps, 1)]
        return "\n".join(lines)

    def run(self) -> None:
        for behind in range(DAYS - 1, -1, -1):
            # A new real second for each day: two days' rows in one second of the real clock
            # would take each other's ids when the phone's card is moved by whole days.
            time.sleep(1.01 - time.time() % 1)
            self.clock.behind = behind
            self.steps.append(f"-- day {study_day(self.clock.now())}")
            for _ in range(STEPS_PER_DAY):
                self.step()
        self.settle()
        # A fresh machine takes every event, from the folder and from the collection.
        self.folder_sync("R")
        self.anki_sync("R")
        for name, db in self.dbs.items():
            replayed = own_replay_differs(db)
            assert not replayed, self.failure(f"{name}'s schedule is not its replay: {replayed}")
        views = self.views()
        views["R"] = store_view(self.dbs["R"])
        _known_phase_bugs(views, self.dbs["R"])
        differ = {
            key: {name: v[key] for name, v in views.items()}
            for key in KEYS
            if len({v[key] for v in views.values()}) > 1
        }
        assert not differ, self.failure("the machines end apart", differ)
        # Settled, a sync moves nothing: no review either way, no card rescheduled.
        for name in (*ANKI_ONLY, BOTH, "R"):
            out = self.anki_sync(name)
            quiet = "Anki → zerodrill: 0 reviews; zerodrill → Anki: 0 reviews, 0 cards resch"
            assert quiet in out, self.failure(f"{name}'s sync after settling moved: {out}")
        # Each grade in effect once in the phone's review log. KNOWN LIMIT (reported on issue
        # 35): a grade undone after it reached Anki keeps its row there (Anki's sync carries
        # no deletion of a review log row), so a withdrawn grade may have one too.
        grades, withdrawn = _grades(self.dbs["R"])
        for key in KEYS:
            rows = self._answers_on_phone(key)
            assert grades[key] <= rows <= grades[key] + withdrawn[key], self.failure(
                f"the phone's review log holds {rows} answers of {key}: {grades[key]} grades "
                f"in effect, {withdrawn[key]} withdrawn"
            )

    def _answers_on_phone(self, key: str) -> int:
        """The card's answers in the phone's review log (Anki's manual rows left out)."""
        cid = phone_cid(self.phone, key)
        return int(
            self.phone.col.db.scalar("SELECT count() FROM revlog WHERE cid = ? AND type < 4", cid)
        )


def _known_phase_bugs(views: dict[str, dict[str, View]], db: Path) -> None:
    """KNOWN BUG (reported on issue 35; sm2.py and fsrs.py derive the phase): a card the
    drill had passed, answered on the phone while Anki still had it new, is on Anki's learning
    step in Anki and a review (on that step) in the drill. The phone's view of such a card is
    taken as the drill's phase, its due day, flag and suspension still compared. KNOWN LIMIT
    too: a failure in the drill synced on a later day (a terminal offline) reaches Anki as a
    review due the day after it, not as learning (both show it due)."""
    with Store.open(db) as store:
        states = store.schedule.states(KEYS)
        last = {}
        for logged in store.log.entries():
            e = logged.event
            if logged.effect is not None and e.undoes is None:
                order = (e.day, e.at, e.origin, e.seq)
                if e.key not in last or order > last[e.key]:
                    last[e.key] = order
    for key, state in states.items():
        seen, ours = views[PHONE][key], views["R"][key]
        by_anki = key in last and last[key][2] == ANKI_ORIGIN
        if seen[1:] != ours[1:] or key not in last:
            continue
        if ours[0] == "learning" and seen[0] == "review" and not by_anki:
            views[PHONE][key] = ours
        if ours[0] == "review" and seen[0] == "learning" and by_anki and state.step_due:
            views[PHONE][key] = ours


def _grades(db: Path) -> tuple[dict[str, int], dict[str, int]]:
    """Each card's grades in effect, and its grades withdrawn by an undo."""
    with Store.open(db) as store:
        entries = store.log.entries()
    undone = {e.event.undoes for e in entries if e.event.undoes is not None}
    grades = [e for e in entries if e.event.undoes is None]
    return (
        {k: sum(1 for e in grades if e.key == k and e.effect is not None) for k in KEYS},
        {k: sum(1 for e in grades if e.key == k and e.event.identity in undone) for k in KEYS},
    )


def _moved(
    before: tuple[dict[str, dict[str, View]], dict[str, list[tuple[str, int]]]] | None,
    after: tuple[dict[str, dict[str, View]], dict[str, list[tuple[str, int]]]],
) -> str:
    """What a round of syncs changed: each machine's card views and events, before -> after."""
    if before is None:
        return "everything (the first round)"
    lines = []
    for name, views in after[0].items():
        for key, view in views.items():
            if before[0][name][key] != view:
                lines.append(f"{name} {key}: {before[0][name][key]} -> {view}")
    for name, ids in after[1].items():
        gained, lost = set(ids) - set(before[1][name]), set(before[1][name]) - set(ids)
        if gained or lost:
            lines.append(f"{name}'s events: +{sorted(gained)} -{sorted(lost)}")
    return "; ".join(lines)


def _identities(db: Path) -> list[tuple[str, int]]:
    with Store.open(db) as store:
        return sorted(
            [e.identity for e in store.log.events()] + [e.identity for e in store.actions.events()]
        )


@pytest.mark.parametrize("scheduler", ["sm2", "fsrs"])
@pytest.mark.parametrize("seed", SEEDS)
def test_every_machine_and_the_phone_end_alike(
    seed: int,
    scheduler: str,
    tmp_path: Path,
    server: SyncServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = tmp_path
    monkeypatch.setenv("ZERODRILL_CONFIG_DIR", str(home / "config"))
    deck = home / "decks" / "fuzz.yaml"
    deck.parent.mkdir()
    deck.write_text(DECK_YAML)
    account = server.account()
    phone = Phone.on(home / "phone", server, account)
    try:
        if scheduler == "fsrs":
            phone.col.set_config("fsrs", True)
        phone.add_own_note("a question of my own")
        assert phone.sync() == 4  # a full upload: the server is empty
        monkeypatch.setenv("ZERODRILL_ANKI_USER", account)
        monkeypatch.setenv("ZERODRILL_ANKI_PASSWORD", anki_sync_support.PASSWORD)
        code, _, err = run_cli(capsys, "anki", "login", "--server", server.url)
        assert code == 0, err
        fuzz = Fuzz(seed, scheduler, home, phone, capsys)
        for name in (*ANKI_ONLY, BOTH):
            fuzz.anki_sync(name)
        phone.sync()
        fuzz.run()
    finally:
        phone.close()
