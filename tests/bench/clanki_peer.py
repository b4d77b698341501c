"""Clanki, the closest peer, made ready to run beside the drill on the bench's own deck.

Clanki (https://github.com/alvenw/clanki) is a Textual review client over Anki's own backend:
the same kind of program as ``zerodrill drill``, reading an Anki collection instead of YAML.
The bench gives it the same cards: the generated deck goes through zerodrill's exporter
(``zerodrill export``, which is ``zerodrill.export.apkg``; with ``--with-progress`` the
all-due database's schedules go along), and the package is imported into a fresh collection
by Anki's backend, as Anki's import dialog does with "import any learning progress" on.

Where Clanki is: ``ZERODRILL_BENCH_CLANKI`` (its executable), else ``clanki`` on ``PATH``
(``pip install -e '.[bench]'``). The collection is built by the Python that runs Clanki when
that one has ``anki`` (so the collection is in the format Clanki's backend writes; Clanki
pins one Anki release), else by the bench's own Python.

This module is named ``clanki_peer``, not ``clanki``: the bench folder is on ``PYTHONPATH``,
and a module of Clanki's name there would stand in for Clanki's own package.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ENV_VAR = "ZERODRILL_BENCH_CLANKI"
#: Anki's profile folder name: Clanki reviews ``$ANKI_BASE/<profile>/collection.anki2``.
PROFILE = "User 1"
INSTALL_HINT = f"pip install -e '.[bench]', or set {ENV_VAR} to its executable"

# Run by the Python that has ``anki``: import the package as Anki's import dialog does, then
# say which deck it made and what Anki would queue today. Anki's backend prints a stack when
# a long call blocks the main thread, so the answer is the last line.
_IMPORT = """
import json, sys
from anki.buildinfo import version
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

col = Collection(sys.argv[2])
try:
    options = ImportAnkiPackageOptions(
        merge_notetypes=False, with_scheduling=True, with_deck_configs=False
    )
    log = col.import_anki_package(
        ImportAnkiPackageRequest(package_path=sys.argv[1], options=options)
    ).log
    (deck,) = [d for d in col.decks.all_names_and_ids() if d.name != "Default"]
    col.decks.select(deck.id)
    new, learn, review = col.sched.counts()
    print(json.dumps({"deck": deck.name, "notes": len(log.new), "new": new,
                      "learn": learn, "review": review, "anki": version}))
finally:
    col.close()
"""


@dataclass(frozen=True)
class Clanki:
    executable: Path
    python: str  # the interpreter that builds the collection (has ``anki``)

    def version(self) -> str:
        out = subprocess.run(
            [str(self.executable), "--version"], capture_output=True, text=True, timeout=60
        )
        return (out.stdout or out.stderr).strip().split()[-1] if out.returncode == 0 else "?"


@dataclass(frozen=True)
class Collection:
    """An Anki profile folder holding the imported deck, and what Anki queues from it."""

    base: Path  # ANKI_BASE: holds the profile folder
    deck: str
    counts: dict[str, int]
    anki: str


def find() -> tuple[Clanki | None, str]:
    """Clanki, or None and why not (a line for the report)."""
    given = os.environ.get(ENV_VAR)
    if given:
        exe = Path(given).expanduser()
        if not (exe.is_file() and os.access(exe, os.X_OK)):
            return None, f"{ENV_VAR}={given} is not an executable"
    else:
        found = shutil.which("clanki")
        if found is None:
            return None, f"Clanki not installed ({INSTALL_HINT})"
        exe = Path(found)
    for python in (_script_python(exe), sys.executable):
        if python and _has_anki(python):
            return Clanki(exe, python), ""
    return None, f"no Python with the anki package to build the collection for {exe}"


def _script_python(exe: Path) -> str | None:
    """The interpreter on a console script's ``#!`` line (pip's and pipx's scripts have one)."""
    try:
        with exe.open("rb") as f:
            first = f.readline(4096)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = shlex.split(first[2:].decode(errors="replace").strip())
    if words and Path(words[0]).name == "env":
        words = words[1:]
    return shutil.which(words[0]) if words and "python" in Path(words[0]).name else None


