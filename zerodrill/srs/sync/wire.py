"""One line of a sync log file: what it may say, read and checked (:mod:`.logfile` is the file).

Every line but the header is one event of the log, whatever its kind: ``kind`` says which (a
grade, an undo, or a card action: suspend, bury, flag, mark...), as
:meth:`~zerodrill.srs.events.ReviewEvent.to_wire` and
:meth:`~zerodrill.srs.card_actions.CardActionEvent.to_wire` give it; an undo names the event it
withdraws as ``[origin, seq]``, whatever its kind. A line is taken if it could be an event: a
card key a deck that ``zerodrill validate`` accepts can have, times within the calendar a
schedule can reach, numbers SQLite can hold; a machine never writes a line it, or another,
would skip (:func:`unfit`).

Files written before card actions joined the log carry them as ``"kind": "action"`` lines
numbered apart from the reviews: they read as the same actions under the numbers they have now
(:func:`~zerodrill.srs.card_actions.legacy_seq`). A zerodrill from before reads a line of a kind
it does not know as damaged, and skips it alone.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any

import msgspec

from zerodrill.deck.cloze import MAX_ORDINAL
from zerodrill.deck.model import MAX_DECK_ID_CHARS, MAX_FIELD_CHARS
from zerodrill.srs.card_actions import LEGACY_WIRE_KIND, Action, CardActionEvent, legacy_seq
from zerodrill.srs.events import Identity, ReviewEvent, StreamEvent
from zerodrill.srs.grades import DEFAULT_LAYOUT, check_layout, to_grade
from zerodrill.srs.schedulers.decision import AnkiDecision
from zerodrill.srs.sm2_formula import MAX_INTERVAL

#: Machine ids and ``anki``: short, and safe in a file name on every system.
ORIGIN_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_SLUG = r"[a-z0-9]+(?:-[a-z0-9]+)*"
#: An item key as decks make them: ``<deck id>/<card id>``, and ``#c<n>`` for a cloze
#: deletion (see :meth:`zerodrill.deck.model.Card.items`).
KEY_RE = re.compile(rf"{_SLUG}/{_SLUG}(?:#c[1-9][0-9]*)?")
#: The longest key a deck that validates can give: its longest deck id, a card id as long as a
#: field may be, and the highest cloze number.
MAX_KEY_CHARS = MAX_DECK_ID_CHARS + 1 + MAX_FIELD_CHARS + len(f"#c{MAX_ORDINAL}")
#: SQLite's integers are signed 64-bit: a number past this cannot be stored.
MAX_SQLITE_INT = 2**63 - 1
#: The times a review may carry: none before Anki's revlog ids begin, and none so late that a
#: card's next due day (at most :data:`~zerodrill.srs.sm2_formula.MAX_INTERVAL` days on) leaves the
#: calendar Python can count.
EARLIEST_DAY = date(1970, 1, 1)
LATEST_DAY = date.max - timedelta(days=MAX_INTERVAL + 2)
#: What a line's ``kind`` may be: a review's, or a card action's.
_ACTIONS = {a.value: a for a in Action if a is not Action.UNDO}
KINDS = {"grade", "repeat", "undo"} | _ACTIONS.keys()

#: FSRS's 21 parameters as text take some 450 characters.
_MAX_SETTING_CHARS = 2000

#: Lines are read by msgspec's parser: a third of the standard library's time (a sync of
#: 10,000 events from another terminal), and it refuses what JSON does not allow (NaN).
_JSON = msgspec.json.Decoder()

#: One line of a log file is one event.
LogEntry = StreamEvent


class BadLine(ValueError):
    """A complete line that is not a review zerodrill wrote."""


def _int(value: Any, name: str, *, low: int) -> int:
    # bool is an int subclass: true is no sequence number.
    if type(value) is not int or not low <= value <= MAX_SQLITE_INT:
        raise BadLine(f"{name} must be a whole number from {low} to {MAX_SQLITE_INT}")
    return value


def origin_id(value: Any) -> str:
    """``value`` if it is a machine id (or ``anki``); :class:`BadLine` if not."""
    if not isinstance(value, str) or not ORIGIN_RE.fullmatch(value):
        raise BadLine("origin must be a machine id")
    return value


def parse_line(line: str) -> LogEntry:
    """One event line; :class:`BadLine` saying what is wrong with it."""
    try:
        record = _JSON.decode(line)
    # Nesting deeper than the parser's stack (a line of brackets under the length cap) is a
    # RecursionError; a lone surrogate in the text (never from a file read as UTF-8) can't be
    # encoded for the parser.
    except (msgspec.DecodeError, RecursionError, UnicodeEncodeError) as exc:
        raise BadLine("not JSON") from exc
    if not isinstance(record, dict):
        raise BadLine("not a JSON object")
    kind, legacy = record.get("kind"), record.get("kind") == LEGACY_WIRE_KIND
    if legacy:  # an action line of a file written before actions joined the log
        kind = record.get("action")
    if not isinstance(kind, str) or kind not in KINDS:
        raise BadLine(f"kind must be one of {', '.join(sorted(KINDS))}")
    key = record.get("key")
    if not isinstance(key, str):
        raise BadLine("key must be a card key")
    try:
        at = datetime.fromisoformat(record.get("at"))  # type: ignore[arg-type]
        day = date.fromisoformat(record.get("day"))  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise BadLine("at and day must be an ISO time and date") from exc
    if at.tzinfo is None:
        raise BadLine("at must carry its UTC offset")
    origin = origin_id(record.get("origin"))
    seq = _int(record.get("seq"), "seq", low=1)
    undoes = record.get("undoes")
    target: Identity | None = None
    if kind == "undo":
        if not isinstance(undoes, list) or len(undoes) != 2:
            raise BadLine("an undo names the event it undoes as [origin, seq]")
        target = (origin_id(undoes[0]), _int(undoes[1], "undoes' seq", low=1))
    elif undoes is not None:
        raise BadLine("only an undo undoes")
    try:
        if legacy:
            seq = legacy_seq(seq)
            target = (target[0], legacy_seq(target[1])) if target is not None else None
        common = {"origin": origin, "seq": seq, "key": key, "at": at, "day": day}
        event = _event(record, common, kind, target, legacy)
    except ValueError as exc:
        raise BadLine(str(exc)) from exc
    problem = unfit(event)
    if problem is not None:
        raise BadLine(problem)
    return event


def _event(
    record: dict[str, Any],
    common: dict[str, Any],
    kind: str,
    target: Identity | None,
    legacy: bool,
) -> LogEntry:
    """The event a line's checked ``common`` fields (origin, seq, key, at, day) and its own
    describe."""
    if kind in _ACTIONS or legacy:
        flag = record.get("flag", 0)
        if isinstance(flag, bool) or not isinstance(flag, int) or not 0 <= flag <= 7:
            raise BadLine("flag must be 0-7")
        action = _ACTIONS.get(kind, Action.UNDO)
        value = record.get("value")
        if (action is Action.SETTING) != isinstance(value, str):
            raise BadLine("a setting line, and only one, has a value: text")
        decided = _decided(record) if action is Action.SET_DUE else None
        return CardActionEvent(
            **common, action=action, flag=flag, undoes=target, value=value, decided=decided
        )
    grade = record.get("grade")
    if kind != "undo":
        grade = _int(grade, "grade", low=0)
        if grade > 5:
            raise BadLine("grade must be 0-5")
    elif grade is not None:
        raise BadLine("an undo has no grade")
    answer_ms = record.get("answer_ms")
    # Absent on six-grade lines and on every line from before it was written.
    buttons = record.get("buttons", DEFAULT_LAYOUT)
    check_layout(buttons)
    answer_ms = _int(answer_ms, "answer_ms", low=0) if answer_ms is not None else None
    # A "repeat" (files from before the log held events) is a grade: the replay says which.
    given = to_grade(grade) if grade is not None else None
    # Only on an answer given in Anki: what Anki decided, which every replay takes.
    decided = _decided(record) if record.get("decided") is not None else None
    return ReviewEvent(
        **common,
        grade=given,
        undoes=target,
        answer_ms=answer_ms,
        buttons=buttons,
        decided=decided,
    )


def _decided(record: dict[str, Any]) -> AnkiDecision:
    """What Anki decided, as a line carries it (an answer's, or a due date set there)."""
    try:
        return AnkiDecision.from_wire(record.get("decided"))
    except ValueError as exc:
        raise BadLine(str(exc)) from None


def unfit(event: LogEntry) -> str | None:
    """What keeps ``event`` from being a line of a log file, or None: the rules a line read
    is held to, so that a machine never writes a line it, or another, would skip."""
    if isinstance(event, CardActionEvent):
        if event.action is Action.SETTING:
            return (
                _numbers_unfit(event.origin, event.seq, None)
                or _setting_unfit(event.key, event.value)
                or _time_unfit(event.at.date(), event.day)
            )
        answer_ms = None
    else:
        answer_ms = event.answer_ms
    return _numbers_unfit(event.origin, event.seq, answer_ms) or (
        _key_unfit(event.key) or _time_unfit(event.at.date(), event.day)
    )


def review_unfit(origin: str, key: str, at_day: str, day: str) -> str | None:
    """:func:`unfit` of a review whose numbers are within the wire's, given by the rest, its
    dates as ISO text (``at_day`` that of its time where it was given): a sync checks the
    10,000 answers it sends without reading them as events
    (:class:`~zerodrill.srs.store.sync_state.Outgoing`)."""
    if _origin_unfit(origin):
        return _NOT_AN_ORIGIN
    return _key_unfit(key) or _days_unfit(at_day, day)


def _numbers_unfit(origin: str, seq: int, answer_ms: int | None) -> str | None:
    if _origin_unfit(origin):
        return _NOT_AN_ORIGIN
    if not 0 <= seq <= MAX_SQLITE_INT:
        return f"seq must be a whole number from 0 to {MAX_SQLITE_INT}"
    if answer_ms is not None and not 0 <= answer_ms <= MAX_SQLITE_INT:
        return f"answer_ms must be a whole number from 0 to {MAX_SQLITE_INT}"
    return None


_NOT_AN_ORIGIN = "origin must be a machine id"


# The few machines, cards and days of a log are checked once each, not once an event: a sync
# reads and writes thousands of events of the same few.
@lru_cache(maxsize=256)
def _origin_unfit(origin: str) -> bool:
    return ORIGIN_RE.fullmatch(origin) is None


def _setting_unfit(name: str, value: str | None) -> str | None:
    """What keeps a setting line from the wire, or None: only a setting that travels, with a
    value it takes (FSRS's parameters within FSRS's bounds)."""
    # Imported here: only a setting line needs them (and the fsrs package).
    from zerodrill.srs.schedulers.fsrs import PARAMETERS
    from zerodrill.srs.store.saved_settings import TRAVELLING

    if name not in TRAVELLING or name != PARAMETERS.setting or value is None:
        return f"no setting {name[:40]!r} travels"
    if len(value) > _MAX_SETTING_CHARS:
        return "a setting's value is too long"
    try:
        PARAMETERS.read(value)
    except ValueError:
        return f"not a value of {name}"
    return None


def _key_unfit(key: str) -> str | None:
    """What keeps a card key from the wire, or None."""
    # Kept only up to a length no key reaches in practice: a file could hold thousands of
    # long ones, each a different key, which the cache would then hold.
    return _short_key_unfit(key) if len(key) <= _KEPT_KEY_CHARS else _key_check(key)


_KEPT_KEY_CHARS = 256


@lru_cache(maxsize=4096)
def _short_key_unfit(key: str) -> str | None:
    return _key_check(key)


def _key_check(key: str) -> str | None:
    if len(key) > MAX_KEY_CHARS or not KEY_RE.fullmatch(key):
        return "key must be a card key"
    return None


@lru_cache(maxsize=4096)
def _time_unfit(at_day: date, day: date) -> str | None:
    """What keeps a line's time (``at_day``, the date of ``at`` where it was given) and study
    day from the wire, or None (see :func:`_check_time`)."""
    try:
        _check_time(at_day, day)
    except BadLine as exc:
        return str(exc)
    return None


@lru_cache(maxsize=4096)
def _days_unfit(at_day: str, day: str) -> str | None:
    """:func:`_time_unfit` of the two dates as ISO text."""
    try:
        return _time_unfit(date.fromisoformat(at_day), date.fromisoformat(day))
    except ValueError:
        return "at and day must be an ISO time and date"


def _check_time(local: date, day: date) -> None:
    """A time's date where it was given (``local``) and study day a review can have: within
    the schedulable calendar, and never after the day its time falls on where it was given
    (time zones differ by up to 26 hours from the offset its time carries): a day ahead of its
    time would hold the card back until then, past the check on times ahead. (A day before
    its time is an undo's, which carries the day of the grade it withdraws, or a review
    logged late.)
    """
    if not EARLIEST_DAY <= day <= LATEST_DAY:
        raise BadLine(f"day must be from {EARLIEST_DAY} to {LATEST_DAY}")
    # Its date within the calendar, a time is days from the ends of datetime's: in UTC too.
    if not EARLIEST_DAY <= local <= LATEST_DAY:
        raise BadLine(f"at must be from {EARLIEST_DAY} to {LATEST_DAY}")
    if (day - local).days > 2:
        raise BadLine("day must not be after the day of at")
