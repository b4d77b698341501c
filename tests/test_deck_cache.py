"""The parsed-deck cache gives the same decks as parsing, and never hides a change.

Whether a load was served or parsed is told by behaviour (:mod:`cache_support`: did the
loader's builder run), never by what the cache keeps inside.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from cache_support import count_parses, served

import zerodrill.deck.load
from zerodrill.deck import cache as deck_cache
from zerodrill.deck.cache import load_paths_cached
from zerodrill.deck.load import load_paths
from zerodrill.export.anki_rules import APKG

DATA = Path(__file__).resolve().parent / "data" / "decks"


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "decks"
    shutil.copytree(DATA, folder)
    return folder / "sample.yaml"


def _entry(cache: Path) -> Path:
    """The one file the cache holds, whatever it names it."""
    (entry,) = cache.iterdir()
    return entry


def test_cached_load_equals_parse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    first = load_paths_cached([deck_file], cache)
    second = served([deck_file], cache, monkeypatch)
    parsed = load_paths([deck_file])
    assert first.decks == second.decks == parsed.decks
    # What the entry carries besides the cards, as the parse works it out.
    cached, fresh = second.decks[0], parsed.decks[0]
    assert cached.study_order == fresh.study_order
    assert cached.study_items == fresh.study_items
    assert (cached.title_pos, cached.facts) == (fresh.title_pos, fresh.facts)
    for a, b in zip(cached.cards, fresh.cards, strict=True):
        assert a.field_pos == b.field_pos
        assert a.items() == b.items()
        assert (a.key, a.pos, a.fields, a.tags, a.refs) == (b.key, b.pos, b.fields, b.tags, b.refs)
        assert (a.kind, a.ordinals, a.media, a.retired) == (b.kind, b.ordinals, b.media, b.retired)
        assert a.kind is b.kind
        assert type(a.tags) is type(a.refs) is type(a.ordinals) is type(a.media) is tuple
        assert type(a.fields) is type(b.fields) and type(a.field_pos) is type(b.field_pos)


def test_edited_file_is_parsed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    load_paths_cached([deck_file], cache)
    text = deck_file.read_text(encoding="utf-8")
    deck_file.write_text(text.replace("Optimizer states **and** gradients.", "Changed."), "utf-8")
    parses = count_parses(monkeypatch)
    result = load_paths_cached([deck_file], cache)
    back = {c.id: c for c in result.decks[0].cards}["stage-2-shards"].fields["back"]
    assert back == "Changed." and parses == [deck_file]
    assert served([deck_file], cache, monkeypatch).decks == result.decks


def test_problems_are_never_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    deck_file.write_text(deck_file.read_text("utf-8").replace("back:", "bakc:"), "utf-8")
    parses = count_parses(monkeypatch)
    for _ in range(2):
        result = load_paths_cached([deck_file], cache)
        assert not result.decks
        assert any("did you mean 'back'" in p.message for p in result.problems)
    assert parses == [deck_file, deck_file]
    assert not cache.exists() or not list(cache.iterdir())


def test_unwritable_cache_only_costs_speed(tmp_path: Path) -> None:
    deck_file = _copy(tmp_path)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    result = load_paths_cached([deck_file], blocker / "cache")
    assert result.ok and result.decks


def test_missing_image_invalidates_the_entry(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    (folder / "img").mkdir(parents=True)
    (folder / "img" / "a.png").write_bytes(b"\x89PNG")
    deck_file = folder / "deck.yaml"
    deck_file.write_text(
        "deck: d\ntitle: T\ndescription: D\ncards:\n"
        "  - id: a\n    kind: basic\n    front: '![x](img/a.png)'\n    back: A\n",
        encoding="utf-8",
    )
    cache = tmp_path / "cache"
    assert load_paths_cached([deck_file], cache).ok
    (folder / "img" / "a.png").unlink()
    result = load_paths_cached([deck_file], cache)
    assert [p.message for p in result.problems] == ["image 'img/a.png' does not exist"]


def test_size_limit_holds_on_the_cached_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    assert load_paths_cached([deck_file], cache).ok
    monkeypatch.setattr("zerodrill.deck.files.MAX_FILE_BYTES", 100)
    result = load_paths_cached([deck_file], cache)
    assert not result.decks
    assert [p.message for p in result.problems] == ["file is larger than the 100 bytes limit"]


def _flip(offset: int) -> Any:
    def damage(data: bytes) -> bytes:
        damaged = bytearray(data)
        damaged[offset] ^= 0x01
        return bytes(damaged)

    return damage


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"",
        lambda data: data[:3],
        lambda data: data[:10],
        lambda data: data[: len(data) // 2],
        lambda data: data[:-1],
        lambda data: data + b"\0",
        lambda data: b'{"format": 1, "deck": ["x"]',
        _flip(0),
        _flip(4),
        _flip(40),
        _flip(-1),
    ],
    ids=[
        "empty",
        "cut-3",
        "cut-10",
        "cut-half",
        "cut-last",
        "grown",
        "other-text",
        "flip-0",
        "flip-4",
        "flip-40",
        "flip-last",
    ],
)
def test_a_damaged_entry_falls_back_to_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: Any
) -> None:
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    load_paths_cached([deck_file], cache)
    entry = _entry(cache)
    entry.write_bytes(damage(entry.read_bytes()))
    parsed = load_paths([deck_file])
    parses = count_parses(monkeypatch)
    result = load_paths_cached([deck_file], cache)
    assert parses == [deck_file]
    assert result.decks == parsed.decks
    assert [c.fields for c in result.decks[0].cards] == [c.fields for c in parsed.decks[0].cards]
    # Written again whole: the next load is served.
    assert served([deck_file], cache, monkeypatch).decks == parsed.decks


def test_a_flipped_bit_in_a_card_body_is_never_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A card's Markdown is read from the entry when the card is first shown, long after the
    # entry was accepted: damage there must be caught when the entry is read.
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    load_paths_cached([deck_file], cache)
    entry = _entry(cache)
    data = bytearray(entry.read_bytes())
    data[data.index(b"Optimizer states **and** gradients.")] ^= 0x20  # 'optimizer'
    entry.write_bytes(bytes(data))
    parsed = load_paths([deck_file])
    parses = count_parses(monkeypatch)
    result = load_paths_cached([deck_file], cache)
    assert parses == [deck_file]
    assert [c.fields for c in result.decks[0].cards] == [c.fields for c in parsed.decks[0].cards]


def test_an_entry_over_the_size_cap_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    load_paths_cached([deck_file], cache)
    monkeypatch.setattr(deck_cache, "MAX_ENTRY_BYTES", _entry(cache).stat().st_size - 1)
    parses = count_parses(monkeypatch)
    assert load_paths_cached([deck_file], cache).ok
    assert parses == [deck_file]


def test_a_deck_pickle_cannot_hold_is_served_and_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Text(str):  # a local class: pickle cannot name it
        pass

    parse = zerodrill.deck.load.parse_bytes

    def unpicklable(data: bytes, path: Path) -> Any:
        deck, problems = parse(data, path)
        card = replace(deck.cards[0], fields={k: Text(v) for k, v in deck.cards[0].fields.items()})
        return replace(deck, cards=(card, *deck.cards[1:])), problems

    monkeypatch.setattr(zerodrill.deck.load, "parse_bytes", unpicklable)
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    result = load_paths_cached([deck_file], cache)
    assert result.ok and result.decks[0].cards[0].fields["text"].startswith("The ZeRO stage")
    assert not cache.exists() or not list(cache.iterdir())


def _loaded_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A deck file and a cache folder that has loaded it, the deck's times vouched for."""
    # The file was written just now: within RACY_NS its times would vouch for nothing.
    monkeypatch.setattr(deck_cache, "RACY_NS", 0)
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    load_paths_cached([deck_file], cache)
    return deck_file, cache


