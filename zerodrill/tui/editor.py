"""Open a card's YAML at its line in the learner's editor, the drill suspended meanwhile.

The editor is ``$VISUAL``, else ``$EDITOR`` (as git chooses), given ``+LINE FILE``, which the
common editors all read. FILE is absolute: a deck file's name is the deck author's, and vim runs
one starting with ``+`` as a command, and editors read one starting with ``-`` as an option.
While the editor runs, Ctrl+C is the editor's: the terminal sends SIGINT to the drill too, which
lets it pass, as ``system()`` and git do.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from msgspec import Struct


class Edited(Struct, frozen=True):
    problem: str | None


def editor_command(env: Mapping[str, str], path: Path, line: int) -> list[str] | str:
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if not value:
            continue
        try:
            words = shlex.split(value)
        except ValueError as exc:
            return f"${name} cannot be read as a command ({exc})"
        if words:
            return [*words, f"+{max(line, 1)}", os.path.abspath(path)]
    return "No editor: set $VISUAL or $EDITOR to the command that opens a file"


def run_editor(command: list[str]) -> Edited:
    """Run ``command`` in the terminal (the caller has suspended the app) and wait for it."""
    try:
        with _interrupts_passed_to_the_editor():
            code = subprocess.call(command)
    except FileNotFoundError:
        return Edited(f"Editor not found: {shlex.join(command[:1])}")
    except OSError as exc:
        return Edited(f"Cannot run the editor {shlex.join(command[:1])}: {exc.strerror or exc}")
    if code < 0:
        return Edited(f"The editor was ended by {_signal_name(-code)}")
    if code != 0:
        return Edited(f"The editor exited with status {code}")
    return Edited(None)


#: Ctrl+C and Ctrl+\.
_KEY_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGQUIT") if hasattr(signal, name)
)


def _ignore(signum: int, frame: object) -> None:
    """A handler that does nothing: the signal was meant for the editor."""


@contextmanager
def _interrupts_passed_to_the_editor() -> Iterator[None]:
    """Ctrl+C and Ctrl+\\ do nothing to this process meanwhile. A handler that does nothing,
    not SIG_IGN: an ignored signal would stay ignored in the editor across exec."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers (the drill runs there)
        return
    before = [(signum, signal.signal(signum, _ignore)) for signum in _KEY_SIGNALS]
    try:
        yield
    finally:
        for signum, handler in before:
            signal.signal(signum, handler)


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
