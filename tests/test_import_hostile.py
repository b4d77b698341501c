"""A package made to hurt (issue 21, point 5): a runaway length field, a collection that
decompresses to gigabytes, or one whose header lies about its size, is refused with one line,
within a fixed memory and disk budget (the command runs here under limits on both)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import zstandard
from cli_support import run_cli

from zerodrill.srs.anki_package import MAX_COLLECTION_BYTES, declared_size

REPO = Path(__file__).resolve().parent.parent
POSIX = pytest.mark.skipif(os.name != "posix", reason="resource limits")
#: The budget the command runs under: far below what the packages would write.
DISK = 64 << 20
MEMORY = 1 << 30


def package(path: Path, member: str, data: bytes, meta: bytes = b"\x08\x03") -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("meta", meta)
        z.writestr(member, data, compress_type=zipfile.ZIP_STORED)
    return path


def sqlite_header(page_size: int, pages: int) -> bytes:
    """The first 100 bytes of an SQLite file of ``pages`` pages, vouching for that count."""
    head = bytearray(100)
    head[:16] = b"SQLite format 3\x00"
    head[16:18] = (1 if page_size == 65536 else page_size).to_bytes(2, "big")
    head[24:28] = head[92:96] = (7).to_bytes(4, "big")
    head[28:32] = pages.to_bytes(4, "big")
    return bytes(head)


def zeros_zstd(total: int, prefix: bytes = b"") -> bytes:
    """A zstd stream of ``prefix`` then zeros, ``total`` bytes in all, in frames of 64 MiB:
    a few hundred kilobytes."""
    compressor = zstandard.ZstdCompressor(level=1)
    frame = compressor.compress(b"\0" * (64 << 20))
    first = compressor.compress(prefix + b"\0" * ((64 << 20) - len(prefix)))
    return first + frame * (total // (64 << 20) - 1)


def limited_import(tmp_path: Path, file: Path) -> subprocess.CompletedProcess[str]:
    """``zerodrill import-progress FILE`` with at most :data:`DISK` bytes to a file and
    :data:`MEMORY` of address space."""

    def limits() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (DISK, DISK))
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
        # Past the file limit a write fails (EFBIG) instead of the process being killed.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    return subprocess.run(
        [sys.executable, "-m", "zerodrill", "import-progress", str(file)]
        + ["--db", str(tmp_path / "reviews.db")],
        env={**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=limits,
    )


@pytest.mark.parametrize(
    "meta, says",
    [
        (b"\x08" + b"\xff" * 3000, "its meta is longer than 1024 bytes"),
        (b"\x08" + b"\xff" * 20, "its meta's version does not end"),
    ],
    ids=["3 KB", "20 bytes"],
)
def test_a_runaway_length_field_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], meta: bytes, says: str
) -> None:
    # A meta whose version varint never ends (each byte says "more follows").
    bomb = package(tmp_path / "runaway.colpkg", "collection.anki21b", b"x", meta)
    assert bomb.stat().st_size < 4096
    code, out, err = run_cli(capsys, "import-progress", str(bomb), "--db", str(tmp_path / "r.db"))
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert "damaged or incomplete package" in err and says in err
    assert not (tmp_path / "r.db").exists()


@POSIX
@pytest.mark.parametrize(
    "what, data, says",
    [
        ("zeros", lambda: zeros_zstd(4 << 30), "not an SQLite database: refused"),
        (
            "a header that lies",
            lambda: zeros_zstd(4 << 30, sqlite_header(4096, 2)),
            "runs on past the 0.0 MiB it says it is",
        ),
        (
            "a header that says too much",
            lambda: zeros_zstd(128 << 20, sqlite_header(65536, 2**32 - 1)),
            "more than the 2.0 GiB a collection may be: refused",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_a_collection_that_would_write_gigabytes_is_refused_within_budget(
    tmp_path: Path, what: str, data: object, says: str
) -> None:
    stream = data()  # type: ignore[operator]
    bomb = package(tmp_path / "bomb.colpkg", "collection.anki21b", stream)
    assert bomb.stat().st_size < 512 * 1024
    done = limited_import(tmp_path, bomb)
    assert (done.returncode, done.stdout) == (1, ""), done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert says in done.stderr
    assert not (tmp_path / "reviews.db").exists()
    # Nothing is left in the temporary folder either.
    assert not list(tmp_path.glob("zerodrill-import-*"))


@POSIX
def test_a_legacy_collection_that_runs_on_is_refused_too(tmp_path: Path) -> None:
    # collection.anki21 (deflate, before Anki 2.1.50): 200 MiB of zeros after a header that
    # says 8 KiB.
    data = sqlite_header(4096, 2) + b"\0" * (200 << 20)
    with zipfile.ZipFile(tmp_path / "old.apkg", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("collection.anki21", data)
    done = limited_import(tmp_path, tmp_path / "old.apkg")
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "runs on past the 0.0 MiB it says it is" in done.stderr


def test_the_size_an_sqlite_header_vouches_for() -> None:
    assert declared_size(sqlite_header(4096, 3)) == 3 * 4096
    assert declared_size(sqlite_header(65536, 2)) == 2 * 65536
    unvouched = bytearray(sqlite_header(4096, 3))
    unvouched[92:96] = (6).to_bytes(4, "big")  # written by a SQLite before 3.7.0
    assert declared_size(bytes(unvouched)) is None
    assert declared_size(sqlite_header(1000, 3)) is None  # no power of two
    assert MAX_COLLECTION_BYTES == 2 << 30


@POSIX
def test_a_fifo_given_as_the_collection_is_one_line(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "collection.anki2")
    done = limited_import(tmp_path, tmp_path / "collection.anki2")
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "is not a file" in done.stderr
