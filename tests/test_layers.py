"""The package's layers, and a core that never imports Textual.

    deck  ←  srs  ←  export, tui  ←  cli
                     export  ←  anki_sync  ←  cli

Each layer imports only the layers to its left (export and tui never import each other), so
the deck model knows nothing of reviews, the scheduler nothing of screens, and the CLI is the
only place where everything meets. Below them all sit the package's top-level modules
(``zerodrill.errors``, ``zerodrill.paths``, ...), which import no layer. The imports are read
from the source, so a lazy import inside a function counts as much as one at the top.

The core (deck, srs, export) and the commands that need no screen (``validate``, ``export``,
``stats``, and ``drill`` when it refuses to start) never import Textual; each is checked in a
fresh interpreter, as harlequin's tests/unit_tests/test_import_hygiene.py does, because what a
module imports depends on what was imported before it.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import zerodrill

PACKAGE = Path(zerodrill.__file__).resolve().parent
DATA = Path(__file__).resolve().parent / "data"

#: What each layer may import. "base" is the package's top-level modules.
MAY_IMPORT = {
    "base": {"base"},
    "deck": {"base", "deck"},
    "srs": {"base", "deck", "srs"},
    "export": {"base", "deck", "srs", "export"},
    "tui": {"base", "deck", "srs", "tui"},
    "anki_sync": {"base", "deck", "srs", "export", "anki_sync"},
    "cli": {"base", "deck", "srs", "export", "tui", "anki_sync", "cli"},
}
CORE = ("deck", "srs", "export", "anki_sync")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> str:
    """The layer of a module of the package; ``python -m zerodrill`` is the CLI's."""
    if module == "zerodrill.__main__":
        return "cli"
    parts = module.split(".")
    if len(parts) == 1 or not (PACKAGE / parts[1]).is_dir():
        return "base"
    if parts[1] not in MAY_IMPORT:
        raise AssertionError(f"{module} is in no layer: give zerodrill.{parts[1]} a place")
    return parts[1]


def imports_of(module: str) -> set[str]:
    """The modules of the package that ``module`` imports, anywhere in its source."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                # "from zerodrill.deck import cloze" imports the module zerodrill.deck.cloze.
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in MODULES else base)
    return {name for name in found if name == "zerodrill" or name.startswith("zerodrill.")}


def test_every_module_is_in_a_layer() -> None:
    layers = {layer_of(module) for module in MODULES}
    assert layers == set(MAY_IMPORT)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_only_the_layers_below_its_own(module: str) -> None:
    mine = layer_of(module)
    wrong = sorted(
        f"{name} ({layer_of(name)})"
        for name in imports_of(module)
        if layer_of(name) not in MAY_IMPORT[mine]
    )
    assert not wrong, f"{module} ({mine}) imports {', '.join(wrong)}"


def test_the_import_reader_sees_every_kind_of_import() -> None:
    # Module-level, lazy, "from package import module" and "from module import name" forms:
    # cli/export.py imports apkg lazily as "from zerodrill.export import apkg".
    found = imports_of("zerodrill.cli.export")
    assert {"zerodrill.export.apkg", "zerodrill.cli.common", "zerodrill.errors"} <= found
    assert layer_of("zerodrill.export.apkg") == "export"
    assert layer_of("zerodrill.errors") == layer_of("zerodrill") == "base"


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
TEXTUAL_FREE = sorted(
    [m for m in MODULES if layer_of(m) in (*CORE, "base")]
    + [m for m in MODULES if layer_of(m) == "cli" and m != "zerodrill.__main__"]
)


@pytest.mark.parametrize("module", TEXTUAL_FREE)
def test_the_core_and_the_cli_never_import_textual(module: str) -> None:
    assert imports_textual(module) == [], f"{module} imports textual"


def test_the_textual_check_can_fail() -> None:
    assert "textual" in imports_textual("zerodrill.tui.app")


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
        assert done.stdout.strip() == "1 deck, 4 cards: ok"
    elif command == "export":
        assert (tmp_path / "sample.apkg").stat().st_size > 0
    else:
        assert json.loads(done.stdout)["cards"] == 5  # the cloze card has two deletions
