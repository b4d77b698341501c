"""Sharing one review log between machines, through a transport the user keeps in sync.

- :mod:`.transport`: the seam: a transport's origins (named by machine id), each read from
  where the last sync stopped, and this machine's own written to.
- :mod:`.exchange`: a sync's three steps over any transport: survey the origins, send this
  machine's new events, receive the others' (merged by identity, cards rebuilt by replay),
  keeping where each origin was read to.
- :mod:`.logfile`: one machine's log file in a sync folder: its header, read from a cursor
  up to its last complete line, and added to at its end.
- :mod:`.wire`: one line of such a file, a review or a card action, read and checked.
- :mod:`.folder`: the folder the user's sync tool shares, as a transport.
"""