def test_an_unchanged_file_is_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deck_file, cache = _loaded_once(tmp_path, monkeypatch)

    def unread(path: Path) -> Any:
        raise AssertionError("read again")

    monkeypatch.setattr(deck_cache, "read_deck_bytes", unread)
    assert served([deck_file], cache, monkeypatch).decks == load_paths([deck_file]).decks


def test_a_file_with_new_times_and_the_same_bytes_is_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A checkout or a `touch` changes the times, not the deck: hashed, not parsed.
    deck_file, cache = _loaded_once(tmp_path, monkeypatch)
    before = deck_file.stat()
    os.utime(deck_file, ns=(before.st_atime_ns, before.st_mtime_ns - 10**10))
    parsed = load_paths([deck_file]).decks
    assert served([deck_file], cache, monkeypatch).decks == parsed

    # ... and vouched for by its new times from then on.
    def unread(path: Path) -> Any:
        raise AssertionError("read again")

    monkeypatch.setattr(deck_cache, "read_deck_bytes", unread)
    assert served([deck_file], cache, monkeypatch).decks == parsed


def test_a_file_changed_to_the_same_size_and_time_is_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deck_file, cache = _loaded_once(tmp_path, monkeypatch)
    before = deck_file.stat()
    text = deck_file.read_text(encoding="utf-8")
    assert "Optimizer states **and** gradients." in text
    deck_file.write_text(text.replace("Optimizer states", "Optimizer STATES"), encoding="utf-8")
    os.utime(deck_file, ns=(before.st_atime_ns, before.st_mtime_ns))  # its change time moves
    assert deck_file.stat().st_size == before.st_size
    (deck,) = load_paths_cached([deck_file], cache).decks
    assert any("Optimizer STATES" in field for c in deck.cards for field in c.fields.values())


