"""An authenticated store of JSON entries in a private folder: what the verdict cache and the claim list keep.

Each entry is a JSON file ``KEY{suffix}.json`` holding its body and an HMAC-SHA-256 (RFC 2104) of its key,
kind and body, keyed by a random per-user secret (:data:`SECRET`, 32 bytes from :func:`secrets.token_bytes`,
created ``0600`` in the folder), so an entry not written with this folder's secret — copied, forged, of
another key — is ignored. Entries are written to a temporary file and moved into place (``os.replace``).
A folder not owned by the user, or writable by the group or others, is refused (:class:`UnsafeCache`);
one it creates is ``0700``. The threat model is the verdict cache's
(:mod:`icl_verify.running.verdict_cache`). Standard library and platformdirs only: ``icl-verify list``
reads its cached claim list without loading SymPy.

The folder's file system is not trusted to behave either. Only a regular file is read as an entry, never
through a symbolic link and never waited on (a FIFO, a device or a folder in an entry's place is no entry);
a write that fails — a full disk, a folder in the entry's place, a file system turned read-only — is
never the run's failure: the first one prints one warning line and the store writes nothing more
(:meth:`Store.write`), so the run ends with its results, checked again next time. Temporary files older
than :data:`STALE_SECONDS` (left by a writer killed mid-write) are removed when a store is opened.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import stat
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import platformdirs

from icl_verify.errors import InvalidArgument
from icl_verify.running.sources import read_source

ENV_VAR = "ICL_VERIFY_CACHE_DIR"
FORMAT = 2  # bumped when the entry layout changes (1: pickles)
SECRET = "secret.key"
"""The per-user secret that authenticates entries, in the cache's folder (mode 0600)."""
MAX_ENTRY_BYTES = 64 * 2**20
"""The largest file read as an entry (a larger one is no entry: it was not written by a store)."""
_UNWRITABLE: dict[Path, str] = {}
"""The folders a write failed in, in this process, and why (:attr:`Store.unwritable`)."""
STALE_SECONDS = 3600.0
"""A temporary file (``*.tmp``) untouched this long is a killed writer's: a live write takes well under a second."""


class UnsafeCache(InvalidArgument):
    """The cache folder cannot be used safely (not ours, writable by others, or not writable): run without it."""


def keyed(inputs: Mapping[str, Any]) -> str:
    """SHA-256 of ``inputs`` (JSON-ready), the cache's :data:`FORMAT` included: the key of an entry."""
    return hashlib.sha256(json.dumps({"format": FORMAT, **inputs}, sort_keys=True).encode()).hexdigest()


