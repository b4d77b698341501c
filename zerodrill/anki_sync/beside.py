"""Work run in a thread of its own beside the run's: where it spends its time in SQLite or
Anki's backend, which leave Python's lock as they work (bench_anki_sync.py's two-way sync:
the goal of 3x Anki's own syncs)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType
from typing import Generic, TypeVar

_T = TypeVar("_T")


class Beside(Generic[_T]):
    """``work`` started in a thread; :meth:`wait` gives what it returned, or raises what
    stopped it (Ctrl+C's KeyboardInterrupt included), in the caller's thread. As a context
    manager, its end waits for the thread, and raises what stopped it unless :meth:`wait`
    did or another error is on its way."""

    def __init__(self, work: Callable[[], _T], name: str) -> None:
        self._outcome: tuple[_T] | BaseException | None = None
        self._told = False

        def run() -> None:
            try:
                self._outcome = (work(),)
            except BaseException as exc:  # raised in the caller's thread
                self._outcome = exc

        self._thread = threading.Thread(target=run, name=f"zerodrill-{name}", daemon=True)
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def wait(self) -> _T:
        self._thread.join()
        self._told = True
        outcome = self._outcome
        if isinstance(outcome, BaseException):
            raise outcome
        assert outcome is not None  # the thread has ended
        return outcome[0]

    def __enter__(self) -> Beside[_T]:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if kind is None and not self._told:
            self.wait()
        else:
            self._thread.join()
