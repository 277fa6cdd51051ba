"""The verdict cache: a claim's result is reused only while nothing it depends on has changed.

An entry is found by its key (:func:`entry_key`): the claim's name, the digest of the source files
its family's module (or the user's file) imports, transitively, read statically
(:func:`icl_verify.running.sources.dependencies`), the versions of Python, SymPy, NumPy, SciPy and
Hypothesis and the machine, the seed and the example budget. Editing one family changes the keys
of that family's claims only; editing a module every family imports (``icl_verify.core.claims``)
changes every key.

An entry also holds what the check was *seen* to depend on while it ran (:class:`Depends`, recorded
by the worker: the static files above, the source files of every module loaded since the worker
started — a helper imported from another folder, by ``importlib`` or inside a function — and the
version of every distribution imported). It is served only while every one of those files still
hashes the same and every distribution has the same version (:meth:`Depends.still_holds`).
What no import statement or module load reveals — a data file read at run time, an environment
variable — is not tracked: ``--no-cache`` checks afresh.

Entries are JSON, never pickle: a verdict is stored in the JSON report's own schema
(docs/json-report.md), a drawn figure as its SVG beside a JSON digest. Each is written to a
temporary file in the same folder and moved into place with ``os.replace``, so concurrent runs
never see half an entry; an entry that does not parse or validate is ignored, and rewritten by the
next check.

Threat model. The cache folder is trusted only as far as its permissions make it private: a folder
not owned by the user, or writable by the group or others, is refused (:class:`UnsafeCache`; the
command warns in one line and runs without a cache), and a folder it creates is ``0700``. So
another local user cannot plant or replace entries. An entry that comes from anywhere else — a
cache copied from another machine or user, a file written by an older version, a forged file —
is still never trusted: every entry carries an HMAC-SHA-256 (RFC 2104) of its key and contents,
keyed by a random per-user secret (:data:`SECRET`, 32 bytes from :func:`secrets.token_bytes`,
created ``0600`` in the folder; refused if readable by others), so an entry not written with this
folder's secret is ignored and checked again. Loading an entry only parses JSON: nothing in the
folder is ever executed, and no file name is trusted (a ``*.pickle`` planted there is never read).
What this cannot protect against is a process running as the same user: it can read the secret,
and can as well edit the installed package itself.

The checks' recorded durations are kept apart (:meth:`VerdictCache.costs`): they order the next
run, longest claim first, and never decide a verdict.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import platform
import sys
from collections.abc import Iterable, Mapping
from functools import cache
from importlib.metadata import PackageNotFoundError, packages_distributions, version
from pathlib import Path
from typing import Any

from icl_verify.core.claims import Claim, Result
from icl_verify.core.evidence import Evidence, Residual
from icl_verify.core.verdicts import Verdict
from icl_verify.running.sources import is_library_file
from icl_verify.running.store import FORMAT, Store, atomic_write

LIBRARIES = ("sympy", "numpy", "scipy", "hypothesis")
_COSTS = "costs.json"


def environment(libraries: tuple[str, ...] = LIBRARIES) -> dict[str, str]:
    """The versions an entry's key depends on: Python, the machine, and ``libraries``."""
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        **{name: version(name) for name in libraries},
    }


def keyed(inputs: Mapping[str, Any]) -> str:
    """SHA-256 of ``inputs`` (JSON-ready), the cache's :data:`FORMAT` included: the key of an entry."""
    return hashlib.sha256(json.dumps({"format": FORMAT, **inputs}, sort_keys=True).encode()).hexdigest()


def entry_key(
    name: str, *, sources: str, seed: int, max_examples: int, versions: Mapping[str, str] | None = None
) -> str:
    """The key of one claim's entry (see the module); ``sources``: the digest of the files it depends on,
    ``versions``: :func:`environment` (None: read now; given, to read the versions once for many keys)."""
    inputs = {"claim": name, "sources": sources, "environment": dict(versions or environment()), "seed": seed}
    return keyed(inputs | {"max_examples": max_examples})


# ---------------------------------------------------------------------------------------------
# What a check was seen to depend on


def file_hash(path: Path) -> str | None:
    """SHA-256 of the file's contents, or None when it cannot be read (gone: a dependency changed)."""
    try:
        return _hash_of(path, path.stat().st_mtime_ns, path.stat().st_size)
    except OSError:
        return None


