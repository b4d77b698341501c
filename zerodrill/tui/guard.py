"""User errors inside the running app (a full disk while grading, say) end it cleanly.

Textual would print a traceback for an exception in a handler. A :class:`UserError` is not a
bug: the app exits with status 1 and the CLI prints its one line, as for every other command.
A :class:`RecoverableError` (an undo another terminal has superseded) is shown as a notice
and the drill goes on. Anything else is left to Textual, so a real bug still shows its
traceback.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

from textual.dom import DOMNode

from zerodrill.errors import RecoverableError, UserError

P = ParamSpec("P")
R = TypeVar("R")


def user_errors_exit(
    method: Callable[..., R | Awaitable[R]],
) -> Callable[..., Awaitable[R | None]]:
    """Wrap a handler of a DOM node: a UserError it raises ends the app with that error."""

    @functools.wraps(method)
    async def wrapper(self: DOMNode, *args: Any, **kwargs: Any) -> R | None:
        try:
            result = method(self, *args, **kwargs)
            if inspect.isawaitable(result):
                result = await result
            return result  # type: ignore[return-value]
        except RecoverableError as exc:
            self.app.notify(str(exc), severity="warning", timeout=6)
            return None
        except UserError as exc:
            fail = getattr(self.app, "fail", None)
            if fail is None:
                raise
            fail(exc)
            return None

    return wrapper
