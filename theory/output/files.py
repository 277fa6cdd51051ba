"""Atomic file writing: a document or figure is either the previous one or the complete new one.

Each file is written to a temporary file in its own folder (same file system), flushed to disk,
then moved over the target with :func:`os.replace` (atomic on POSIX and Windows). A run that fails
while writing leaves every previous file intact and no temporary file behind.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path


def _stage(path: Path, content: bytes) -> Path:
    """``content`` in a new temporary file next to ``path`` (removed again if writing fails)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
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
