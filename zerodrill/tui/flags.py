"""Anki's seven flags as the drill shows them: on the card's header, in the flag menu (key f)
and in the palette, each by Anki's colour name, drawn in that colour.

The flags themselves (numbers and names, as events in the log) are
:mod:`zerodrill.srs.card_actions`'.
"""

from __future__ import annotations

from zerodrill.srs.card_actions import FLAGS

#: Drawn before a flag's name.
GLYPH = "⚑"
#: Drawn before "marked" (Anki's marked notes show a star).
MARK_GLYPH = "★"

#: Each flag's colour: mid-tones, read as well on the dark theme as on the light one.
COLOURS = {
    1: "#e5484d",  # red
    2: "#f76b15",  # orange
    3: "#30a46c",  # green
    4: "#0090ff",  # blue
    5: "#d6409f",  # pink
    6: "#12a594",  # turquoise
    7: "#8e4ec6",  # purple
}
assert COLOURS.keys() == FLAGS.keys()


def flag_name(flag: int) -> str:
    """The flag's colour as Anki's menus name it ("Red"); "No flag" for 0."""
    return FLAGS[flag].capitalize() if flag else "No flag"
