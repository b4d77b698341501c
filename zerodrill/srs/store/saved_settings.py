"""The learner's settings as saved in the review database, by name, as text. What they mean,
and the profile read from them, is :mod:`zerodrill.srs.settings`'s. Reach them as
:attr:`zerodrill.srs.store.Store.settings`. The table is made by the first save; until then
nothing is saved."""

from __future__ import annotations

from zerodrill.srs.store.file import Damaged
from zerodrill.srs.store.migrations import SETTING_TABLE, has_tables, make_tables
from zerodrill.srs.store.part import StorePart


class SavedSettings(StorePart):
    """The store's saved settings, through its connection and transactions."""

    def get(self, name: str) -> str | None:
        """The value saved for setting ``name``; None if none was saved."""
        with self._reading():
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

    def save(self, name: str, value: str) -> None:
        """Save ``value`` for setting ``name``, replacing what was saved; on disk on return."""
        with self._writing():
            make_tables(self._conn, SETTING_TABLE)
            self._conn.execute(
                "INSERT INTO setting (name, value) VALUES (?, ?) "
                "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                (name, value),
            )
