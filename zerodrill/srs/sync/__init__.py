"""Sharing one review log between machines through a folder the user keeps in sync.

- :mod:`.logfile`: one machine's log file in that folder: its format, read up to the last
  complete line, written whole and renamed into place.
- :mod:`.folder`: a sync's three steps: survey the folder and the local log, send this
  machine's new reviews, receive the others' (merged by identity, cards rebuilt by replay).
"""