def test_a_file_modified_just_before_it_was_read_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Modified again within its times' granularity, it could keep them: its times vouch for
    # nothing, and each load reads it (and is still served while its bytes are the same).
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    load_paths_cached([deck_file], cache)
    reads: list[Path] = []
    read = deck_cache.read_deck_bytes

    def counted(path: Path) -> Any:
        reads.append(path)
        return read(path)

    monkeypatch.setattr(deck_cache, "read_deck_bytes", counted)
    assert served([deck_file], cache, monkeypatch).ok
    assert reads == [deck_file]


def test_images_clozes_and_retired_cards_come_back_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "d"
    (folder / "img").mkdir(parents=True)
    (folder / "img" / "a.png").write_bytes(b"\x89PNG")
    deck_file = folder / "deck.yaml"
    deck_file.write_text(
        "deck: d\ntitle: T\ndescription: D\nretired: [old]\ncards:\n"
        "  - id: a\n    kind: basic\n    front: '![x](img/a.png)'\n    back: A\n"
        "  - id: c\n    kind: cloze\n    text: '{{c1::x}} and {{c2::y}}'\n"
        "  - id: old\n    kind: basic\n    front: Q\n    back: A\n",
        encoding="utf-8",
    )
    cache = tmp_path / "cache"
    load_paths_cached([deck_file], cache)
    (cached,) = served([deck_file], cache, monkeypatch).decks
    (parsed,) = load_paths([deck_file]).decks
    assert cached == parsed
    got = [(c.key, c.kind, c.ordinals, c.media, c.retired) for c in cached.cards]
    assert got == [(c.key, c.kind, c.ordinals, c.media, c.retired) for c in parsed.cards]
    assert got[0][3] == ("img/a.png",) and got[1][2] == (1, 2) and got[2][4] is True
    assert cached.items() == parsed.items()


def test_cards_stay_whole_when_their_entry_is_removed_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another drill may prune or replace the entry while this one shows its cards.
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    load_paths_cached([deck_file], cache)
    (cached,) = served([deck_file], cache, monkeypatch).decks
    _entry(cache).unlink()
    (parsed,) = load_paths([deck_file]).decks
    assert [c.fields for c in cached.cards] == [c.fields for c in parsed.cards]
    assert [(c.key, c.pos, c.refs) for c in cached.cards] == [
        (c.key, c.pos, c.refs) for c in parsed.cards
    ]


