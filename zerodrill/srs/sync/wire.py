"""One line of a sync log file: what it may say, read and checked (:mod:`.logfile` is the file).

Every line but the header is one event: a review (or its undo), as
:meth:`~zerodrill.srs.events.ReviewEvent.to_wire` gives it (``undoes`` as ``[origin, seq]``),
or a card action (suspend, bury, flag, mark), ``"kind": "action"``, as
:meth:`~zerodrill.srs.card_actions.CardActionEvent.to_wire` gives it. A line is taken if it
could be a review: a card key a deck that ``zerodrill validate`` accepts can have, times within
the calendar a schedule can reach, numbers SQLite can hold; a machine never writes a line it,
or another, would skip (:func:`unfit`, :func:`action_unfit`).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

from zerodrill.deck.cloze import MAX_ORDINAL
from zerodrill.deck.model import MAX_DECK_ID_CHARS, MAX_FIELD_CHARS
from zerodrill.srs.card_actions import WIRE_KIND, Action, CardActionEvent
from zerodrill.srs.events import Identity, ReviewEvent, from_wire
from zerodrill.srs.grades import DEFAULT_LAYOUT, check_layout
from zerodrill.srs.sm2 import MAX_INTERVAL

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
#: card's next due day (at most :data:`~zerodrill.srs.sm2.MAX_INTERVAL` days on) leaves the
#: calendar Python can count.
EARLIEST_DAY = date(1970, 1, 1)
LATEST_DAY = date.max - timedelta(days=MAX_INTERVAL + 2)
KINDS = frozenset({"grade", "repeat", "undo"})

#: One line of a log file is one event (the wire format is :meth:`ReviewEvent.to_wire`'s).
LogEntry = ReviewEvent


class BadLine(ValueError):
    """A complete line that is not a review zerodrill wrote."""


def _int(value: Any, name: str, *, low: int) -> int:
    # bool is an int subclass: true is no sequence number.
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_SQLITE_INT:
        raise BadLine(f"{name} must be a whole number from {low} to {MAX_SQLITE_INT}")
    return value


def origin_id(value: Any) -> str:
    """``value`` if it is a machine id (or ``anki``); :class:`BadLine` if not."""
    if not isinstance(value, str) or not ORIGIN_RE.fullmatch(value):
        raise BadLine("origin must be a machine id")
    return value


def parse_entry(line: str) -> LogEntry:
    """One review line; :class:`BadLine` saying what is wrong with it."""
    try:
        record = json.loads(line)
    except ValueError as exc:
        raise BadLine("not JSON") from exc
    if not isinstance(record, dict):
        raise BadLine("not a JSON object")
    kind = record.get("kind")
    if kind not in KINDS:
        raise BadLine("kind must be grade, repeat or undo")
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
    grade, undoes = record.get("grade"), record.get("undoes")
    if kind == "undo":
        if grade is not None:
            raise BadLine("an undo has no grade")
        if not isinstance(undoes, list) or len(undoes) != 2:
            raise BadLine("an undo names the review it undoes as [origin, seq]")
        target: Identity | None = (origin_id(undoes[0]), _int(undoes[1], "undoes' seq", low=1))
    else:
        grade = _int(grade, "grade", low=0)
        if grade > 5:
            raise BadLine("grade must be 0-5")
        if undoes is not None:
            raise BadLine("only an undo undoes")
        target = None
    answer_ms = record.get("answer_ms")
    # Absent on six-grade lines and on every line from before it was written.
    buttons = record.get("buttons", DEFAULT_LAYOUT)
    try:
        check_layout(buttons)
        event = from_wire(
            origin=origin_id(record.get("origin")),
            seq=_int(record.get("seq"), "seq", low=1),
            key=key,
            kind=kind,
            at=at,
            day=day,
            grade=grade,
            undoes=target,
            answer_ms=_int(answer_ms, "answer_ms", low=0) if answer_ms is not None else None,
            buttons=buttons,
        )
    except ValueError as exc:
        raise BadLine(str(exc)) from exc
    problem = unfit(event)
    if problem is not None:
        raise BadLine(problem)
    return event


def unfit(event: ReviewEvent) -> str | None:
    """What keeps ``event`` from being a review on the wire, or None: the rules a line read
    is held to, so that a machine never writes a line it, or another, would skip."""
    for name, number in (("seq", event.seq), ("answer_ms", event.answer_ms)):
        if number is not None and not 0 <= number <= MAX_SQLITE_INT:
            return f"{name} must be a whole number from 0 to {MAX_SQLITE_INT}"
    return _key_or_time_unfit(event.key, event.at, event.day)


def _key_or_time_unfit(key: str, at: datetime, day: date) -> str | None:
    """What keeps a line's card key or time from the wire, or None (reviews' and actions')."""
    if len(key) > MAX_KEY_CHARS or not KEY_RE.fullmatch(key):
        return "key must be a card key"
    try:
        _check_time(at, day)
    except BadLine as exc:
        return str(exc)
    return None


