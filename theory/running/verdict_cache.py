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
import json
import platform
import sys
from collections.abc import Mapping
from importlib.metadata import version
from pathlib import Path
from typing import Any

from icl_verify.core import verdicts
from icl_verify.core.checks.base import Check
from icl_verify.core.claims import Claim, Result
from icl_verify.core.evidence import Evidence, Kind, Residual, Status
from icl_verify.core.verdicts import Verdict
from icl_verify.running.depends import Depends
from icl_verify.running.store import Store, keyed, read_entry

LIBRARIES = ("sympy", "numpy", "scipy", "hypothesis")
_COSTS = "costs.json"


def environment(libraries: tuple[str, ...] = LIBRARIES) -> dict[str, str]:
    """The versions an entry's key depends on: Python, the machine, and ``libraries``."""
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        **{name: version(name) for name in libraries},
    }


def entry_key(
    name: str, *, sources: str, seed: int, max_examples: int, versions: Mapping[str, str] | None = None
) -> str:
    """The key of one claim's entry (see the module); ``sources``: the digest of the files it depends on,
    ``versions``: :func:`environment` (None: read now; given, to read the versions once for many keys)."""
    inputs = {"claim": name, "sources": sources, "environment": dict(versions or environment()), "seed": seed}
    return keyed(inputs | {"max_examples": max_examples})


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

    @property
    def supported(self) -> Verdict:
        """The verdict its evidence supports (:func:`icl_verify.core.verdicts.combine` of every row's status)."""
        return verdicts.combine(e.status for e in self.evidence)

    def vetted(self, claim: Claim) -> Outcome:
        """This outcome as ``claim``'s, never claiming more than its evidence: ERROR, with a row saying so, when its
        verdict is not the one its evidence supports (a check's own code changed the verdict or the rules); and
        each row of a check whose class is not icl-verify's marked as the user's own (:func:`own_check`)."""
        evidence = own_check(claim, self.evidence)
        if self.verdict is self.supported:
            return dataclasses.replace(self, evidence=evidence)
        detail = (
            f"the verdict {self.verdict.value} does not follow from the evidence, which supports {self.supported.value}"
        )
        row = Evidence(Kind.WORKER, Status.ERROR, detail, 0.0)
        return dataclasses.replace(self, verdict=Verdict.ERROR, evidence=(*evidence, row))

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


OWN_CHECK = "the user's own check"
"""How a row of evidence from a check class defined outside icl-verify begins (:func:`own_check`)."""


def own_check(claim: Claim, evidence: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
    """``evidence`` with each row of a check of ``claim`` whose class is defined outside icl-verify marked, e.g.
    "the user's own check MyCheck (my_claims.py): proved …" — whatever it reports, icl-verify did not decide it.

    A claim's check rows come first, one per check in order (:func:`icl_verify.core.claims.check`); a row whose
    kind is not its check's is left as it is. Its control rows follow: one is a check's when it begins with that
    check's kind (``mine: …``, ``mine control not run …``), as every control row of a check of the user's does.
    Marking twice marks once."""
    rows = list(evidence)
    for k, (check, row) in enumerate(zip(claim.checks, rows)):
        if _own_mark(check) is not None and str(row.kind) == str(check.kind):
            rows[k] = _marked(row, _own_mark(check))
    for k, row in enumerate(rows[len(claim.checks) :], start=len(claim.checks)):
        own = [
            m for c in claim.checks if str(row.kind) == Kind.CONTROL and _controls_of(row, c) and (m := _own_mark(c))
        ]
        if own:  # two checks of one kind, the user's and a built-in: the user's, the weaker reading
            rows[k] = _marked(row, own[0])
    return tuple(rows)


def _own_mark(check: Check) -> str | None:
    """How the rows of ``check`` begin when its class is defined outside icl-verify (None for icl-verify's own)."""
    cls = type(check)
    if cls.__module__.partition(".")[0] == "icl_verify":
        return None
    where = getattr(sys.modules.get(cls.__module__), "__file__", None)
    return f"{OWN_CHECK} {cls.__qualname__} ({Path(where).name if where else cls.__module__}): "


def _controls_of(row: Evidence, check: Check) -> bool:
    """Whether the control ``row`` (marked or not) begins as a control row of ``check`` does."""
    detail = row.detail.partition("): ")[2] if row.detail.startswith(OWN_CHECK) else row.detail
    return detail.startswith((f"{check.kind}:", f"{check.kind} control"))


def _marked(row: Evidence, mark: str | None) -> Evidence:
    """``row`` beginning with ``mark`` (once)."""
    if mark is None or row.detail.startswith(mark):
        return row
    return dataclasses.replace(row, detail=mark + row.detail)


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
    measurement = data["measurement"]
    if measurement is not None and not isinstance(measurement, dict):
        raise TypeError("a measurement is an object")
    trace = data["traceback"]
    if trace is not None and not isinstance(trace, str):
        raise TypeError("a traceback is text")
    return Evidence(*texts, float(data["seconds"]), cex, residual, traceback=trace, measurement=measurement)


class VerdictCache(Store):
    """Outcomes of checked claims, one JSON file per :func:`entry_key`, in ``folder``; and other entries by kind
    (:class:`~icl_verify.running.store.Store`).

    ``InvalidArgument`` when ``folder`` is a file; :class:`UnsafeCache` when it cannot be used safely (see the
    module): the caller runs without a cache.
    """

    def get(self, key: str) -> Outcome | None:
        """The outcome stored under ``key`` while all it was seen to depend on is unchanged and its verdict is the one
        its evidence supports (:attr:`Outcome.supported`), else None."""
        body = self.load(key, "")
        if body is None:
            return None
        try:
            outcome = Outcome.from_dict(body)
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        if outcome.depends is None or outcome.verdict is not outcome.supported or not outcome.depends.still_holds():
            return None
        return outcome

    def put(self, key: str, outcome: Outcome) -> None:
        """Store ``outcome`` under ``key`` (atomically); one with no recorded dependencies is not stored."""
        if outcome.depends is not None:
            self.store(key, outcome.to_dict(), "")

    def costs(self) -> dict[str, float]:
        """The last recorded duration of each claim, by name (empty when none was recorded)."""
        try:
            costs = json.loads(read_entry(self.folder / _COSTS) or b"")
        except ValueError:
            return {}
        if not isinstance(costs, dict):
            return {}
        return {str(k): float(v) for k, v in costs.items() if isinstance(v, (int, float))}

    def record_costs(self, seconds: Mapping[str, float]) -> None:
        """Merge the durations just measured into the recorded ones."""
        self.write(self.folder / _COSTS, json.dumps({**self.costs(), **seconds}, sort_keys=True).encode())
