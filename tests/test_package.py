"""The package as a user meets it: entry points and bundled files.

That the core never imports Textual is checked in test_layers.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import zerodrill
from zerodrill.paths import bundled_decks_dir


def test_python_dash_m_and_version() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "zerodrill", "--version"], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == f"zerodrill, version {zerodrill.__version__}"


def test_help_lists_the_commands() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "zerodrill", "--help"], capture_output=True, text=True, check=True
    ).stdout
    commands = [line.split()[0] for line in out.split("Commands:")[1].strip().splitlines()]
    assert commands == [
        "anki",
        "drill",
        "export",
        "import-progress",
        "interview",
        "preview",
        "schema",
        "sheet",
        "show",
        "stats",
        "sync",
        "unsuspend",
        "validate",
    ]


def test_usage_error_exits_2_without_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "zerodrill", "validate", "--no-such-option"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "No such option" in proc.stderr


def test_bundled_files_ship_with_the_package() -> None:
    package = Path(zerodrill.__file__).resolve().parent
    assert (bundled_decks_dir() / "deepspeed-zero.yaml").is_file()
    assert (package / "deck" / "deck.schema.json").is_file()
    assert (package / "tui" / "zerodrill.tcss").is_file()
    assert (package / "tui" / "screens" / "screens.tcss").is_file()