def test_a_cache_hit_never_imports_the_yaml_loader(tmp_path: Path) -> None:
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    code = (
        "import sys; from pathlib import Path; from zerodrill.deck.cache import load_paths_cached;"
        f" load_paths_cached([Path({str(deck_file)!r})], Path({str(cache)!r}));"
        " print(sorted({'zerodrill.deck.load', 'yaml'} & set(sys.modules)))"
    )

    def imported() -> str:
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        return run.stdout.strip()

    assert imported() == "['yaml', 'zerodrill.deck.load']"  # a miss parses
    assert imported() == "[]"  # a hit does not


def test_the_cache_keeps_the_entries_in_use_and_drops_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deck_cache, "KEEP", 3)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "0123.stat").write_text("a memo of an older version")
    decks = []
    for n in range(4):
        deck_file = _copy(tmp_path / str(n))
        deck_file.write_text(deck_file.read_text().replace("deck: sample", f"deck: s{n}"))
        decks.append(deck_file)
    for n, deck_file in enumerate(decks[:3]):
        load_paths_cached([deck_file], cache)
        os.utime(_newest(cache), (1_000 + n, 1_000 + n))  # used long ago, in this order
    served([decks[0]], cache, monkeypatch)  # the oldest, used now
    load_paths_cached([decks[3]], cache)  # a fourth entry: the least recently used goes
    assert len(list(cache.iterdir())) == 3
    served([decks[0], decks[2], decks[3]], cache, monkeypatch)
    parses = count_parses(monkeypatch)
    load_paths_cached([decks[1]], cache)
    assert parses == [decks[1]]


def _newest(folder: Path) -> Path:
    return max(folder.iterdir(), key=lambda p: p.stat().st_mtime_ns)


@pytest.mark.skipif(not Path("/dev/fd").is_dir(), reason="needs /dev/fd")
def test_a_deck_from_a_pipe_is_read_once_by_the_loader(tmp_path: Path) -> None:
    # `zerodrill drill <(...)` names a pipe: hashing it for the cache once left the loader
    # nothing to read ("file is empty").
    deck_file = _copy(tmp_path)
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(write_end, "wb") as f:
            f.write(deck_file.read_bytes())  # within the pipe's buffer: no reader needed yet
        piped = Path(f"/dev/fd/{read_end}")
        result = load_paths_cached([piped], tmp_path / "cache")
    finally:
        os.close(read_end)
    assert result.ok, result.problems
    assert [c.fields for c in result.decks[0].cards] == [
        c.fields for c in load_paths([deck_file]).decks[0].cards
    ]
    assert not (tmp_path / "cache").exists()  # nothing cached under a pipe's passing name


def test_files_written_whole_get_the_mode_the_umask_gives(tmp_path: Path) -> None:

    from zerodrill.atomic_write import write_atomic

    old = os.umask(0o077)
    try:
        write_atomic(tmp_path / "private", b"x")
        os.umask(0o022)
        write_atomic(tmp_path / "shared", b"y")
    finally:
        os.umask(old)
    assert (tmp_path / "private").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "shared").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "shared").read_bytes() == b"y" and len(list(tmp_path.iterdir())) == 2


def _image_deck(tmp_path: Path) -> Path:
    folder = tmp_path / "d"
    (folder / "img").mkdir(parents=True)
    (folder / "img" / "a.png").write_bytes(b"\x89PNG")
    deck_file = folder / "deck.yaml"
    deck_file.write_text(
        "deck: d\ntitle: T\ndescription: D\ncards:\n"
        "  - id: a\n    kind: basic\n    front: '![x](img/a.png)'\n    back: A\n",
        encoding="utf-8",
    )
    return deck_file


def _symlink_out(image: Path) -> None:
    image.unlink()
    outside = image.parent.parent.parent / "secret"
    outside.write_text("root:x:0:0\n")
    image.symlink_to(outside)


def _directory(image: Path) -> None:
    image.unlink()
    image.mkdir()


