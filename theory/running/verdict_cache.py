"""The verdict cache: a claim's result is reused only while nothing it depends on has changed.

An entry is keyed (:func:`entry_key`) by the claim's name and everything its verdict depends on:

* the source of the installed package — every file of ``icl_verify`` (``theory/`` and
  ``numerics/``), hashed by :func:`package_digest`, so any edit to a claim, a check or a
  simulation re-checks every claim (when in doubt, everything);
* for a claim from a user's file, that file's source and the other ``.py`` files beside it
  (:func:`file_digest`) — the modules it is most likely to import;
* the versions of Python, SymPy, NumPy, SciPy and Hypothesis;
* the seed and the example budget.

Entries live in :func:`default_dir` (the user's cache directory, or ``$ICL_VERIFY_CACHE_DIR``),
one file per key. Writes go to a temporary file in the same folder and are moved into place with
``os.replace``, so concurrent runs never see half an entry; an entry that cannot be read back
(truncated, corrupted, or from another key) is ignored, and rewritten by the next check.
The checks' recorded durations are kept apart (:meth:`VerdictCache.costs`): they order the next
run, longest claim first, and never decide a verdict.

The same folder holds the documents' figures as drawn (:class:`DrawnFigure`: the digest of the
data and the SVG), keyed by :func:`figure_key` — the family and figure names and the same inputs,
Matplotlib's version added — so a warm ``icl-verify docs`` neither re-runs a figure's simulation
nor redraws it. Figure entries are written, read and discarded when unreadable like verdicts.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pickle
import platform
import tempfile
from collections.abc import Iterable, Mapping
from importlib.metadata import version
from pathlib import Path
from typing import TypeVar

import platformdirs

from icl_verify.core.claims import Claim, Result
from icl_verify.core.evidence import Evidence
from icl_verify.core.verdicts import Verdict

ENV_VAR = "ICL_VERIFY_CACHE_DIR"
FORMAT = 1  # bumped when the entry layout changes
LIBRARIES = ("sympy", "numpy", "scipy", "hypothesis")
FIGURE_LIBRARIES = ("matplotlib",)  # what a drawn figure depends on besides :data:`LIBRARIES`
_COSTS = "costs.json"
_Entry = TypeVar("_Entry", "Outcome", "DrawnFigure")


def default_dir() -> Path:
    """``$ICL_VERIFY_CACHE_DIR`` when set, else ``verdicts`` in the user's cache directory (platformdirs)."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override)
    return Path(platformdirs.user_cache_dir("icl-verify")) / "verdicts"


def _digest_files(paths: Iterable[Path], root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(str(path.relative_to(root)).encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def _source_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]


def package_digest() -> str:
    """SHA-256 of every file of the installed ``icl_verify`` (its own folder and ``numerics``'s)."""
    import icl_verify
    import icl_verify.numerics

    h = hashlib.sha256()
    for module in (icl_verify, icl_verify.numerics):
        folder = Path(module.__file__).parent
        h.update(_digest_files(_source_files(folder), folder).encode())
    return h.hexdigest()


def file_digest(path: str | Path) -> str:
    """SHA-256 of a user's claim file and of the ``.py`` files in its folder (what it may import)."""
    path = Path(path).resolve()
    siblings = {path, *path.parent.glob("*.py")}
    return _digest_files([p for p in siblings if p.is_file()], path.parent)


def environment() -> dict[str, str]:
    """The versions an entry depends on: Python, the machine, and :data:`LIBRARIES`."""
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        **{name: version(name) for name in LIBRARIES},
    }


def entry_key(name: str, *, package: str, source: str, seed: int, max_examples: int) -> str:
    """The key of one claim's entry: SHA-256 of every input its verdict depends on (see the module)."""
    inputs = {
        "format": FORMAT,
        "claim": name,
        "package": package,
        "source": source,
        "environment": environment(),
        "seed": seed,
        "max_examples": max_examples,
    }
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


def figure_key(family: str, figure: str, *, package: str, source: str, seed: int, max_examples: int) -> str:
    """The key of one drawn figure: what :func:`entry_key` hashes, with :data:`FIGURE_LIBRARIES`' versions.

    ``source`` is :func:`file_digest` of a user's file (empty for a built-in family). The seed and
    the budget are part of the key because a document is generated for them, although a figure's
    ``data()`` takes no argument (it seeds itself).
    """
    inputs = {
        "format": FORMAT,
        "figure": [family, figure],
        "package": package,
        "source": source,
        "environment": environment() | {name: version(name) for name in FIGURE_LIBRARIES},
        "seed": seed,
        "max_examples": max_examples,
    }
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


@dataclasses.dataclass(frozen=True)
class DrawnFigure:
    """A figure as its document holds it: the digest of its data and its SVG file's bytes."""

    digest: str
    svg: bytes


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
    """Outcomes of checked claims, one file per :func:`entry_key`, in ``folder``."""

    def __init__(self, folder: str | Path | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_dir()
        if self.folder.exists() and not self.folder.is_dir():
            raise ValueError(f"cache_dir must be a directory, got the file {str(self.folder)!r}")

    def _path(self, key: str, kind: type) -> Path:
        return self.folder / (f"{key}.pickle" if kind is Outcome else f"{key}.figure.pickle")

    def _load(self, key: str, kind: type[_Entry]) -> _Entry | None:
        """The entry of type ``kind`` stored under ``key``, or None when there is none or it cannot be read back."""
        try:
            stored_key, entry = pickle.loads(self._path(key, kind).read_bytes())
        except Exception:  # missing, truncated or corrupted: ignored, and rewritten by the next check
            return None
        return entry if stored_key == key and isinstance(entry, kind) else None

    def _store(self, key: str, entry: Outcome | DrawnFigure) -> None:
        _atomic_write(self._path(key, type(entry)), pickle.dumps((key, entry)))

    def get(self, key: str) -> Outcome | None:
        """The outcome stored under ``key``, or None when there is none or it cannot be read back."""
        return self._load(key, Outcome)

    def put(self, key: str, outcome: Outcome) -> None:
        """Store ``outcome`` under ``key`` (atomically)."""
        self._store(key, outcome)

    def get_figure(self, key: str) -> DrawnFigure | None:
        """The figure stored under ``key`` (a :func:`figure_key`), or None when there is none or it is unreadable."""
        return self._load(key, DrawnFigure)

    def put_figure(self, key: str, figure: DrawnFigure) -> None:
        """Store the drawn ``figure`` under ``key`` (atomically)."""
        self._store(key, figure)

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
