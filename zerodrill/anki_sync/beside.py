"""Work run in a thread of its own beside the run's: where it spends its time in SQLite or
Anki's backend, which leave Python's lock as they work (bench_anki_sync.py's two-way sync:
the goal of 3x Anki's own syncs)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Generic, Self, TypeVar

_T = TypeVar("_T")

#: Python's thread switch interval while work runs beside the run's (see :class:`_Quick`).
_SWITCH_S = 0.0005


class _Quick:
    """Python's switch interval lowered while any work runs beside, and set back as it was
    once the last ends. Between its calls into SQLite or Anki's backend a thread needs
    Python's lock, which the run's thread holds: asked back at Python's usual interval
    (5 ms), each step would wait that long (the store's thread makes a hundred such steps)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._was = 0.0

    def start(self) -> None:
        with self._lock:
            if not self._running:
                self._was = sys.getswitchinterval()
                sys.setswitchinterval(min(self._was, _SWITCH_S))
            self._running += 1

    def end(self) -> None:
        with self._lock:
            self._running -= 1
            if not self._running:
                sys.setswitchinterval(self._was)


_QUICK = _Quick()


class Beside(Generic[_T]):
    """``work`` started in a thread; :meth:`wait` gives what it returned, or raises what
    stopped it (Ctrl+C's KeyboardInterrupt included), in the caller's thread. As a context
    manager, its end waits for the thread, and raises what stopped it unless :meth:`wait`
    did or another error is on its way. While it runs, Python switches threads often
    (:class:`_Quick`).

    ``end`` is told once, before the thread is waited for, whether the caller's block failed
    (:meth:`wait`: it did not): work that goes on until the block's end stops there. ``stop``
    asks the work to stop on Ctrl+C, in the block or while waiting: it is waited for all the
    same, and KeyboardInterrupt raised once it has ended (without ``stop``, Ctrl+C while
    waiting is raised at once)."""

    def __init__(
        self,
        work: Callable[[], _T],
        name: str,
        *,
        end: Callable[[bool], None] | None = None,
        stop: Callable[[], None] | None = None,
    ) -> None:
        self._outcome: tuple[_T] | BaseException | None = None
        self._told = False
        self._end = end
        self._stop = stop

        def run() -> None:
            try:
                self._outcome = (work(),)
            except BaseException as exc:  # raised in the caller's thread
                self._outcome = exc
            finally:
                _QUICK.end()

        self._thread = threading.Thread(target=run, name=f"zerodrill-{name}", daemon=True)
        _QUICK.start()
        try:
            self._thread.start()
        except BaseException:
            _QUICK.end()
            raise

    def wait(self) -> _T:
        self._tell(failed=False)
        interrupted = self._join()
        self._told = True
        if interrupted:
            raise KeyboardInterrupt
        outcome = self._outcome
        if isinstance(outcome, BaseException):
            raise outcome
        assert outcome is not None  # the thread has ended
        return outcome[0]

    def _tell(self, *, failed: bool) -> None:
        end, self._end = self._end, None
        if end is not None:
            end(failed)

    def _join(self) -> bool:
        """Wait for the thread to end; whether Ctrl+C stopped it meanwhile."""
        interrupted = False
        while True:
            try:
                self._thread.join()
                return interrupted
            except KeyboardInterrupt:
                if self._stop is None:
                    raise
                interrupted = True
                self._stop()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if kind is None:
            if not self._told:
                self.wait()
            return
        if kind is KeyboardInterrupt and self._stop is not None:
            self._stop()
        self._tell(failed=True)
        self._join()
