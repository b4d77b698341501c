"""What each concern of the store (its attempts, card actions, sync positions) is given: the
store's one connection, and its read and write transactions (a write joins an outer one)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager


class StorePart:
    """One concern of :class:`~zerodrill.srs.store.Store`, through its connection and
    transactions."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        reading: Callable[[], AbstractContextManager[None]],
        writing: Callable[[], AbstractContextManager[None]],
    ) -> None:
        self._conn = conn
        self._reading = reading
        self._writing = writing
