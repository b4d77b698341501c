"""Key e: the card's YAML opened at its line in $VISUAL or $EDITOR, the drill suspended, and the
card read again when the editor closes. The real drill in a pty with a scripted editor, and
Pilot for what needs no terminal (no editor set, a deck broken by the edit)."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path

import pytest
from cli_support import run_cli
from test_terminal_faults import TIMEOUT, PtyDrill, plain_deck, until
from tui_support import Clock, run_async

from zerodrill.deck.load import load_paths
from zerodrill.paths import user_decks_dir
from zerodrill.srs.store import Store
from zerodrill.tui.drill_app import ZeroDrillApp, create_app
from zerodrill.tui.editor import editor_command
from zerodrill.tui.screens.drill_screen import DrillScreen
from zerodrill.tui.screens.installed_deck import InstalledDeckScreen
from zerodrill.tui.widgets.card_view import CardView

# The editor: records how it was called, then changes the first card's question.
EDITOR = """\
import sys
from pathlib import Path
Path(sys.argv[1]).write_text(" ".join(sys.argv[2:]))
deck = Path(sys.argv[-1])
deck.write_text(deck.read_text().replace("Plain question 01", "Edited question 01"))
"""


def use_editor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script_text: str, record: str, *args: str
) -> Path:
    """$VISUAL (and no $EDITOR): ``script_text`` run by this Python with the file
    ``tmp_path/record`` it writes to, and ``args``; returns that file."""
    script = tmp_path / "editor.py"
    script.write_text(script_text)
    written = tmp_path / record
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setenv("VISUAL", " ".join([sys.executable, str(script), str(written), *args]))
    return written


def test_e_opens_the_card_at_its_line_and_the_drill_shows_the_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deck = plain_deck(tmp_path / "faults.yaml", 3)
    (card,) = [c for c in load_paths([deck]).decks[0].cards if c.id == "q01"]
    called = use_editor(tmp_path, monkeypatch, EDITOR, "called.txt")
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
    state = use_editor(tmp_path, monkeypatch, INTERRUPTED, "state.txt", str(TIMEOUT))
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


# -- a deck installed with zerodrill: edited as a copy in the learner's deck folder -------------

#: A deck as the package installs it: with an image beside it, which the copy must carry.
INSTALLED_DECK = """\
deck: shipped
title: Shipped
description: A deck installed with zerodrill.
cards:
  - id: q01
    kind: basic
    front: Plain question 01
    back: "Plain answer 01 ![a diagram](img/d.png)"
  - id: q02
    kind: basic
    front: Plain question 02
    back: Plain answer 02
"""


#: The learner's own copy of it, changed since it was copied.
MY_COPY = INSTALLED_DECK.replace("Plain question 01", "My question 01")


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The installed package's deck folder (inside site-packages), holding one deck."""
    folder = tmp_path / "site-packages" / "zerodrill" / "_decks"
    (folder / "img").mkdir(parents=True)
    (folder / "shipped.yaml").write_text(INSTALLED_DECK)
    (folder / "img" / "d.png").write_bytes(b"\x89PNG not really")
    monkeypatch.setattr("zerodrill.paths.installed_decks_dir", lambda: folder)
    return folder


