"""The u key of the screens shown once the cards are done (the summary, nothing due), whose
footer names what u takes back: a suspend or a bury is no grade, and "Undo last grade" over
one promised what u would not do.

Textual runs, and its footer shows, the first binding of a key whose action the app allows;
:meth:`zerodrill.tui.app.ZeroDrillApp.check_action` allows the one naming
:attr:`zerodrill.srs.session.Session.next_undo`.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

UNDO_BINDINGS: list[BindingType] = [
    Binding("u", "app.undo_last('grade')", "Undo last grade"),
    Binding("u", "app.undo_last('suspend')", "Undo suspend"),
    Binding("u", "app.undo_last('bury')", "Undo bury"),
    Binding("u", "app.undo_last", "Undo"),  # a flag or a mark
    # The key press the ones above turned down, with nothing to undo.
    Binding("u", "app.nothing_to_undo", show=False),
]
