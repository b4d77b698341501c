"""The transport seam: what a sync (:mod:`.exchange`) needs of whatever carries events between
machines. The shared folder is one transport (:mod:`.folder`); Anki's collection's media is
another (:mod:`zerodrill.anki_sync.media_transport`).

A transport holds *origins*, each named by the machine id whose events it carries first-hand
(the folder's ``zerodrill-<id>.jsonl``; in Anki's media, the files named by it), and
is asked:

- :meth:`Transport.origins`: the origins it holds now;
- :meth:`Transport.read`: an origin's events after a position an earlier read gave (all of
  them without one), in pages, each with the position after it. An origin that is no longer
  what the position was read from (replaced, rewritten, cut) is read from its start, and its
  first page says so;
- :meth:`Transport.write`: this machine's events, added to its own origin as their lines
  (:class:`Line`).

A position is the transport's own text, opaque to the rest. The store keeps it for each origin
(:class:`~zerodrill.srs.store.sync_state.SyncState`), with what the origin was seen to carry,
once the events read before it are in the local log: a sync with nothing new reads nothing
old, and one stopped half-way reads again what it did not finish.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from msgspec import Struct, field

from zerodrill.errors import UserError
from zerodrill.srs.events import StreamEvent

#: What an origin carries: events of every kind, one numbering.
Event = StreamEvent


class SyncError(UserError):
    """The transport cannot be used (a folder missing or not writable, this machine's own
    origin not its own): one line."""


class Line(Protocol):
    """An event as a transport writes it: its number and its line (:mod:`.wire`, without the
    newline); the store gives them so (:class:`~zerodrill.srs.store.sync_state.Outgoing`)."""

    @property
    def seq(self) -> int: ...
    @property
    def line(self) -> str: ...


class Page(Struct):
    """Events read from one origin, and where the read then stood."""

    #: By its own account, the machine whose events the origin carries first-hand; None
    #: until it says (a file whose header has not arrived).
    machine: str | None = None
    #: Complete, well-formed events, in the origin's order.
    events: list[Event] = field(default_factory=list)
    #: ``read(origin, position)`` goes on after this page; None: from the start.
    position: str | None = None
    #: Read from the start although a position was given: what was known of it is void.
    restarted: bool = False
    #: The origin cannot be read at all, and why (the page is then its only one, and empty).
    problem: str | None = None
    #: For the user: what was skipped (one line each).
    warnings: list[str] = field(default_factory=list)


class Transport(Protocol):
    #: Tells this transport's positions, in the store, from another's.
    name: str
    #: The transport as the user knows it (the folder as given), for messages.
    title: str
    #: The origins of the events :meth:`native` may say it carries by itself: it is asked of
    #: those only (the others' events are not read as events only to ask).
    native_origins: frozenset[str]

    def native(self, event: Event) -> bool:
        """The transport carries ``event`` by itself, not through an origin of its own (Anki's
        collection: most answers in its revlog): never written, taken as carried."""
        ...

    def origins(self) -> list[str]:
        """The origins there are now; :class:`SyncError` if the transport cannot be used."""
        ...

    def where(self, origin: str) -> str:
        """``origin`` as the user knows it (a file's path), for messages."""
        ...

    def read(self, origin: str, position: str | None) -> Iterator[Page]:
        """``origin``'s events after ``position`` (from its start if None, or if it is no
        longer what ``position`` was read from), at least one page; never raises for what the
        origin holds (a page says what could not be read)."""
        ...

    def write(self, origin: str, events: Sequence[Line], position: str | None) -> str | None:
        """Add ``events`` (their lines) to this machine's own ``origin``, read up to
        ``position``; where to read it from next: after them if the origin was just what was
        read, else ``position`` (they are read back then). ``OSError`` if it cannot be
        written."""
        ...
