"""The collection's media folder as a transport of the event stream (zerodrill/anki_sync/
media_transport.py): another machine's events arrive as its own, once; each write is a file
that never changes; a file is untrusted."""

from __future__ import annotations

import io
import json
import os
import zipfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import NamedTuple

import pytest

from zerodrill.anki_sync import media_transport, workcopy
from zerodrill.anki_sync.media_transport import PREFIX, MediaTransport
from zerodrill.srs.anki_import import ORIGIN as ANKI_ORIGIN
from zerodrill.srs.days import study_day
from zerodrill.srs.events import ReviewEvent
from zerodrill.srs.grades import Grade
from zerodrill.srs.schedulers.decision import AnkiDecision
from zerodrill.srs.store import Store
from zerodrill.srs.store.sync_state import Outgoing
from zerodrill.srs.sync.exchange import sync
from zerodrill.srs.sync.transport import Event

KEY = "phone-deck/stage-1"


def graded(path: Path, days_ago: int) -> Store:
    store = Store.open(path)
    at = datetime.now().astimezone() - timedelta(days=days_ago)
    store.log.grade(KEY, 4, day=study_day(at), at=at)
    return store


class Written(NamedTuple):
    """An event as a transport writes it (:class:`~zerodrill.srs.sync.transport.Line`)."""

    seq: int
    line: str


def copied(event: Event, origin: str) -> Written:
    """``event``'s line as though ``origin`` had made it (a machine the writer relays)."""
    relayed = ReviewEvent(origin, event.seq, event.key, event.at, event.day, event.grade)  # type: ignore[union-attr]
    return Written(relayed.seq, relayed.to_json())


def files(media: Path, machine: str) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(media.glob(f"{PREFIX}{machine}-*"))}


def test_another_machines_events_arrive_as_its_own_once(tmp_path: Path) -> None:
    media = tmp_path / "collection.media"
    with graded(tmp_path / "a.db", 3) as a, graded(tmp_path / "b.db", 2) as b:
        for store in (a, b, a, b, a):
            sync(store, MediaTransport(media, "one"))
        both = [sorted(e.identity for e in s.log.events()) for s in (a, b)]
        assert both[0] == both[1]
        assert {e.origin for e in b.log.events()} == {a.machine.id, b.machine.id}
        assert len(b.log.events()) == 2
        assert a.schedule.due_dates() == b.schedule.due_dates()
        assert sync(b, MediaTransport(media, "one")).received == 0


def test_each_write_is_a_new_file_and_a_written_file_never_changes(tmp_path: Path) -> None:
    media = tmp_path / "collection.media"
    with graded(tmp_path / "a.db", 3) as a:
        sync(a, MediaTransport(media, "one"))
        first = files(media, a.machine.id)
        at = datetime.now().astimezone() - timedelta(days=1)
        a.log.grade(KEY, 3, day=study_day(at), at=at)
        sync(a, MediaTransport(media, "one"))
        now = files(media, a.machine.id)
        assert len(now) == 2
        assert {k: now[k] for k in first} == first
        # Nothing new: nothing written.
        sync(a, MediaTransport(media, "one"))
        assert files(media, a.machine.id) == now


def test_a_work_copys_folder_writes_and_the_collections_is_read_too(tmp_path: Path) -> None:
    own, work = tmp_path / "collection.media", tmp_path / "work.media"
    with graded(tmp_path / "a.db", 3) as a, Store.open(tmp_path / "b.db") as b:
        sync(a, MediaTransport(own, "one"))
        sync(b, MediaTransport(work, "one", also=[own]))
        assert len(b.log.events()) == 1
        assert files(work, a.machine.id) == {}


def test_a_damaged_line_is_skipped_alone_and_a_lost_file_is_written_again(
    tmp_path: Path,
) -> None:
    media = tmp_path / "collection.media"
    with graded(tmp_path / "a.db", 3) as a, Store.open(tmp_path / "b.db") as b:
        sync(a, MediaTransport(media, "one"))
        sync(b, MediaTransport(media, "one"))
        ((name, text),) = files(media, a.machine.id).items()
        # Another file of a's, damaged: skipped line by line.
        (media / f"{PREFIX}{a.machine.id}-0-0-{'0' * 12}.jsonl").write_text(
            "not an event\n" + text + "x" * 100_000 + "\n"
        )
        report = sync(b, MediaTransport(media, "one"))
        assert any("2 damaged lines skipped" in w for w in report.warnings), report.warnings
        assert len(b.log.events()) == 1
        # Deleted (Check Media of an older Anki, a user's hand): its machine writes it again.
        for path in media.glob(f"{PREFIX}{a.machine.id}-*"):
            path.unlink()
        assert sync(a, MediaTransport(media, "one")).sent == 1
        assert files(media, a.machine.id) == {name: text}