def _symlink_loop(image: Path) -> None:
    image.unlink()
    image.symlink_to(image)


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(_symlink_out, id="symlink-out-of-the-folder"),
        pytest.param(lambda image: image.unlink(), id="deleted"),
        pytest.param(_directory, id="replaced-by-a-directory"),
        pytest.param(_symlink_loop, id="symlink-loop"),
        pytest.param(lambda image: image.parent.rename(image.parent.with_name("x")), id="moved"),
    ],
)
def test_a_cached_load_agrees_with_a_fresh_one_after_an_image_changes(
    tmp_path: Path, change: Any
) -> None:
    deck_file = _image_deck(tmp_path)
    cache = tmp_path / "cache"
    assert load_paths_cached([deck_file], cache).ok
    assert load_paths_cached([deck_file], cache).ok  # from the cache
    change(deck_file.parent / "img" / "a.png")
    fresh = load_paths([deck_file])
    cached = load_paths_cached([deck_file], cache)
    assert not fresh.ok
    assert cached.problems == fresh.problems
    assert cached.decks == fresh.decks == ()


def test_the_issues_symlink_to_etc_passwd_is_refused_by_stats_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from zerodrill.cli import main

    deck_file = _image_deck(tmp_path)
    monkeypatch.setenv("ZERODRILL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ZERODRILL_DB", str(tmp_path / "none.db"))
    main(["stats", str(deck_file)])  # caches the deck
    image = deck_file.parent / "img" / "a.png"
    image.unlink()
    image.symlink_to("/etc/passwd")
    with pytest.raises(SystemExit):
        main(["stats", str(deck_file)])
    err = capsys.readouterr().err
    assert "image 'img/a.png' is outside the deck's folder" in err


def test_a_dot_dot_path_is_judged_as_the_cache_keeps_it(tmp_path: Path) -> None:
    """'img/sub/../a.png' is img/a.png to a card and to export, whatever img/sub becomes."""
    deck_file = _image_deck(tmp_path)
    text = deck_file.read_text("utf-8").replace("img/a.png", "img/sub/../a.png")
    deck_file.write_text(text, "utf-8")
    sub = deck_file.parent / "img" / "sub"
    sub.mkdir()
    cache = tmp_path / "cache"
    assert load_paths_cached([deck_file], cache).ok
    sub.rmdir()
    elsewhere = tmp_path / "elsewhere" / "x"
    elsewhere.mkdir(parents=True)
    sub.symlink_to(elsewhere)
    fresh = load_paths([deck_file])
    cached = load_paths_cached([deck_file], cache)
    assert cached.problems == fresh.problems == ()
    assert cached.decks == fresh.decks
    assert fresh.decks[0].cards[0].media == ("img/a.png",)


