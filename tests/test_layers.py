"""The package's layers, and a core that never imports Textual.

The layers are import-linter's contract in pyproject.toml ([tool.importlinter]), run here so
that ``pytest`` checks them wherever it runs; the tests below them check what import-linter
cannot: what a fresh interpreter has loaded.

The core (deck, srs, export) and the commands that need no screen (``validate``, ``export``,
``stats``, and ``drill`` when it refuses to start) never import Textual; each is checked in a
fresh interpreter, as harlequin's tests/unit_tests/test_import_hygiene.py does, because what a
module imports depends on what was imported before it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from importlinter.cli import lint_imports

import zerodrill

PACKAGE = Path(zerodrill.__file__).resolve().parent
# The checkout's, as CI may test an installed zerodrill.
PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
DATA = Path(__file__).resolve().parent / "data"
CORE = ("deck", "srs", "export", "anki_sync")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _lint(config: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = lint_imports(config_filename=str(config), no_cache=True, no_logo=True)
    return code, capsys.readouterr().out


def test_the_layer_contracts_are_kept(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _lint(PYPROJECT, capsys)
    assert code == 0, out
    assert "1 kept, 0 broken" in out


def _contract_with(tmp_path: Path, **changes: Any) -> Path:
    """pyproject.toml's import-linter configuration, with the layers contract changed."""
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = config["contracts"]
    contract.update(changes)
    lines = [f"[importlinter]\nroot_package = {config['root_package']}\n"]
    lines.append(f"[importlinter:contract:{contract.pop('id')}]")
    for key, value in contract.items():
        if isinstance(value, list):
            value = "".join(f"\n    {v}" for v in value)
        lines.append(f"{key} = {value}")
    path = tmp_path / ".importlinter"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_layer_contract_can_fail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The same contract read from the same place, with srs put under deck: srs imports deck.
    layers = ["__main__", "cli", "tui | export", "deck", "srs", "errors : paths : words"]
    config = _contract_with(tmp_path, layers=layers)
    code, out = _lint(config, capsys)
    assert code == 1 and "zerodrill.srs" in out and "BROKEN" in out


def test_a_module_given_no_layer_breaks_the_contract(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _contract_with(
        tmp_path, layers=["__main__", "cli", "tui | export", "srs", "deck", "errors : paths"]
    )
    code, out = _lint(config, capsys)
    assert code == 1 and "zerodrill.words" in out


def imports_textual(*modules: str) -> list[str]:
    """The Textual modules loaded by importing ``modules`` into a fresh interpreter."""
    code = (
        f"import json, sys\nfor m in {list(modules)!r}: __import__(m)\n"
        "print(json.dumps([m for m in sys.modules if m == 'textual' or m.startswith('textual.')]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


#: The core with the top-level modules, and the CLI's modules (the drill's imports the app
#: only when it runs).
def _textual_free(module: str) -> bool:
    parts = module.split(".")
    if len(parts) == 1 or not (PACKAGE / parts[1]).is_dir():
        return module != "zerodrill.__main__"  # the package's top-level modules
    return parts[1] in (*CORE, "cli")


TEXTUAL_FREE = sorted(filter(_textual_free, MODULES))


@pytest.mark.parametrize("module", TEXTUAL_FREE)
def test_the_core_and_the_cli_never_import_textual(module: str) -> None:
    assert imports_textual(module) == [], f"{module} imports textual"


def test_the_textual_check_can_fail() -> None:
    assert "textual" in imports_textual("zerodrill.tui.drill_app")


BAD_DECK = """\
deck: broken
title: Broken
description: A deck with a mistake.
cards:
  - id: one
    kind: basic
    front: Question?
    anwser: typo
"""

RUN = """\
import json, sys
from zerodrill.cli import main
code = 0
try:
    main(sys.argv[2:])
except SystemExit as exc:
    code = exc.code or 0
textual = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
with open(sys.argv[1], "w") as out:
    json.dump({"exit": code, "textual": textual}, out)
"""


@pytest.mark.parametrize("command", ["validate", "export", "stats", "drill-invalid-deck"])
def test_commands_without_a_screen_never_import_textual(command: str, tmp_path: Path) -> None:
    sample = str(DATA / "decks" / "sample.yaml")
    bad = tmp_path / "broken.yaml"
    bad.write_text(BAD_DECK)
    args = {
        "validate": ["validate", sample],
        "export": ["export", sample, "-o", str(tmp_path / "sample.apkg")],
        "stats": ["stats", "--json", sample],
        "drill-invalid-deck": ["drill", str(bad)],
    }[command]
    result = tmp_path / "result.json"
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(result), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    outcome = json.loads(result.read_text())
    assert outcome["textual"] == [], f"zerodrill {command} imported Textual"
    # ... and each did its job.
    if command == "drill-invalid-deck":
        assert outcome["exit"] == 1
        assert f"{bad}:8:5: unknown field 'anwser'" in done.stderr
        return
    assert outcome["exit"] == 0, done.stderr
    if command == "validate":
        # The sample cloze gives its c2 away ("stage" is in its text): a warning, status 0.
        assert done.stdout.splitlines()[-1] == (
            "1 deck, 4 cards (5 in Anki: each cloze deletion is a card): ok (1 warning)"
        )
    elif command == "export":
        assert (tmp_path / "sample.apkg").stat().st_size > 0
    else:
        assert json.loads(done.stdout)["cards"] == 5  # the cloze card has two deletions
