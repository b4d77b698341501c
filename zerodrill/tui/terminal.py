"""The terminal under an app: noticing it hang up, for the drill and the interview alike."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from textual.app import App


def controlling_tty() -> int | None:
    stdin = sys.__stdin__
    try:
        fd = stdin.fileno() if stdin is not None else -1
    except (OSError, ValueError):
        return None
    return fd if fd >= 0 and os.isatty(fd) else None


def terminal_hung_up(fd: int) -> bool:
    # Once the terminal is gone, its ioctls fail with EIO.
    try:
        import termios
    except ImportError:  # pragma: no cover - not a POSIX system
        return False
    try:
        termios.tcgetattr(fd)
    except (termios.error, OSError):
        return True
    return False


def end_on_hang_up(app: App[Any], result: Callable[[], Any]) -> None:
    """Once ``app``'s terminal is gone, exit with ``result()``: where SIGHUP is ignored (a
    parent's `trap '' HUP`), Textual's input thread spins on end-of-file forever."""
    tty = None if app.is_headless else controlling_tty()
    if tty is None:
        return

    def check() -> None:
        if terminal_hung_up(tty):
            app.exit(result())
            # Textual's shutdown can stall on the dead terminal: end as a hang-up would.
            stall = threading.Timer(2.0, os._exit, (129,))
            stall.daemon = True
            stall.start()

    app.set_interval(1.0, check)
