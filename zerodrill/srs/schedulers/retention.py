"""FSRS's desired retention: its default and the range zerodrill takes, without importing the
``fsrs`` package (``zerodrill drill --help`` and the settings read them; SM-2's drill never
loads FSRS)."""

from __future__ import annotations

from zerodrill.srs.schedulers.protocol import Option

#: FSRS's and Anki's default: nine answers in ten right when a card falls due.
DEFAULT_RETENTION = 0.9
#: The range Anki's FSRS settings accept: below it, too much is forgotten to be worth the time
#: saved; above it, reviews multiply for little gain.
MIN_RETENTION = 0.70
MAX_RETENTION = 0.99


def check_retention(value: object) -> float:
    """``value`` as a desired retention; ``ValueError`` for anything but a number in range."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"desired retention must be a number, not {value!r}")
    if not MIN_RETENTION <= value <= MAX_RETENTION:
        raise ValueError(
            f"desired retention must be {MIN_RETENTION:.2f}-{MAX_RETENTION:.2f}, not {value}"
        )
    return float(value)


def _read(text: str) -> float:
    return check_retention(float(text))


#: The desired retention as an option a scheduler declares (FSRS does). Its setting keeps the
#: name it had when FSRS alone aimed at one, so that a learner's saved choice stays.
DESIRED_RETENTION = Option("desired_retention", "fsrs_retention", "desired retention", _read)
