"""Anki's own sync as the engine between the terminal, other machines and the phone: on a
local copy of the user's AnkiWeb (or self-hosted) collection, or a ``collection.anki2`` named
by the user. :mod:`.run` holds the steps in order; each other module one job of them.
"""
