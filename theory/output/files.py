"""Atomic file writing: a document or figure is either the previous one or the complete new one.

Each file is written to a temporary file in its own folder (same file system), flushed to disk,
then moved over the target with :func:`os.replace` (atomic on POSIX and Windows). A run that fails
while writing leaves every previous file intact and no temporary file behind. A new file gets the
mode an ordinary ``open`` would give it (0666 less the user's umask: 0644 under umask 022), a
replaced file keeps its mode — not the 0600 of the temporary file.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path


def _umask() -> int:
    """The process's umask (read by setting it and setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _mode(path: Path) -> int:
    """The permission bits ``path`` should have: its current ones if it exists, else 0666 less the umask."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _stage(path: Path, content: bytes) -> Path:
    """``content`` in a new temporary file next to ``path``, with :func:`_mode` (removed again if writing fails)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, _mode(path))
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        os.unlink(name)
        raise
    return Path(name)


def write_files(files: Mapping[Path, bytes]) -> None:
    """Write every file atomically: all are staged first, then each is moved into place.

    If staging fails, no target has changed; the moves themselves cannot fail half-way through a file.
    """
    staged: dict[Path, Path] = {}
    try:
        for path, content in files.items():
            staged[path] = _stage(path, content)
        for path, temp in list(staged.items()):
            os.replace(temp, path)
            del staged[path]
    finally:
        for temp in staged.values():
            temp.unlink(missing_ok=True)


def write_file(path: Path, content: bytes) -> None:
    """Write one file atomically (see :func:`write_files`)."""
    write_files({path: content})
