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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from zerodrill.export.errors import ExportError
from zerodrill.export.ids import new_note_ids

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
    """Where a package's manifest lives: beside it, ``<name>.manifest.json``."""
    return package_path.with_name(package_path.stem + ".manifest.json")


@dataclass(frozen=True)
class Manifest:
    """What a package holds and since when: the memory that makes builds reproducible."""

    #: note key (``deck/card``) -> its record
    notes: Mapping[str, NoteRecord] = field(default_factory=dict)
    #: note type (model) ID, as a string -> its record
    notetypes: Mapping[str, NoteTypeRecord] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Manifest:
        """The manifest at ``path``; an empty one if there is none yet."""
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls()
        except OSError as exc:
            raise ExportError(f"cannot read manifest {path}: {exc.strerror or exc}") from exc
        except ValueError as exc:
            raise ExportError(f"cannot read manifest {path}: {exc}") from exc
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            raise ExportError(f"{path} is not a zerodrill export manifest (format 1)")
        try:
            notes = {
                k: NoteRecord(int(v["id"]), str(v["hash"]), int(v["mod"]))
                for k, v in raw["notes"].items()
            }
            notetypes = {
                k: NoteTypeRecord(str(v["hash"]), int(v["mod"]))
                for k, v in raw["notetypes"].items()
            }
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ExportError(f"{path}: malformed manifest ({exc})") from exc
        return cls(notes, notetypes)

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
        # and a digest this build computed (hex), which need no escaping, and the export
        # writes one line per note of the deck, so a json.dumps per line shows.
        lines += _rows(
            f"  {json.dumps(key, ensure_ascii=False)}: "
            f'{{"id": {rec.id:d}, "hash": "{rec.digest}", "mod": {rec.mod:d}}}'
            for key, rec in sorted(self.notes.items())
        )
        lines += [" }", "}"]
        return "\n".join(lines) + "\n"


def _entries(items: Iterable[tuple[str, dict[str, object]]]) -> list[str]:
    """``"key": {...}`` lines, all but the last ending in a comma."""
    return _rows(f"  {quoted_key}: {json.dumps(value)}" for quoted_key, value in items)


def _rows(lines: Iterable[str]) -> list[str]:
    """``lines`` with all but the last ending in a comma."""
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
    taken = [r.id for r in records.values() if r.id]
    for key, note_id in zip(new, new_note_ids(len(new), taken, now), strict=True):
        records[key] = records[key]._replace(id=note_id)
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
    return records
