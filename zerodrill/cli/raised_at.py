"""Where an unexpected error was raised, for the one line ``zerodrill`` prints instead of a
traceback.

A bare ``assert`` says nothing of itself ("AssertionError: "): without the place, a failure
seen once (in CI, or by a user who cannot run it again) could not be told from any other.
The place is the line that raised and, when that is in another package (Anki's own asserts),
the last of zerodrill's lines on the way to it, which is where the fix usually goes.
"""

from __future__ import annotations

import os
from traceback import walk_tb
from types import FrameType

_OURS = "zerodrill"


def raised_at(exc: BaseException) -> str:
    """``file:line`` of the raise, and ``, called from file:line`` of zerodrill's last frame
    when the raise is elsewhere; "" without a traceback."""
    frames = list(walk_tb(exc.__traceback__))
    if not frames:
        return ""
    frame, line = frames[-1]
    where = f"{_file_of(frame)}:{line}"
    if not _is_ours(frame):
        ours = next(((f, n) for f, n in reversed(frames) if _is_ours(f)), None)
        if ours is not None:
            where += f", called from {_file_of(ours[0])}:{ours[1]}"
    return where


def _is_ours(frame: FrameType) -> bool:
    name = frame.f_globals.get("__name__")
    return isinstance(name, str) and (name == _OURS or name.startswith(_OURS + "."))


def _file_of(frame: FrameType) -> str:
    """The frame's file as its module names it (``anki/decks.py``, ``http/client.py``): the
    same on every machine, where the full path names the user's folders."""
    base = os.path.basename(frame.f_code.co_filename)
    name = frame.f_globals.get("__name__")
    if not isinstance(name, str) or not base.endswith(".py"):
        return base
    parts = name.split(".")
    package = parts if base == "__init__.py" else parts[:-1]
    return "/".join([*package, base])
