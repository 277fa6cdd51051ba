"""The numeric check: a property over random sizes and values drawn by Hypothesis, within a tolerance."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from hypothesis import HealthCheck, Phase, Verbosity, find, settings
from hypothesis.errors import NoSuchExample
from hypothesis.strategies import SearchStrategy

from icl_verify.core.checks.base import Check, Found
from icl_verify.core.evidence import ControlStatus, Evidence, Kind, Status, counterexample
from icl_verify.errors import IclVerifyError, InvalidArgument
from icl_verify.maths.strategies import source_independent_draws


class NonFiniteComparison(IclVerifyError, ValueError):
    """A comparison met NaN or inf: the check is broken there, which is no counterexample."""


def compare_with_tolerance(result: tuple, rtol: float, atol: float) -> tuple[bool, float, float]:
    """Return ``(ok, max |lhs − rhs|, tolerance)`` with tolerance ``atol + rtol · scale``.

    ``scale`` is the largest magnitude among lhs, rhs and an optional third element.
    NaN or inf anywhere is no comparison at all: :class:`NonFiniteComparison` names the part.
    """
    if len(result) not in (2, 3):
        raise InvalidArgument("compare must return (lhs, rhs) or (lhs, rhs, scale)")
    lhs = np.asarray(result[0], dtype=np.float64)
    rhs = np.asarray(result[1], dtype=np.float64)
    if lhs.shape != rhs.shape:
        raise InvalidArgument(f"lhs and rhs have different shapes {lhs.shape} and {rhs.shape}")
    extra = float(result[2]) if len(result) == 3 else 0.0
    for name, part in (("lhs", lhs), ("rhs", rhs), ("scale", extra)):
        if not np.all(np.isfinite(part)):
            raise NonFiniteComparison(f"{name} is not finite (NaN or inf)")
    err = float(np.max(np.abs(lhs - rhs), initial=0.0))
    scale = max(float(np.max(np.abs(lhs), initial=0.0)), float(np.max(np.abs(rhs), initial=0.0)), abs(extra))
    tol = atol + rtol * scale
    return err <= tol, err, tol


def _sizes_of(case: Mapping[str, Any]) -> dict[str, int]:
    return {k: int(v) for k, v in case.items() if isinstance(v, (int, np.integer)) and not isinstance(v, bool)}


def _coverage(seen: Iterable[Mapping[str, int]]) -> str:
    seen = list(seen)
    keys = sorted({k for s in seen for k in s})
    return ", ".join(f"{k}∈[{min(s[k] for s in seen)},{max(s[k] for s in seen)}]" for k in keys)


class _BrokenCase(Exception):
    """Carries a case whose comparison was not finite out of Hypothesis' search."""

    def __init__(self, case: Mapping[str, Any], error: NonFiniteComparison) -> None:
        super().__init__(str(error))
        self.case, self.error = case, error


def _settings(max_examples: int) -> settings:
    return settings(
        settings.get_profile("default"),  # Hypothesis' own defaults: a profile the user loaded changes no verdict
        max_examples=max_examples,
        derandomize=False,  # the search is seeded by ``seed`` (``random=`` in :meth:`Numeric.run`)
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        phases=[Phase.generate, Phase.shrink],
    )


@dataclass(frozen=True)
class Numeric(Check):
    """Numeric property: ``compare(case)`` returns ``(lhs, rhs)`` or ``(lhs, rhs, scale)`` for a drawn case.

    ``cases`` draws a ``dict``; its ``int`` entries are reported as the dimensions covered.
    ``scale`` (optional) is the magnitude of the terms that cancel, for the tolerance
    ``|lhs − rhs| ≤ atol + rtol · scale``. A failing case is shrunk to a minimal counterexample.
    The corrected form is another ``compare``, run at the shrunk case with the same tolerance.
    """

    cases: SearchStrategy[Mapping[str, Any]]
    compare: Callable[[Mapping[str, Any]], tuple]
    rtol: float = 1e-9
    atol: float = 1e-12

    kind: ClassVar[str] = Kind.NUMERIC
    rank: ClassVar[int] = 0

    def run(self, seed: int, max_examples: int) -> Found:
        t0 = time.perf_counter()
        seen: list[dict[str, int]] = []

        def fails(case: Mapping[str, Any]) -> bool:
            seen.append(_sizes_of(case))
            try:
                ok, _, _ = compare_with_tolerance(self.compare(case), self.rtol, self.atol)
            except NonFiniteComparison as exc:
                raise _BrokenCase(case, exc) from exc
            return not ok

        try:
            with source_independent_draws():
                case = find(self.cases, fails, settings=_settings(max_examples), random=random.Random(seed))
        except NoSuchExample:
            detail = f"{len(seen)} random cases pass (seed {seed})"
            if any(seen):
                detail += f"; {_coverage(seen)}"
            return Found(Evidence(self.kind, Status.VERIFIED, detail, time.perf_counter() - t0))
        except _BrokenCase as broken:
            detail = f"{broken.error} in case {len(seen)} at sizes {_sizes_of(broken.case)} (seed {seed})"
            return Found(Evidence(self.kind, Status.ERROR, detail, time.perf_counter() - t0))
        _, err, tol = compare_with_tolerance(self.compare(case), self.rtol, self.atol)
        sizes = _sizes_of(case)
        values = {k: v for k, v in case.items() if k not in sizes}
        cex = counterexample(self.kind, sizes, values, err, tol, seed)
        detail = f"shrunk counterexample at {sizes}: |lhs − rhs| = {err:.3g} > {tol:.3g} (seed {seed})"
        return Found(Evidence(self.kind, Status.REFUTED, detail, time.perf_counter() - t0, cex), case)

    def control_at(self, at: Mapping[str, Any], corrected: Callable[[Mapping[str, Any]], tuple]) -> Evidence:
        """The corrected compare on the shrunk case must pass the refutation's own tolerance (same rtol, atol, scale)."""
        t0 = time.perf_counter()
        _, _, tol = compare_with_tolerance(self.compare(at), self.rtol, self.atol)  # the tolerance the case failed
        _, err, _ = compare_with_tolerance(corrected(at), self.rtol, self.atol)
        ok = err <= tol
        relation = "≤" if ok else ">"
        detail = (
            f"numeric: the corrected form at the shrunk counterexample, |lhs − rhs| = {err:.3g} {relation} {tol:.3g}"
        )
        status = ControlStatus.PASSED if ok else ControlStatus.FAILED
        return Evidence(Kind.CONTROL, status, detail, time.perf_counter() - t0)
