"""Work run in a thread of its own beside the run's: where it spends its time in SQLite or
Anki's backend, which leave Python's lock as they work (bench_anki_sync.py's two-way sync:
the goal of 3x Anki's own syncs)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Generic, TypeVar

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
    (:class:`_Quick`)."""

    def __init__(self, work: Callable[[], _T], name: str) -> None:
        self._outcome: tuple[_T] | BaseException | None = None
        self._told = False

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
