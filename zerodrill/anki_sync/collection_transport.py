"""The collection as a transport of the event stream (:mod:`zerodrill.srs.sync.transport`).

Anki's revlog cannot say whose answer a row is, nor carry an undo or a card action; so each
machine's events also travel in the collection whole, with their identity (origin, seq), one
event a line as the folder's log files hold them (:mod:`zerodrill.srs.sync.wire`): in the
styling of a note type of its own, ``zerodrill event log <machine id>``, which no note uses.

Why a note type: Anki's ordinary sync carries every note type to every device, each as a
whole, the newer by its time winning; only its machine writes one (by adding lines), always
with a later time, so nothing is lost. (Anki's config entries would not do: a sync replaces
the older side's whole config with the newer's, and an entry only one side has is lost.)
A terminal that syncs with Anki alone thus reads another's grades, undos and card actions as
that machine's events, the same ones a folder sync would give it, each once.

A position is ``<lines read>:<digest of them>``: a log no longer what was read (a collection
taken whole from the server, a work copy thrown away, the note type deleted) is read from
its start. A log is untrusted like any log file: a line that is not an event is skipped, with
one warning.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from zerodrill.anki_sync.backend import db
from zerodrill.srs.anki_import import ORIGIN as ANKI_ORIGIN
from zerodrill.srs.sync.logfile import MAX_LINE_CHARS
from zerodrill.srs.sync.transport import Event, Page
from zerodrill.srs.sync.wire import ORIGIN_RE, BadLine, parse_line
from zerodrill.words import plural

if TYPE_CHECKING:
    from anki.collection import Collection

#: The name of the note type carrying one machine's events, less the machine id.
PREFIX = "zerodrill event log "


class CollectionTransport:
    """The open collection ``col``; ``name`` tells its positions in the store from another
    collection's (another account's)."""

    def __init__(self, col: Collection, name: str) -> None:
        self.col = col
        self.name = f"anki:{name}"
        self.title = "Anki's collection"
        # Answers given in Anki are in its revlog, which every terminal reads, under the same
        # identity: carried twice, they would double a log the size of the user's history.
        self.native = frozenset({ANKI_ORIGIN})
        #: Whether a write changed the collection (Anki then has something to send).
        self.changed = False

    def origins(self) -> list[str]:
        return sorted(self._logs())

    def where(self, origin: str) -> str:
        return f"Anki's note type {PREFIX}{origin}"

    def read(self, origin: str, position: str | None) -> Iterator[Page]:
        lines = self._lines(origin)
        if lines is None:
            yield Page(problem=f"{self.where(origin)} is not a log zerodrill wrote")
            return
        reached = _reached(lines, position)
        start = reached or 0
        events: list[Event] = []
        bad = 0
        for line in lines[start:]:
            try:
                if len(line) > MAX_LINE_CHARS:
                    raise BadLine("too long")
                events.append(parse_line(line))
            except BadLine:
                bad += 1
        warnings = [f"{self.where(origin)}: {plural(bad, 'damaged line')} skipped"] if bad else []
        yield Page(
            machine=origin,
            events=events,
            position=_position(lines, len(lines)),
            restarted=position is not None and reached is None,
            warnings=warnings,
        )

    def write(self, origin: str, events: Sequence[Event], position: str | None) -> str | None:
        if not events:  # a machine with nothing to say adds no note type
            return position
        found = self._logs().get(origin)
        lines = self._lines(origin) or []
        just_read = _reached(lines, position) == len(lines)
        lines += [event.to_json() for event in events]
        text = "".join(line + "\n" for line in lines)
        models = self.col.models
        if found is None:
            new = models.new(PREFIX + origin)
            models.add_field(new, models.new_field("Log"))
            template = models.new_template("Log")
            template["qfmt"] = template["afmt"] = "{{Log}}"
            models.add_template(new, template)
            new["css"] = text
            models.add_dict(new)
        else:
            from anki.models import NotetypeId

            kind = models.get(NotetypeId(found))
            assert kind is not None, "listed just now"
            before = int(kind["mod"])
            kind["css"] = text
            models.update_dict(kind)
            # Anki's sync takes the newer of two versions by the second: a later second.
            db(self.col).execute(
                "UPDATE notetypes SET mtime_secs = ? WHERE id = ? AND mtime_secs <= ?",
                before + 1, found, before,
            )  # fmt: skip
        self.changed = True
        return _position(lines, len(lines)) if just_read else position

    def _logs(self) -> dict[str, int]:
        """The machines with a log in the collection: the id of each one's note type."""
        kinds = self.col.models.all_names_and_ids()
        names = ((n.name.removeprefix(PREFIX), n.id) for n in kinds if n.name.startswith(PREFIX))
        return {name: int(ntid) for name, ntid in names if ORIGIN_RE.fullmatch(name)}

    def _lines(self, origin: str) -> list[str] | None:
        """The log's lines ([] if there is none); None if it is not text."""
        found = self._logs().get(origin)
        if found is None:
            return []
        from anki.models import NotetypeId

        kind = self.col.models.get(NotetypeId(found))
        text = kind.get("css") if kind is not None else ""
        return text.splitlines() if isinstance(text, str) else None


def _position(lines: Sequence[str], count: int) -> str:
    digest = hashlib.sha256("".join(line + "\n" for line in lines[:count]).encode()).hexdigest()
    return f"{count}:{digest[:32]}"


def _reached(lines: Sequence[str], position: str | None) -> int | None:
    """How many of ``lines`` ``position`` read (0 without one); None if they are no longer
    what it read."""
    if position is None:
        return 0
    count, _, _ = position.partition(":")
    if not count.isdigit() or int(count) > len(lines):
        return None
    return int(count) if _position(lines, int(count)) == position else None
