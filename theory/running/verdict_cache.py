"""The verdict cache: a claim's result is reused only while nothing it depends on has changed.

An entry is keyed (:func:`entry_key`) by the claim's name and everything its verdict depends on:

* the source of the modules the claim depends on (:func:`icl_verify.running.sources.dependencies`):
  for a built-in claim its family's module and every ``icl_verify`` module that module imports,
  transitively (read from the ``import`` statements, those inside functions included); for a
  claim from a user's file that file, the helper modules beside it that it imports and the
  ``icl_verify`` modules they import. Editing one family re-checks that family's claims only;
  editing a module every family imports (``icl_verify.core.claims``) re-checks every claim;
* the versions of Python, SymPy, NumPy, SciPy and Hypothesis, and the machine;
* the seed and the example budget.

Entries live in :func:`default_dir` (the user's cache directory, or ``$ICL_VERIFY_CACHE_DIR``),
one file per key. Writes go to a temporary file in the same folder and are moved into place with
``os.replace``, so concurrent runs never see half an entry; an entry that cannot be read back
(truncated, corrupted, or from another key) is ignored, and rewritten by the next check.
The checks' recorded durations are kept apart (:meth:`VerdictCache.costs`): they order the next
run, longest claim first, and never decide a verdict.

The same folder keeps other entries keyed the same way (:meth:`VerdictCache.load`,
:meth:`VerdictCache.store`, each kind under its own file suffix), e.g. the documents' drawn figures.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pickle
import platform
import tempfile
from collections.abc import Mapping
from importlib.metadata import version
from pathlib import Path
from typing import Any, TypeVar

import platformdirs

from icl_verify.core.claims import Claim, Result
from icl_verify.core.evidence import Evidence
from icl_verify.core.verdicts import Verdict
from icl_verify.errors import InvalidArgument

ENV_VAR = "ICL_VERIFY_CACHE_DIR"
FORMAT = 1  # bumped when the entry layout changes
LIBRARIES = ("sympy", "numpy", "scipy", "hypothesis")
_COSTS = "costs.json"
_Entry = TypeVar("_Entry")


def default_dir() -> Path:
    """``$ICL_VERIFY_CACHE_DIR`` when set, else ``verdicts`` in the user's cache directory (platformdirs)."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override)
    return Path(platformdirs.user_cache_dir("icl-verify")) / "verdicts"


def environment(libraries: tuple[str, ...] = LIBRARIES) -> dict[str, str]:
    """The versions an entry depends on: Python, the machine, and ``libraries``."""
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


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What checking a claim produced, without the claim itself (claims hold lambdas and do not pickle)."""

    verdict: Verdict
    evidence: tuple[Evidence, ...]
    seed: int
    max_examples: int
    seconds: float

    @classmethod
    def of(cls, result: Result) -> Outcome:
        return cls(result.verdict, result.evidence, result.seed, result.max_examples, result.seconds)

    def result(self, claim: Claim) -> Result:
        """The :class:`Result` of ``claim`` that this outcome records."""
        return Result(claim, self.verdict, self.evidence, self.seed, self.max_examples, self.seconds)


def _atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class VerdictCache:
    """Outcomes of checked claims, one file per :func:`entry_key`, in ``folder``; and other entries by kind."""

    def __init__(self, folder: str | Path | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_dir()
        if self.folder.exists() and not self.folder.is_dir():
            raise InvalidArgument(f"cache_dir must be a directory, got the file {str(self.folder)!r}")

    def _path(self, key: str, suffix: str) -> Path:
        return self.folder / f"{key}{suffix}.pickle"

    def load(self, key: str, kind: type[_Entry], suffix: str) -> _Entry | None:
        """The entry of type ``kind`` stored under ``key`` and ``suffix``, or None when there is none or it cannot
        be read back."""
        try:
            stored_key, entry = pickle.loads(self._path(key, suffix).read_bytes())
        except Exception:  # missing, truncated or corrupted: ignored, and rewritten by the next check
            return None
        return entry if stored_key == key and isinstance(entry, kind) else None

    def store(self, key: str, entry: object, suffix: str) -> None:
        """Store ``entry`` under ``key`` and ``suffix`` (a kind of entry: ``.figure``), atomically."""
        _atomic_write(self._path(key, suffix), pickle.dumps((key, entry)))

    def get(self, key: str) -> Outcome | None:
        """The outcome stored under ``key``, or None when there is none or it cannot be read back."""
        return self.load(key, Outcome, "")

    def put(self, key: str, outcome: Outcome) -> None:
        """Store ``outcome`` under ``key`` (atomically)."""
        self.store(key, outcome, "")

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
        _atomic_write(self.folder / _COSTS, json.dumps({**self.costs(), **seconds}, sort_keys=True).encode())
