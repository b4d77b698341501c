"""``insert_rows``: many rows a statement through Anki's backend, read back exactly as given,
whether they travel as one JSON text (whole numbers, text, NULLs) or as parameters (a float,
which JSON text would not carry to its last bit); ``update_rows``, rows set by id; and
``Inserting``, the same beside the run's thread, batch after batch."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from zerodrill.anki_sync import revlog
from zerodrill.anki_sync.backend import Inserting, insert_rows, update_rows
from zerodrill.anki_sync.revlog import MARK, RevlogRow
from zerodrill.anki_sync.store_bridge import Answer
from zerodrill.srs.grades import Grade

pytestmark = pytest.mark.anki


def test_whole_numbers_text_and_nulls_read_back_as_given(col: Any) -> None:
    col.db.execute("CREATE TABLE t (a INTEGER, b TEXT, c INTEGER, d)")
    rows = [
        (2**62 + n, f'"quoted" \\ \x1f {n} ✓', None if n % 2 else -n, str(n)) for n in range(2500)
    ]
    insert_rows(col, "INSERT INTO t {values}", rows)
    back = col.db.all("SELECT a, b, c, d, typeof(a), typeof(c), typeof(d) FROM t ORDER BY rowid")
    assert [tuple(r[:4]) for r in back] == rows
    # As parameters give them: an integer stays one, and text that reads as a number text.
    assert {(r[4], r[6]) for r in back} == {("integer", "text")}


@pytest.mark.parametrize("nulls", [False, True])
def test_whole_numbers_alone_read_back_as_integers_to_the_bounds(col: Any, nulls: bool) -> None:
    """Rows of whole numbers (and NULLs) go as the statement's own text, more than one
    statement's worth: each reads back as the integer given, 64 bits' largest and smallest
    included."""
    col.db.execute("CREATE TABLE t (a INTEGER, b INTEGER, c)")
    low, high = -(2**63), 2**63 - 1
    rows = [(high - n, low + n, None if nulls and n % 3 == 0 else -n) for n in range(4500)]
    insert_rows(col, "INSERT INTO t {values}", rows)
    back = col.db.all("SELECT a, b, c, typeof(a), typeof(b), typeof(c) FROM t ORDER BY rowid")
    assert [tuple(r[:3]) for r in back] == rows
    kinds = {tuple(r[3:]) for r in back}
    nullable = {("integer", "integer", "null")} if nulls else set()
    assert kinds == {("integer", "integer", "integer")} | nullable


def test_a_float_reads_back_to_its_last_bit(col: Any) -> None:
    col.db.execute("CREATE TABLE t (a INTEGER, b REAL)")
    # One that SQLite's reading of JSON text gets a bit wrong (7.581454333883295e-148).
    rows = [(1, 7.581454333883296e-148), (2, 0.1), (3, None)]
    insert_rows(col, "INSERT INTO t {values}", rows)
    assert [tuple(r) for r in col.db.all("SELECT a, b FROM t ORDER BY a")] == rows


def test_the_columns_are_named_as_a_values_list_names_them(col: Any) -> None:
    col.db.execute("CREATE TABLE t (a INTEGER, b TEXT)")
    insert_rows(col, "INSERT INTO t SELECT column2, column1 FROM ({values})", [("x", 7)])
    insert_rows(
        col,
        "WITH v(a, b) AS ({values}) UPDATE t SET b = v.b FROM v WHERE t.a = v.a",
        [(7, "y")],
    )
    assert [tuple(r) for r in col.db.all("SELECT a, b FROM t")] == [(7, "y")]


def test_rows_updated_by_id_take_their_values_and_leave_the_rest(col: Any) -> None:
    """As a collection whose statistics are as old as its making has them (a table of one
    row): the join by id holds whatever the statistics say."""
    col.db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c INTEGER)")
    col.db.execute("CREATE INDEX t_a ON t (a)")
    insert_rows(col, "INSERT INTO t {values}", [(n, n % 7, f"b{n}", n) for n in range(1, 2001)])
    col.db.execute("ANALYZE")
    col.db.execute("UPDATE sqlite_stat1 SET stat = '1 1' WHERE tbl = 't'")
    changed = [(n, -n, f"new {n}", 0) for n in range(3, 2001, 5)]
    update_rows(col, "t", ("a", "b", "c"), changed)
    back = {r[0]: tuple(r[1:]) for r in col.db.all("SELECT id, a, b, c FROM t")}
    assert len(back) == 2000
    for n in range(1, 2001):
        assert back[n] == ((-n, f"new {n}", 0) if n % 5 == 3 else (n % 7, f"b{n}", n))
    assert col.db.all("SELECT name FROM sqlite_temp_master") == []


def test_rows_refused_leave_the_table_and_no_temporary_table(col: Any) -> None:
    from anki.errors import DBError

    col.db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER NOT NULL)")
    col.db.execute("INSERT INTO t VALUES (1, 10), (2, 20)")
    with pytest.raises(DBError):
        update_rows(col, "t", ("a",), [(1, 11), (2, None)])
    assert [tuple(r) for r in col.db.all("SELECT id, a FROM t ORDER BY id")] == [(1, 10), (2, 20)]
    assert col.db.all("SELECT name FROM sqlite_temp_master") == []
    update_rows(col, "t", ("a",), [(2, 22)])
    assert [tuple(r) for r in col.db.all("SELECT id, a FROM t ORDER BY id")] == [(1, 10), (2, 22)]


def test_revlog_rows_read_back_as_written(col: Any) -> None:
    """zerodrill's revlog rows travel packed (:func:`revlog.rows_to_write` makes them so) and
    are unpacked by :data:`revlog.INSERT`: every column back as written, at the bounds too."""
    noon = datetime(2026, 3, 1, 12, 0, 0, 250_000, tzinfo=UTC)
    second = int(noon.timestamp()) * 1000 + MARK
    answers = [
        Answer("d/c", Grade.WRONG, noon, 0, False, revlog.LEARN, 0, 0, 1300),
        Answer("d/c", Grade.PERFECT, noon + timedelta(seconds=1), 120_000, False, revlog.REVIEW,
               2**40, 2**40, 10**6),
        Answer("d/c", Grade.GOOD, noon + timedelta(seconds=2), 8700, False, revlog.REVIEW,
               36_500, 10_000, 2500),
        Answer("d/c", Grade.BLACKOUT, noon + timedelta(seconds=3), None, False, revlog.RELEARN,
               6, 1, 1300),
    ]  # fmt: skip
    rows = revlog.rows_to_write(2**40, answers, [], revlog.TakenIds())
    insert_rows(col, revlog.INSERT, rows)
    back = col.db.all("SELECT id, cid, usn, ease, ivl, lastIvl, factor, time, type FROM revlog")
    written = [
        RevlogRow(second, 2**40, -1, 1, 1, 0, 1300, MARK, 0),  # a first answer: learning
        RevlogRow(second + 1000, 2**40, -1, 4, 2**31 - 1, 2**31 - 1, 2**16 - 1, 59_000 + MARK, 1),
        RevlogRow(second + 2000, 2**40, -1, 3, 10_000, 36_500, 2500, 8000 + MARK, 1),
        RevlogRow(second + 3000, 2**40, -1, 1, 1, 6, 1300, MARK, 2),  # relearning
    ]
    assert sorted(tuple(r) for r in back) == [tuple(r) for r in written]
    assert [revlog.unpacked(r) for r in rows] == written


def test_batches_written_beside_are_all_there_in_their_order_once_waited_for(col: Any) -> None:
    col.db.execute("CREATE TABLE t (a INTEGER, b TEXT)")
    batches = [[(n, f"row {n}") for n in range(start, start + 700)] for start in (0, 700, 1400)]
    with Inserting(col, "INSERT INTO t {values}") as inserting:
        for batch in batches:
            inserting.put(batch)
        inserting.put([])  # nothing to write: no statement
        inserting.wait()
        back = [tuple(r) for r in col.db.all("SELECT a, b FROM t ORDER BY rowid")]
    assert back == [row for batch in batches for row in batch]


def test_a_failure_beside_is_raised_in_the_runs_thread(col: Any) -> None:
    col.db.execute("CREATE TABLE t (a INTEGER NOT NULL)")
    from anki.errors import DBError

    with pytest.raises(DBError), Inserting(col, "INSERT INTO t {values}") as inserting:
        inserting.put([(1,), (None,)])
        inserting.wait()
    assert col.db.scalar("SELECT count(*) FROM t") == 0  # the statement taken back whole


def test_the_blocks_end_waits_for_what_was_given(col: Any) -> None:
    col.db.execute("CREATE TABLE t (a INTEGER)")
    with (
        pytest.raises(ValueError, match="the block's"),
        Inserting(col, "INSERT INTO t {values}") as inserting,
    ):
        inserting.put([(n,) for n in range(3000)])
        raise ValueError("the block's")
    assert col.db.scalar("SELECT count(*) FROM t") == 3000
