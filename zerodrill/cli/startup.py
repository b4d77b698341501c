"""The garbage collector waits for the drill's first card.

Start-up builds a great many objects that live as long as the drill and next to no garbage,
and the collector, triggered by allocation counts, walks them again and again for nothing
(measured: more than the whole of the deck's loading). So it is off until the first frame
is drawn; then what start-up built is frozen, so that later passes skip it, and it is back
on. Nothing else in zerodrill touches the collector.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[Callable[[], None]]:
    """No collector passes inside the block until the function it yields is called, which
    freezes every object made so far and turns the collector back on (unless it was off
    before); only its first call counts. Leaving the block calls it, however the drill ends."""
    was_enabled = gc.isenabled()
    gc.disable()
    resumed = False

    def resume() -> None:
        nonlocal resumed
        if resumed:
            return
        resumed = True
        gc.freeze()
        if was_enabled:
            gc.enable()

    try:
        yield resume
    finally:
        resume()
