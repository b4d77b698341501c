"""The ``anki`` package (the ``anki`` extra), imported only when a command needs it, and its
collection opened with each failure a user can cause as one :class:`AnkiSyncError` line."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from itertools import chain
from operator import is_not
from pathlib import Path
from queue import SimpleQueue
from typing import TYPE_CHECKING, cast

import msgspec

from zerodrill.anki_sync.beside import Beside
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


@contextmanager
def writing_into_copy(collection: Path) -> Iterator[None]:
    """Anki's database failing while a run writes into its work copy of ``collection`` (a
    full disk) as one :class:`AnkiSyncError` line: the copy is thrown away, and the collection
    is as it was."""
    from anki.errors import DBError

    try:
        yield
    except DBError as exc:
        raise AnkiSyncError(
            f"Anki could not write the sync's changes into its copy of {collection} ({exc}); "
            "the collection is unchanged: run again once that is mended"
        ) from None


def db(col: Collection) -> DBProxy:
    """The open collection's SQL connection (Anki types it as possibly closed)."""
    assert col.db is not None, "the collection is closed"
    return col.db


Value = str | int | float | None
#: Rows per statement in :func:`insert_rows`: SQLite allows 32,766 parameters in one.
_ROWS_PER_STATEMENT = 2000
#: Rows per statement when they travel as JSON (one parameter): a bound on its text alone.
_ROWS_PER_JSON = 20_000
#: The values JSON carries exactly: a float read back from JSON text by SQLite may differ
#: in its last bit (measured: 1 in 10 random doubles), so rows with one go as parameters.
_EXACT_IN_JSON = {int, str, type(None)}
#: The values a statement may carry as its own text: whole numbers SQLite reads as integers
#: (of 64 bits) and NULLs.
_LITERAL = {int, type(None)}
_LITERAL_LOW, _LITERAL_HIGH = -(2**63), 2**63 - 1
#: JSON's array of rows read as SQL's: ``[[1,null],[2,3]]`` is ``(1,null),(2,3)``.
_ROWS_AS_SQL = bytes.maketrans(b"[]", b"()")
_JSON = msgspec.json.Encoder()


def insert_rows(col: Collection, head: str, rows: Sequence[Sequence[Value]]) -> None:
    """``head`` (SQL with ``{values}`` where the ``VALUES`` go; its columns are named
    ``column1`` and on, as a ``VALUES`` list names them) run over ``rows``, many to a
    statement: Anki's ``executemany`` sends the backend one command per row, far slower.

    Rows of whole numbers, text and NULLs travel as one JSON array that SQLite's
    ``json_each`` reads back: the backend takes one parameter, not one for each value
    (bench_anki_sync.py's 10,000 revlog rows: 60 ms as parameters, 35 as JSON; issue 35
    point 7, a two-way sync within 3x Anki's own syncs). Rows of whole numbers and NULLs
    alone go as the statement's own text, a ``VALUES`` list, which SQLite reads faster still
    than JSON (the revlog rows the run writes beside the replay, as Anki's backend keeps
    up with it): nothing but digits, signs, ``null`` and punctuation ever reaches the SQL."""
    if not rows:
        return
    width = len(rows[0])
    kinds = set(map(type, chain.from_iterable(rows)))
    if kinds <= _LITERAL and _literal_range(rows, type(None) in kinds):
        for start in range(0, len(rows), _ROWS_PER_STATEMENT):
            array = _JSON.encode(rows[start : start + _ROWS_PER_STATEMENT])
            text = array[1:-1].translate(_ROWS_AS_SQL).decode()
            db(col).execute(head.format(values=f"VALUES {text}"))
        return
    if kinds <= _EXACT_IN_JSON:
        columns = ", ".join(f"value ->> {i} AS column{i + 1}" for i in range(width))
        # LIMIT -1 (none): a subquery with a LIMIT is read once, as a VALUES list is, never
        # flattened into a join, where SQLite may parse the JSON again for every row of the
        # table joined (Anki's statistics call its cards table small: 230 cards updated took
        # 57 ms, not 5).
        sql = head.format(values=f"SELECT {columns} FROM json_each(?) LIMIT -1")
        for start in range(0, len(rows), _ROWS_PER_JSON):
            text = _JSON.encode(rows[start : start + _ROWS_PER_JSON]).decode()
            db(col).execute(sql, text)
        return
    one = "(" + ",".join("?" * width) + ")"
    for start in range(0, len(rows), _ROWS_PER_STATEMENT):
        chunk = rows[start : start + _ROWS_PER_STATEMENT]
        params = [value for row in chunk for value in row]
        db(col).execute(head.format(values="VALUES " + ",".join([one] * len(chunk))), *params)


def _literal_range(rows: Sequence[Sequence[Value]], nulls: bool) -> bool:
    """Whether the whole numbers of ``rows`` (whole numbers and NULLs) are all ones SQLite
    reads as integers. Looked at as they come, in C, never copied: a million revlog rows'
    copy would count against the peak memory ``--collection`` is held to
    (bench_anki_collection.py)."""

    def numbers() -> Iterator[int]:
        values = chain.from_iterable(rows)
        return cast(Iterator[int], filter(partial(is_not, None), values) if nulls else values)

    low = min(numbers(), default=0)
    return _LITERAL_LOW <= low and max(numbers(), default=0) <= _LITERAL_HIGH


#: The temporary table :func:`update_rows` sets rows from (in the connection's own schema).
_ROWS = "zerodrill_rows"


def update_rows(
    col: Collection,
    table: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Value]],
) -> None:
    """Set ``columns`` of ``table``'s rows by id: each of ``rows`` is an id, then its values
    in ``columns``' order.

    The rows go into a temporary table keyed by id (through :func:`insert_rows`), which the
    ``UPDATE`` joins by id: joined to a list of values instead, SQLite scans the whole table
    for each row wherever Anki's statistics (kept from the collection's last Check Database,
    or its making) call the table small, as a new account's say of its cards, and the time
    grows with the rows times the table (a large deck's cards all rescheduled: seconds)."""
    if not rows:
        return
    names = ", ".join(columns)
    sets = ", ".join(f"{name} = v.{name}" for name in columns)
    db(col).execute(f"CREATE TEMP TABLE {_ROWS} (id INTEGER PRIMARY KEY, {names})")
    try:
        insert_rows(col, f"INSERT INTO temp.{_ROWS} {{values}}", rows)
        db(col).execute(f"UPDATE {table} SET {sets} FROM temp.{_ROWS} AS v WHERE {table}.id = v.id")
    finally:
        db(col).execute(f"DROP TABLE temp.{_ROWS}")


class Inserting(Beside[None]):
    """:func:`insert_rows` in a thread beside the run, for each batch of rows :meth:`put`
    (in the order given), while the run makes the next: Anki's backend leaves Python's lock
    as it writes (bench_anki_sync.py's 10,000 revlog rows written while the cards are
    replayed: the goal of 3x Anki's own syncs). Its end, or :meth:`wait`, writes what was
    given and waits for it (raising what stopped the thread); the run uses the collection
    only once it has waited."""

    def __init__(self, col: Collection, head: str) -> None:
        given: SimpleQueue[Sequence[Sequence[Value]] | None] = SimpleQueue()

        def write() -> None:
            while (rows := given.get()) is not None:
                insert_rows(col, head, rows)

        super().__init__(write, "anki-rows", end=lambda failed: given.put(None))
        self._given = given

    def put(self, rows: Sequence[Sequence[Value]]) -> None:
        if rows:
            self._given.put(rows)
