"""User errors inside the running app (a full disk while grading, say) end it cleanly.

Textual would print a traceback; instead the app exits with status 1 and the CLI prints the
error's one line. A :class:`RecoverableError` is a notice, and the drill goes on. Anything
else is left to Textual, so a real bug still shows its traceback.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec, TypeVar

from textual.dom import DOMNode
from textual.message import Message

from zerodrill.errors import RecoverableError, UserError

P = ParamSpec("P")
Node = TypeVar("Node", bound=DOMNode)


@dataclass
class UserErrorRaised(Message):
    """A handler raised ``error``: posted to the app itself, so it arrives from any node."""

    error: UserError


def user_errors_exit(
    handler: Callable[Concatenate[Node, P], Awaitable[None] | None],
) -> Callable[Concatenate[Node, P], Coroutine[Any, Any, None]]:

    @functools.wraps(handler)
    async def wrapper(self: Node, /, *args: P.args, **kwargs: P.kwargs) -> None:
        try:
            result = handler(self, *args, **kwargs)
            if inspect.isawaitable(result):
                await result
        except RecoverableError as exc:
            # Never markup: the text can name a card, and a deck is untrusted.
            self.app.notify(str(exc), severity="warning", timeout=6, markup=False)
        except UserError as exc:
            self.app.post_message(UserErrorRaised(exc))

    return wrapper
