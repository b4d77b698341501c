"""``zerodrill drill`` before Textual starts: bad decks, bad databases, bad options.

Each is one clear message and exit status 1, never a traceback and never a flash of the app.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tui_support import TUI_DECKS

from zerodrill.cli import main

BAD_DECK = """\
deck: broken
title: Broken
description: A deck with mistakes.
cards:
  - id: one
    kind: basic
    front: Question?
    anwser: typo
"""


def drill(*args: str) -> int:
    with pytest.raises(SystemExit) as exit_info:
        main(["drill", *args])
    return int(exit_info.value.code or 0)


def test_an_invalid_deck_lists_its_problems_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deck = tmp_path / "broken.yaml"
    deck.write_text(BAD_DECK)
    assert drill(str(deck), "--db", str(tmp_path / "r.db")) == 1
    err = capsys.readouterr().err
    assert f"{deck}:8:5: unknown field 'anwser'" in err
    assert "Traceback" not in err
    assert not (tmp_path / "r.db").exists()  # nothing was opened, let alone started


def test_a_database_that_is_not_one_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "notes.txt"
    db.write_text("not a database")
    assert drill(str(TUI_DECKS), "--db", str(db)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("zerodrill: ") and str(db) in err
    assert db.read_text() == "not a database"


def test_a_missing_folder_for_the_database_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "no-such-folder" / "r.db"
    assert drill(str(TUI_DECKS), "--db", str(db)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err


def test_an_unknown_deck_id_names_the_decks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert drill(str(TUI_DECKS), "--deck", "nope", "--db", str(tmp_path / "r.db")) == 1
    err = capsys.readouterr().err
    assert "no deck with id 'nope'" in err and "comm-tui, zero-tui" in err


def test_a_negative_new_limit_is_a_usage_error(tmp_path: Path) -> None:
    assert drill(str(TUI_DECKS), "--new", "-1") == 2


def test_the_collector_is_back_on_once_the_drill_has_started(tmp_path: Path) -> None:
    # `zerodrill drill` starts with the garbage collector off; the app must turn it on again.
    code = (
        "import asyncio, gc\n"
        "from pathlib import Path\n"
        "from zerodrill.cli.common import load_decks\n"
        "from zerodrill.cli.startup import collector_paused\n"
        "from zerodrill.srs.store import Store\n"
        "from zerodrill.tui.drill_app import create_app\n"
        "async def main():\n"
        f"    with Store.open(Path({str(tmp_path / 'r.db')!r})) as store:\n"
        "        with collector_paused() as resume:\n"
        "            app = create_app(load_decks(()).decks, store, on_first_frame=resume)\n"
        "            async with app.run_test() as pilot:\n"
        "                await pilot.pause()\n"
        "                print(app.started, gc.isenabled())\n"
        "asyncio.run(main())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]
