"""The keys of the screens shown once the cards are done (the summary, nothing due).

The footer names what u takes back ("Undo last grade" over a bury promised what u would not
do): Textual shows the first binding of a key whose action the app allows, and
:meth:`zerodrill.tui.drill_app.ZeroDrillApp.check_action` allows the one naming the next undo.
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
AFTER_CARDS_BINDINGS: list[BindingType] = [
    *UNDO_BINDINGS,
    Binding("d", "app.pick_deck", "Decks"),
    Binding("s", "app.stats", "Stats"),
    Binding("question_mark", "app.help", "Help", key_display="?"),
    # Not Enter: an Enter too many after the last grade must not end the sitting.
    Binding("q", "app.finish", "Quit"),
]
