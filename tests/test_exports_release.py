"""exports/ is the maintainers' to rebuild at a release, with one command, reproducibly.

A pull request holds YAML only: nothing here asks a contributor to rebuild the committed
package. What is checked is what the release needs: the command in decks/README.md, run twice
on the same commit (the build time taken from ``SOURCE_DATE_EPOCH``, the commit's time),
writes the same bytes; and every note the committed manifest knows keeps its note ID, so the
learners' Anki updates each in place.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from cli_support import run_cli

REPO = Path(__file__).resolve().parent.parent
EXPORTS = REPO / "exports"
GUIDE = REPO / "decks" / "README.md"


def _release_command() -> str:
    """The release command as decks/README.md gives it (one line in a ``sh`` block)."""
    text = GUIDE.read_text(encoding="utf-8")
    (command,) = re.findall(r"^(SOURCE_DATE_EPOCH=.*zerodrill export .*)$", text, re.M)
    return command


def _release(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp: Path, epoch: int
) -> Path:
    """The release command, run in a copy of the checkout's decks/ and exports/."""
    tmp.mkdir()
    shutil.copytree(REPO / "decks", tmp / "decks")
    shutil.copytree(EXPORTS, tmp / "exports")
    (tmp / ".git").mkdir()
    monkeypatch.chdir(tmp)
    args = _release_command().split("zerodrill ", 1)[1].split()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(epoch))
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    assert out.startswith("wrote exports/deepspeed-zero.apkg") or out.startswith(
        f"wrote exports{os.sep}deepspeed-zero.apkg"
    )
    return tmp / "exports"


def test_the_release_command_is_documented() -> None:
    assert _release_command().endswith("zerodrill export decks/ -o exports/")


def test_a_release_rebuild_is_reproducible_and_keeps_every_note_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    epoch = 1_800_000_000
    first = _release(capsys, monkeypatch, tmp_path / "a", epoch)
    second = _release(capsys, monkeypatch, tmp_path / "b", epoch)
    for name in ("deepspeed-zero.apkg", "deepspeed-zero.manifest.json"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    committed = json.loads((EXPORTS / "deepspeed-zero.manifest.json").read_text())
    rebuilt = json.loads((first / "deepspeed-zero.manifest.json").read_text())
    kept = {key: note["id"] for key, note in committed["notes"].items()}
    assert {key: rebuilt["notes"][key]["id"] for key in kept} == kept


@pytest.mark.parametrize("given", ["yesterday", "-5", "1e9", "99999999999999999"])
def test_a_bad_source_date_epoch_is_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    given: str,
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", given)
    code, out, err = run_cli(capsys, "export", str(REPO / "decks"), "-o", f"{tmp_path}/")
    assert code == 1
    assert err.startswith("zerodrill: SOURCE_DATE_EPOCH=") and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []
