"""zerodrill: interview-prep decks drilled with SM-2 in the terminal and exported to Anki."""

__version__ = "0.2.0"
