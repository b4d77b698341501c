"""The host key a sync server hands back at login, kept so no password ever is: only it and
the server's address, in the user config folder, mode 0600 from the moment the file exists.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import msgspec
from msgspec import Meta, Struct

from zerodrill.anki_sync.backend import AnkiSyncError
from zerodrill.atomic_write import write_atomic

FILE_NAME = "anki-login.json"
#: A host key is a hex digest; anything longer is not one.
_MAX_FILE = 4096


class HostKey(Struct, frozen=True):
    """What a login leaves: the server's address ("" for AnkiWeb) and the host key."""

    endpoint: str
    hkey: Annotated[str, Meta(min_length=1)]


def login_path() -> Path:
    """``ZERODRILL_CONFIG_DIR`` (tests, scripts), else the user config folder, + the file."""
    env = os.environ.get("ZERODRILL_CONFIG_DIR")
    if env:
        return Path(env).expanduser() / FILE_NAME
    from platformdirs import user_config_path

    return user_config_path("zerodrill", appauthor=False) / FILE_NAME


def save(key: HostKey, path: Path | None = None) -> Path:
    path = path or login_path()
    try:
        write_atomic(path, msgspec.json.encode(key), mode=0o600)
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
        if len(raw) <= _MAX_FILE:
            return msgspec.json.decode(raw, type=HostKey)
    except msgspec.DecodeError:
        pass
    raise AnkiSyncError(f"the Anki login {path} is damaged: run 'zerodrill anki login' again")
