"""The database's schema: its migrations, and bringing a file up to date before use.

The append-only ``event`` table is the truth: what the learner did, one row per
:class:`~zerodrill.srs.events.ReviewEvent` (a grade, or an undo naming the event it withdraws
by identity), and nothing a scheduler computed. Everything else about reviews is derived by
replaying events through the scheduler in use (:mod:`.derive`) into the cache tables
(:data:`CACHE_TABLES`: ``card``, ``effect``, ``derived``), which may be emptied and rebuilt at
any moment and are rebuilt whenever the scheduler changes. A key absent from ``card`` is new.
``setting`` (made when first needed, see :data:`SETTING_TABLE`) keeps the learner's choices by
name. Triggers keep the event log append-only, whoever writes to the file. Interview attempts
(made when first needed, see :data:`ATTEMPT_TABLES`) are append-only the same way.

Version 3 turned the ``review`` log (each row with the SM-2 state before and after it) into
events: every row is kept, with its id, identity, times, grade, answer time and typed text; a
same-day repeat became a grade (the replay says it is a repeat); the recorded states were
dropped, as the replay gives them again (the same ones for a log made on one machine).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from zerodrill.srs.store.file import StoreError

#: 'ZDRL': marks the file as ours, so a stray SQLite file (an Anki collection, say) is refused.
APPLICATION_ID = 0x5A44524C

# MIGRATIONS[i] takes the schema from user_version i to i + 1: SQL, or a function of the
# connection where a step depends on what the file holds. Append only; never edit one that has
# shipped.
MIGRATIONS: tuple[str | Callable[[sqlite3.Connection], None], ...] = (
    """
    CREATE TABLE review (
        id              INTEGER PRIMARY KEY,
        key             TEXT    NOT NULL,
        kind            TEXT    NOT NULL CHECK (kind IN ('grade', 'repeat', 'undo')),
        at              TEXT    NOT NULL,  -- wall time, ISO 8601 with UTC offset
        day             TEXT    NOT NULL,  -- study day, ISO date
        grade           INTEGER CHECK (grade BETWEEN 0 AND 5),
        undoes          INTEGER REFERENCES review (id),
        answer_ms       INTEGER,
        typed           TEXT,
        reps_before     INTEGER NOT NULL,
        interval_before INTEGER NOT NULL,
        ef_before       INTEGER NOT NULL,  -- hundredths: 250 is 2.5
        due_before      TEXT,              -- NULL: the card was new
        lapses_before   INTEGER NOT NULL,
        reps_after      INTEGER NOT NULL,
        interval_after  INTEGER NOT NULL,
        ef_after        INTEGER NOT NULL,
        due_after       TEXT,
        lapses_after    INTEGER NOT NULL,
        CHECK ((kind = 'undo') = (undoes IS NOT NULL)),
        CHECK ((kind = 'undo') = (grade IS NULL))
    );
    CREATE INDEX review_day ON review (day);
    CREATE INDEX review_key ON review (key, id);
    -- A grade is undone at most once, even with two terminals pressing undo.
    CREATE UNIQUE INDEX review_undoes ON review (undoes) WHERE undoes IS NOT NULL;
    CREATE TRIGGER review_no_update BEFORE UPDATE ON review
        BEGIN SELECT RAISE(ABORT, 'the review log is append-only'); END;
    CREATE TRIGGER review_no_delete BEFORE DELETE ON review
        BEGIN SELECT RAISE(ABORT, 'the review log is append-only'); END;

    CREATE TABLE card_state (
        key         TEXT    PRIMARY KEY,
        repetitions INTEGER NOT NULL,
        interval    INTEGER NOT NULL,
        ef          INTEGER NOT NULL,
        due         TEXT    NOT NULL,
        lapses      INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX card_state_due ON card_state (due);
    """,
    # Every review gets an identity that holds on every machine: where it was made (this
    # database's machine id, random and made once; "anki" for reviews imported from Anki)
    # and its number there (the local id; Anki's revlog id). Merging a review twice then adds
    # nothing. Reviews already logged were made here.
    """
    CREATE TABLE machine (
        only    INTEGER PRIMARY KEY CHECK (only = 1),
        origin  TEXT    NOT NULL CHECK (origin != 'anki' AND origin != '')
    );
    INSERT INTO machine (only, origin) VALUES (1, lower(hex(randomblob(8))));
    ALTER TABLE review ADD COLUMN origin TEXT;
    ALTER TABLE review ADD COLUMN origin_seq INTEGER;
    DROP TRIGGER review_no_update;
    UPDATE review SET origin = (SELECT origin FROM machine), origin_seq = id;
    CREATE TRIGGER review_no_update BEFORE UPDATE ON review
        BEGIN SELECT RAISE(ABORT, 'the review log is append-only'); END;
    CREATE TRIGGER machine_no_update BEFORE UPDATE ON machine
        BEGIN SELECT RAISE(ABORT, 'the machine id never changes'); END;
    CREATE TRIGGER review_has_origin BEFORE INSERT ON review
        WHEN NEW.origin IS NULL OR NEW.origin = '' OR NEW.origin_seq IS NULL
        BEGIN SELECT RAISE(ABORT, 'a review needs its origin'); END;
    CREATE UNIQUE INDEX review_origin ON review (origin, origin_seq);
    """,
    # Events only: the states each review row recorded are dropped (the replay derives them),
    # everything the learner did is kept. zd_instant (see instant_us) gives each time as
    # microseconds since the epoch, the order of instants whatever the UTC offset.
    """
    CREATE TABLE event (
        id            INTEGER PRIMARY KEY,
        origin        TEXT    NOT NULL CHECK (origin != ''),
        seq           INTEGER NOT NULL CHECK (seq >= 1),
        key           TEXT    NOT NULL CHECK (key != ''),
        at            TEXT    NOT NULL,  -- wall time, ISO 8601 with UTC offset
        at_us         INTEGER NOT NULL,  -- the same instant: microseconds since 1970 (UTC)
        day           TEXT    NOT NULL,  -- study day, ISO date
        grade         INTEGER CHECK (grade BETWEEN 0 AND 5),
        undoes_origin TEXT,              -- an undo: the identity of the event it withdraws
        undoes_seq    INTEGER,
        answer_ms     INTEGER CHECK (answer_ms >= 0),
        typed         TEXT,
        CHECK ((grade IS NULL) = (undoes_origin IS NOT NULL)),
        CHECK ((undoes_origin IS NULL) = (undoes_seq IS NULL))
    );
    INSERT INTO event (id, origin, seq, key, at, at_us, day, grade, undoes_origin, undoes_seq,
                       answer_ms, typed)
        SELECT r.id, r.origin, r.origin_seq, r.key, r.at, zd_instant(r.at), r.day,
               CASE WHEN r.kind = 'undo' THEN NULL ELSE r.grade END,
               u.origin, u.origin_seq, r.answer_ms, r.typed
        FROM review r LEFT JOIN review u ON u.id = r.undoes
        ORDER BY r.id;
    CREATE UNIQUE INDEX event_identity ON event (origin, seq);
    CREATE INDEX event_order ON event (key, day, at_us, origin, seq);
    CREATE INDEX event_day ON event (day);
    -- An event is withdrawn at most once, even with two terminals pressing undo.
    CREATE UNIQUE INDEX event_undoes ON event (undoes_origin, undoes_seq)
        WHERE undoes_origin IS NOT NULL;
    CREATE TRIGGER event_no_update BEFORE UPDATE ON event
        BEGIN SELECT RAISE(ABORT, 'the review log is append-only'); END;
    CREATE TRIGGER event_no_delete BEFORE DELETE ON event
        BEGIN SELECT RAISE(ABORT, 'the review log is append-only'); END;
    DROP TRIGGER review_no_update;
    DROP TRIGGER review_no_delete;
    DROP TRIGGER review_has_origin;
    DROP TABLE card_state;
    DROP TABLE review;

    -- The cache, derived from the events by the scheduler named in 'derived'.
    CREATE TABLE derived (
        only        INTEGER PRIMARY KEY CHECK (only = 1),
        fingerprint TEXT    NOT NULL
    );
    CREATE TABLE card (
        key      TEXT PRIMARY KEY,
        state    TEXT NOT NULL,  -- the scheduler's state, JSON
        due      TEXT,           -- study day, ISO date
        last_day TEXT,
        again_on TEXT
    ) WITHOUT ROWID;
    CREATE INDEX card_due ON card (due);
    CREATE INDEX card_again_on ON card (again_on) WHERE again_on IS NOT NULL;
    -- What the replay made of a grade in effect, when it was not a recall (most are).
    CREATE TABLE effect (
        id     INTEGER PRIMARY KEY,  -- the event's
        effect TEXT    NOT NULL CHECK (effect IN ('first', 'repeat'))
    );
    """,
    # The layout a grade was pressed on: 4 for Anki's four buttons (where Easy means more than
    # SM-2's grade 5), 6 for the six grades. Every event logged before was a six-grade one, so
    # no schedule changes.
    """
    ALTER TABLE event ADD COLUMN buttons INTEGER NOT NULL DEFAULT 6 CHECK (buttons IN (4, 6));
    """,
    # One stream: card actions and brought-forward cards become events of the one log.
    lambda conn: _one_stream(conn),
    # What Anki decided for an answer given there (JSON, as a sync line carries it): every
    # replay takes it. Events logged before carry none and replay as they did.
    """
    ALTER TABLE event ADD COLUMN decided TEXT;
    """,
    # The learner's settings that travel (FSRS's parameters) become events of the one log.
    lambda conn: _setting_events(conn),
    # Anki's Set Due Date and Forget become events of the log (card actions that change a
    # schedule): the action column's CHECK takes their kinds.
    lambda conn: _by_hand_events(conn),
    # The action column's CHECK asks whether the action is NULL first (a grade's): the same
    # rows taken and refused, without a table of the kinds made for each row inserted.
    lambda conn: _action_check(conn),
)
SCHEMA_VERSION = len(MIGRATIONS)

#: The learner's choices that outlive a sitting (the grade buttons' layout), by name. Not a
#: migration: it is made the first time a setting is saved (:func:`make_tables`), so that
#: opening a database changes none of its bytes and an older zerodrill (another terminal,
#: another machine) still reads it; a table it does not know is no concern of its own.
SETTING_TABLE = """
CREATE TABLE IF NOT EXISTS setting (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
"""


def has_tables(conn: sqlite3.Connection, *names: str) -> bool:
    """True once every table ``names`` exists in ``conn``'s database: tables made when first
    needed (:data:`SETTING_TABLE`, :data:`ATTEMPT_TABLES`) are there once something was saved."""
    marks = ", ".join("?" * len(names))
    row = conn.execute(
        f"SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ({marks})", names
    ).fetchone()
    return bool(row[0] == len(names))


def make_tables(conn: sqlite3.Connection, script: str) -> None:
    """Run ``script``'s ``CREATE ... IF NOT EXISTS`` statements; call inside the write
    transaction that saves the first row they hold."""
    for statement in _statements(script):
        conn.execute(statement)


#: Interview attempts (:mod:`zerodrill.srs.interview_run`), append-only like the review log: an
#: attempt is its row and the steps logged after it (the cards it brings forward are events of
#: the log, ``bring_forward``). Not a migration: made by the first attempt
#: (:func:`make_tables`), so that opening a database changes none of its bytes and an older
#: zerodrill still reads it.
ATTEMPT_TABLES = """
CREATE TABLE IF NOT EXISTS attempt (
    id         INTEGER PRIMARY KEY,
    deck       TEXT    NOT NULL,
    interview  TEXT    NOT NULL,
    shape      TEXT    NOT NULL,  -- digest of the interview as asked: resume only the same
    started_at TEXT    NOT NULL,  -- wall time, ISO 8601 with UTC offset
    day        TEXT    NOT NULL   -- study day, ISO date
);
CREATE INDEX IF NOT EXISTS attempt_interview ON attempt (deck, interview, id);
CREATE TABLE IF NOT EXISTS attempt_step (
    id      INTEGER PRIMARY KEY,
    attempt INTEGER NOT NULL REFERENCES attempt (id),
    at      TEXT    NOT NULL,
    step    TEXT    NOT NULL
        CHECK (step IN ('question', 'points', 'follow_up', 'red_flags', 'finish')),
    data    TEXT    NOT NULL CHECK (json_valid(data))
);
CREATE INDEX IF NOT EXISTS attempt_step_attempt ON attempt_step (attempt, id);
CREATE TRIGGER IF NOT EXISTS attempt_no_update BEFORE UPDATE ON attempt
    BEGIN SELECT RAISE(ABORT, 'the attempt log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS attempt_no_delete BEFORE DELETE ON attempt
    BEGIN SELECT RAISE(ABORT, 'the attempt log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS attempt_step_no_update BEFORE UPDATE ON attempt_step
    BEGIN SELECT RAISE(ABORT, 'the attempt log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS attempt_step_no_delete BEFORE DELETE ON attempt_step
    BEGIN SELECT RAISE(ABORT, 'the attempt log is append-only'); END;
"""

#: The ticks of an attempt's checklist (its points, its red flags) as they are given, before
#: the step is handed in, so that quitting there and resuming keeps them: one row per change,
#: the checklist's whole state, the latest row of a step the one that counts. Append-only like
#: the other attempt tables; made by the first tick (an older database's attempt tables were
#: made without it, and ``attempt_step``'s kinds are fixed by its CHECK).
ATTEMPT_TICK_TABLES = """
CREATE TABLE IF NOT EXISTS attempt_tick (
    id      INTEGER PRIMARY KEY,
    attempt INTEGER NOT NULL REFERENCES attempt (id),
    at      TEXT    NOT NULL,
    step    TEXT    NOT NULL CHECK (step IN ('points', 'red_flags')),
    ticked  TEXT    NOT NULL CHECK (json_valid(ticked))  -- the entries ticked: indexes, ascending
);
CREATE INDEX IF NOT EXISTS attempt_tick_attempt ON attempt_tick (attempt, id);
CREATE TRIGGER IF NOT EXISTS attempt_tick_no_update BEFORE UPDATE ON attempt_tick
    BEGIN SELECT RAISE(ABORT, 'the attempt log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS attempt_tick_no_delete BEFORE DELETE ON attempt_tick
    BEGIN SELECT RAISE(ABORT, 'the attempt log is append-only'); END;
"""


def prepare(conn: sqlite3.Connection, path: Path, read_only: bool = False) -> None:
    """Check that ``conn``'s file is a zerodrill database this version can read, turn on WAL
    and full sync, and migrate it forward. A refused file is left untouched; so is every file
    with ``read_only``: only checked, an empty file (a database not yet made) included."""
    add_functions(conn)
    # Everything is read and checked before the first write, so a refused file is untouched.
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    if version < 0:
        raise StoreError(f"{path} is damaged (its database version is {version})", path)
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path} was written by a newer zerodrill (database version {version}; this "
            f"zerodrill reads up to {SCHEMA_VERSION}): upgrade zerodrill to use it",
            path,
        )
    foreign = app_id not in (0, APPLICATION_ID) or (
        version == 0 and conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
    )
    if foreign:
        raise StoreError(f"{path} is an SQLite file but not a zerodrill review database", path)
    if read_only:
        return
    # Durability and sharing: a grade is on disk when its transaction commits, and readers in
    # another terminal never wait for a writer.
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    if version < SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Read again under the write lock: another process may have migrated meanwhile.
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version < 0:
                raise StoreError(f"{path} is damaged (its database version is {version})", path)
            for step in range(version, SCHEMA_VERSION):
                migration = MIGRATIONS[step]
                if callable(migration):
                    migration(conn)
                    continue
                for statement in _statements(migration):
                    conn.execute(statement)
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def instant_us(at: datetime) -> int:
    """``at`` (aware) as microseconds since 1970 UTC: comparable whatever the UTC offset."""
    # The timedelta's parts, not a division by a new timedelta: half the time, and every
    # event logged computes it (bench_anki_sync.py's 10,000 answers from Anki).
    since = at - _EPOCH
    return (since.days * 86_400 + since.seconds) * 1_000_000 + since.microseconds


def _instant_of_text(text: object) -> int | None:
    # SQL's zd_instant(): NULL for what is not an aware ISO time, which a NOT NULL refuses.
    try:
        at = datetime.fromisoformat(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return instant_us(at) if at.tzinfo is not None else None


def add_functions(conn: sqlite3.Connection) -> None:
    """The SQL functions the schema uses: ``zd_instant(text)`` (see :func:`instant_us`)."""
    conn.create_function("zd_instant", 1, _instant_of_text, deterministic=True)


def _statements(script: str) -> Iterator[str]:
    """Split a migration into statements (executescript would commit our transaction)."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            if pending.strip():
                yield pending.strip()
            pending = ""
    if pending.strip():
        raise ValueError(f"incomplete SQL statement in a migration: {pending.strip()[:60]}")


#: Where each sync last stopped reading each origin of a transport (a log file in a sync
#: folder: :mod:`zerodrill.srs.sync.transport`), and what the origin carried up to there, so
#: that the next sync reads only what was added since. Void under another machine id (the
#: origins' events were read as another machine's). Not a migration: made by the first sync
#: (:func:`make_tables`), so that opening a database changes none of its bytes and an older
#: zerodrill still reads it; one that syncs reads every file whole, as it always did.
SYNC_POSITION_TABLE = """
CREATE TABLE IF NOT EXISTS sync_position (
    transport TEXT NOT NULL,  -- which: 'folder:' and the folder's path
    origin    TEXT NOT NULL,  -- one origin it holds: a log file, by the machine id it names
    machine   TEXT NOT NULL,  -- this database's machine id when it was read
    position  TEXT NOT NULL,  -- where the read stopped, in the transport's terms (JSON)
    carried   TEXT NOT NULL,  -- the identities read before it, as runs of numbers (JSON)
    PRIMARY KEY (transport, origin)
) WITHOUT ROWID;
"""


def _setting_events(conn: sqlite3.Connection) -> None:
    from zerodrill.srs.store.setting_events import migrate

    migrate(conn)


def _one_stream(conn: sqlite3.Connection) -> None:
    # Imported here: the step reads tables this module describes.
    from zerodrill.srs.store.one_stream import migrate

    migrate(conn)


def _by_hand_events(conn: sqlite3.Connection) -> None:
    from zerodrill.srs.store.by_hand_events import migrate

    migrate(conn)


def _action_check(conn: sqlite3.Connection) -> None:
    from zerodrill.srs.store.action_check import migrate

    migrate(conn)