def _check_time(at: datetime, day: date) -> None:
    """A time and study day a review can have: within the schedulable calendar, and never
    after the day its time falls on where it was given (time zones differ by up to 26 hours
    from the offset ``at`` carries): a day ahead of its time would hold the card back until
    then, past the check on times ahead. (A day before its time is an undo's, which carries
    the day of the grade it withdraws, or a review logged late.)
    """
    if not EARLIEST_DAY <= day <= LATEST_DAY:
        raise BadLine(f"day must be from {EARLIEST_DAY} to {LATEST_DAY}")
    try:
        at.astimezone(UTC)
    except OverflowError as exc:
        raise BadLine("at is outside the calendar") from exc
    if not EARLIEST_DAY <= at.date() <= LATEST_DAY:
        raise BadLine(f"at must be from {EARLIEST_DAY} to {LATEST_DAY}")
    if (day - at.date()).days > 2:
        raise BadLine("day must not be after the day of at")


# -- card actions (suspend, bury, flag, mark): lines of their own kind -----------------------
#
# A card action's line is ``{"kind": "action", "action": ..., "flag": ..., ...}`` (see
# :meth:`CardActionEvent.to_wire`). Its identity (origin, seq) is numbered apart from the
# reviews' (the two are told apart by kind); its checks are a review's: a key a deck can have,
# times within the calendar, numbers SQLite can hold. A zerodrill from before card actions
# synced reads such a line as a damaged review line: skipped alone, with the file's one warning.

_ACTIONS = ", ".join(a.value for a in Action)


def parse_line(line: str) -> LogEntry | CardActionEvent:
    """One event line, a review or a card action; :class:`BadLine` saying what is wrong."""
    try:
        return parse_entry(line)
    except BadLine:
        action = parse_action(line)
        if action is None:
            raise
        return action


def parse_action(line: str) -> CardActionEvent | None:
    """A card action's line; None if ``line`` is no card action at all (not of its kind),
    :class:`BadLine` if it is one that is damaged."""
    try:
        record = json.loads(line)
    except ValueError:
        return None
    if not isinstance(record, dict) or record.get("kind") != WIRE_KIND:
        return None
    key = record.get("key")
    if not isinstance(key, str):
        raise BadLine("key must be a card key")
    try:
        action = Action(str(record.get("action")))
    except ValueError as exc:
        raise BadLine(f"action must be one of {_ACTIONS}") from exc
    try:
        at = datetime.fromisoformat(record.get("at"))  # type: ignore[arg-type]
        day = date.fromisoformat(record.get("day"))  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise BadLine("at and day must be an ISO time and date") from exc
    if at.tzinfo is None:
        raise BadLine("at must carry its UTC offset")
    flag, undoes = record.get("flag", 0), record.get("undoes")
    if isinstance(flag, bool) or not isinstance(flag, int) or not 0 <= flag <= 7:
        raise BadLine("flag must be 0-7")
    target: Identity | None = None
    if undoes is not None:
        if not isinstance(undoes, list) or len(undoes) != 2:
            raise BadLine("an undo names the action it undoes as [origin, seq]")
        target = (origin_id(undoes[0]), _int(undoes[1], "undoes' seq", low=1))
    try:
        event = CardActionEvent(
            origin_id(record.get("origin")),
            _int(record.get("seq"), "seq", low=1),
            key,
            at,
            day,
            action,
            flag,
            target,
        )
    except ValueError as exc:
        raise BadLine(str(exc)) from exc
    problem = action_unfit(event)
    if problem is not None:
        raise BadLine(problem)
    return event


def action_unfit(event: CardActionEvent) -> str | None:
    """What keeps ``event`` from being a card action on the wire, or None: the rules a line
    read is held to (a review's, :func:`unfit`), so no machine writes a line others skip."""
    if not ORIGIN_RE.fullmatch(event.origin):
        return "origin must be a machine id"
    if not 1 <= event.seq <= MAX_SQLITE_INT:
        return f"seq must be a whole number from 1 to {MAX_SQLITE_INT}"
    return _key_or_time_unfit(event.key, event.at, event.day)
