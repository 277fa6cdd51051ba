"""Optimality claims: ``η* = argmin_η L(η)`` over a declared scalar, stated as such.

``lhs=iv.argmin(loss, over="eta")`` with ``rhs`` the claimed minimiser. The loss is a function of
the declared symbols (or ``iv.expect(...)`` of one: an expected loss, by the moment algebra). Both
conditions of a minimum are checked:

* stationarity — L′(η*) reduces to 0 for symbolic sizes (exactly 0 at small sizes, else an exact
  witness refutes);
* second order — L″(η*) > 0, decided by :func:`icl_verify.maths.decide.decide` with the traces of
  powers of a covariance as positive unknowns (tr Λᵏ > 0 for Λ positive definite) and every size
  at least 1. When L is a polynomial of degree ≤ 2 in η, a stationary point with L″ > 0 is the
  global minimum; otherwise the evidence says "strict local minimum".

For a deterministic loss the numeric check searches for an η with L(η) < L(η*) (a bound
``L(η*) ≤ L(η)``, steered toward a violation).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import sympy as sp
from sympy.matrices.expressions import MatrixSymbol, Trace

from icl_verify.core.checks.base import Check, Found
from icl_verify.core.evidence import ControlStatus, Evidence, Kind, Status, counterexample, explain
from icl_verify.errors import InvalidArgument
from icl_verify.maths.decide import decide
from icl_verify.maths.symbolic import definite_value, is_zero


@dataclass(frozen=True)
class Argmin:
    """The side argmin over ``over`` of ``loss`` (a function of the declared symbols, or an ``iv.expect``)."""

    loss: Callable[..., Any]
    over: str


def argmin(loss: Callable[..., Any], *, over: str) -> Argmin:
    """The minimiser of ``loss`` over the declared scalar ``over``: use it as ``lhs``, the claimed minimiser as ``rhs``."""
    if not callable(loss):
        raise InvalidArgument(f"loss must be a function of the declared symbols, got {type(loss).__name__}")
    if not isinstance(over, str) or not over.isidentifier():
        raise InvalidArgument(f"over must name a declared scalar, got {over!r}")
    return Argmin(loss, over)


@dataclass(frozen=True)
class Conditions:
    """L′(η*), L″(η*), the assumptions the curvature may use, and whether L is at most quadratic in η."""

    slope: Any
    curvature: Any
    assumptions: list[Any]
    quadratic: bool


def conditions(
    loss: Any, variable: sp.Symbol, minimiser: Any, sizes: list[Any], covariances: set[str], given: list[Any]
) -> Conditions:
    """The first- and second-order conditions of ``loss`` (a SymPy scalar in ``variable``) at ``minimiser``."""
    first = sp.diff(loss, variable)
    second = sp.diff(first, variable)
    at = {variable: minimiser}
    traces: dict[Trace, sp.Symbol] = {}
    for t in sorted(loss.atoms(Trace), key=str):
        names = {m.name for m in t.atoms(MatrixSymbol)}
        positive = bool(names) and names <= covariances
        traces[t] = (
            sp.Symbol(f"tr_{len(traces)}", positive=True) if positive else sp.Symbol(f"tr_{len(traces)}", real=True)
        )
    assumptions = [sp.StrictGreaterThan(s, 0, evaluate=False) for s in traces.values() if s.is_positive]
    assumptions += [sp.GreaterThan(n, 1, evaluate=False) for n in sizes] + list(given)
    polynomial = sp.Poly(sp.expand(loss), variable) if sp.expand(loss).is_polynomial(variable) else None
    curvature = sp.simplify(second.subs(at).xreplace(traces))
    return Conditions(
        sp.simplify(first.subs(at)), curvature, assumptions, polynomial is not None and polynomial.degree() <= 2
    )


@dataclass(frozen=True)
class Optimality(Check):
    """``conditions()`` returns :class:`Conditions`; L′ = 0 and L″ > 0 proved ⇒ PROVED."""

    conditions: Callable[[], Conditions]
    over: str
    timeout_ms: int = 10_000

    kind: ClassVar[str] = Kind.SYMBOLIC
    proves: ClassVar[bool] = True
    rank: ClassVar[int] = 2

    def _decide(self, conditions: Callable[[], Conditions]) -> tuple[str, str, dict[str, Any] | None, Any]:
        """(status, detail, counterexample (values, violation) when refuted, the open residual when undecided)."""
        c = conditions()
        stationary = is_zero(c.slope)
        if stationary is not True:
            value = definite_value(c.slope) if stationary is False else None
            if value is not None:
                cex = counterexample(self.kind, {}, {}, float(abs(value)), 0.0, None, exact_residual=str(value))
                return Status.REFUTED, f"not stationary: L′({self.over}*) = {value} ≠ 0", cex, None
            return Status.UNDECIDED, f"L′({self.over}*) not reduced to 0 by SymPy", None, c.slope
        found = decide(c.curvature, sp.S.Zero, ">", c.assumptions, self.timeout_ms)
        if found.outcome == "proved":
            kind = "the global minimum (L is quadratic)" if c.quadratic else "a strict local minimum"
            detail = f"L′({self.over}*) = 0 for symbolic dimensions and L″({self.over}*) > 0 ({found.reason}): {kind}"
            return Status.PROVED, detail, None, None
        if found.outcome == "refuted":
            values = {k: str(v) for k, v in found.values.items()}
            gap = sp.sympify(found.violation)
            cex = counterexample(self.kind, {}, values, float(gap), 0.0, None, exact_residual=str(-gap))
            return Status.REFUTED, f"L″({self.over}*) = {-gap} ≤ 0 at {values}: not a minimum", cex, None
        return Status.UNDECIDED, f"stationary, but L″({self.over}*) > 0 not decided: {found.reason}", None, c.curvature

    def run(self, seed: int, max_examples: int) -> Found:
        t0 = time.perf_counter()
        status, detail, cex, open_residual = self._decide(self.conditions)
        residual = explain(open_residual, None) if open_residual is not None else None
        return Found(Evidence(self.kind, status, detail, time.perf_counter() - t0, cex, residual))

    def control_at(self, at: Any, corrected: Callable[[], Conditions]) -> Evidence:
        """The corrected minimiser must be proved optimal."""
        t0 = time.perf_counter()
        status, detail, _, _ = self._decide(corrected)
        ok = status == Status.PROVED
        text = f"symbolic: the corrected minimiser {'is proved optimal' if ok else 'is not proved: ' + detail}"
        return Evidence(
            Kind.CONTROL, ControlStatus.PASSED if ok else ControlStatus.FAILED, text, time.perf_counter() - t0
        )
