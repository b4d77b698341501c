"""The learner's choices kept in the review database between sittings: the grade layout.

Kept in the database, not a config file, so that the choice travels with the grades it goes
with (``--db`` for a second learner keeps their layout apart).
"""

from __future__ import annotations

from zerodrill.srs.sm2 import DEFAULT_LAYOUT, LAYOUTS
from zerodrill.srs.store import FileGone, Store, StoreError

#: The setting's name in the database; its value is "4" or "6".
BUTTONS = "buttons"


def saved_layout(store: Store) -> int:
    """The number of grade buttons last chosen; the default if none was (or it is unknown)."""
    value = store.setting(BUTTONS)
    if value is not None and value.isdigit() and int(value) in LAYOUTS:
        return int(value)
    return DEFAULT_LAYOUT


def save_layout(store: Store, buttons: int) -> str | None:
    """Remember ``buttons`` for the next sittings. A database that refuses the write is no
    reason to stop drilling: the reason is returned, to be said once, and the layout is
    used all the same. A database that is gone ends the drill as a grade would."""
    if buttons not in LAYOUTS:
        raise ValueError(f"no layout with {buttons} buttons")
    try:
        store.save_setting(BUTTONS, str(buttons))
    except FileGone:
        raise
    except StoreError as exc:
        return f"The {buttons}-button layout is used but not remembered: {exc}"
    return None
