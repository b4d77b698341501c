"""Note identity: GUIDs, deck IDs, media names and the manifest's format never change.

Anki recognises a user's notes by these. Were one to change, every user's next import would
add duplicates instead of updating their notes in place, so each is pinned here to the value
every earlier export wrote, and checked against the definition it was first written to.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import genanki.util
from hypothesis import given, settings
from hypothesis import strategies as st

from zerodrill.export.ids import deck_anki_id, media_name, note_guid
from zerodrill.export.manifest import Manifest, NoteRecord, NoteTypeRecord
from zerodrill.export.notes import id_search, id_tag

_BASE91 = "".join(genanki.util.BASE91_TABLE)


def _guid_as_first_written(deck_id: str, card_id: str) -> str:
    """The first 8 bytes of the SHA-256 of ``deck__card``, in Anki's base 91, no leading zeros."""
    n = int.from_bytes(hashlib.sha256(f"{deck_id}__{card_id}".encode()).digest()[:8], "big")
    digits = ""
    while n:
        n, d = divmod(n, 91)
        digits = _BASE91[d] + digits
    return digits


def test_guids_deck_ids_and_media_names_are_the_ones_already_published() -> None:
    assert note_guid("deepspeed-zero", "stage-key") == "K,*;9k=79$"
    assert note_guid("deepspeed-zero", "zero-stage-3-params") == "tk0%Ou/gK;"
    assert note_guid("export-kinds", "fsdp") == "FAgUnY&8aX"
    assert note_guid("", "") == "z+VBQ9+v.E"
    assert deck_anki_id("deepspeed-zero") == 8763696565083067
    assert deck_anki_id("export-kinds") == 1732045441646653
    assert (
        media_name("deepspeed-zero", "img/Zero Stages.PNG", b"png bytes")
        == "zerodrill-deepspeed-zero-Zero-Stages-d013614dc14a.png"
    )


def test_the_id_tag_is_the_one_readme_tells_users_to_search_for() -> None:
    # Users save searches and write notes with it: like a GUID, it never changes once shipped.
    assert id_tag("deepspeed-zero/stage-key") == "zerodrill::id::deepspeed-zero/stage-key"
    search = id_search("deepspeed-zero/stage-key")
    assert search == "tag:zerodrill::id::deepspeed-zero/stage-key"
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert f"`{search}`" in readme


@settings(max_examples=3000, deadline=None)
@given(st.text(max_size=40), st.text(max_size=40))
def test_note_guid_is_the_guid_first_written_for_any_ids(deck_id: str, card_id: str) -> None:
    assert note_guid(deck_id, card_id) == _guid_as_first_written(deck_id, card_id)
    assert note_guid(deck_id, card_id) == genanki.guid_for(deck_id, card_id)


def _dumps_as_first_written(manifest: Manifest) -> str:
    """The manifest's text as zerodrill first wrote it (by hand, one entry per line)."""
    about = (
        "Written by `zerodrill export`; commit it with the package. It keeps note IDs "
        "and modification times stable, so rebuilds are byte-identical and edited notes "
        "update in place in Anki."
    )

    def entries(rows: list[str]) -> list[str]:
        return [row + "," for row in rows[:-1]] + rows[-1:]

    lines = ["{", ' "format": 1,', f' "about": {json.dumps(about)},', ' "notetypes": {']
    lines += entries(
        [
            f'  {json.dumps(k)}: {{"hash": "{v.digest}", "mod": {v.mod}}}'
            for k, v in sorted(manifest.notetypes.items())
        ]
    )
    lines += [" },", ' "notes": {']
    lines += entries(
        [
            f'  {json.dumps(k, ensure_ascii=False)}: {{"id": {i}, "hash": "{d}", "mod": {m}}}'
            for k, (i, d, m) in sorted(manifest.notes.items())
        ]
    )
    lines += [" }", "}"]
    return "\n".join(lines) + "\n"


_DIGESTS = st.text("0123456789abcdef", min_size=64, max_size=64)
_TIMES = st.integers(min_value=0, max_value=2**53)


@settings(max_examples=1000, deadline=None)
@given(
    st.dictionaries(
        st.text(max_size=30), st.builds(NoteRecord, _TIMES, _DIGESTS, _TIMES), max_size=8
    ),
    st.dictionaries(st.text(max_size=12), st.builds(NoteTypeRecord, _DIGESTS, _TIMES), max_size=4),
)
def test_manifest_text_is_the_format_first_written(
    notes: dict[str, NoteRecord], notetypes: dict[str, NoteTypeRecord]
) -> None:
    manifest = Manifest(notes, notetypes)
    assert manifest.dumps() == _dumps_as_first_written(manifest)


def test_committed_manifest_is_in_that_format() -> None:
    path = Path(__file__).resolve().parent.parent / "exports" / "deepspeed-zero.manifest.json"
    manifest = Manifest.load(path)
    assert manifest.notes and path.read_text(encoding="utf-8") == manifest.dumps()
