"""The checks of an inequality ``lhs ≤ rhs`` (or ≥, <, >): a steered numeric search and a decision procedure.

:class:`NumericBound` draws cases with Hypothesis and steers the search toward the worst case
(``hypothesis.target`` on the violation), then shrinks a violation to the smallest sizes and
simplest values. The violation is signed — lhs − rhs for ≤ and <, rhs − lhs for ≥ and > — and a
case fails only when it exceeds the automatic tolerance of :mod:`icl_verify.maths.tolerance`, so an
inequality that is tight (equality at some point) passes. Numerically a strict inequality cannot be
told from its non-strict form within rounding; the proof decides strictness.

:class:`ProofBound` hands a scalar inequality to :func:`icl_verify.maths.decide.decide`: PROVED for
every real point allowed by the assumptions, an exact counterexample, or — a timeout, an expression
outside the decidable fragment, no solver — undecided (UNPROVEN, never a pass).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import sympy as sp
from hypothesis import HealthCheck, Phase, Verbosity, find, settings, target
from hypothesis.errors import NoSuchExample
from hypothesis.strategies import SearchStrategy

from icl_verify.core.checks.base import Check, Found, short
from icl_verify.core.evidence import ControlStatus, Evidence, Kind, Status, counterexample
from icl_verify.maths.decide import Decision, decide
from icl_verify.maths.strategies import source_independent_draws

SYMBOL = {"<=": "≤", ">=": "≥", "<": "<", ">": ">"}


def bound_violation(result: tuple, relation: str, rtol: float, atol: float) -> tuple[bool, float, float, float]:
    """``(ok, violation, lhs − rhs at the worst entry, tolerance)`` for ``(lhs, rhs[, scale])`` compared by ``relation``.

    The violation is max(lhs − rhs) for ≤ and <, max(rhs − lhs) for ≥ and >; the tolerance is
    ``atol + rtol · scale``, scale the largest magnitude of lhs, rhs and the optional third element.
    """
    lhs, rhs = (np.asarray(p, dtype=np.float64).ravel() for p in result[:2])
    extra = abs(float(result[2])) if len(result) == 3 else 0.0
    if lhs.shape != rhs.shape:
        raise ValueError(f"lhs and rhs have different shapes {lhs.shape} and {rhs.shape}")
    if not (np.all(np.isfinite(lhs)) and np.all(np.isfinite(rhs)) and np.isfinite(extra)):
        raise ValueError("lhs or rhs is not finite (NaN or inf)")
    gaps = lhs - rhs if relation in ("<=", "<") else rhs - lhs
    worst = int(np.argmax(gaps)) if gaps.size else 0
    violation = float(gaps[worst]) if gaps.size else 0.0
    scale = max(float(np.max(np.abs(lhs), initial=0.0)), float(np.max(np.abs(rhs), initial=0.0)), extra)
    tol = atol + rtol * scale
    difference = float(lhs[worst] - rhs[worst]) if gaps.size else 0.0
    return violation <= tol, violation, difference, tol


def _settings(max_examples: int) -> settings:
    return settings(
        settings.get_profile("default"),
        max_examples=max_examples,
        derandomize=False,  # seeded by ``random=`` in :meth:`NumericBound.run`
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        phases=[Phase.generate, Phase.target, Phase.shrink],
    )


def _sizes_of(case: Mapping[str, Any]) -> dict[str, int]:
    return {k: int(v) for k, v in case.items() if isinstance(v, (int, np.integer)) and not isinstance(v, bool)}


@dataclass(frozen=True)
class NumericBound(Check):
    """``sides(case)`` returns ``(lhs, rhs[, scale])``; the claim is ``lhs relation rhs`` entry by entry.

    ``exact(case)`` (optional) returns the exact violation at a case (SymPy), or ``None`` when the
    sides cannot be evaluated exactly; a refutation then records it as ``exact_residual``.
    """

    cases: SearchStrategy[Mapping[str, Any]]
    sides: Callable[[Mapping[str, Any]], tuple]
    relation: str
    rtol: float
    atol: float
    exact: Callable[[Mapping[str, Any]], Any] | None = None

    kind: ClassVar[str] = Kind.NUMERIC
    rank: ClassVar[int] = 0

    def run(self, seed: int, max_examples: int) -> Found:
        t0 = time.perf_counter()
        count = [0]

        def fails(case: Mapping[str, Any]) -> bool:
            count[0] += 1
            ok, violation, _, tol = bound_violation(self.sides(case), self.relation, self.rtol, self.atol)
            target(violation - tol, label="violation beyond the tolerance")
            return not ok

        try:
            with source_independent_draws():
                case = find(self.cases, fails, settings=_settings(max_examples), random=random.Random(seed))
        except NoSuchExample:
            detail = f"{count[0]} random cases, steered toward a violation, pass (seed {seed})"
            return Found(Evidence(self.kind, Status.VERIFIED, detail, time.perf_counter() - t0))
        _, violation, difference, tol = bound_violation(self.sides(case), self.relation, self.rtol, self.atol)
        sizes = _sizes_of(case)
        values = {k: v for k, v in case.items() if k not in sizes}
        exact = self.exact(case) if self.exact is not None else None
        extra = {"lhs_minus_rhs": difference} | ({} if exact is None else {"exact_residual": str(exact)})
        cex = counterexample(self.kind, sizes, values, violation, tol, seed, **extra)
        against = ">" if self.relation in ("<=", "<") else "<"
        shown = tol if against == ">" else -tol
        detail = (
            f"shrunk counterexample at {sizes}: lhs − rhs = {difference:.3g} {against} {shown:.3g} "
            f"(claimed lhs {SYMBOL[self.relation]} rhs; seed {seed})"
        )
        return Found(Evidence(self.kind, Status.REFUTED, detail, time.perf_counter() - t0, cex), case)

    def control_at(self, at: Mapping[str, Any], corrected: Callable[[Mapping[str, Any]], tuple]) -> Evidence:
        """The corrected sides at the shrunk case, same relation and tolerance, must pass."""
        t0 = time.perf_counter()
        ok, violation, _, tol = bound_violation(corrected(at), self.relation, self.rtol, self.atol)
        mark = "≤" if ok else ">"
        detail = f"numeric: the corrected form at the shrunk counterexample, violation {violation:.3g} {mark} {tol:.3g}"
        return Evidence(
            Kind.CONTROL, ControlStatus.PASSED if ok else ControlStatus.FAILED, detail, time.perf_counter() - t0
        )


@dataclass(frozen=True)
class ProofBound(Check):
    """``sides()`` returns ``(lhs, rhs, assumptions)`` as SymPy scalars and relations; decided by :func:`decide`.

    ``timeout_ms`` bounds the solver; a timeout is undecided.
    """

    sides: Callable[[], tuple]
    relation: str
    timeout_ms: int = 10_000

    kind: ClassVar[str] = Kind.SYMBOLIC
    proves: ClassVar[bool] = True
    rank: ClassVar[int] = 2

    def _decide(self, sides: Callable[[], tuple]) -> Decision:
        lhs, rhs, assumptions = sides()
        return decide(lhs, rhs, self.relation, list(assumptions), self.timeout_ms)

    def run(self, seed: int, max_examples: int) -> Found:
        t0 = time.perf_counter()
        found = self._decide(self.sides)
        seconds = time.perf_counter() - t0
        if found.outcome == "proved":
            detail = f"lhs {SYMBOL[self.relation]} rhs for every real value allowed by the assumptions; certificate: the negation is unsatisfiable ({found.reason})"
            return Found(Evidence(self.kind, Status.PROVED, detail, seconds))
        if found.outcome == "refuted":
            values = {k: str(v) for k, v in found.values.items()}
            violation = sp.sympify(found.violation)
            cex = counterexample(self.kind, {}, values, float(violation), 0.0, None, exact_residual=str(violation))
            detail = f"exact counterexample {short(values)}: violation {violation} (z3 model, checked exactly)"
            return Found(Evidence(self.kind, Status.REFUTED, detail, seconds, cex))
        return Found(Evidence(self.kind, Status.UNDECIDED, f"not decided: {found.reason}", seconds))

    def control_at(self, at: Any, corrected: Callable[[], tuple]) -> Evidence:
        """The corrected inequality must be proved."""
        t0 = time.perf_counter()
        found = self._decide(corrected)
        ok = found.outcome == "proved"
        detail = f"symbolic: the corrected form is {'proved' if ok else 'not proved: ' + found.reason}"
        return Evidence(
            Kind.CONTROL, ControlStatus.PASSED if ok else ControlStatus.FAILED, detail, time.perf_counter() - t0
        )
