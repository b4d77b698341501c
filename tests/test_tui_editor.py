"""Key e: the card's YAML opened at its line in $VISUAL or $EDITOR, the drill suspended, and the
card read again when the editor closes. The real drill in a pty with a scripted editor, and
Pilot for what needs no terminal (no editor set, a deck broken by the edit)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_terminal_faults import TIMEOUT, PtyDrill, plain_deck, until
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


# An editor that reads its arguments as vim does: one starting with "+" is a command (a line
# number, or "+!" and a shell command, which it runs), one starting with "-" an option; the
# others are the files to open.
VIM_LIKE = """\
import subprocess, sys
from pathlib import Path
Path(sys.argv[1]).write_text("\\n".join(sys.argv[2:]))
files = []
for arg in sys.argv[2:]:
    if arg.startswith("+!"):
        subprocess.run(arg[2:], shell=True)
    elif not arg.startswith(("+", "-")):
        files.append(Path(arg))
for deck in files:
    deck.write_text(deck.read_text().replace("Plain question 01", "Edited question 01"))
"""


def test_a_deck_named_as_a_vim_command_is_opened_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Break: a deck file named ``+!touch PWNED ;true .yaml``, given as a relative path, ran
    the command under vim: the editor now gets the file's absolute path."""
    name = "+!touch PWNED ;true .yaml"
    plain_deck(tmp_path / name, 2)
    script = tmp_path / "vim.py"
    script.write_text(VIM_LIKE)
    called = tmp_path / "called.txt"
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script} {called}")
    drill = PtyDrill(tmp_path, Path(name), (80, 24))  # relative: the drill runs in tmp_path
    try:
        drill.wait_for("Plain question 01")
        mark = drill.mark
        drill.press(b"e")
        drill.wait_for("Edited question 01", mark)
        assert called.read_text().splitlines() == ["+5", str(tmp_path / name)]
        assert not (tmp_path / "PWNED").exists()
        drill.press(b"q")
        assert drill.wait_exit() == 0
    finally:
        drill.finish()


# An editor that the learner interrupts with Ctrl+C: it takes the key itself (as vim, nano and
# emacs do), then saves and exits 0. It says it is up once it can take the key.
INTERRUPTED = """\
import signal, sys, time
from pathlib import Path
got = []
signal.signal(signal.SIGINT, lambda *_: got.append(True))
Path(sys.argv[1]).write_text("ready")
deadline = time.monotonic() + float(sys.argv[2])
while not got and time.monotonic() < deadline:
    time.sleep(0.02)
deck = Path(sys.argv[-1])
deck.write_text(deck.read_text().replace("Plain question 01", "Edited question 01"))
Path(sys.argv[1]).write_text("interrupted" if got else "never interrupted")
"""


def test_ctrl_c_in_the_editor_is_the_editors_and_the_drill_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Break: Ctrl+C typed while the editor ran ended the drill too (exit 0, no summary). The
    terminal sends SIGINT to the whole foreground group: the editor's, not the drill's."""
    deck = plain_deck(tmp_path / "faults.yaml", 3)
    script = tmp_path / "editor.py"
    script.write_text(INTERRUPTED)
    state = tmp_path / "state.txt"
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setenv("VISUAL", f"{sys.executable} {script} {state} {TIMEOUT}")
    drill = PtyDrill(tmp_path, deck, (80, 24))
    try:
        drill.wait_for("Plain question 01")
        mark = drill.mark
        drill.press(b"e")
        until_file_says(state, "ready", drill)
        drill.press(b"\x03")  # Ctrl+C, typed while the terminal is the editor's
        drill.wait_for("Edited question 01", mark)
        assert state.read_text() == "interrupted"
        drill.grade(4)
        drill.press(b"q")
        assert drill.wait_exit() == 0
        assert "1 grade saved to" in drill.text()
    finally:
        drill.finish()


def until_file_says(path: Path, text: str, drill: PtyDrill) -> None:
    def says() -> bool:
        try:
            return path.read_text() == text
        except OSError:
            return False

    until(says, f"{text!r} in {path.name}", drill)


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
    env: dict[str, str], command: list[str] | str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    if isinstance(command, list):
        command = [*command[:-1], str(tmp_path / command[-1])]
    assert editor_command(env, Path("d.yaml"), 7) == command


@pytest.mark.parametrize("name", ["+!touch PWNED ;true .yaml", "-u NONE.yaml", "--cmd=x.yaml"])
def test_a_deck_file_name_never_reaches_the_editor_as_a_command_or_an_option(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """vim runs an argument starting with + as a command, and every editor reads one starting
    with - as an option: the file is given as an absolute path, which starts with neither."""
    monkeypatch.chdir(tmp_path)
    command = editor_command({"EDITOR": "vim"}, Path(name), 3)
    assert command == ["vim", "+3", str(tmp_path / name)]
    assert isinstance(command, list) and Path(command[-1]).is_absolute()


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
