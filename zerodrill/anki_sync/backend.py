"""The ``anki`` package (the ``anki`` extra), imported here and only when a command needs it.

Each failure a user can cause in opening a collection is one :class:`AnkiSyncError` line:
the package missing, the collection open in Anki desktop, a file that is not a collection.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from zerodrill.errors import UserError

if TYPE_CHECKING:
    from anki.collection import Collection
    from anki.dbproxy import DBProxy

#: What the user installs for ``zerodrill anki``.
INSTALL_HINT = "zerodrill anki needs the anki package: pip install 'zerodrill[anki]'"


class AnkiSyncError(UserError):
    """A sync that cannot go on; the message says why and what to do, in one line."""


def require_anki() -> None:
    """Raise :class:`AnkiSyncError` naming what to install when ``anki`` is missing."""
    try:
        import anki.collection  # noqa: F401  (its modules import in this order only)
    except ImportError:
        raise AnkiSyncError(INSTALL_HINT) from None


def open_collection(path: Path) -> Collection:
    """The collection at ``path`` (created if missing, as Anki does), opened by Anki's backend.

    Anki desktop holds its collection locked while it runs: that is one line saying so.
    """
    require_anki()
    from anki.collection import Collection
    from anki.errors import BackendError, DBError

    try:
        return Collection(str(path))
    except DBError as exc:
        text = str(exc)
        # Anki's own words for a collection another process holds.
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


#: What a column of Anki's collection holds.
Value = str | int | float | None
#: Rows per statement in :func:`insert_rows`: SQLite allows 32,766 parameters in one.
_ROWS_PER_STATEMENT = 2000


def insert_rows(col: Collection, head: str, rows: Sequence[Sequence[Value]]) -> None:
    """``head`` (``INSERT INTO t`` or ``WITH v(...) AS``-style text ending before
    ``VALUES``) run over ``rows``, many rows to a statement: Anki's ``executemany`` sends the
    backend one command per row, a hundred times slower for a sync's thousands."""
    if not rows:
        return
    width = len(rows[0])
    one = "(" + ",".join("?" * width) + ")"
    for start in range(0, len(rows), _ROWS_PER_STATEMENT):
        chunk = rows[start : start + _ROWS_PER_STATEMENT]
        params = [value for row in chunk for value in row]
        db(col).execute(head.format(values="VALUES " + ",".join([one] * len(chunk))), *params)