def test_a_percent_escaped_image_is_served_from_the_cache_and_judged_as_a_fresh_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache keeps the file an image names ('img/a%20.png' for 'img/a%2520.png'), and
    checks that file again, never decoding it a second time (to 'img/a .png')."""
    deck_file = _image_deck(tmp_path)
    deck_file.write_text(deck_file.read_text("utf-8").replace("img/a.png", "img/a%2520.png"))
    image = deck_file.parent / "img" / "a.png"
    image = image.rename(image.with_name("a%20.png"))
    cache = tmp_path / "cache"
    assert load_paths_cached([deck_file], cache).ok

    import zerodrill.deck.load

    def no_parse(*_: object) -> None:
        raise AssertionError("parsed, not served from the cache")

    with monkeypatch.context() as patched:
        patched.setattr(zerodrill.deck.load, "parse_bytes", no_parse)
        hit = load_paths_cached([deck_file], cache)
    assert hit.ok and hit.decks[0].cards[0].media == ("img/a%20.png",)
    image.unlink()
    fresh, cached = load_paths([deck_file]), load_paths_cached([deck_file], cache)
    assert cached.problems == fresh.problems != ()


def test_title_positions_come_back_from_the_cache(tmp_path: Path) -> None:
    deck_file = _copy(tmp_path)
    other = deck_file.with_name("other.yaml")
    other.write_text(
        deck_file.read_text("utf-8").replace("deck: sample", "deck: other"), encoding="utf-8"
    )
    cache = tmp_path / "cache"
    load_paths_cached([deck_file], cache)
    load_paths_cached([other], cache)
    cached = load_paths_cached([deck_file, other], cache)
    assert cached.ok  # the drill checks no rule of Anki's
    fresh = load_paths([deck_file, other], [APKG])
    # The title positions the cache keeps put Anki's clash where a fresh load puts it.
    from zerodrill.deck.files import combine

    again = combine(cached.files, [], [(d.path, d, []) for d in cached.decks], [APKG])
    assert [str(p) for p in again.problems] == [str(p) for p in fresh.problems]
    assert len(fresh.problems) == 1 and "Anki would merge the two decks" in str(fresh.problems[0])


def test_an_entry_of_a_kind_no_longer_registered_is_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kind_support import DEFINITION, register_for_test, write_deck

    from zerodrill.deck import kinds

    deck_file = write_deck(tmp_path)
    cache = tmp_path / "cache"
    with monkeypatch.context() as registered:
        register_for_test(registered, DEFINITION)
        first = load_paths_cached([deck_file], cache)
        assert first.ok and first.decks[0].cards[0].kind is DEFINITION
        assert load_paths_cached([deck_file], cache).decks == first.decks
    assert kinds.named(DEFINITION.name) is None
    # The entry names a kind the registry no longer has: the file is loaded again, and refused.
    again = load_paths_cached([deck_file], cache)
    assert not again.decks
    assert "unknown kind 'definition'" in str(again.problems[0])


def test_an_entry_of_other_loader_code_is_never_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The loader's code is in each entry's name: a changed loader parses again, with no number
    # to bump by hand (forgetting one served stale decks).
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    load_paths_cached([deck_file], cache)
    monkeypatch.setattr(deck_cache, "code_key", lambda: b"another loader")
    parses = count_parses(monkeypatch)
    assert load_paths_cached([deck_file], cache).ok
    assert parses == [deck_file]
    assert len(list(cache.iterdir())) == 2


def test_the_code_digest_follows_every_loader_source_file(tmp_path: Path) -> None:
    package = tmp_path / "zerodrill"
    source = Path(deck_cache.__file__).resolve().parent.parent
    shutil.copytree(source / "deck", package / "deck")
    for name in deck_cache.LOADER_CODE[1:]:
        shutil.copy(source / name, package / name)
    first = deck_cache.code_digest(package)
    assert first is not None and first == deck_cache.code_digest(source)
    for name in ("deck/model.py", "deck/load.py", "words.py"):
        with (package / name).open("a") as f:
            f.write("\n# changed\n")
        changed = deck_cache.code_digest(package)
        assert changed not in (first, None)
        first = changed
    (package / "words.py").unlink()
    assert deck_cache.code_digest(package) is None  # unreadable code: nothing cached


def test_the_loader_code_names_every_module_a_parse_imports(tmp_path: Path) -> None:
    # A module the loader imports that LOADER_CODE leaves out could change the decks it
    # gives without changing any entry's name.
    deck_file = _copy(tmp_path)
    code = (
        "import sys; from pathlib import Path; from zerodrill.deck.load import load_paths;"
        "from zerodrill.deck.cache import load_paths_cached;"
        f" assert load_paths([Path({str(deck_file)!r})]).ok;"
        f" assert load_paths_cached([Path({str(deck_file)!r})], Path({str(tmp_path)!r})).ok;"
        " print('\\n'.join(sorted(m.__file__ for n, m in sys.modules.items()"
        " if n.startswith('zerodrill.') and n != 'zerodrill.__init__')))"
    )
    package = Path(deck_cache.__file__).resolve().parent.parent
    # The child imports the same zerodrill as this test (installed, as in CI, or the checkout),
    # from a folder that holds no other: `python -c` puts its working folder first.
    env = {**os.environ, "PYTHONPATH": str(package.parent)}
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    covered = [package / name for name in deck_cache.LOADER_CODE]
    imported = [Path(line).resolve() for line in run.stdout.split()]
    assert len(imported) > 5
    for module in imported:
        assert any(module == c or c in module.parents for c in covered), module


def _facts_deck(tmp_path: Path) -> Path:
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "facts.json").write_text(
        '{"config_keys": {"block": "cfg", "keys": {"lr": {}}, "top_level": ["cfg"]}}',
        encoding="utf-8",
    )
    deck_file = folder / "deck.yaml"
    deck_file.write_text(
        "deck: d\ntitle: T\ndescription: D\nconfig_keys:\n  facts: facts.json\ncards:\n"
        "  - id: a\n    kind: basic\n    front: 'What does `cfg.lr` set?'\n    back: A\n",
        encoding="utf-8",
    )
    return deck_file


def _facts_out_of_the_folder(facts: Path) -> None:
    outside = facts.parent.parent / "facts.json"
    facts.rename(outside)
    facts.symlink_to(outside)


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(
            lambda facts: facts.write_text(facts.read_text().replace('"lr"', '"rate"')),
            id="key-dropped",
        ),
        pytest.param(lambda facts: facts.unlink(), id="deleted"),
        pytest.param(lambda facts: facts.write_text("{"), id="broken"),
        pytest.param(_facts_out_of_the_folder, id="symlink-out-of-the-folder"),
    ],
)
def test_a_cached_load_agrees_with_a_fresh_one_after_the_facts_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Any
) -> None:
    deck_file = _facts_deck(tmp_path)
    cache = tmp_path / "cache"
    first = load_paths_cached([deck_file], cache)
    assert first.ok and first.decks[0].facts is not None
    assert first.decks[0].facts.path == "facts.json"
    assert served([deck_file], cache, monkeypatch).ok
    change(deck_file.parent / "facts.json")
    fresh = load_paths([deck_file])
    cached = load_paths_cached([deck_file], cache)
    assert not fresh.ok
    assert cached.problems == fresh.problems
    assert cached.decks == fresh.decks == ()


# -- issue 36, break 7: what is not a file the cache wrote is a miss, found without waiting --


def _cached(tmp_path: Path) -> tuple[Path, Path]:
    """A deck loaded once through a cache: the deck and its entry."""
    deck_file = _copy(tmp_path)
    cache = tmp_path / "cache"
    assert load_paths_cached([deck_file], cache).ok
    return deck_file, _entry(cache)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX named pipes")
def test_a_fifo_in_the_cache_is_a_miss_and_is_left_as_it_is(tmp_path: Path) -> None:
    import stat
    import threading

    deck_file, fifo = _cached(tmp_path)
    fifo.unlink()
    os.mkfifo(fifo)
    results: list[Any] = []
    worker = threading.Thread(
        target=lambda: results.append(load_paths_cached([deck_file], fifo.parent)), daemon=True
    )
    worker.start()
    # Not a time limit: the load either returns or waits for a writer for good, so this only
    # keeps a failing run from hanging. Then a writer that closes at once lets it go.
    worker.join(timeout=120)
    hung = worker.is_alive()
    if hung:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join()
    assert not hung, "the load waited on a FIFO"
    (result,) = results
    assert result.ok and result.decks == load_paths([deck_file]).decks
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # not the cache's, so not replaced


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="POSIX devices")
def test_an_entry_linked_to_dev_zero_is_a_miss_not_2_gb(tmp_path: Path) -> None:
    import textwrap

    deck_file, entry = _cached(tmp_path)
    entry.unlink()
    entry.symlink_to("/dev/zero")
    # In a process that may take 1 GiB at most: reading /dev/zero whole ends in MemoryError
    # there, not in this machine's memory.
    script = textwrap.dedent(f"""
        import resource, sys
        from pathlib import Path
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        from zerodrill.deck.cache import load_paths_cached
        result = load_paths_cached([Path({str(deck_file)!r})], Path({str(entry.parent)!r}))
        sys.exit(0 if result.ok else 3)
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert entry.is_symlink() and os.readlink(entry) == "/dev/zero"
