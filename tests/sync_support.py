"""What the sync tests compare a database's schedule with: SM-2 over its events, the plain way.

(i21-core's ``srs_support.reference_states`` does the same; once both branches are in main,
these two can become one.)
"""

from __future__ import annotations

from datetime import date

from zerodrill.srs import sm2
from zerodrill.srs.events import time_order
from zerodrill.srs.sm2 import Sm2State
from zerodrill.srs.store import Store


def replayed(store: Store) -> dict[str, Sm2State]:
    """Each known card's SM-2 state from ``store``'s events: undone grades out, the rest in
    time order, a grade on a day the card moved already moving nothing."""
    events = store.events()
    undone = {e.undoes for e in events if e.undoes is not None}
    states: dict[str, Sm2State] = {}
    last: dict[str, date] = {}
    for e in sorted(events, key=time_order):
        if e.grade is None or e.identity in undone:
            continue
        if e.key in last and e.day <= last[e.key]:
            continue
        states[e.key] = sm2.review(states.get(e.key, Sm2State.new()), e.grade, e.day)
        last[e.key] = e.day
    return states


def sm2_of(store: Store) -> dict[str, Sm2State]:
    """The store's derived states, as SM-2 states (the store derives with SM-2 unless told)."""
    return {key: state.sm2 for key, state in store.states().items()}  # type: ignore[attr-defined]
