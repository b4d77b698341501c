"""The ``anki`` package (the ``anki`` extra), imported only when a command needs it, and its
collection opened with each failure a user can cause as one :class:`AnkiSyncError` line."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from zerodrill.errors import UserError

if TYPE_CHECKING:
    from anki.collection import Collection
    from anki.dbproxy import DBProxy

INSTALL_HINT = "zerodrill anki needs the anki package: pip install 'zerodrill[anki]'"


class AnkiSyncError(UserError):
    """A sync that cannot go on; the message says why and what to do."""


def require_anki() -> None:
    try:
        import anki.collection  # noqa: F401  (its modules import in this order only)
    except ImportError:
        raise AnkiSyncError(INSTALL_HINT) from None


def open_collection(path: Path) -> Collection:
    """The collection at ``path``, created if missing (as Anki does)."""
    require_anki()
    from anki.collection import Collection
    from anki.errors import BackendError, DBError

    try:
        return Collection(str(path))
    except DBError as exc:
        text = str(exc)
        # Anki's own words for a collection another process (Anki desktop) holds.
        if "already open" in text or "locked" in text.lower():
            raise AnkiSyncError(
                f"{path} is open in Anki (it is locked): close Anki and run again"
            ) from None
        raise AnkiSyncError(f"{path} is not an Anki collection ({text})") from None
    except BackendError as exc:
        raise AnkiSyncError(f"cannot open {path} as an Anki collection: {exc}") from None


def db(col: Collection) -> DBProxy:
    """The open collection's SQL connection (Anki types it as possibly closed)."""
    assert col.db is not None, "the collection is closed"
    return col.db


Value = str | int | float | None
#: Rows per statement in :func:`insert_rows`: SQLite allows 32,766 parameters in one.
_ROWS_PER_STATEMENT = 2000


def insert_rows(col: Collection, head: str, rows: Sequence[Sequence[Value]]) -> None:
    """``head`` (SQL with ``{values}`` where the ``VALUES`` go) run over ``rows``, many to a
    statement: Anki's ``executemany`` sends the backend one command per row, far slower."""
    if not rows:
        return
    width = len(rows[0])
    one = "(" + ",".join("?" * width) + ")"
    for start in range(0, len(rows), _ROWS_PER_STATEMENT):
        chunk = rows[start : start + _ROWS_PER_STATEMENT]
        params = [value for row in chunk for value in row]
        db(col).execute(head.format(values="VALUES " + ",".join([one] * len(chunk))), *params)