def test_answers_given_in_anki_are_not_carried_again(tmp_path: Path) -> None:
    """The revlog carries them, under the same identity, to every terminal."""
    media = tmp_path / "collection.media"
    with graded(tmp_path / "a.db", 3) as a:
        at = datetime.now().astimezone() - timedelta(days=2)
        phones = ReviewEvent(ANKI_ORIGIN, 1_700_000_000_123, KEY, at, study_day(at), Grade(4))
        a.log.add_events([phones])
        assert sync(a, MediaTransport(media, "one")).sent == 1  # its own grade only
        (text,) = files(media, a.machine.id).values()
        assert [json.loads(line)["origin"] for line in text.splitlines()] == [a.machine.id]
        later = ReviewEvent(ANKI_ORIGIN, 1_700_000_100_123, KEY, at, study_day(at), Grade(3))
        a.log.add_events([later])
        assert sync(a, MediaTransport(media, "one")).sent == 0
        assert len(files(media, a.machine.id)) == 1


def test_answers_given_in_anki_are_looked_at_once_and_the_later_ones_only_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long-time user's answers from Anki (revlog ids: numbers far apart) are not kept as a
    run each: the sync keeps the row of its log through which it looked at them, and reads
    only the rows logged after it, where an answer that travels (with FSRS's memory state) is
    still found and sent."""
    media = tmp_path / "collection.media"
    at = datetime.now().astimezone() - timedelta(days=2)

    def from_anki(seq: int, decided: AnkiDecision | None = None) -> ReviewEvent:
        return ReviewEvent(
            ANKI_ORIGIN, seq, KEY, at, study_day(at), Grade(4), buttons=4, decided=decided
        )

    read: list[list[str]] = []
    with graded(tmp_path / "a.db", 3) as a:
        outside = type(a.sync).outside

        def reading(self: object, *args: object, **kwargs: object) -> list[Outgoing]:
            found: list[Outgoing] = outside(self, *args, **kwargs)  # type: ignore[arg-type]
            read.append([o.origin for o in found])
            return found

        monkeypatch.setattr(type(a.sync), "outside", reading)
        a.log.add_events([from_anki(1_700_000_000_123 + 86_400_000 * n) for n in range(300)])
        assert sync(a, MediaTransport(media, "one")).sent == 1  # its own grade only
        assert read[-1].count(ANKI_ORIGIN) == 300
        ((_, kept),) = a.sync.saved(MediaTransport(media, "one").name, a.machine.id).values()
        assert ANKI_ORIGIN not in json.loads(kept).get("numbers", {})  # no run of each
        assert sync(a, MediaTransport(media, "one")).sent == 0
        assert read[-1] == []  # none of them read again
        memory = AnkiDecision(3, 0, stability=4.5, difficulty=5.0)
        a.log.add_events([from_anki(1_800_000_000_123), from_anki(1_800_000_100_123, memory)])
        report = sync(a, MediaTransport(media, "one"))
        assert read[-1] == [ANKI_ORIGIN, ANKI_ORIGIN]  # the two logged since, alone
        assert report.sent == 1  # the one Anki's revlog does not carry whole
        assert sync(a, MediaTransport(media, "one")).sent == 0
        assert read[-1] == []
        sent = [json.loads(line) for text in files(media, a.machine.id).values()
                for line in text.splitlines()]  # fmt: skip
        assert [(e["origin"], e["seq"]) for e in sent if e["origin"] == ANKI_ORIGIN] == [
            (ANKI_ORIGIN, 1_800_000_100_123)
        ]


def test_only_regular_files_under_their_exact_names_are_read(tmp_path: Path) -> None:
    """A link is never followed (it could lead out of the media folder, to any file); a name
    that is not exactly one zerodrill writes is not looked at."""
    media, elsewhere = tmp_path / "collection.media", tmp_path / "elsewhere"
    with graded(tmp_path / "a.db", 3) as a, Store.open(tmp_path / "b.db") as b:
        sync(a, MediaTransport(elsewhere, "one"))
        ((name, text),) = files(elsewhere, a.machine.id).items()
        media.mkdir()
        (media / name).symlink_to(elsewhere / name)
        stem = name.removesuffix(".jsonl")
        for odd in (
            f"{stem}.jsonl.tmp",
            f"{stem}.JSONL",
            name.replace("-1-1-", "-01-1-"),
            "x" + name,
        ):
            (media / odd).write_text(text)
        report = sync(b, MediaTransport(media, "one"))
        assert b.log.events() == []
        assert report.warnings == (f"Anki's media file {name} cannot be read; skipped",)


def test_a_file_larger_than_zerodrill_writes_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    media = tmp_path / "collection.media"
    with graded(tmp_path / "a.db", 3) as a, Store.open(tmp_path / "b.db") as b:
        sync(a, MediaTransport(media, "one"))
        ((name, text),) = files(media, a.machine.id).items()
        monkeypatch.setattr(media_transport, "MAX_FILE_BYTES", len(text.encode()) - 1)
        report = sync(b, MediaTransport(media, "one"))
        assert b.log.events() == []
        assert report.warnings == (f"Anki's media file {name} cannot be read; skipped",)


def test_events_under_the_same_numbers_are_another_file(tmp_path: Path) -> None:
    """A machine relays another's events under their own numbers: a write of them is not
    taken for the earlier write of its own under the same numbers."""
    media = tmp_path / "collection.media"
    with graded(tmp_path / "a.db", 3) as a, Store.open(tmp_path / "b.db") as b:
        sync(a, MediaTransport(media, "one"))
        (own,) = a.log.events()
        transport = MediaTransport(media, "one")
        transport.write(a.machine.id, [copied(own, "folder-only")], None)
        assert len(files(media, a.machine.id)) == 2
        sync(b, MediaTransport(media, "one"))
        assert {e.origin for e in b.log.events()} == {a.machine.id, "folder-only"}


def test_a_large_write_spreads_over_files_each_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    media = tmp_path / "collection.media"
    monkeypatch.setattr(media_transport, "_WRITE_BYTES", 1)
    with Store.open(tmp_path / "a.db") as a, Store.open(tmp_path / "b.db") as b:
        for days_ago in (5, 4, 3):
            at = datetime.now().astimezone() - timedelta(days=days_ago)
            a.log.grade(KEY, 4, day=study_day(at), at=at)
        assert sync(a, MediaTransport(media, "one")).sent == 3
        assert len(files(media, a.machine.id)) == 3
        sync(b, MediaTransport(media, "one"))
        assert sorted(e.identity for e in b.log.events()) == sorted(
            e.identity for e in a.log.events()
        )


def test_put_back_gives_the_media_folder_a_later_second(tmp_path: Path) -> None:
    """Anki's media sync looks for new files only in a folder whose time, in whole seconds,
    changed since it last looked, which may have been this very second."""
    collection = tmp_path / "collection.anki2"
    collection.write_bytes(b"a collection")
    own = workcopy.media_folder(collection)
    own.mkdir()
    looked = int(own.stat().st_mtime)  # as Anki's media sync keeps it
    os.utime(own, (looked, looked))
    with workcopy.work_folder(collection) as folder:
        copy = workcopy.copy_into(folder, collection)
        new = workcopy.media_folder(copy.path)
        new.mkdir()
        (new / f"{PREFIX}abc-1-1-{'0' * 12}.jsonl").write_text("{}\n")
        workcopy.put_back(copy, collection)
    assert (own / f"{PREFIX}abc-1-1-{'0' * 12}.jsonl").is_file()
    assert int(own.stat().st_mtime) > looked
    # A second run in the same second: the last move set the time ahead, where Anki's sync
    # after it looked; this move's time must be one it has not seen, or its file never goes.
    looked = int(own.stat().st_mtime)
    with workcopy.work_folder(collection) as folder:
        copy = workcopy.copy_into(folder, collection)
        new = workcopy.media_folder(copy.path)
        new.mkdir()
        (new / f"{PREFIX}abc-2-2-{'0' * 12}.jsonl").write_text("{}\n")
        workcopy.put_back(copy, collection)
    assert int(own.stat().st_mtime) > looked


def test_the_dry_runs_fetch_keeps_only_files_of_events_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's zip is untrusted (peek.pull_media): a name that is not exactly a file of
    events, or not asked for, or a file too large, is not written; nothing leaves ``into``."""
    from zerodrill.anki_sync import peek

    good, large = (f"{PREFIX}abc-{n}-{n}-{'0' * 12}.jsonl" for n in (1, 2))
    members = {
        "0": (good, b"{}\n"),
        "1": ("../escaped.jsonl", b"x"),
        "2": (f"{PREFIX}abc-3-3-{'0' * 12}.jsonl", b"not asked for"),
        "3": (large, b"y" * 10),
        "4": (f"{PREFIX}abc-4-4-{'0' * 12}.jsonl/../../up.jsonl", b"z"),
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for inner, (_, data) in members.items():
            archive.writestr(inner, data)
        archive.writestr("_meta", json.dumps({k: name for k, (name, _) in members.items()}))
    into = tmp_path / "scratch" / "collection.media"
    monkeypatch.setattr(peek, "MAX_FILE_BYTES", 5)
    asked = {good, large, "../escaped.jsonl", members["4"][0]}
    sent, kept = peek._unzip(buffer.getvalue(), asked, into, "the server")
    assert (sent, kept) == ({good, large}, 1)
    assert [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()] == [
        f"scratch/collection.media/{good}"
    ]


def test_an_answer_anki_carries_itself_is_never_held_to_the_wires_rules(tmp_path: Path) -> None:
    # Written nowhere, it is no line: a key the wire refuses (made in Anki, say) is no reason
    # to warn at every sync that it cannot be sent.
    at = datetime.now().astimezone() - timedelta(days=1)
    answer = ReviewEvent(ANKI_ORIGIN, 1_700_000_000_000, "Phone Deck/1", at, at.date(), Grade.GOOD)
    media = tmp_path / "collection.media"
    with Store.open(tmp_path / "a.db") as store:
        store.log.add_events([answer])
        for _ in range(2):
            report = sync(store, MediaTransport(media, "one"))
            assert report.warnings == () and report.sent == 0
        assert not media.exists() or not list(media.iterdir())