@pytest.fixture
def editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$VISUAL: the editing script, run without a terminal (Pilot's app cannot be suspended,
    so suspending is a no-op here); returns the file it records its arguments in."""
    called = use_editor(tmp_path, monkeypatch, EDITOR, "called.txt")
    monkeypatch.setattr(ZeroDrillApp, "suspend", lambda self: contextlib.nullcontext())
    return called


def said(app: ZeroDrillApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def test_e_on_an_installed_deck_says_so_and_edits_a_copy_that_later_commands_read(
    tmp_path: Path, installed: Path, editor: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = user_decks_dir()
    copy = mine / "shipped.yaml"
    shipped = (installed / "shipped.yaml").read_text()
    asyncio.run(_edit_an_installed_deck(tmp_path, installed, editor, copy, shipped))
    # A later command given no path reads the copy, and its first line says so.
    capsys.readouterr()
    code, out, err = run_cli(capsys, "show", "q01")
    assert code == 0, err
    assert "Edited question 01" in out
    assert err.splitlines()[0] == (
        f"decks: the installed ones, with your copy of shipped.yaml from {mine}"
    )


async def _edit_an_installed_deck(
    tmp_path: Path, installed: Path, editor: Path, copy: Path, shipped: str
) -> None:
    mine = copy.parent
    with Store.open(tmp_path / "reviews.db") as store:
        app = create_app(load_paths([installed]).decks, store, clock=Clock())
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("e")
            assert isinstance(app.screen, InstalledDeckScreen)
            text = shown_text(app.screen)
            assert "installed with zerodrill" in text
            assert "lost when zerodrill is installed again" in text
            assert str(copy) in text
            assert not editor.exists()  # nothing runs before the learner says
            await pilot.press("y")
            await pilot.pause()
            assert isinstance(app.screen, DrillScreen)
            # The copy, with the image it names, is what the editor opened; the installed
            # file is as it was.
            assert editor.read_text() == f"+5 {copy}"
            assert (mine / "img" / "d.png").read_bytes() == b"\x89PNG not really"
            assert (installed / "shipped.yaml").read_text() == shipped
            assert "Edited question 01" in copy.read_text()
            assert app.screen.query_one(CardView).item.card.fields["front"] == (
                "Edited question 01"
            )
            assert f"Copied to {copy}: this sitting and every later one read your copy." in (
                said(app)
            )
            # The sitting reads the copy now: e edits it at once, without asking again.
            editor.unlink()
            await pilot.press("e")
            await pilot.pause()
            assert isinstance(app.screen, DrillScreen)
            assert editor.read_text() == f"+5 {copy}"
            await pilot.press("enter", "4")
        assert [e.key for e in store.log.entries()] == ["shipped/q01"]


@pytest.mark.parametrize(
    ("key", "front", "copy_after"),
    [
        # The editor changes "Plain question 01", which the learner's copy no longer has.
        ("e", "My question 01", MY_COPY),
        ("enter", "My question 01", MY_COPY),
        (
            "r",
            "Edited question 01",
            INSTALLED_DECK.replace("Plain question 01", "Edited question 01"),
        ),
        ("escape", "Plain question 01", MY_COPY),
    ],
    ids=["e-edits-my-copy", "enter-edits-my-copy", "r-replaces-it", "esc-cancels"],
)
@run_async
async def test_a_copy_already_there_is_replaced_only_when_asked(
    tmp_path: Path, installed: Path, editor: Path, key: str, front: str, copy_after: str
) -> None:
    """The sitting read the installed deck (named on the command line, say) though the
    learner's folder has a copy: e edits that copy, r replaces it first, Esc does nothing."""
    copy = user_decks_dir() / "shipped.yaml"
    (copy.parent / "img").mkdir(parents=True)
    (copy.parent / "img" / "d.png").write_bytes(b"an image of theirs")
    copy.write_text(MY_COPY)
    with Store.open(tmp_path / "reviews.db") as store:
        app = create_app(load_paths([installed]).decks, store, clock=Clock())
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("e")
            assert isinstance(app.screen, InstalledDeckScreen)
            text = shown_text(app.screen)
            assert "has a copy of this deck already" in text and str(copy) in text
            await pilot.press("y")  # not offered when a copy is there: nothing happens
            assert isinstance(app.screen, InstalledDeckScreen) and copy.read_text() == MY_COPY
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, DrillScreen)
            assert app.screen.query_one(CardView).item.card.fields["front"] == front
    assert copy.read_text() == copy_after
    if key == "escape":
        assert not editor.exists()
    else:
        assert editor.read_text() == f"+5 {copy}"
    # The image beside it is the learner's: never replaced.
    assert (copy.parent / "img" / "d.png").read_bytes() == b"an image of theirs"


def shown_text(screen: object) -> str:
    """The dialog's text, unwrapped (its paths are longer than its width)."""
    from textual.screen import Screen
    from textual.widgets import Static

    assert isinstance(screen, Screen)
    return "\n".join(str(widget.render()) for widget in screen.query(Static))


@run_async
async def test_a_copy_that_cannot_be_written_is_one_line_and_nothing_is_edited(
    tmp_path: Path, installed: Path, editor: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("ZERODRILL_DECKS_DIR", str(blocker))
    with Store.open(tmp_path / "reviews.db") as store:
        app = create_app(load_paths([installed]).decks, store, clock=Clock())
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("e", "y")
            await pilot.pause()
            assert isinstance(app.screen, DrillScreen) and app.is_running
            (line,) = said(app)
            assert line.startswith(f"cannot copy the deck to {blocker}")
    assert not editor.exists() and blocker.read_text() == "not a folder"