def _has_anki(python: str) -> bool:
    return (
        subprocess.run(
            [python, "-c", "import anki.collection"], capture_output=True, timeout=120
        ).returncode
        == 0
    )


def build_collection(
    clanki: Clanki, deck: Path, db: Path, folder: Path, env: dict[str, str]
) -> Collection:
    """Export ``deck`` with ``db``'s schedules and import it into a new collection in ``folder``."""
    package = folder / "package" / "bench.apkg"
    # export makes no missing parent folder (a typo there is refused, not created).
    package.parent.mkdir(parents=True, exist_ok=True)
    exported = subprocess.run(
        [
            sys.executable,
            "-m",
            "zerodrill",
            "export",
            str(deck),
            "-o",
            str(package),
            "--with-progress",
            "--db",
            str(db),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )
    if exported.returncode != 0:
        raise RuntimeError(f"zerodrill export failed:\n{exported.stderr.strip()}")
    profile = folder / "anki" / PROFILE
    profile.mkdir(parents=True)
    done = subprocess.run(
        [clanki.python, "-c", _IMPORT, str(package), str(profile / "collection.anki2")],
        capture_output=True,
        text=True,
        env=_clean_env(),
    )
    if done.returncode != 0:
        raise RuntimeError(f"importing the package into Anki failed:\n{done.stderr.strip()}")
    shutil.rmtree(package.parent)
    made = json.loads(done.stdout.strip().splitlines()[-1])
    counts = {k: made[k] for k in ("notes", "new", "learn", "review")}
    return Collection(profile.parent, made["deck"], counts, made["anki"])


def fresh_copy(pristine: Collection, base: Path) -> Path:
    """A copy of the collection's ANKI_BASE at ``base``: each round grades from the same start.

    The collection is closed, so its files are whole; a plain copy will do.
    """
    shutil.rmtree(base, ignore_errors=True)
    shutil.copytree(pristine.base, base)
    return base


def command(clanki: Clanki, deck_name: str) -> str:
    """The shell command tmux runs: ``clanki review DECK``, as a learner types it.

    Without the bench's ``PYTHONPATH`` (the zerodrill checkout and the bench folder).
    """
    exe = shlex.quote(str(clanki.executable))
    return f"env -u PYTHONPATH {exe} review {shlex.quote(deck_name)}"


def environment(base: Path, config: Path) -> dict[str, str]:
    """Clanki's environment: the bench's collection, and a config folder of its own.

    Clanki keeps its settings in ``$XDG_CONFIG_HOME/clanki``: a private one leaves the
    user's settings alone and keeps them out of the measurement.
    """
    return {"ANKI_BASE": str(base), "XDG_CONFIG_HOME": str(config), "TERM": "xterm-256color"}


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


# -- what is on Clanki's screen ------------------------------------------------------------------

# The question side of each generated card names its number: "(variant 12)" or "(12)".
_CARD = re.compile(r"\((?:variant )?\d+\)")


def card_key(screen: str) -> str | None:
    m = _CARD.search(screen)
    return m.group() if m else None


def box_key(screen: str) -> str | None:
    """The card in Clanki's box, by its text: the real cards copied from the bundled deck name
    no number, and two cards in a row are never the same text."""
    lines = screen.splitlines()
    top = next((i for i, line in enumerate(lines) if "┌" in line), None)
    bottom = next((i for i, line in enumerate(lines) if "└" in line), None)
    if top is None or bottom is None or bottom <= top + 1:
        return None
    text = " ".join(" ".join(lines[top + 1 : bottom]).replace("│", " ").split())
    return text or None


def asking(screen: str) -> bool:
    """The question side: its key line offers to show the answer."""
    return "Show Answer" in screen


def revealed(screen: str) -> bool:
    """The answer side: its key line offers the four grades."""
    return "Again" in screen
