"""The one definition of characters no deck value may hold and no terminal line may show raw."""

from __future__ import annotations

import pytest

from zerodrill.deck.control_chars import CONTROL, describe, first_control, shown


@pytest.mark.parametrize(
    "char", ["\x00", "\x07", "\x08", "\r", "\x1b", "\x1f", "\x7f", "\x9b", "\u2028", "\u202e"]
)
def test_controls_are_found_and_escaped(char: str) -> None:
    text = f"ab{char}cd"
    assert first_control(text) == 2
    assert CONTROL.search(shown(text)) is None
    assert char not in shown(text)


def test_tab_and_newline_are_allowed_in_values_but_escaped_on_one_line() -> None:
    assert first_control("a\tb\nc") is None
    assert shown("a\tb\nc") == "a\\x09b\\x0ac"


def test_plain_text_is_shown_as_it_is() -> None:
    assert shown("Café ZeRO — stage 3 ✓") == "Café ZeRO — stage 3 ✓"
    assert shown("\x1b]2;PWNED\x07") == "\\x1b]2;PWNED\\x07"
    assert describe("\x1b") == "U+001B"
