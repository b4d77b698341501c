"""The pre-commit examples in decks/README.md, run as written in a scratch deck repository.

pre-commit itself runs them: the hook taken from a repository with no release tag (pinned by
``pre-commit autoupdate`` to a commit id), and the local hook. The repository the first one is
taken from is a stand-in holding zerodrill's committed ``.pre-commit-hooks.yaml``; its hook is
run with ``language: system`` (the zerodrill under test, on PATH) instead of the manifest's
``python``, which would have pre-commit install zerodrill and its dependencies from the package
index: tests download nothing. Everything else (the manifest, the pinned commit, the hook's
entry, files and exclude patterns) is what a user's pre-commit reads.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from cli_support import ONE_CARD_DECK

REPO = Path(__file__).resolve().parents[1]
GUIDE = REPO / "decks" / "README.md"
SECTION = "## A deck repository of your own"

GOOD = ONE_CARD_DECK
WORKFLOW = "name: ci\non: [push]\njobs: {}\n"


def _examples() -> dict[str, str]:
    """The guide's two ``.pre-commit-config.yaml`` examples: "remote" and "local"."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```yaml\n(.*?)```", section, re.S)
    found = {}
    for block in blocks:
        (repo,) = yaml.safe_load(block)["repos"]
        found["local" if repo["repo"] == "local" else "remote"] = block
    assert set(found) == {"local", "remote"}, blocks
    return found


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.invalid",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.invalid",
        GIT_CONFIG_NOSYSTEM="1",
        HOME=str(tmp_path / "home"),
        # The zerodrill under test first on PATH, as an installed one would be.
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
    )
    (tmp_path / "home").mkdir(exist_ok=True)
    return env


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _git(cwd: Path, env: dict[str, str], *args: str) -> str:
    done = _run(["git", *args], cwd, env)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _pre_commit(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, "-m", "pre_commit", *args], cwd, env)


def _deck_repo(tmp_path: Path, env: dict[str, str], config: str) -> Path:
    repo = tmp_path / "my-decks"
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "ci.yml").write_text(WORKFLOW)
    (repo / "mine.yaml").write_text(GOOD)
    (repo / ".pre-commit-config.yaml").write_text(config)
    _git(repo, env, "init", "-q", "-b", "main")
    _git(repo, env, "add", "-A")
    return repo


def _hooks_repo(tmp_path: Path, env: dict[str, str]) -> tuple[Path, str]:
    """A stand-in for zerodrill's repository: its hooks manifest, one commit, no tag."""
    hooks = tmp_path / "zerodrill"
    hooks.mkdir()
    shutil.copy(REPO / ".pre-commit-hooks.yaml", hooks / ".pre-commit-hooks.yaml")
    _git(hooks, env, "init", "-q", "-b", "main")
    _git(hooks, env, "add", "-A")
    _git(hooks, env, "commit", "-q", "-m", "hooks")
    return hooks, _git(hooks, env, "rev-parse", "HEAD")


def _checks(repo: Path, env: dict[str, str]) -> None:
    """A good deck passes; a broken one fails at its place; other YAML is passed over."""
    done = _pre_commit(repo, env, "run", "--all-files")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "zerodrill validate" in done.stdout and "Passed" in done.stdout
    (repo / "mine.yaml").write_text(GOOD.replace("    back: One.\n", "    bakc: One.\n"))
    _git(repo, env, "add", "-A")
    done = _pre_commit(repo, env, "run", "--all-files")
    assert done.returncode == 1
    assert "mine.yaml:9:5: unknown field 'bakc'" in done.stdout
    assert "ci.yml" not in done.stdout and ".pre-commit-config.yaml:" not in done.stdout


def test_the_hook_from_zerodrills_repository_pinned_by_autoupdate(tmp_path: Path) -> None:
    env = _env(tmp_path)
    hooks, head = _hooks_repo(tmp_path, env)
    config = _examples()["remote"]
    url = yaml.safe_load(config)["repos"][0]["repo"]
    repo = _deck_repo(tmp_path, env, config.replace(url, str(hooks)))

    done = _pre_commit(repo, env, "autoupdate")
    assert done.returncode == 0, done.stdout + done.stderr
    (pinned,) = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text())["repos"]
    assert pinned["rev"] == head  # no tag: the newest commit's id
    assert re.fullmatch(r"[0-9a-f]{40}", pinned["rev"])

    # Only the language changes (see the module's docstring).
    config = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text())
    config["repos"][0]["hooks"][0]["language"] = "system"
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    _git(repo, env, "add", "-A")
    _checks(repo, env)


def test_the_local_hook_as_written(tmp_path: Path) -> None:
    env = _env(tmp_path)
    repo = _deck_repo(tmp_path, env, _examples()["local"])
    _checks(repo, env)
