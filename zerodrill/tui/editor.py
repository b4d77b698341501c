"""Open a card's YAML at its line in the learner's editor, the drill suspended meanwhile.

The editor is ``$VISUAL``, else ``$EDITOR`` (as git and crontab choose), split as a shell would
split it (``code --wait``, ``emacs -nw``), and given ``+LINE FILE``: vi, vim, nvim, nano, emacs,
micro, kak and helix all read ``+LINE`` as the line to open at. Everything that can go wrong
(no editor set, not found, not runnable, a non-zero exit, a terminal that cannot be handed
over) is one line for a notice, never a traceback.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Mapping
from pathlib import Path

from msgspec import Struct


class Edited(Struct, frozen=True):
    """How an edit went: ``problem`` is one line to show, or None if the editor exited 0."""

    problem: str | None


def editor_command(env: Mapping[str, str], path: Path, line: int) -> list[str] | str:
    """The command that opens ``path`` at ``line``, or why there is none (one line)."""
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if not value:
            continue
        try:
            words = shlex.split(value)
        except ValueError as exc:
            return f"${name} cannot be read as a command ({exc})"
        if words:
            return [*words, f"+{max(line, 1)}", str(path)]
    return "No editor: set $VISUAL or $EDITOR to the command that opens a file"


def run_editor(command: list[str]) -> Edited:
    """Run ``command`` in the terminal (the caller has suspended the app) and wait for it."""
    try:
        code = subprocess.call(command)
    except FileNotFoundError:
        return Edited(f"Editor not found: {shlex.join(command[:1])}")
    except OSError as exc:
        return Edited(f"Cannot run the editor {shlex.join(command[:1])}: {exc.strerror or exc}")
    if code != 0:
        return Edited(f"The editor exited with status {code}")
    return Edited(None)