@cache
def _hash_of(path: Path, mtime_ns: int, size: int) -> str:
    """:func:`file_hash`, read once per version of the file (its modification time and size) in a process."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


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


def loaded_since(before: Iterable[str]) -> tuple[set[Path], set[str]]:
    """The source files (not of a library: :func:`~icl_verify.running.sources.is_library_file`) of the modules in ``sys.modules`` now and not in
    ``before``, and the distributions of every top-level module loaded now (the standard library's excepted)."""
    before = set(before)
    files: set[Path] = set()
    for name, module in list(sys.modules.items()):
        where = getattr(module, "__file__", None)
        if name not in before and isinstance(where, str) and where.endswith(".py"):
            path = Path(where).resolve()
            if not is_library_file(path):
                files.add(path)
    tops = {name.partition(".")[0] for name in list(sys.modules)} - set(sys.stdlib_module_names)
    dists = {d for top in tops for d in distributions_of().get(top, ())}
    return files, dists


@dataclasses.dataclass(frozen=True)
class Depends:
    """What a check was seen to depend on: source files by SHA-256 and distributions by version."""

    files: Mapping[str, str]
    distributions: Mapping[str, str]

    @classmethod
    def record(cls, files: Iterable[Path], distributions: Iterable[str]) -> Depends:
        """The hashes of ``files`` and the versions of ``distributions`` now."""
        hashed = {str(p): h for p in files if (h := file_hash(Path(p))) is not None}
        versions = {d: v for d in distributions if (v := distribution_version(d)) is not None}
        return cls(dict(sorted(hashed.items())), dict(sorted(versions.items())))

    def still_holds(self) -> bool:
        """Whether every file still hashes the same and every distribution has the same version."""
        return all(file_hash(Path(p)) == h for p, h in self.files.items()) and all(
            distribution_version(d) == v for d, v in self.distributions.items()
        )

    def to_dict(self) -> dict[str, Any]:
        return {"files": dict(self.files), "distributions": dict(self.distributions)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Depends:
        files, dists = data["files"], data["distributions"]
        if not all(isinstance(x, str) for x in (*files, *files.values(), *dists, *dists.values())):
            raise TypeError("depends holds only strings")
        return cls(dict(files), dict(dists))


# ---------------------------------------------------------------------------------------------
# Outcomes, as JSON


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What checking a claim produced, without the claim itself (claims hold lambdas), and what the check was
    seen to depend on (None: not recorded — such an outcome is never stored)."""

    verdict: Verdict
    evidence: tuple[Evidence, ...]
    seed: int
    max_examples: int
    seconds: float
    depends: Depends | None = dataclasses.field(default=None, compare=False)

    @classmethod
    def of(cls, result: Result, depends: Depends | None = None) -> Outcome:
        return cls(result.verdict, result.evidence, result.seed, result.max_examples, result.seconds, depends)

    def result(self, claim: Claim) -> Result:
        """The :class:`Result` of ``claim`` that this outcome records."""
        return Result(claim, self.verdict, self.evidence, self.seed, self.max_examples, self.seconds)

    def to_dict(self) -> dict[str, Any]:
        """The outcome in the JSON report's schema (docs/json-report.md; durations unrounded)."""
        return {
            "verdict": self.verdict.value,
            "seed": self.seed,
            "max_examples": self.max_examples,
            "seconds": self.seconds,
            "evidence": [e.to_dict() | {"seconds": e.seconds} for e in self.evidence],
            "depends": None if self.depends is None else self.depends.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        """The outcome :meth:`to_dict` wrote; ``KeyError``, ``TypeError`` or ``ValueError`` when it does not validate."""
        evidence = tuple(_evidence(e) for e in data["evidence"])
        seed, budget, seconds = data["seed"], data["max_examples"], data["seconds"]
        if not (_is_int(seed) and _is_int(budget) and isinstance(seconds, (int, float))):
            raise TypeError("seed, max_examples and seconds must be numbers")
        depends = None if data["depends"] is None else Depends.from_dict(data["depends"])
        return cls(Verdict(data["verdict"]), evidence, seed, budget, float(seconds), depends)


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _evidence(data: Mapping[str, Any]) -> Evidence:
    """One evidence row of :meth:`Outcome.to_dict`, validated."""
    texts = (data["kind"], data["status"], data["detail"])
    if not all(isinstance(t, str) for t in texts) or not isinstance(data["seconds"], (int, float)):
        raise TypeError("an evidence row has text kind, status, detail and a number of seconds")
    cex = data["counterexample"]
    if cex is not None and not isinstance(cex, dict):
        raise TypeError("a counterexample is an object")
    res = data["residual"]
    residual = None
    if res is not None:
        if not (isinstance(res["text"], str) and isinstance(res["latex"], str) and isinstance(res["truncated"], bool)):
            raise TypeError("a residual has text, latex and truncated")
        residual = Residual(res["text"], res["latex"], res["sizes"], res["truncated"])
    return Evidence(*texts, float(data["seconds"]), cex, residual)


class VerdictCache(Store):
    """Outcomes of checked claims, one JSON file per :func:`entry_key`, in ``folder``; and other entries by kind
    (:class:`~icl_verify.running.store.Store`).

    ``InvalidArgument`` when ``folder`` is a file; :class:`UnsafeCache` when it cannot be used safely (see the
    module): the caller runs without a cache.
    """

    def get(self, key: str) -> Outcome | None:
        """The outcome stored under ``key`` while all it was seen to depend on is unchanged, else None."""
        body = self.load(key, "")
        if body is None:
            return None
        try:
            outcome = Outcome.from_dict(body)
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        if outcome.depends is None or not outcome.depends.still_holds():
            return None
        return outcome

    def put(self, key: str, outcome: Outcome) -> None:
        """Store ``outcome`` under ``key`` (atomically); one with no recorded dependencies is not stored."""
        if outcome.depends is not None:
            self.store(key, outcome.to_dict(), "")

    def costs(self) -> dict[str, float]:
        """The last recorded duration of each claim, by name (empty when none was recorded)."""
        try:
            costs = json.loads((self.folder / _COSTS).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(costs, dict):
            return {}
        return {str(k): float(v) for k, v in costs.items() if isinstance(v, (int, float))}

    def record_costs(self, seconds: Mapping[str, float]) -> None:
        """Merge the durations just measured into the recorded ones."""
        atomic_write(self.folder / _COSTS, json.dumps({**self.costs(), **seconds}, sort_keys=True).encode())
