"""``zerodrill anki sync``: a two-way sync of the bundled deck with 10,000 reviews waiting on
each side.

Run by hand: ``python tests/bench/bench_anki_sync.py [REVIEWS] [--scheduler sm2|fsrs]
[--rounds N]`` (or through ``run.py``; FSRS: on in the phone's preset and the learner's
scheduler).
Anki's own sync server runs on 127.0.0.1 (tests/anki_sync_support.py); the terminal has synced
the bundled deck's notes once and the phone has them. Then each side gets REVIEWS answers, on
past days: the terminal's as events from another machine (as the shared folder brings them),
the phone's as revlog rows, sent to the server by the phone's own sync. Timed, once each:

- ``zerodrill anki sync``: both syncs with the server, the notes brought up to date, the
  phone's answers read and added to the store, the terminal's written into the revlog, every
  card rescheduled;
- the floor: Anki's own syncs of the same answers, the phone sending its REVIEWS and then
  receiving the terminal's (what the sync costs without zerodrill's work);
- a second ``zerodrill anki sync`` with nothing new.

Afterwards the phone and the terminal must agree on every due date.

Each of ``rounds`` rounds does all of it again from nothing (a new server, phone and
terminal), and the figures are the rounds' medians, the ratio the median of each round's own
(zerodrill's sync against the floor measured beside it, in the same minute): on a machine
whose speed moves by a third from one minute to the next, one round's ratio says little.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
for _p in (str(HERE.parents[1]), str(HERE.parent)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import anki.collection  # noqa: E402, F401  (Anki's modules import in this order only)
from anki_sync_support import Phone, SyncServer  # noqa: E402

from zerodrill.anki_sync import login  # noqa: E402
from zerodrill.anki_sync import run as anki_sync  # noqa: E402
from zerodrill.anki_sync.backend import insert_rows  # noqa: E402
from zerodrill.cli.common import load_decks, usable_decks  # noqa: E402
from zerodrill.cli.import_progress import note_keys  # noqa: E402
from zerodrill.srs.days import study_day  # noqa: E402
from zerodrill.srs.events import ReviewEvent  # noqa: E402
from zerodrill.srs.grades import Grade  # noqa: E402
from zerodrill.srs.settings import save_scheduler_name  # noqa: E402
from zerodrill.srs.store import Store  # noqa: E402


def _spread(keys: list[str], reviews: int, rng: random.Random) -> list[tuple[str, int]]:
    """(key, days ago) for ``reviews`` answers: at most one per card and day."""
    days = reviews // len(keys) + 1
    pairs = [(key, d) for key in keys for d in range(1, days + 1)]
    return sorted(rng.sample(pairs, reviews), key=lambda p: -p[1])


def _terminal_events(keys: list[str], reviews: int, rng: random.Random) -> list[ReviewEvent]:
    now = datetime.now(UTC)
    out = []
    for seq, (key, ago) in enumerate(_spread(keys, reviews, rng), start=1):
        at = (now - timedelta(days=ago, hours=rng.randint(0, 3))).astimezone()
        grade = Grade(rng.choice([1, 3, 4, 4, 5, 5]))
        out.append(ReviewEvent("other-machine", seq, key, at, study_day(at), grade, None, 8000))
    return out


def _phone_answers(phone: Phone, cids: dict[str, int], reviews: int, rng: random.Random) -> None:
    now_ms = int(time.time() * 1000)
    rows = []
    for key, ago in _spread(list(cids), reviews, rng):
        # Any millisecond of five hours of the day: a day's answers (one a card) seldom share
        # one, where whole hours and a second's milliseconds let 253 of the bundled deck's
        # 10,000 fall on another's id.
        rid = now_ms - ago * 86_400_000 - rng.randrange(4 * 3_600_000, 9 * 3_600_000)
        rows.append((rid, cids[key], -1, rng.choice([1, 3, 3, 4]), 3, 1, 2500, 6000, 1))
    # Ids are random: one that came up twice is dropped (then fewer than REVIEWS arrive).
    unique = list({row[0]: row for row in rows}.values())
    insert_rows(phone.col, "INSERT INTO revlog {values}", unique)
    assert phone.col.db is not None
    phone.col.db.execute("UPDATE col SET mod = ?", now_ms)


def run(reviews: int = 10_000, scheduler: str = "sm2", rounds: int = 1) -> dict[str, Any]:
    """The rounds' medians (and each round's figures, under ``rounds``)."""
    each = [_round(reviews, scheduler) for _ in range(rounds)]
    out: dict[str, Any] = dict(each[-1])
    for key in ("sync_ms", "anki_floor_ms", "phone_up_ms", "phone_down_ms", "ratio", "again_ms"):
        out[key] = statistics.median(r[key] for r in each)
    out["due_mismatches"] = max(r["due_mismatches"] for r in each)
    out["ratio_min"] = min(r["ratio"] for r in each)
    out["ratio_max"] = max(r["ratio"] for r in each)
    out["rounds"] = each
    return out


def _round(reviews: int, scheduler: str) -> dict[str, float]:
    rng = random.Random(2026)
    with tempfile.TemporaryDirectory(prefix="zerodrill-bench-anki-") as tmp:
        root = Path(tmp)
        os.environ["ZERODRILL_CACHE_DIR"] = str(root / "deck-cache")
        decks = usable_decks(load_decks([]))
        notes = note_keys(decks)
        keys = [key for ords in notes.values() for key in ords.values()]
        (root / "base").mkdir()
        server = SyncServer(root / "base")
        try:
            user = server.account()
            phone = Phone.on(root / "phone", server, user)
            try:
                if scheduler == "fsrs":
                    phone.col.set_config("fsrs", True)
                return _measure(
                    root, server, user, phone, decks, notes, keys, reviews, rng, scheduler
                )
            finally:
                phone.close()
        finally:
            server.stop()


def _measure(root, server, user, phone, decks, notes, keys, reviews, rng, scheduler):  # type: ignore[no-untyped-def]
    phone.add_own_note("the phone's own note")
    phone.sync()
    col = Phone.on(root / "login", server, user)
    key = login.HostKey(server.url, col.auth.hkey)
    col.close()
    folder = root / "terminal" / "anki"
    folder.mkdir(parents=True)
    target = anki_sync.Target(anki_sync.cache_for(folder, key), key)
    manifest = folder / "decks.manifest.json"
    if scheduler != "sm2":
        # Saved, then opened again: a store schedules with the learner's choice as it opens.
        with Store.open(root / "terminal" / "reviews.db") as store:
            save_scheduler_name(store, scheduler)
    with Store.open(root / "terminal" / "reviews.db") as store:
        anki_sync.sync(target, decks, notes, store, manifest, full_upload=True)
        phone.sync()
        # One read of them all: a lookup a card would scan the notes for each where the
        # phone's statistics, as old as its collection, call the table small.
        by_note = {
            (guid, ord_): cid
            for guid, ord_, cid in phone.col.db.all(  # type: ignore[union-attr]
                "SELECT n.guid, c.ord, c.id FROM cards c JOIN notes n ON n.id = c.nid"
            )
        }
        cids = {
            item: by_note[guid, ord_] for guid, ords in notes.items() for ord_, item in ords.items()
        }
        start = time.perf_counter()
        store.log.add_events(_terminal_events(keys, reviews, rng))
        fill_s = time.perf_counter() - start
        _phone_answers(phone, cids, reviews, rng)

        start = time.perf_counter()
        phone.sync()
        phone_up_ms = (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        moved = anki_sync.sync(target, decks, notes, store, manifest)
        ours_ms = (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        phone.sync()
        phone_down_ms = (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        again = anki_sync.sync(target, decks, notes, store, manifest)
        again_ms = (time.perf_counter() - start) * 1000

        # As the phone shows them: a learning card's due is a time, not a day number. The
        # phone's answers here are revlog rows alone (its cards stay new), so a card whose last
        # answer is the phone's keeps Anki's "new" and differs: a real phone's would not.
        mismatched = sum(
            phone.due_date(cids[item]) != due for item, due in store.schedule.due_dates().items()
        )
        floor_ms = phone_up_ms + phone_down_ms
        result = {
            "reviews": reviews,
            "cards": len(keys),
            "fill_s": fill_s,
            "sync_ms": ours_ms,
            "anki_floor_ms": floor_ms,
            "phone_up_ms": phone_up_ms,
            "phone_down_ms": phone_down_ms,
            "ratio": ours_ms / floor_ms,
            "again_ms": again_ms,
            "to_zerodrill": moved.to_zerodrill,
            "to_anki": moved.to_anki,
            "rescheduled": moved.rescheduled,
            "again_moved": again.to_zerodrill + again.to_anki + again.rescheduled,
            "due_mismatches": mismatched,
        }
    return result


def main(reviews: int = 10_000, scheduler: str = "sm2", rounds: int = 1) -> None:
    r = run(reviews, scheduler, rounds)
    if rounds > 1:
        for n, one in enumerate(r["rounds"], start=1):
            print(
                f"round {n}: two-way {one['sync_ms']:,.0f} ms, Anki's own "
                f"{one['anki_floor_ms']:,.0f} ms, {one['ratio']:.2f}x; nothing new "
                f"{one['again_ms']:,.0f} ms"
            )
        print(f"medians of {rounds} rounds (ratio {r['ratio_min']:.2f}x to {r['ratio_max']:.2f}x):")
    print(
        f"bundled deck, {r['cards']} cards, {scheduler}; {r['reviews']:,} reviews waiting on "
        f"each side (store filled in {r['fill_s']:.1f} s)"
    )
    print(
        f"zerodrill anki sync, two-way          {r['sync_ms']:>9,.0f} ms   "
        f"Anki -> zerodrill {r['to_zerodrill']:,}, zerodrill -> Anki {r['to_anki']:,}, "
        f"{r['rescheduled']:,} cards rescheduled"
    )
    print(
        f"Anki's own syncs of the same answers   {r['anki_floor_ms']:>9,.0f} ms   "
        f"(phone up {r['phone_up_ms']:,.0f} ms + down {r['phone_down_ms']:,.0f} ms)"
    )
    print(f"ratio                                 {r['ratio']:>9.2f}x")
    print(
        f"zerodrill anki sync, nothing new       {r['again_ms']:>9,.0f} ms   "
        f"moved {r['again_moved']}; due dates that differ: {r['due_mismatches']}"
    )


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reviews", nargs="?", type=int, default=10_000)
    parser.add_argument("--scheduler", choices=("sm2", "fsrs"), default="sm2")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    main(args.reviews, args.scheduler, args.rounds)
