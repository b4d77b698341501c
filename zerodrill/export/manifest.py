"""The manifest kept beside each package: what it holds and since when.

For every note it records a digest of what Anki will store (fields as HTML, tags, note type),
the note's modification time and its note ID; for every note type, a digest of its fields,
templates and CSS, and its modification time. A build reuses the recorded time while a digest
is unchanged, and takes a new, strictly later one (the build's clock) only for what changed;
a new note gets an ID once, and keeps it. That is what lets a rebuild of unchanged decks be
byte-identical at any clock time, while an edited note is newer than the user's copy, which is
the only kind of note Anki updates on import.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from msgspec import Struct, field

from zerodrill.deck.control_chars import shown
from zerodrill.errors import ExportError
from zerodrill.export.ids import ID_STRIDE, new_note_ids

FORMAT = 1
_ABOUT = (
    "Written by `zerodrill export`; commit it with the package. It keeps note IDs "
    "and modification times stable, so rebuilds are byte-identical and edited notes "
    "update in place in Anki."
)


class NoteRecord(NamedTuple):
    """A note's ID, the digest of what Anki stores for it, and its modification time (s)."""

    id: int
    digest: str
    mod: int


class NoteTypeRecord(NamedTuple):
    digest: str
    mod: int


def manifest_path(package_path: Path) -> Path:
    return package_path.with_name(package_path.stem + ".manifest.json")


class Manifest(Struct, frozen=True):
    """What a package holds and since when: the memory that makes builds reproducible."""

    #: note key (``deck/card``) -> its record
    notes: Mapping[str, NoteRecord] = field(default_factory=dict)
    #: note type (model) ID, as a string -> its record
    notetypes: Mapping[str, NoteTypeRecord] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Manifest:
        """The manifest at ``path``; an empty one if there is none yet.

        Whatever the file holds, the answer is a manifest whose every value the build, SQLite
        and Anki accept, or an ExportError naming the file and what is wrong with it.
        """
        try:
            # A pipe or device in its place would block the read or never end it.
            if path.exists() and not path.is_file() and not path.is_dir():
                raise ExportError(f"cannot read manifest {path}: not a regular file")
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return cls()
        except OSError as exc:
            raise ExportError(f"cannot read manifest {path}: {exc.strerror or exc}") from None
        except ValueError:
            raise _unusable(path, "cannot read manifest", "it is not UTF-8") from None
        try:
            raw = json.loads(text)
        except RecursionError:
            raise _unusable(path, "cannot read manifest", "nested too deeply") from None
        except ValueError as exc:
            raise _unusable(path, "cannot read manifest", f"not JSON: {exc}") from None
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            raise _unusable(path, "not a zerodrill export manifest", f"format {FORMAT}")
        try:
            manifest = cls(
                {k: _note_record(v) for k, v in _table(raw, "notes").items()},
                {k: _notetype_record(v) for k, v in _table(raw, "notetypes").items()},
            )
            manifest.check()
        except _Bad as exc:
            raise _unusable(path, "malformed manifest", str(exc)) from None
        return manifest

    def check(self) -> None:
        """Refuse two notes whose card IDs (note ID + template ordinal) could meet."""
        ids = sorted((rec.id, key) for key, rec in self.notes.items())
        for (low, low_key), (high, high_key) in zip(ids, ids[1:], strict=False):
            if high - low < ID_STRIDE:
                same = "the same note ID" if high == low else "note IDs closer than 1000"
                raise _Bad(f"notes '{shown(low_key)}' and '{shown(high_key)}' have {same}")

    def dumps(self) -> str:
        """Stable JSON with one note per line, so a rebuild's diff shows the notes it bumped.

        The lines are put together here because ``json.dumps(indent=...)`` would spread each
        note over five lines; each key and entry is ``json.dumps``'s, with note keys written
        as they are (``ensure_ascii=False``) and note type keys in ASCII, as every manifest so
        far has been (a test checks the bytes against the format as first written).
        """
        lines = ["{", f' "format": {FORMAT},', f' "about": {json.dumps(_ABOUT)},']
        lines.append(' "notetypes": {')
        lines += _entries(
            (json.dumps(key), {"hash": rec.digest, "mod": rec.mod})
            for key, rec in sorted(self.notetypes.items())
        )
        lines += [" },", ' "notes": {']
        # One line per note, written as json.dumps writes the record: its values are two ints
        # and a digest this build computed (hex), which need no escaping, and so do the keys
        # (slugs) unless one holds a quote, a backslash or a control character. A json.dumps
        # per line missed the export's benchmark goal.
        plain = _JSON_ESCAPED.search("".join(self.notes)) is None
        lines += _rows(
            f"  {_quoted(key) if plain else json.dumps(key, ensure_ascii=False)}: "
            f'{{"id": {rec.id:d}, "hash": "{rec.digest}", "mod": {rec.mod:d}}}'
            for key, rec in sorted(self.notes.items())
        )
        lines += [" }", "}"]
        return "\n".join(lines) + "\n"


