"""The learner's settings as saved in the review database, by name, as text. What they mean,
and the profile read from them, is :mod:`zerodrill.srs.settings`'s. Reach them as
:attr:`zerodrill.srs.store.Store.settings`.

Most stay on this machine, in the ``setting`` table (made by the first save; until then
nothing is saved). Those in :data:`TRAVELLING` are events of the one log instead (a setting
event: :attr:`~zerodrill.srs.card_actions.Action.SETTING`), which every sync carries: the
newest made on any machine is the value (:data:`~zerodrill.srs.projections.SETTINGS`), and
one saved here before it travelled is read until then."""

from __future__ import annotations

from datetime import datetime

from zerodrill.srs.card_actions import Action, CardActionEvent
from zerodrill.srs.days import local_now, study_day
from zerodrill.srs.projections import SETTINGS
from zerodrill.srs.store import eventlog
from zerodrill.srs.store.file import Damaged
from zerodrill.srs.store.migrations import SCHEMA_VERSION, SETTING_TABLE, has_tables, make_tables
from zerodrill.srs.store.part import StorePart

#: The settings that travel with the log: FSRS's parameters, so that a fit made on one machine
#: (``zerodrill anki optimize``, or the preset of Anki's a sync adopts) schedules on all.
TRAVELLING = frozenset({"fsrs_parameters"})


class SavedSettings(StorePart):
    """The store's saved settings, through its connection and transactions."""

    def get(self, name: str) -> str | None:
        """The value saved for setting ``name``; None if none was saved."""
        with self._reading():
            if name in TRAVELLING:
                travelled = self._travelled().get(name)
                if travelled is not None:
                    return travelled.value
            if not has_tables(self._conn, "setting"):
                return None
            row = self._conn.execute(
                "SELECT CAST(value AS BLOB) FROM setting WHERE name = ?", (name,)
            ).fetchone()
            if row is None:
                return None
            try:
                return bytes(row[0]).decode("utf-8")
            except (TypeError, UnicodeDecodeError) as exc:
                raise Damaged(f"the setting {name!r} is not text") from exc

    def saved_at(self, name: str) -> datetime | None:
        """When setting ``name``, one of :data:`TRAVELLING`, was given the value it has, on
        whichever machine; None if it has none yet (or none that travelled)."""
        with self._reading():
            travelled = self._travelled().get(name)
        return travelled.at if travelled is not None else None

    def save(self, name: str, value: str, *, at: datetime | None = None) -> None:
        """Save ``value`` for setting ``name``, replacing what was saved; on disk on return.
        One of :data:`TRAVELLING` is logged as this machine's event, made ``at`` (default:
        now; earlier for a value that was made elsewhere earlier, as in Anki's preset),
        unless it is the value already."""
        with self._writing():
            if name in TRAVELLING:
                if self.get(name) != value:
                    self._log(name, value, at or local_now())
                return
            make_tables(self._conn, SETTING_TABLE)
            self._conn.execute(
                "INSERT INTO setting (name, value) VALUES (?, ?) "
                "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                (name, value),
            )

    def _travelled(self) -> dict[str, CardActionEvent]:
        # A file an earlier zerodrill wrote, read without migrating it, has no setting events.
        if self._conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
            return {}
        return SETTINGS.fold(eventlog.of_kinds(self._conn, SETTINGS.actions, SETTINGS.grades))

    def _log(self, name: str, value: str, at: datetime) -> None:
        here = eventlog.machine_origin(self._conn)
        seq = eventlog.next_seq(self._conn, here)
        event = CardActionEvent(here, seq, name, at, study_day(at), Action.SETTING, value=value)
        eventlog.insert(self._conn, event)
