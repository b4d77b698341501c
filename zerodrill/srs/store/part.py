"""What each concern of the store (its log, schedule, settings, machine id, attempts, card
actions, sync positions) is given: the store's one connection, and its read and write
transactions (:mod:`.transactions`: a write joins an outer one)."""

from __future__ import annotations

from zerodrill.srs.store.transactions import Transactions


class StorePart:
    """One concern of :class:`~zerodrill.srs.store.Store`, through its connection and
    transactions."""

    def __init__(self, tx: Transactions) -> None:
        self._tx = tx
        self._conn = tx.conn
        self._path = tx.path
        self._reading = tx.reading
        self._writing = tx.writing
