"""Optimality claims: ``η* = argmin_η L(η)`` over a declared scalar, stated as such.

``lhs=iv.argmin(loss, over="eta")`` with ``rhs`` the claimed minimiser. The loss is a function of
the declared symbols (or ``iv.expect(...)`` of one: an expected loss, by the moment algebra). Both
conditions of a minimum are checked:

* stationarity — L′(η*) reduces to 0 for symbolic sizes (exactly 0 at small sizes, else an exact
  witness refutes);
* second order — L″(η*) > 0, decided by :func:`icl_verify.maths.decide.decide` (z3) with every
  size at least 1, every trace an unknown: positive when :data:`POSITIVE_TRACE` shows it (a trace
  of one or two runs of positive definite matrices: tr Λᵏ, tr Λ₁ʲΛ₂ᵏ), else real — a trace of
  three covariances has no sign. A proof over such unknowns holds for the matrices; a z3 model
  with a trace or a fractional size in it need not come from any matrices, so it leaves the
  condition undecided; a model in the scalars alone refutes. When L is a polynomial of degree ≤ 2
  in η, a stationary point with L″ > 0 is the global minimum; otherwise the evidence says "strict
  local minimum". An expected loss outside the moment algebra's fragment is undecided.

For a deterministic loss the numeric check searches for an η with L(η) < L(η*) (a bound
``L(η*) ≤ L(η)``, steered toward a violation).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import sympy as sp
from sympy.matrices.expressions import MatMul, MatPow, MatrixSymbol, Trace, Transpose
from sympy.matrices.expressions.matexpr import MatrixElement

from icl_verify.core.checks.base import Check, Found
from icl_verify.core.evidence import ControlStatus, Evidence, Kind, Status, counterexample, explain
from icl_verify.core.expectation import MomentExplicit
from icl_verify.errors import InvalidArgument
from icl_verify.maths.decide import decide
from icl_verify.maths.moments import OutsideFragment, normal_form
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
    """L′(η*), L″(η*), the assumptions the curvature may use, whether L is at most quadratic in η,
    and the symbols that stand for traces (their z3 values need not come from any matrices)."""

    slope: Any
    curvature: Any
    assumptions: list[Any]
    quadratic: bool
    traces: frozenset[sp.Symbol] = frozenset()
    sizes: frozenset[Any] = frozenset()


POSITIVE_TRACE = "tr(AB) > 0 for A, B positive definite, since tr(AB) = tr(A^½ B A^½)"
"""The positivity rule the curvature may use (powers of a positive definite matrix are positive definite)."""


def _letters(product: Any) -> list[sp.Basic] | None:
    """The factors of a product of matrix symbols (and positive integer powers of them), else ``None``."""
    factors = product.args if isinstance(product, MatMul) else (product,)
    letters: list[sp.Basic] = []
    for f in factors:
        if isinstance(f, Transpose):
            f = f.arg
        if isinstance(f, MatPow) and f.exp.is_Integer and f.exp > 0 and isinstance(f.base, MatrixSymbol):
            letters += [f.base] * int(f.exp)
        elif isinstance(f, MatrixSymbol):
            letters.append(f)
        else:
            return None
    return letters


def positive_trace(t: Trace, definite: set[str]) -> bool:
    """Whether tr(P) > 0 follows from :data:`POSITIVE_TRACE`: P a cyclic product of at most two runs of
    positive definite matrices (Λᵏ, Λ₁ʲΛ₂ᵏ — transposes ignored, the matrices being symmetric).

    A trace of three or more such runs has no sign: tr(Λ₁Λ₂Λ₃) = −15 for the positive definite
    [[1, −2], [−2, 5]], [[4, 4], [4, 5]], [[5, −2], [−2, 1]].
    """
    letters = _letters(t.arg)
    if not letters or any(m.name not in definite for m in letters):
        return False
    runs = sum(a != b for a, b in zip(letters, letters[1:] + letters[:1]))
    return runs <= 2


def conditions(
    loss: Any, variable: sp.Symbol, minimiser: Any, sizes: list[Any], covariances: set[str], given: list[Any]
) -> Conditions:
    """The first- and second-order conditions of ``loss`` (a SymPy scalar in ``variable``) at ``minimiser``.

    ``covariances`` names the positive definite matrices; a trace of them is a positive unknown
    when :func:`positive_trace` shows it, every other trace a real unknown.
    """
    minimiser = normal_form(minimiser)  # its traces in the canonical rotation of the loss's
    first = sp.diff(loss, variable)
    second = sp.diff(first, variable)
    at = {variable: minimiser}
    traces: dict[Trace, sp.Symbol] = {}
    for t in sorted((loss.atoms(Trace) | sp.sympify(minimiser).atoms(Trace)), key=str):
        positive = positive_trace(t, covariances)
        name = f"tr_{len(traces)}"
        traces[t] = sp.Symbol(name, positive=True) if positive else sp.Symbol(name, real=True)
    assumptions = [sp.StrictGreaterThan(s, 0, evaluate=False) for s in traces.values() if s.is_positive]
    assumptions += [sp.GreaterThan(n, 1, evaluate=False) for n in sizes] + list(given)
    polynomial = sp.Poly(sp.expand(loss), variable) if sp.expand(loss).is_polynomial(variable) else None
    curvature = sp.simplify(second.subs(at).xreplace(traces))
    return Conditions(
        sp.simplify(first.subs(at)),
        curvature,
        assumptions,
        polynomial is not None and polynomial.degree() <= 2,
        frozenset(traces.values()),
        frozenset(sizes),
    )


def _realisable(values: dict[str, Any], c: Conditions) -> bool:
    """Whether z3's values are a real counterexample: no trace among them, every size an integer."""
    names = {str(t) for t in c.traces}
    sizes = {str(n) for n in c.sizes}
    return not names & set(values) and all(sp.Rational(v).is_integer for k, v in values.items() if k in sizes)


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
        try:
            c = conditions()
        except OutsideFragment as exc:
            return Status.UNDECIDED, f"the expected loss is not decided by the moment algebra: {exc}", None, None
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
            rule = f"; traces positive by {POSITIVE_TRACE}" if any(t.is_positive for t in c.traces) else ""
            detail = (
                f"L′({self.over}*) = 0 for symbolic dimensions and L″({self.over}*) > 0 ({found.reason}{rule}): {kind}"
            )
            return Status.PROVED, detail, None, None
        if found.outcome == "refuted" and not _realisable(found.values, c):
            values = {k: str(v) for k, v in found.values.items()}
            detail = (
                f"stationary, but L″({self.over}*) > 0 not proved: z3 found L″ ≤ 0 at {values}, where traces are "
                "independent unknowns and sizes real, which no matrices need realise"
            )
            return Status.UNDECIDED, detail, None, c.curvature
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