def default_dir() -> Path:
    """``$ICL_VERIFY_CACHE_DIR`` when set, else ``verdicts`` in the user's cache directory (platformdirs)."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override)
    return Path(platformdirs.user_cache_dir("icl-verify")) / "verdicts"


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never a part."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_entry(path: Path) -> bytes | None:
    """The bytes of the regular file ``path`` (at most :data:`MAX_ENTRY_BYTES`), or None when it is missing,
    unreadable, a symbolic link, or not a regular file — read without ever waiting on a FIFO."""
    try:
        return read_source(path, limit=MAX_ENTRY_BYTES, follow=False)
    except OSError:
        return None


def dangling(folder: Path) -> str | None:
    """Why ``folder`` cannot be created: it is a symbolic link to nothing (None when it is not)."""
    if folder.is_symlink() and not folder.exists():
        return f"{str(folder)!r} is a symbolic link to {os.readlink(folder)!r}, which does not exist"
    return None


def _remove_stale(folder: Path, now: float | None = None) -> None:
    """Remove the temporary files (``*.tmp``, regular files only) in ``folder`` untouched for
    :data:`STALE_SECONDS`: what a writer killed between creating and moving its file left behind."""
    now = time.time() if now is None else now
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                if entry.name.endswith(".tmp") and stat.S_ISREG(info.st_mode) and now - info.st_mtime > STALE_SECONDS:
                    os.unlink(entry.path)


def _private_folder(folder: Path) -> None:
    """Create ``folder`` (``0700``) if needed; :class:`UnsafeCache` unless it is a directory of this user that
    nobody else may write."""
    if folder.exists() and not folder.is_dir():
        raise InvalidArgument(f"cache_dir must be a directory, got the file {str(folder)!r}")
    if (problem := dangling(folder)) is not None:
        raise UnsafeCache(f"cannot use the cache folder: {problem}")
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError as exc:
        raise UnsafeCache(f"cannot use the cache folder {str(folder)!r}: {exc.strerror or exc}") from None
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise UnsafeCache(f"the cache folder {str(folder)!r} belongs to another user")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UnsafeCache(f"the cache folder {str(folder)!r} is writable by other users")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UnsafeCache(f"the cache folder {str(folder)!r} is not writable")


def _secret(folder: Path) -> bytes:
    """The folder's secret (:data:`SECRET`), created ``0600`` on first use; :class:`UnsafeCache` when it is not
    a private regular file of this user."""
    path = folder / SECRET
    if not path.exists():
        try:
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=SECRET, suffix=".tmp")  # created 0600
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_bytes(32))
            with contextlib.suppress(FileExistsError):  # another process made it first: theirs is kept
                os.link(tmp, path)  # complete, and never over an existing file
            os.unlink(tmp)
        except OSError as exc:
            raise UnsafeCache(f"cannot create the cache's secret {str(path)!r}: {exc.strerror or exc}") from None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            key = f.read()
    except OSError as exc:
        raise UnsafeCache(f"cannot read the cache's secret {str(path)!r}: {exc.strerror or exc}") from None
    private = stat.S_ISREG(info.st_mode) and not info.st_mode & 0o077
    if not private or (hasattr(os, "getuid") and info.st_uid != os.getuid()) or len(key) < 32:
        raise UnsafeCache(f"the cache's secret {str(path)!r} is not a private file of this user")
    return key


class Store:
    """Authenticated JSON entries by key and kind in ``folder`` (default: :func:`default_dir`).

    ``InvalidArgument`` when ``folder`` is a file; :class:`UnsafeCache` when it cannot be used safely.
    """

    def __init__(self, folder: str | Path | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_dir()
        _private_folder(self.folder)
        self._secret = _secret(self.folder)
        _remove_stale(self.folder)

    @property
    def unwritable(self) -> str | None:
        """Why writing to this folder stopped in this process (its first write that failed), None while writes
        succeed — one state for every store of the folder, so that a run warns once."""
        return _UNWRITABLE.get(self.folder.absolute())

    def path(self, key: str, suffix: str) -> Path:
        """The file of the entry ``key`` of kind ``suffix`` (``""``: a verdict; ``".figure"``; …)."""
        return self.folder / f"{key}{suffix}.json"

    def _mac(self, key: str, suffix: str, body: Mapping[str, Any]) -> str:
        message = json.dumps({"key": key, "kind": suffix, "body": body}, sort_keys=True).encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()

    def load(self, key: str, suffix: str) -> dict[str, Any] | None:
        """The body stored under ``key`` and ``suffix``, or None when there is none, or it does not parse, or it was
        not written with this folder's secret (forged, copied, of another key)."""
        data = read_entry(self.path(key, suffix))
        try:
            entry = json.loads(data if data is not None else b"")
            body, mac = entry["body"], entry["mac"]
        except (ValueError, KeyError, TypeError):  # missing, truncated, corrupted: rewritten by the next check
            return None
        good = (
            isinstance(body, dict) and isinstance(mac, str) and hmac.compare_digest(mac, self._mac(key, suffix, body))
        )
        return body if good else None

    def store(self, key: str, body: Mapping[str, Any], suffix: str) -> bool:
        """Store the JSON-ready ``body`` under ``key`` and ``suffix``, authenticated, atomically (:meth:`write`)."""
        entry = {"format": FORMAT, "body": body, "mac": self._mac(key, suffix, body)}
        return self.write(self.path(key, suffix), json.dumps(entry).encode())  # dicts keep their order

    def write(self, path: Path, data: bytes) -> bool:
        """Write ``data`` to the file ``path`` of the folder atomically; whether it was written. A folder in its
        place is left there (that entry is not kept); any other failure (a full disk, …) prints one warning line
        and stops every later write (:attr:`unwritable`): the run goes on without keeping what it finds."""
        if self.unwritable is not None:
            return False
        try:
            atomic_write(path, data)
        except IsADirectoryError:
            return False
        except OSError as exc:
            reason = _UNWRITABLE[self.folder.absolute()] = f"{str(self.folder)!r}: {exc.strerror or exc}"
            print(
                f"warning: cannot write to the cache folder {reason}; going on without keeping results in it",
                file=sys.stderr,
            )
            return False
        return True
