"""Anki's own sync as the engine between the terminal, other machines and the phone.

``zerodrill anki sync`` works on a collection: a local copy of the user's AnkiWeb (or
self-hosted) collection kept in zerodrill's data folder, or a ``collection.anki2`` named by
the user. One module per job:

- :mod:`.backend`: the ``anki`` package, imported only here and only when asked for, and its
  collection opened with every failure a user can cause as one line;
- :mod:`.login`: the host key the server hands back, kept in the user config folder (0600);
- :mod:`.server`: an ordinary sync with the server, each failure as one line;
- :mod:`.events`: everything read from or written to zerodrill's review store (the one place
  to change when the store's API changes);
- :mod:`.revlog`: zerodrill's reviews as Anki revlog rows, marked so they never come back;
- :mod:`.notes`: the decks' notes brought up to date by the export's own package and Anki's
  importer, and retired cards suspended;
- :mod:`.schedule`: each zerodrill card's due day, interval and ease set from the events;
- :mod:`.marks`: each card's marks (suspended, buried, flagged, marked) set from the card
  actions, and those changed in Anki brought back as card actions;
- :mod:`.workcopy`: the collection changed on a copy that replaces it only when complete;
- :mod:`.run`: the steps in order, and what moved each way.
"""
