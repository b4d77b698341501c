"""Key e: the card's YAML opened at its line in $VISUAL or $EDITOR, the drill suspended, and the
card read again when the editor closes. The real drill in a pty with a scripted editor, and
Pilot for what needs no terminal (no editor set, a deck broken by the edit)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_terminal_faults import PtyDrill, plain_deck
from tui_support import Clock, run_async

from zerodrill.deck.load import load_paths
from zerodrill.srs.store import Store
from zerodrill.tui.app import create_app
from zerodrill.tui.editor import editor_command
from zerodrill.tui.widgets.card_view import CardView

# The editor: records how it was called, then changes the first card's question.
EDITOR = """\
import sys
from pathlib import Path
Path(sys.argv[1]).write_text(" ".join(sys.argv[2:]))
deck = Path(sys.argv[-1])
deck.write_text(deck.read_text().replace("Plain question 01", "Edited question 01"))
"""


def test_e_opens_the_card_at_its_line_and_the_drill_shows_the_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deck = plain_deck(tmp_path / "faults.yaml", 3)
    (card,) = [c for c in load_paths([deck]).decks[0].cards if c.id == "q01"]
    script = tmp_path / "editor.py"
    script.write_text(EDITOR)
    called = tmp_path / "called.txt"
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setenv("VISUAL", f"{sys.executable} {script} {called}")
    drill = PtyDrill(tmp_path, deck, (80, 24))
    try:
        drill.wait_for("Plain question 01")
        mark = drill.mark
        drill.press(b"e")
        drill.wait_for("Edited question 01", mark)
        assert called.read_text() == f"+{card.pos.line} {deck}"
        # The drill goes on with the edited card: it is graded under its own key.
        drill.grade(4)
        (grade,) = drill.wait_grades(1)
        assert grade.key == "faults/q01"
        drill.press(b"q")
        assert drill.wait_exit() == 0
    finally:
        drill.finish()


@pytest.mark.parametrize(
    ("env", "command"),
    [
        ({"VISUAL": "code --wait", "EDITOR": "vi"}, ["code", "--wait", "+7", "d.yaml"]),
        ({"VISUAL": " ", "EDITOR": "vi"}, ["vi", "+7", "d.yaml"]),
        ({}, "No editor: set $VISUAL or $EDITOR to the command that opens a file"),
        ({"EDITOR": "vi 'x"}, "$EDITOR cannot be read as a command (No closing quotation)"),
    ],
)
def test_the_editor_is_visual_else_editor_given_the_line(
    env: dict[str, str], command: list[str] | str
) -> None:
    assert editor_command(env, Path("d.yaml"), 7) == command


@run_async
async def test_no_editor_set_is_one_line_and_the_card_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    deck = plain_deck(tmp_path / "faults.yaml", 2)
    with Store.open(tmp_path / "reviews.db") as store:
        app = create_app(load_paths([deck]).decks, store, clock=Clock())
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("e")
            assert [str(n.message) for n in app._notifications] == [
                "No editor: set $VISUAL or $EDITOR to the command that opens a file"
            ]
            assert app.screen.query_one(CardView).item.key == "faults/q01"


@run_async
async def test_decks_read_again_keep_the_card_and_a_broken_edit_keeps_the_old_cards(
    tmp_path: Path,
) -> None:
    deck = plain_deck(tmp_path / "faults.yaml", 3)
    with Store.open(tmp_path / "reviews.db") as store:
        app = create_app(load_paths([deck]).decks, store, clock=Clock())
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter", "4")
            assert app.screen.query_one(CardView).item.key == "faults/q02"
            deck.write_text(deck.read_text().replace("Plain answer 02", "New answer 02"))
            assert app._read_decks_again() is None
            await app.screen.show_current()
            await pilot.press("enter")
            card = app.screen.query_one(CardView)
            assert card.item.key == "faults/q02" and "New answer 02" in card.answer_markdown
            # The sitting's grade is still there to undo.
            assert app.session.can_undo
            deck.write_text(deck.read_text().replace("kind: basic", "kind: basik", 1))
            problem = app._read_decks_again()
            assert problem is not None and "faults.yaml:" in problem
            assert problem.endswith("the cards as they were are kept")
            assert app.session.current is not None and app.session.current.key == "faults/q02"
