"""What a check was seen to depend on: source files by SHA-256 and distributions by version.

A worker records, when a claim's check ends, the source files of every module loaded since it started (a
library's excepted: :func:`~icl_verify.running.sources.is_library_file`) and the version of every distribution
imported (:func:`loaded_since`, :meth:`Depends.record`); a cached verdict, or a whole cached run of ``check``
(:mod:`icl_verify.running.replay`), is served only while every one of them is unchanged
(:meth:`Depends.still_holds`). This module loads no SymPy, SciPy or family, so a cached run can be validated
before anything heavy is imported.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import sys
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from importlib.metadata import PackageNotFoundError, packages_distributions, version
from pathlib import Path
from typing import Any

from icl_verify.running.sources import IMPORTED, read_source, user_source_file


def file_hash(path: Path) -> str | None:
    """SHA-256 of the file's contents, or None when it cannot be read (gone, or no longer a regular file: a
    dependency changed)."""
    try:
        return _hash_of(path, path.stat().st_mtime_ns, path.stat().st_size)
    except OSError:
        return None


def _imported_hash(path: Path) -> str | None:
    """:func:`file_hash` of the file as this process imported it, when it did (a user's source:
    :data:`~icl_verify.running.sources.IMPORTED`)."""
    imported = IMPORTED.get(path.resolve())
    return imported if imported is not None else file_hash(path)


@cache
def _hash_of(path: Path, mtime_ns: int, size: int) -> str:
    """:func:`file_hash`, read once per version of the file (its modification time and size) in a process."""
    return hashlib.sha256(read_source(path)).hexdigest()


@cache
def distributions_of() -> Mapping[str, list[str]]:
    """The distributions providing each top-level module (read once per process: it scans every distribution,
    so the caller computes it before forking its workers)."""
    return packages_distributions()


def distribution_version(name: str) -> str | None:
    """The installed version of distribution ``name``, or None when it is not installed."""
    try:
        return version(name)
    except PackageNotFoundError:
        return None


_READ_ONCE: dict[str, str | None] | None = None
"""The versions read so far within :func:`versions_read_once` (None outside it)."""


@contextlib.contextmanager
def versions_read_once() -> Iterator[None]:
    """Within the block, :meth:`Depends.still_holds` reads each distribution's installed version once: reading one
    parses its metadata (≈ 10 ms), and a run serving 2 000 verdicts from the cache read a dozen of them again for
    every entry (4 min of a 5 min run; docs/performance.md). Nothing is installed while one lookup of the cache
    runs; outside the block every call reads the version anew."""
    global _READ_ONCE
    outer = _READ_ONCE
    _READ_ONCE = {} if outer is None else outer
    try:
        yield
    finally:
        _READ_ONCE = outer


def _installed(name: str) -> str | None:
    """:func:`distribution_version`, once per name within :func:`versions_read_once`."""
    if _READ_ONCE is None:
        return distribution_version(name)
    if name not in _READ_ONCE:
        _READ_ONCE[name] = distribution_version(name)
    return _READ_ONCE[name]


def loaded_since(before: Iterable[str]) -> tuple[set[Path], set[str]]:
    """The source files (not of a library: :func:`~icl_verify.running.sources.is_library_file`) of the modules in ``sys.modules`` now and not in
    ``before``, and the distributions of every top-level module loaded now (the standard library's excepted)."""
    before = set(before)
    files: set[Path] = set()
    for name, module in list(sys.modules.items()):
        where = getattr(module, "__file__", None)
        if name not in before and isinstance(where, str) and (path := user_source_file(where)) is not None:
            files.add(path)
    tops = {name.partition(".")[0] for name in list(sys.modules)} - set(sys.stdlib_module_names)
    dists = {d for top in tops for d in distributions_of().get(top, ())}
    return files, dists


@cache
def _version_loaded(name: str) -> str | None:
    """The version of distribution ``name`` when this process first records it, kept for the process's life: its
    modules are already imported, so an upgrade on disk later does not change what the process runs (and reading
    a distribution's metadata costs ≈ 0.5 ms, at every check)."""
    return distribution_version(name)


@dataclasses.dataclass(frozen=True)
class Depends:
    """What a check was seen to depend on: source files by SHA-256 and distributions by version."""

    files: Mapping[str, str]
    distributions: Mapping[str, str]

    @classmethod
    def record(cls, files: Iterable[Path], distributions: Iterable[str]) -> Depends:
        """The hashes of ``files`` as this process imported them (else as they read now) and the versions of
        ``distributions`` this process loaded."""
        hashed = {str(p): h for p in files if (h := _imported_hash(Path(p))) is not None}
        versions = {d: v for d in distributions if (v := _version_loaded(d)) is not None}
        return cls(dict(sorted(hashed.items())), dict(sorted(versions.items())))

    @classmethod
    def merged(cls, parts: Iterable[Depends]) -> Depends | None:
        """What all of ``parts`` depend on together; None when two disagree on a file's hash or a distribution's
        version (one of them is stale, so the whole could never hold)."""
        files: dict[str, str] = {}
        dists: dict[str, str] = {}
        for part in parts:
            for mine, theirs in ((files, part.files), (dists, part.distributions)):
                if any(mine.setdefault(k, v) != v for k, v in theirs.items()):
                    return None
        return cls(dict(sorted(files.items())), dict(sorted(dists.items())))

    def still_holds(self) -> bool:
        """Whether every file still hashes the same and every distribution has the same version."""
        return all(file_hash(Path(p)) == h for p, h in self.files.items()) and all(
            _installed(d) == v for d, v in self.distributions.items()
        )

    def to_dict(self) -> dict[str, Any]:
        return {"files": dict(self.files), "distributions": dict(self.distributions)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Depends:
        files, dists = data["files"], data["distributions"]
        if not all(isinstance(x, str) for x in (*files, *files.values(), *dists, *dists.values())):
            raise TypeError("depends holds only strings")
        return cls(dict(files), dict(dists))
