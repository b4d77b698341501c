"""The host key a sync server hands back at login, kept so no password ever is.

``zerodrill anki login`` trades the user name and password for Anki's host key ("hkey"), as
Anki desktop does, and keeps only that and the server's address, in ``anki-login.json`` in
the user config folder, mode 0600 from the moment the file exists (by the one atomic writer,
asked for that mode).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from msgspec import Struct

from zerodrill.anki_sync.backend import AnkiSyncError
from zerodrill.atomic_write import write_atomic

FILE_NAME = "anki-login.json"
#: Who runs the file's name through ``zerodrill anki login`` again.
_LOGIN_AGAIN = "run 'zerodrill anki login' again"
#: A host key is a hex digest; anything longer is not one.
_MAX_FILE = 4096


class HostKey(Struct, frozen=True):
    """What a login leaves: the server's address ("" for AnkiWeb) and the host key."""

    endpoint: str
    hkey: str


def login_path() -> Path:
    """``ZERODRILL_CONFIG_DIR`` (tests, scripts), else the user config folder, + the file."""
    env = os.environ.get("ZERODRILL_CONFIG_DIR")
    if env:
        return Path(env).expanduser() / FILE_NAME
    from platformdirs import user_config_path

    return user_config_path("zerodrill", appauthor=False) / FILE_NAME


def save(key: HostKey, path: Path | None = None) -> Path:
    """Keep ``key`` at ``path`` (default :func:`login_path`), readable by the user alone."""
    path = path or login_path()
    data = json.dumps({"endpoint": key.endpoint, "hkey": key.hkey}).encode()
    try:
        write_atomic(path, data, mode=0o600)
    except OSError as exc:
        why = exc.strerror or exc
        raise AnkiSyncError(f"cannot save the Anki login in {path}: {why}") from None
    return path


def load(path: Path | None = None) -> HostKey:
    """The kept host key; :class:`AnkiSyncError` saying to log in when there is none."""
    path = path or login_path()
    try:
        with path.open("rb") as f:
            raw = f.read(_MAX_FILE + 1)
    except FileNotFoundError:
        raise AnkiSyncError(
            "not logged in to an Anki sync server: run 'zerodrill anki login'"
        ) from None
    except OSError as exc:
        raise AnkiSyncError(f"cannot read the Anki login {path}: {exc.strerror or exc}") from None
    try:
        value = json.loads(raw.decode()) if len(raw) <= _MAX_FILE else None
    except ValueError:
        value = None
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("endpoint"), str)
        or not isinstance(value.get("hkey"), str)
        or not value["hkey"]
    ):
        raise AnkiSyncError(f"the Anki login {path} is damaged: {_LOGIN_AGAIN}")
    return HostKey(value["endpoint"], value["hkey"])
