"""The Markdown a deck's text is written in, as one pulldown-cmark (pyromark) configuration.

CommonMark with tables: what ``decks/README.md`` promises. Validate's checks
(:mod:`~zerodrill.deck.markdown_checks`, :mod:`~zerodrill.deck.raw_html`), the export's HTML
(:mod:`zerodrill.export.html`) and, through it, the preview and the sheet, and the terminal's
cards (:mod:`zerodrill.tui.markdown_tree`) all parse with the parsers made here, so what
validate checks is the structure that is rendered. Where the terminal must draw otherwise than
the export, one comment in that module says where and why.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import pyromark

#: The syntax's extensions beyond CommonMark.
OPTIONS = pyromark.Options.ENABLE_TABLES


@cache
def parser() -> pyromark.Markdown:
    """The parser, without code highlighting: for events, and for HTML too long to highlight."""
    return pyromark.Markdown(options=OPTIONS)


def highlighting_parser(highlight: Callable[[str | None, str], str]) -> pyromark.Markdown:
    """The parser with ``highlight(language, code)`` writing each code block's HTML."""
    return pyromark.Markdown(options=OPTIONS, highlight=highlight)
