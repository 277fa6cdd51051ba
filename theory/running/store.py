"""An authenticated store of JSON entries in a private folder: what the verdict cache and the claim list keep.

Each entry is a JSON file ``KEY{suffix}.json`` holding its body and an HMAC-SHA-256 (RFC 2104) of its key,
kind and body, keyed by a random per-user secret (:data:`SECRET`, 32 bytes from :func:`secrets.token_bytes`,
created ``0600`` in the folder), so an entry not written with this folder's secret — copied, forged, of
another key — is ignored. Entries are written to a temporary file and moved into place (``os.replace``).
A folder not owned by the user, or writable by the group or others, is refused (:class:`UnsafeCache`);
one it creates is ``0700``. The threat model is the verdict cache's
(:mod:`icl_verify.running.verdict_cache`). Standard library and platformdirs only: ``icl-verify list``
reads its cached claim list without loading SymPy.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import platformdirs

from icl_verify.errors import InvalidArgument

ENV_VAR = "ICL_VERIFY_CACHE_DIR"
FORMAT = 2  # bumped when the entry layout changes (1: pickles)
SECRET = "secret.key"
"""The per-user secret that authenticates entries, in the cache's folder (mode 0600)."""


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


def _private_folder(folder: Path) -> None:
    """Create ``folder`` (``0700``) if needed; :class:`UnsafeCache` unless it is a directory of this user that
    nobody else may write."""
    if folder.exists() and not folder.is_dir():
        raise InvalidArgument(f"cache_dir must be a directory, got the file {str(folder)!r}")
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

    def path(self, key: str, suffix: str) -> Path:
        """The file of the entry ``key`` of kind ``suffix`` (``""``: a verdict; ``".figure"``; …)."""
        return self.folder / f"{key}{suffix}.json"

    def _mac(self, key: str, suffix: str, body: Mapping[str, Any]) -> str:
        message = json.dumps({"key": key, "kind": suffix, "body": body}, sort_keys=True).encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()

    def load(self, key: str, suffix: str) -> dict[str, Any] | None:
        """The body stored under ``key`` and ``suffix``, or None when there is none, or it does not parse, or it was
        not written with this folder's secret (forged, copied, of another key)."""
        try:
            entry = json.loads(self.path(key, suffix).read_bytes())
            body, mac = entry["body"], entry["mac"]
        except (OSError, ValueError, KeyError, TypeError):  # missing, truncated, corrupted: rewritten by the next check
            return None
        good = (
            isinstance(body, dict) and isinstance(mac, str) and hmac.compare_digest(mac, self._mac(key, suffix, body))
        )
        return body if good else None

    def store(self, key: str, body: Mapping[str, Any], suffix: str) -> None:
        """Store the JSON-ready ``body`` under ``key`` and ``suffix``, authenticated, atomically."""
        entry = {"format": FORMAT, "body": body, "mac": self._mac(key, suffix, body)}
        atomic_write(self.path(key, suffix), json.dumps(entry).encode())  # dicts keep their order
