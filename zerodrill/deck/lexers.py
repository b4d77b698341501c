"""The Pygments lexer for a code fence's language, shared by the drill and the Anki export."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pygments.lexer import Lexer


@cache
def lexer_for(language: str) -> Lexer | None:
    """The lexer for ``language`` (any case), or None when Pygments knows no such language.

    Cached because finding a lexer by name searches Pygments' whole table of languages. The
    lexer keeps the code's leading and trailing newlines, so highlighted code is the code given.
    """
    # Imported here: most cards have no code, and Pygments is a sizeable import.
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None
