"""Work run beside the run's (:class:`~zerodrill.anki_sync.beside.Beside`): what it gives or
what stops it reaches the caller's thread, and its end never leaves the thread running."""

from __future__ import annotations

import sys
import threading
from contextlib import nullcontext

import pytest

from zerodrill.anki_sync.beside import Beside


def test_wait_gives_what_the_work_returned_from_its_own_thread() -> None:
    callers: list[str] = []

    def work() -> int:
        callers.append(threading.current_thread().name)
        return 42

    assert Beside(work, "test").wait() == 42
    assert callers == ["zerodrill-test"]


@pytest.mark.parametrize("failure", [OSError("the disk is full"), KeyboardInterrupt()])
def test_what_stops_the_work_is_raised_in_the_callers_thread(failure: BaseException) -> None:
    def work() -> None:
        raise failure

    with pytest.raises(type(failure)):
        Beside(work, "test").wait()


def test_an_error_not_waited_for_is_raised_at_the_blocks_end() -> None:
    def work() -> None:
        raise OSError("the disk is full")

    with pytest.raises(OSError, match="the disk is full"), Beside(work, "test"):
        pass


def test_the_blocks_own_error_goes_first_and_the_thread_has_ended() -> None:
    release = threading.Event()
    ended: list[bool] = []

    def work() -> None:
        release.wait(10)
        ended.append(True)
        raise OSError("the disk is full")

    with pytest.raises(ValueError, match="the block's"), Beside(work, "test"):
        release.set()
        raise ValueError("the block's")
    assert ended == [True]


def test_python_switches_threads_often_while_any_work_runs_and_as_before_after() -> None:
    before = sys.getswitchinterval()
    release = [threading.Event(), threading.Event()]
    first = Beside(lambda: release[0].wait(10), "first")
    second = Beside(lambda: release[1].wait(10), "second")
    assert sys.getswitchinterval() < before
    release[0].set()
    first.wait()
    assert sys.getswitchinterval() < before  # the second still runs
    release[1].set()
    second.wait()
    assert sys.getswitchinterval() == before


@pytest.mark.parametrize("failure", [None, ValueError("the block's")])
def test_the_work_is_told_once_whether_the_block_failed(failure: Exception | None) -> None:
    told: list[bool] = []
    ended = threading.Event()

    def end(failed: bool) -> None:
        told.append(failed)
        ended.set()

    with pytest.raises(ValueError) if failure else nullcontext():
        with Beside(lambda: ended.wait(10), "test", end=end) as work:
            if failure:
                raise failure
            assert work.wait() is True  # told on waiting, and not again at the end
    assert told == [failure is not None]


def test_ctrl_c_in_the_block_stops_the_work_which_is_waited_for() -> None:
    stopped = threading.Event()
    done: list[str] = []

    def work() -> None:
        assert stopped.wait(10)
        done.append("stopped")

    with pytest.raises(KeyboardInterrupt), Beside(work, "test", stop=stopped.set):
        raise KeyboardInterrupt
    assert done == ["stopped"]
