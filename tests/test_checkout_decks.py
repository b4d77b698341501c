"""Commands given no path, run in a checkout: they read the decks in front of the user.

A contributor edits ``decks/`` in a clone after ``pip install .``; the installed copy is frozen
at install time, so reading it would validate, preview and export the old cards while the
clone's are broken or new. See zerodrill/deck/checkout.py.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import zipfile
from io import BytesIO
from pathlib import Path

import pytest
from cli_support import ONE_CARD_DECK, run_cli

from zerodrill.deck.checkout import default_decks
from zerodrill.paths import bundled_decks_dir, user_decks_dir

DECK = ONE_CARD_DECK
NEW_CARD = """\
  - id: second
    kind: basic
    front: What is two?
    back: Two.
"""
BUNDLED = bundled_decks_dir()


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """Runs the drill app under Pilot in place of the terminal (one card shown, graded 4,
    then q); the notice each drill started with is kept."""
    import asyncio

    from zerodrill.tui.drill_app import ZeroDrillApp

    notices: list[str | None] = []

    def run(self: ZeroDrillApp) -> object:
        async def go() -> object:
            async with self.run_test(size=(100, 30)) as pilot:
                notices.append(self.notice)
                await pilot.press("enter", "4", "q")
            return self.return_value

        return asyncio.run(go())

    monkeypatch.setattr(ZeroDrillApp, "run", run)
    return notices


def _work_tree(root: Path) -> Path:
    """``root`` as the top of a git work tree (what makes a folder a repository's root)."""
    (root / ".git").mkdir(parents=True)
    return root


def _checkout(tmp_path: Path, deck: str) -> Path:
    """A clone of zerodrill's repository, its decks/ holding one deck file."""
    checkout = _work_tree(tmp_path / "zerodrill")
    (checkout / "decks").mkdir()
    (checkout / "decks" / "mine.yaml").write_text(deck)
    return checkout


def test_a_broken_deck_in_decks_is_what_validate_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = _checkout(tmp_path, DECK + "  - id: [oops\n")
    monkeypatch.chdir(checkout)
    code, out, err = run_cli(capsys, "validate")
    assert code == 1
    assert err.splitlines()[0] == "decks: ./decks (this checkout), not the installed ones"
    # The checkout's file, named as the user would type it.
    assert out.startswith(str(Path("decks", "mine.yaml")) + ":11:1: YAML syntax error")


def test_from_a_subfolder_the_work_trees_decks_are_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = _checkout(tmp_path, DECK)
    (checkout / "zerodrill" / "deck").mkdir(parents=True)
    monkeypatch.chdir(checkout / "zerodrill" / "deck")
    code, out, err = run_cli(capsys, "validate")
    assert code == 0, err
    assert out.strip() == "1 deck, 1 card: ok"
    assert err.splitlines()[0] == "decks: ../../decks (this checkout), not the installed ones"


def test_decks_above_the_work_tree_are_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``decks/`` beside the repository (in the home folder, say) is someone else's."""
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "mine.yaml").write_text(DECK)
    other = _work_tree(tmp_path / "project")
    monkeypatch.chdir(other)
    found = default_decks(BUNDLED)
    assert found.roots == (BUNDLED,) and found.notice is None


def test_a_deck_repository_of_ones_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _work_tree(tmp_path / "my-decks")
    (repo / "mine.yaml").write_text(DECK + NEW_CARD)
    # YAML that is not a deck beside it is passed over, as the pre-commit hook passes it over.
    (repo / "mkdocs.yml").write_text("site_name: notes\n")
    (repo / "notes").mkdir()
    monkeypatch.chdir(repo / "notes")
    code, out, err = run_cli(capsys, "validate")
    assert code == 0, err
    assert out.strip() == "1 deck, 2 cards: ok"
    assert err.splitlines()[0] == "decks: .. (this deck repository), not the installed ones"


def test_outside_a_checkout_the_bundled_decks_are_read_without_a_word(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "validate")
    assert code == 0
    assert err == ""
    assert out.startswith("1 deck, ")


def test_an_empty_decks_folder_says_the_installed_decks_are_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (Path.cwd() / "decks").mkdir()
    (Path.cwd() / "decks" / "README.md").write_text("notes\n")
    code, out, err = run_cli(capsys, "validate")
    assert code == 0
    assert err.splitlines()[0] == "decks: the installed ones (./decks holds no deck file)"
    assert out.startswith("1 deck, ")


def test_the_bundled_folder_itself_is_named_as_this_checkout(tmp_path: Path) -> None:
    """Run from a source tree (not installed), the checkout's decks are the bundled ones."""
    checkout = _checkout(tmp_path, DECK)
    found = default_decks(checkout / "decks", cwd=checkout)
    assert found.roots == (Path("decks"),)
    assert found.notice == "decks: ./decks (this checkout)"


def test_a_path_given_is_read_as_given_and_nothing_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = _checkout(tmp_path, DECK + "  - id: [oops\n")
    monkeypatch.chdir(checkout)
    code, out, err = run_cli(capsys, "validate", str(BUNDLED))
    assert code == 0 and err == ""