CURVATURE_DRAWS = 128
"""Exact draws of the declared matrices and scalars at which the explicit check evaluates L″(η*)."""


def _draw(symbols: list[Any], definite: frozenset[str], rng: random.Random) -> dict[Any, sp.Rational]:
    """Exact values for the free symbols of an explicit expression: each positive definite matrix
    M Mᵀ + I/8 (M of small integers, half the time a single column times 4: nearly rank one, so that
    a trace of three such matrices is negative at about one draw in six at d = 2), other entries and
    scalars small rationals (positive where the symbol is declared positive, non-zero where non-zero)."""
    values: dict[Any, sp.Rational] = {}
    parents = {e.parent for e in symbols if isinstance(e, MatrixElement)}
    for m in sorted(parents, key=str):
        n = int(m.shape[0])
        if m.name in definite:
            columns = n if rng.random() < 0.5 else 1  # half near rank one: the cone's edge, where signs turn
            root = sp.Matrix(n, columns, lambda i, j: rng.randint(-4, 4)) * (1 if columns == n else 4)
            drawn = root * root.T + sp.eye(n) / 8
        else:
            drawn = sp.Matrix(*m.shape, lambda i, j: sp.Rational(rng.randint(-12, 12), 4))
        values |= {m[i, j]: drawn[i, j] for i in range(drawn.rows) for j in range(drawn.cols)}
    for x in symbols:
        if isinstance(x, sp.Symbol):
            magnitude = sp.Rational(rng.randint(1, 12), 4)
            values[x] = (
                magnitude
                if x.is_positive
                else magnitude * rng.choice((-1, 1))
                if x.is_nonzero
                else (sp.Rational(rng.randint(-12, 12), 4))
            )
    return values


def concave_draw(
    curvature: Any, definite: frozenset[str], seed: int, given: Sequence[Any] = ()
) -> tuple[dict[str, str], Any] | None:
    """Exact values at which ``curvature`` (L″(η*) at a concrete size, explicit entries) is ≤ 0, if a draw
    finds one; draws outside the declared domain (``given``: relations such as t > 0) are skipped."""
    rng = random.Random(seed)
    unknowns = sorted(sp.sympify(curvature).free_symbols | sp.sympify(curvature).atoms(MatrixElement), key=str)
    unknowns = [u for u in unknowns if not isinstance(u, MatrixSymbol)]
    for _ in range(CURVATURE_DRAWS):
        values = _draw(unknowns, definite, rng)
        if not all(bool(sp.sympify(g).xreplace(values)) is True for g in given):
            continue
        value = sp.nsimplify(sp.sympify(curvature).xreplace(values))
        if value.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or not value.is_Rational:
            continue
        if value <= 0:
            return {str(k): str(v) for k, v in values.items()}, value
    return None


@dataclass(frozen=True)
class StationaryExplicit(MomentExplicit):
    """The explicit check of an argmin: L′(η*) expands to 0 at each size, and L″(η*) > 0 at
    :data:`CURVATURE_DRAWS` exact draws (positive definite matrices where declared); a draw with
    L″(η*) ≤ 0 is an exact counterexample: η* is no minimum there."""

    curvature: Callable[..., tuple[Any, list[Any]]] | None = None  # (L″(η*), the declared domain's relations)
    definite: frozenset[str] = frozenset()

    def run(self, seed: int, max_examples: int) -> Found:
        found = super().run(seed, max_examples)
        if found.evidence.status != Status.VERIFIED or self.curvature is None:
            return found
        t0 = time.perf_counter()
        for size in self.sizes:
            curvature, given = self.curvature(**size)
            hit = concave_draw(curvature, self.definite, seed, given)
            if hit is not None:
                values, value = hit
                cex = counterexample(self.kind, size, values, float(abs(value)), 0.0, seed, exact_residual=str(value))
                detail = f"L″ = {value} ≤ 0 at {dict(size)} and exact values: the claimed minimiser is no minimum"
                return Found(Evidence(self.kind, Status.REFUTED, detail, time.perf_counter() - t0, cex), size)
        detail = f"{found.evidence.detail}; L″ > 0 there at {CURVATURE_DRAWS} exact draws per size (seed {seed})"
        return Found(Evidence(self.kind, Status.VERIFIED, detail, found.evidence.seconds + time.perf_counter() - t0))
