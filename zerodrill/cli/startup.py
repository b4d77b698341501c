"""Start-up tuning for ``zerodrill drill``, all of it: the garbage collector waits for the
first card.

Starting the drill imports Textual and builds the decks, today's queue and the drill screen:
a great many objects that live as long as the drill, and next to no garbage. The collector
is triggered by the count of allocations, not by garbage, so it passes over them again and
again while nothing useful is found. Measured in a real terminal on the benchmark's
10,000-card deck and on the bundled deck, those passes cost the first card more than the
whole of the deck's loading, most of them while Textual is imported; so the collector is off
until the first frame is drawn. Then what start-up built is frozen, so the passes that
drilling triggers skip it instead of walking every card on some key press, and the
collector is turned back on.

Nothing else in zerodrill touches the collector: the command pauses it here and hands the
app the function that resumes it (``create_app(on_first_frame=...)``).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[Callable[[], None]]:
    """No collector passes inside the block until the function it yields is called.

    That function freezes every object made so far and turns the collector back on (a
    collector that was off before is left off); only its first call does anything. Leaving
    the block calls it, so the collector is back however the drill ends, first card or not.
    """
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
