"""The package as a user meets it: entry points, bundled files, a core free of Textual."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import zerodrill
from zerodrill.paths import bundled_decks_dir

CORE_MODULES = [
    "zerodrill.cli",
    "zerodrill.cli.validate",
    "zerodrill.cli.export",
    "zerodrill.cli.stats",
    "zerodrill.deck.model",
    "zerodrill.deck.load",
    "zerodrill.deck.cache",
    "zerodrill.deck.cloze",
    "zerodrill.srs.sm2",
    "zerodrill.srs.store",
    "zerodrill.srs.queue",
    "zerodrill.export.apkg",
    "zerodrill.export.html",
    "zerodrill.export.notetypes",
]


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_modules_never_import_textual(module: str) -> None:
    code = f"import sys, {module}; print('textual' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False", f"{module} imports textual"


#: What the drill imports only once the first card is up (tests/bench/bench_drill.py measures
#: why): the Markdown parser, Pygments, TextArea, statistics, the typed-answer check, and the
#: deck loader with PyYAML (decks come from the parsed-deck cache).
DEFERRED = [
    "markdown_it",
    "pygments",
    "textual.widgets._text_area",
    "zerodrill.srs.stats",
    "zerodrill.tui.answer_check",
    "zerodrill.deck.load",
    "yaml",
]


def test_the_drill_defers_what_the_first_card_does_not_need() -> None:
    code = (
        "import sys, zerodrill.cli.drill, zerodrill.tui.app, zerodrill.deck.cache; "
        f"print([m for m in {DEFERRED!r} if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


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
    assert commands == ["drill", "export", "stats", "validate"]


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
