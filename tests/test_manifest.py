"""The manifest as a user may leave it: hand-edited, truncated, or any bytes at all."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_support import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zerodrill.deck.load import load_paths
from zerodrill.deck.model import Deck
from zerodrill.export import apkg
from zerodrill.export.manifest import MAX_MOD, MAX_NOTE_ID

DATA = Path(__file__).parent / "data" / "export"
T0 = 1_760_000_000
ADVICE = "delete it to start afresh"


def _deck() -> list[Deck]:
    result = load_paths([DATA / "kinds"])
    assert result.ok
    return list(result.decks)


DECKS = _deck()
MANIFEST = json.loads(apkg.build(DECKS, clock=lambda: T0).manifest.dumps())
KEYS = sorted(MANIFEST["notes"])
TYPES = sorted(MANIFEST["notetypes"])


def _edited(edit: Callable[[dict], object]) -> str:  # type: ignore[type-arg]
    raw = json.loads(json.dumps(MANIFEST))
    edit(raw)
    return json.dumps(raw)


def _set(table: str, key: str, field: str, value: object) -> Callable[[dict], object]:  # type: ignore[type-arg]
    return lambda raw: raw[table][key].__setitem__(field, value)


HAND_EDITS = {
    "duplicate id": (
        _set("notes", KEYS[1], "id", MANIFEST["notes"][KEYS[0]]["id"]),
        f"notes '{KEYS[0]}' and '{KEYS[1]}' have the same note ID",
    ),
    "ids whose cards meet": (
        _set("notes", KEYS[1], "id", MANIFEST["notes"][KEYS[0]]["id"] + 1),
        "note IDs closer than 1000",
    ),
    "id 2**70": (_set("notes", KEYS[0], "id", 2**70), "'id' 1180591620717411303424 is not"),
    "id 0": (_set("notes", KEYS[0], "id", 0), "'id' 0 is not a whole number from 1 to"),
    "id as text": (_set("notes", KEYS[0], "id", "17"), "'id' \"17\" is not a whole number"),
    "id true": (_set("notes", KEYS[0], "id", True), "'id' true is not"),
    "id 1.5": (_set("notes", KEYS[0], "id", 1.5), "'id' 1.5 is not"),
    "mod -1": (_set("notes", KEYS[0], "mod", -1), "'mod' -1 is not"),
    "note type mod 2**63": (_set("notetypes", TYPES[0], "mod", 2**63), "'mod' 9223372036854775808"),
    "hash not hex": (_set("notes", KEYS[0], "hash", "xyz"), "'hash' \"xyz\" is not 64 lowercase"),
    "entry not an object": (lambda raw: raw["notes"].__setitem__(KEYS[0], [1]), "not an object"),
    "notes not an object": (lambda raw: raw.__setitem__("notes", []), "'notes' is not an object"),
    "no note types": (lambda raw: raw.pop("notetypes"), "'notetypes' is not an object"),
}


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run_cli(capsys, *args)


@pytest.mark.parametrize("case", list(HAND_EDITS))
def test_a_hand_edited_manifest_is_one_line_naming_it_and_what_to_do(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit, what = HAND_EDITS[case]
    target = tmp_path / "deck.apkg"
    mpath = apkg.manifest_path(target)
    mpath.write_text(_edited(edit))
    code, out, err = _run(["export", str(DATA / "kinds"), "-o", str(target)], capsys)
    assert code == 1 and out == "" and not target.exists()
    assert err.count("\n") == 1 and err.startswith(f"zerodrill: malformed manifest {mpath} (")
    assert what in err and ADVICE in err
    assert mpath.read_text() == _edited(edit)  # left as it was


@pytest.mark.parametrize(
    ("content", "what"),
    [
        ("[" * 100_000, "nested too deeply"),
        ('{"format": 1, "notes": {"a": {"id": ' + "9" * 5000 + "}}}", "not JSON"),
        ('{"format": 1, "notes": {"a": {"id": 1e999}}}', "'id' Infinity is not"),
    ],
    ids=["nesting", "huge number", "infinity"],
)
def test_json_that_python_chokes_on_is_one_line(
    content: str, what: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "deck.apkg"
    apkg.manifest_path(target).write_text(content)
    code, _, err = _run(["export", str(DATA / "kinds"), "-o", str(target)], capsys)
    assert code == 1 and err.count("\n") == 1 and what in err and ADVICE in err


def test_values_at_the_limits_build(tmp_path: Path) -> None:
    def edit(raw: dict) -> None:  # type: ignore[type-arg]
        raw["notes"][KEYS[0]].update(id=MAX_NOTE_ID - 10_000, mod=MAX_MOD)
        raw["notetypes"][TYPES[0]]["mod"] = MAX_MOD

    mpath = tmp_path / "m.manifest.json"
    mpath.write_text(_edited(edit))
    manifest = apkg.Manifest.load(mpath)
    assert apkg.build(DECKS, manifest=manifest, clock=lambda: T0).stats.notes == len(KEYS)


def test_no_room_for_new_ids_is_an_export_error(tmp_path: Path) -> None:
    mpath = tmp_path / "m.manifest.json"
    mpath.write_text(_edited(lambda raw: raw["notes"].pop(KEYS[0]) and None))
    manifest = apkg.Manifest.load(mpath)
    crowded = apkg.Manifest(
        {
            k: r._replace(id=MAX_NOTE_ID - i * 1000)
            for i, (k, r) in enumerate(manifest.notes.items())
        },
        manifest.notetypes,
    )
    with pytest.raises(apkg.ExportError, match="no room for 1 new notes"):
        apkg.build(DECKS, manifest=crowded, clock=lambda: T0)


def _load_and_build(tmp_path: Path, data: bytes) -> None:
    mpath = tmp_path / "fuzz.manifest.json"
    mpath.write_bytes(data)
    try:
        manifest = apkg.Manifest.load(mpath)
        written = apkg.build(DECKS, manifest=manifest, clock=lambda: T0).manifest
    except apkg.ExportError as exc:
        assert "\n" not in str(exc)
        return
    # What a build writes, the next build reads.
    mpath.write_text(written.dumps(), encoding="utf-8")
    assert apkg.Manifest.load(mpath) == written


_SETTINGS = settings(
    max_examples=1500 if os.environ.get("ZERODRILL_HEAVY") else 150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@_SETTINGS
@given(st.binary(max_size=300))
def test_any_bytes_are_a_manifest_or_an_export_error(tmp_path: Path, data: bytes) -> None:
    _load_and_build(tmp_path, data)


_IDS = [MANIFEST["notes"][k]["id"] for k in KEYS]
_VALUES = st.one_of(
    st.integers(min_value=-(2**64), max_value=2**64),
    st.sampled_from([0, 1, 999, MAX_NOTE_ID, MAX_MOD, MAX_MOD + 1, 2**63, *_IDS]),
    st.sampled_from(_IDS).map(lambda i: i + 1),
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    st.text(max_size=70),
    st.just("0" * 64),
)
_FIELDS = st.tuples(
    st.sampled_from(
        [("notes", k) for k in [*KEYS, "other/x", "\x1b]2;x\x07"]]
        + [("notetypes", k) for k in [*TYPES, "1"]]
    ),
    st.sampled_from(["id", "hash", "mod", "x"]),
)


@_SETTINGS
@given(st.lists(st.tuples(_FIELDS, _VALUES), min_size=1, max_size=4))
def test_any_hand_edit_of_a_manifest_is_a_manifest_or_an_export_error(
    tmp_path: Path, edits: list[tuple[tuple[tuple[str, str], str], object]]
) -> None:
    raw = json.loads(json.dumps(MANIFEST))
    for ((table, key), field), value in edits:
        raw[table].setdefault(key, dict(MANIFEST["notes"][KEYS[0]]))
        raw[table][key][field] = value
    _load_and_build(tmp_path, json.dumps(raw).encode())


def test_keys_with_control_characters_are_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def edit(raw: dict) -> None:  # type: ignore[type-arg]
        raw["notes"]["x/\x1b[2J"] = dict(raw["notes"][KEYS[0]])

    target = tmp_path / "deck.apkg"
    apkg.manifest_path(target).write_text(_edited(edit))
    code, _, err = _run(["export", str(DATA / "kinds"), "-o", str(target)], capsys)
    assert code == 1 and "\x1b" not in err and "x/\\x1b[2J" in err


def test_deleting_the_manifest_then_exporting_works(tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(DATA / "kinds", src)
    out = tmp_path / "deck.apkg"
    apkg.export(DECKS, out, clock=lambda: T0)
    apkg.manifest_path(out).unlink()
    stats = apkg.export(DECKS, out, clock=lambda: T0 + 60)
    assert stats.notes == len(KEYS) and apkg.manifest_path(out).is_file()


def test_a_pipe_in_the_manifests_place_is_refused_not_waited_on(tmp_path: Path) -> None:
    import subprocess
    import sys

    target = tmp_path / "deck.apkg"
    os.mkfifo(apkg.manifest_path(target))
    proc = subprocess.run(
        [sys.executable, "-m", "zerodrill", "export", str(DATA / "kinds"), "-o", str(target)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )
    assert proc.returncode == 1 and not target.exists()
    assert proc.stderr == (
        f"zerodrill: cannot read manifest {apkg.manifest_path(target)}: not a regular file\n"
    )


@pytest.mark.parametrize("table", ["notes", "notetypes"])
def test_a_time_at_the_limit_is_never_bumped_past_it(table: str, tmp_path: Path) -> None:
    """An edited note (or note type) gets a newer time; at the limit there is none that the
    next load accepts, so the build says so instead of writing a manifest it then refuses."""
    key = KEYS[0] if table == "notes" else TYPES[0]

    def edit(raw: dict) -> None:  # type: ignore[type-arg]
        raw[table][key].update(mod=MAX_MOD, hash="0" * 64)  # "changed since"

    mpath = tmp_path / "m.manifest.json"
    mpath.write_text(_edited(edit))
    with pytest.raises(apkg.ExportError, match="times leave no room for a newer one"):
        apkg.build(DECKS, manifest=apkg.Manifest.load(mpath), clock=lambda: T0)
