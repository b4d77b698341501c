"""Writing files whole or not at all, and durably: the one writer of every file zerodrill makes
(exported packages and their manifests, the sheet and the preview, the parsed-deck cache, the
sync folder's review log).

Each file's bytes go to a temporary file beside it, which is flushed to disk (``fsync``) and
then renamed over the file; once every rename is done, the folder is flushed too, so that the
renames themselves survive a power cut. A reader, or a crash, sees the old file or the new one,
never half a file.

The temporary file is created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` under a name no other
writer picks (``.<name>.<pid>.<random>.tmp``): a file or symlink already there (planted in a
shared folder, say) is never opened, written through or truncated; a new name is drawn instead.
It is created with mode 0666 and so gets, under the user's umask, the mode any new file gets
(0644 under the usual 022), as writing the file in place would have given it; a file only its
user may read (a sync login) asks for 0600, which it has from the moment it exists.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Sequence
from pathlib import Path

TEMP_SUFFIX = ".tmp"
# Names drawn before giving up: a clash needs another file of the same 32 random bits.
_ATTEMPTS = 8
_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)  # not on Windows, where O_EXCL refuses a link already there
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def write_atomic(path: Path, data: bytes, *, make_folder: bool = True, mode: int = 0o666) -> None:
    """Write ``data`` to ``path`` whole or not at all (see :func:`write_together`)."""
    write_together([(path, data)], make_folder=make_folder, mode=mode)


def write_together(
    files: Sequence[tuple[Path, bytes]], *, make_folder: bool = True, mode: int = 0o666
) -> None:
    """Write each ``(path, data)`` whole and durably, replacing the files only once all are
    written.

    Every file is first written in full to a temporary file beside it and flushed to disk; a
    failure there (a full disk, say) removes the temporaries and leaves every file as it was.
    Only then does each temporary replace its file, in the order given, so the one step that
    can split a set is being killed between two renames, which a caller that rewrites the same
    set converges from. ``make_folder`` makes a missing folder (and those above it); without
    it a missing folder is an error (a sync folder that is not mounted must not be made
    locally).

    An ``OSError`` names the file (or the folder) it concerns in ``filename``, never a
    temporary. A process killed before its renames leaves its temporaries behind; the next
    write beside them removes them.
    """
    temps: list[tuple[str, Path]] = []
    try:
        for path, data in files:
            if make_folder:
                path.parent.mkdir(parents=True, exist_ok=True)  # its error names the folder
            try:
                _remove_stale_temps(path)
                fd, tmp = open_temp(path, mode)
                temps.append((tmp, path))
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
            except OSError as exc:
                exc.filename = str(path)  # not the temporary's name: it means nothing to a user
                raise
        folders = list(dict.fromkeys(path.parent for _tmp, path in temps))
        while temps:
            tmp, path = temps[0]
            try:
                os.replace(tmp, path)
            except OSError as exc:
                exc.filename = str(path)
                raise
            temps.pop(0)
    finally:
        for tmp, _path in temps:
            Path(tmp).unlink(missing_ok=True)
    for folder in folders:
        fsync_folder(folder)


def open_temp(path: Path, mode: int = 0o666) -> tuple[int, str]:
    """A new temporary file beside ``path``, open for writing: (its descriptor, its name).

    ``O_EXCL | O_NOFOLLOW``: whatever is already at a name drawn, a file or a symlink, is left
    alone and another name is drawn.
    """
    for attempt in range(_ATTEMPTS):
        name = str(path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
        try:
            return os.open(name, _FLAGS, mode), name
        except FileExistsError:
            if attempt == _ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def fsync_folder(folder: Path) -> None:
    """Make the renames in ``folder`` durable, where the system allows it (not on Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _remove_stale_temps(path: Path) -> None:
    """Remove the temporaries that a killed writer of ``path`` left (``.<name>.<pid>.*.tmp``).

    A temporary whose process still runs may be another writer's, about to be renamed, so only
    those of processes that are gone are removed.
    """
    prefix = f".{path.name}."
    try:
        names = [n for n in os.listdir(path.parent) if n.startswith(prefix)]
    except OSError:
        return
    for name in names:
        pid, _, rest = name[len(prefix) :].partition(".")
        if not (pid.isdigit() and rest.endswith(TEMP_SUFFIX)) or _alive(int(pid)):
            continue
        try:
            (path.parent / name).unlink()
        except OSError:
            pass


def _alive(pid: int) -> bool:
    if os.name == "nt":
        return True  # os.kill(pid, 0) would end the process there, not ask about it
    if pid == os.getpid():
        return False  # a temporary of ours that is not in flight: this process was never killed
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):
        return True  # another user's process, or a pid we cannot ask about: leave it
    return True