#: What a manifest may hold, so that every ID and time stays an integer that SQLite stores and
#: Anki reads (i64, with a collection time in ms) after any number of builds: note IDs below
#: 2**53 (Anki's own are creation times in ms, about 2**40), times in seconds before 2106.
MAX_NOTE_ID = 2**53 - 1
MAX_MOD = 2**32 - 1
_DIGEST = re.compile(r"[0-9a-f]{64}")
#: What json.dumps(ensure_ascii=False) writes escaped in a string.
_JSON_ESCAPED = re.compile(r'["\\\x00-\x1f]')
_HOW_TO_START_AFRESH = (
    "delete it to start afresh (Anki still knows each note by its GUID, and the next import "
    "updates every note in place)"
)


class _Bad(ValueError):
    """What is wrong with a manifest's content, in words."""


def _unusable(path: Path, what: str, detail: str) -> ExportError:
    return ExportError(f"{what} {path} ({detail}); {_HOW_TO_START_AFRESH}")


def _table(raw: Mapping[str, object], name: str) -> Mapping[str, object]:
    table = raw.get(name)
    if not isinstance(table, dict):
        raise _Bad(f"'{name}' is not an object")
    return table


def _fields(value: object, what: str) -> Mapping[str, object]:
    if not isinstance(value, dict):
        raise _Bad(f"a {what} entry is not an object")
    return value


def _int(entry: Mapping[str, object], name: str, low: int, high: int) -> int:
    value = entry.get(name)
    if type(value) is not int or not low <= value <= high:
        raise _Bad(f"'{name}' {_short(value)} is not a whole number from {low} to {high}")
    return value


def _digest(entry: Mapping[str, object]) -> str:
    value = entry.get("hash")
    if not isinstance(value, str) or not _DIGEST.fullmatch(value):
        raise _Bad(f"'hash' {_short(value)} is not 64 lowercase hex digits")
    return value


def _short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=True, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _note_record(value: object) -> NoteRecord:
    entry = _fields(value, "note")
    note_id = _int(entry, "id", 1, MAX_NOTE_ID)
    return NoteRecord(note_id, _digest(entry), _int(entry, "mod", 0, MAX_MOD))


def _notetype_record(value: object) -> NoteTypeRecord:
    entry = _fields(value, "note type")
    return NoteTypeRecord(_digest(entry), _int(entry, "mod", 0, MAX_MOD))


def _entries(items: Iterable[tuple[str, dict[str, object]]]) -> list[str]:
    return _rows(f"  {quoted_key}: {json.dumps(value)}" for quoted_key, value in items)


def _quoted(text: str) -> str:
    return f'"{text}"'


def _rows(lines: Iterable[str]) -> list[str]:
    rows = list(lines)
    return [row + "," for row in rows[:-1]] + rows[-1:]


def note_records(digests: Mapping[str, str], previous: Manifest, now: int) -> dict[str, NoteRecord]:
    """Each note's record for this build, from its digest (note key -> digest, in deck order).

    An unchanged note keeps its record; an edited one keeps its ID and gets a time later than
    both ``now`` and its last; a new one gets the time ``now`` and a new ID.
    """
    records: dict[str, NoteRecord] = {}
    new: list[str] = []
    for key, digest in digests.items():
        prev = previous.notes.get(key)
        if prev is None:
            new.append(key)
            records[key] = NoteRecord(0, digest, now)
        elif prev.digest == digest:
            records[key] = prev
        else:
            records[key] = NoteRecord(prev.id, digest, max(now, prev.mod + 1))
    # The previous build's notes that are gone keep their IDs: none is ever given again.
    taken = [r.id for r in records.values() if r.id] + [r.id for r in previous.notes.values()]
    fresh = new_note_ids(len(new), taken, now)
    if fresh and fresh[-1] > MAX_NOTE_ID:
        raise ExportError(
            f"the manifest's note IDs leave no room for {len(new)} new notes; "
            + _HOW_TO_START_AFRESH
        )
    for key, note_id in zip(new, fresh, strict=True):
        records[key] = records[key]._replace(id=note_id)
    _check_times(records.values())
    return records


def notetype_records(
    digests: Mapping[str, str], previous: Manifest, now: int
) -> dict[str, NoteTypeRecord]:
    """Each note type's record (model ID -> digest in, record out), kept while unchanged."""
    records: dict[str, NoteTypeRecord] = {}
    for key, digest in digests.items():
        prev = previous.notetypes.get(key)
        if prev is not None and prev.digest == digest:
            records[key] = prev
        else:
            records[key] = NoteTypeRecord(digest, max(now, prev.mod + 1 if prev else 0))
    _check_times(records.values())
    return records


def _check_times(records: Iterable[NoteRecord | NoteTypeRecord]) -> None:
    """A time this build gives must load again: past :data:`MAX_MOD` only by a hand edit."""
    if any(record.mod > MAX_MOD for record in records):
        raise ExportError(
            "the manifest's times leave no room for a newer one; " + _HOW_TO_START_AFRESH
        )
