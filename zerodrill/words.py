"""Plain English for counts, shared by the commands and the drill's screens."""

from __future__ import annotations


def plural(n: int, word: str) -> str:
    """ "1 card", "2 cards": ``word`` takes an s unless there is exactly one."""
    return f"{n} {word}{'' if n == 1 else 's'}"