def test_export_in_a_checkout_builds_the_checkouts_cards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``zerodrill export -o exports/`` in the clone: the new card is in the package."""
    checkout = _checkout(tmp_path, DECK + NEW_CARD)
    monkeypatch.chdir(checkout)
    code, out, err = run_cli(capsys, "export", "-o", "exports/")
    assert code == 0, err
    assert err.splitlines()[0] == "decks: ./decks (this checkout), not the installed ones"
    with zipfile.ZipFile(BytesIO((checkout / "exports" / "mine.apkg").read_bytes())) as z:
        conn = sqlite3.connect(":memory:")
        conn.deserialize(z.read("collection.anki2"))
    fronts = sorted(row[0].split("\x1f")[0] for row in conn.execute("SELECT flds FROM notes"))
    conn.close()
    assert [f.count("two") + f.count("one") for f in fronts] == [1, 1]
    assert any("What is two?" in f for f in fronts)


def test_the_repositorys_own_decks_pass_validate_run_in_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a contributor runs before a pull request, and what CI holds every change to."""
    repo = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(repo / "tests")
    code, out, err = run_cli(capsys, "validate")
    assert code == 0, out + err
    assert err.splitlines()[0].startswith(f"decks: ..{os.sep}decks (this checkout)")
    assert re.fullmatch(r"\d+ decks?, \d+ cards.*: ok.*\n", out.splitlines()[-1] + "\n")


def test_the_drill_in_a_checkout_says_on_screen_which_decks_it_read(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    shown: list[str | None],
) -> None:
    """The line printed before the drill is hidden behind its screen: the screen says it too.
    The checkout's copy of a bundled deck is the learner's deck: its grades are kept."""
    from zerodrill.srs.store import Store

    checkout = _work_tree(tmp_path / "zerodrill")
    shutil.copytree(BUNDLED, checkout / "decks")
    monkeypatch.chdir(checkout)
    code, out, err = run_cli(capsys, "drill")
    assert code == 0, err
    line = "decks: ./decks (this checkout), not the installed ones"
    assert err.splitlines()[0] == line
    assert shown == [line]
    assert "1 grade saved to" in out
    with Store.open(Path(os.environ["ZERODRILL_DB"]), create=False) as store:
        assert len(list(store.log.entries())) == 1


# -- the learner's deck folder: their copies of the installed decks -----------------------------


def _my_copy(front: str = "") -> Path:
    """The learner's copy of the bundled deck in their deck folder (as key e makes it: the
    deck and its facts file under the same names), its first card's front changed if asked."""
    mine = user_decks_dir()
    shutil.copytree(BUNDLED, mine, ignore=shutil.ignore_patterns("README.md"))
    if front:
        deck = mine / "deepspeed-zero.yaml"
        text = deck.read_text(encoding="utf-8")
        deck.write_text(text.replace("In a DeepSpeed JSON config", front, 1), encoding="utf-8")
    return mine


def test_the_learners_copy_is_read_in_place_of_the_installed_deck(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = _my_copy("In MY copy of a DeepSpeed JSON config")
    (mine / "own.yaml").write_text(DECK)  # a deck of their own beside it is read too
    found = default_decks(BUNDLED, cwd=tmp_path, user=mine)
    assert found.roots == (mine / "deepspeed-zero.yaml", mine / "own.yaml")
    line = (
        "decks: the installed ones, with your copy of deepspeed-zero.yaml and your own.yaml "
        f"from {mine}"
    )
    assert found.notice == line
    code, out, err = run_cli(capsys, "show", "stage-key")
    assert code == 0, err
    assert err.splitlines()[0] == line
    assert "In MY copy of a DeepSpeed JSON config" in out


def test_the_learners_deck_folder_is_named_only_when_it_holds_decks(tmp_path: Path) -> None:
    mine = user_decks_dir()
    assert default_decks(BUNDLED, cwd=tmp_path, user=mine) == default_decks(BUNDLED, tmp_path)
    (mine / "img").mkdir(parents=True)
    (mine / "img" / "d.png").write_bytes(b"png")
    found = default_decks(BUNDLED, cwd=tmp_path, user=mine)
    assert found.roots == (BUNDLED,) and found.notice is None


def test_many_decks_of_ones_own_are_counted(tmp_path: Path) -> None:
    mine = user_decks_dir()
    mine.mkdir()
    for name in "abcde":
        (mine / f"{name}.yaml").write_text(DECK.replace("deck: mine", f"deck: {name}"))
    found = default_decks(BUNDLED, cwd=tmp_path, user=mine)
    assert (
        found.notice
        == f"decks: the installed ones, with your a.yaml, b.yaml and 3 more from {mine}"
    )
    assert found.roots[-5:] == tuple(mine / f"{name}.yaml" for name in "abcde")


def test_in_a_checkout_its_decks_win_over_the_learners_copies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _my_copy("In MY copy of a DeepSpeed JSON config")
    checkout = _checkout(tmp_path, DECK)
    monkeypatch.chdir(checkout)
    code, out, err = run_cli(capsys, "validate")
    assert code == 0, err
    assert err.splitlines()[0] == "decks: ./decks (this checkout), not the installed ones"
    assert out.strip() == "1 deck, 1 card: ok"


def test_an_empty_decks_folder_and_the_learners_copy_are_both_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = _my_copy()
    (Path.cwd() / "decks").mkdir()
    code, out, err = run_cli(capsys, "validate")
    assert code == 0, err
    assert err.splitlines()[0] == (
        "decks: the installed ones (./decks holds no deck file), "
        f"with your copy of deepspeed-zero.yaml from {mine}"
    )


def test_a_sitting_on_the_learners_copy_keeps_its_grades(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    shown: list[str | None],
) -> None:
    """The copy has the installed deck's id: it is the learner's deck, not one being tried
    (its grades go to the personal database), and the screen names the copy."""
    from zerodrill.srs.store import Store

    mine = _my_copy("In MY copy of a DeepSpeed JSON config")
    code, out, err = run_cli(capsys, "drill")
    assert code == 0, err
    line = f"decks: the installed ones, with your copy of deepspeed-zero.yaml from {mine}"
    assert err.splitlines()[0] == line and shown == [line]
    assert "1 grade saved to" in out
    with Store.open(Path(os.environ["ZERODRILL_DB"]), create=False) as store:
        assert len(list(store.log.entries())) == 1
