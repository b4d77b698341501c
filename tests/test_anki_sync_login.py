"""The kept Anki login: only the host key, readable by the user alone, and a damaged or
missing file as one line that says what to do."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from zerodrill.anki_sync import login
from zerodrill.anki_sync.backend import AnkiSyncError


def test_the_host_key_is_kept_mode_0600_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "config" / login.FILE_NAME
    login.save(login.HostKey("http://127.0.0.1:8080/", "ab" * 20), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert login.load(path) == login.HostKey("http://127.0.0.1:8080/", "ab" * 20)
    # Saved again over it (AnkiWeb moved the account): still 0600, no temporary left.
    login.save(login.HostKey("https://sync2.example/", "ab" * 20), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == [login.FILE_NAME]


def test_the_config_folder_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZERODRILL_CONFIG_DIR", str(tmp_path))
    assert login.login_path() == tmp_path / login.FILE_NAME


@pytest.mark.parametrize(
    "content",
    [b"", b"not json", b'{"endpoint": 3, "hkey": "x"}', b'{"endpoint": "", "hkey": ""}',
     b"[]", b"\xff\xfe", b"{" * 5000],
)  # fmt: skip
def test_a_damaged_login_says_to_log_in_again(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / login.FILE_NAME
    path.write_bytes(content)
    with pytest.raises(AnkiSyncError, match="is damaged: run 'zerodrill anki login' again"):
        login.load(path)


def test_no_login_says_to_log_in(tmp_path: Path) -> None:
    with pytest.raises(AnkiSyncError, match="not logged in .* run 'zerodrill anki login'"):
        login.load(tmp_path / login.FILE_NAME)
