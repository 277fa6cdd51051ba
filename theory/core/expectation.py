"""Expectations in statements: random inputs declared with a law, and ``iv.expect(side)``.

``iv.gaussian("d", cov="Lambda")`` declares a random column vector x ~ N(0, Λ) (Λ a declared
d × d matrix, or a number: an isotropic variance); ``iv.gaussian("N", "d", cov="Lambda")`` a random
N × d matrix with iid rows N(0, Λ); ``iv.iid("N", "d", variance=…, kurtosis=…)`` one with iid
symmetric entries of that variance and kurtosis (numbers or names of declared scalars). A side
wrapped in ``iv.expect`` is the expectation of its value over the random inputs. From that one
definition :func:`expectation_checks` derives:

* symbolic — E[side] by the moment algebra of :mod:`icl_verify.maths.moments` (Isserlis' theorem,
  the fourth cumulant of iid entries) for symbolic sizes; lhs − rhs reduced to 0 proves the
  identity for every size;
* explicit — the same at small concrete sizes with every deterministic matrix written out entry
  by entry (covariances symmetric), so a residual with free symbols such as tr(Λ²) or d/N that is
  not identically zero is refuted by an exact rational witness at the smallest size showing it;
* Monte Carlo — at sizes and values drawn by Hypothesis: :data:`SAMPLES` seeded draws, a
  normal-approximation interval of half-width :data:`Z` standard errors around the mean of
  lhs − rhs, computed on the integrand divided by its largest drawn magnitude. 0 outside it
  refutes when the integrand's sample skewness is within :func:`skewness_limit` (then a true
  identity is refuted with probability ≤ 1.1e-6 per case, to first order in the Edgeworth
  expansion); a heavier tail (x¹² of a Gaussian) cannot refute and leaves the check undecided.
  Inside it and narrower than :data:`RELATIVE` of the sides' magnitude verifies; wider is
  undecided. Its evidence is of kind ``monte_carlo``: a statistical refutation is a candidate.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import sympy as sp
from hypothesis import HealthCheck, Phase, Verbosity, find, settings
from hypothesis.errors import NoSuchExample
from hypothesis.strategies import SearchStrategy
from sympy.matrices.expressions import MatrixExpr, MatrixSymbol, Trace

from icl_verify.core.checks.base import Check, Found, parts
from icl_verify.core.checks.explicit import Explicit
from icl_verify.core.checks.symbolic import Symbolic
from icl_verify.core.evidence import ControlStatus, Evidence, Kind, Status, counterexample
from icl_verify.errors import InvalidArgument
from icl_verify.maths.exact import exact
from icl_verify.maths.moments import Law, OutsideFragment, expectation, normal_form
from icl_verify.maths.scalars import declared
from icl_verify.maths.strategies import source_independent_draws

SAMPLES = 20_000
"""Monte Carlo draws per case."""

Z = 5.0
"""Half-width of the interval in standard errors: P(|N(0,1)| > 5) ≈ 5.7e-7 (twice that within :func:`skewness_limit`)."""

RELATIVE = 0.2
"""An interval narrower than this fraction of the sides' magnitude decides VERIFIED."""

MONTE_CARLO_CASES = 10
"""Cases drawn by the Monte Carlo check (at most ``max_examples``)."""

Parameter = str | float | int


@dataclass(frozen=True)
class RandomSpec:
    """A declared random matrix: its shape (a column vector when ``column``) and its law.

    ``law`` is ``"gaussian"`` (rows N(0, ``cov``)) or ``"iid"`` (entries of ``variance`` and
    ``kurtosis``); each parameter is a number or the name of a declared symbol.
    """

    rows: str | int
    cols: str | int
    column: bool
    law: str
    cov: Parameter = 1
    variance: Parameter = 1
    kurtosis: Parameter = 3


def _shape(arg: str, sizes: tuple[str | int, ...]) -> tuple[str | int, str | int, bool]:
    for value in sizes:
        ok = (isinstance(value, str) and value.isidentifier()) or (type(value) is int and value >= 1)
        if not ok:
            raise InvalidArgument(f"{arg}: a size must be a name or a positive integer, got {value!r}")
    if len(sizes) == 1:
        return sizes[0], 1, True
    if len(sizes) == 2:
        return sizes[0], sizes[1], False
    raise InvalidArgument(f"{arg} takes one size (a column vector) or two (rows, cols), got {len(sizes)}")


def _parameter(arg: str, value: Any) -> Parameter:
    if isinstance(value, str) and value.isidentifier():
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise InvalidArgument(f"{arg} must be a declared symbol's name or a positive number, got {value!r}")
    return value


def gaussian(*sizes: str | int, cov: Parameter = 1) -> RandomSpec:
    """x ~ N(0, cov) for one size (a column vector); iid rows N(0, cov) for (rows, cols).

    ``cov`` names a declared square matrix (taken symmetric positive definite) or is a variance.
    """
    rows, cols, column = _shape("gaussian", sizes)
    return RandomSpec(rows, cols, column, "gaussian", cov=_parameter("cov", cov))


def iid(*sizes: str | int, variance: Parameter = 1, kurtosis: Parameter = 3) -> RandomSpec:
    """iid symmetric entries with E r² = variance, E r⁴ = kurtosis · variance² (kurtosis ≥ 1)."""
    rows, cols, column = _shape("iid", sizes)
    if not isinstance(kurtosis, str) and kurtosis < 1:
        raise InvalidArgument(f"kurtosis must be at least 1 (E r⁴ ≥ (E r²)²), got {kurtosis!r}")
    return RandomSpec(
        rows, cols, column, "iid", variance=_parameter("variance", variance), kurtosis=_parameter("kurtosis", kurtosis)
    )


@dataclass(frozen=True)
class Expect:
    """A side that is the expectation of ``fn``'s value over the declared random inputs (``iv.expect``)."""

    fn: Callable[..., Any]

    def __call__(self, **values: Any) -> Any:
        return self.fn(**values)


def expect(fn: Callable[..., Any]) -> Expect:
    """The side E[fn(...)] over the random symbols ``fn`` takes."""
    if not callable(fn):
        raise InvalidArgument(f"expect takes a function of the declared symbols, got {type(fn).__name__}")
    return Expect(fn)


def trace(m: Any) -> Any:
    """tr(m) on SymPy matrix expressions, explicit SymPy matrices and NumPy arrays (batched on the last two axes);
    a scalar (a 1 × 1 product, which every side treats as a scalar) is its own trace."""
    if isinstance(m, MatrixExpr):
        return Trace(m)
    if isinstance(m, sp.MatrixBase):
        return m.trace()
    if isinstance(m, sp.Basic) or np.ndim(m) < 2:
        return m
    return np.trace(np.asarray(m), axis1=-2, axis2=-1)


# ---------------------------------------------------------------------------------------------
# Symbolic and explicit: the moment algebra


def _value(parameter: Parameter, values: Mapping[str, Any]) -> Any:
    return values[parameter] if isinstance(parameter, str) else sp.nsimplify(parameter)


def _law(spec: RandomSpec, values: Mapping[str, Any]) -> Law:
    if spec.law == "gaussian":
        return Law.gaussian(_value(spec.cov, values))
    return Law.iid(_value(spec.variance, values), _value(spec.kurtosis, values))


def random_symbols(randoms: Mapping[str, RandomSpec], sizes: Mapping[str, Any], values: Mapping[str, Any]):
    """(the random inputs as SymPy matrices, their laws): a column vector is the transpose of a random row."""
    dim = lambda s: sizes[s] if isinstance(s, str) else s  # noqa: E731
    inputs, laws = {}, {}
    for name, spec in randoms.items():
        rows, cols = dim(spec.rows), dim(spec.cols)
        units = (spec.rows == 1, spec.cols == 1)  # declared 1, not 1 at these sizes (maths.scalars)
        symbol = declared(name, cols, rows, units[::-1]) if spec.column else declared(name, rows, cols, units)
        inputs[name] = symbol.T if spec.column else symbol
        laws[symbol] = _law(spec, values)
    return inputs, laws


def _scalar(value: Any) -> Any:
    """A 1 × 1 matrix expression as the scalar trace of it (the moment algebra's scalar form)."""
    if isinstance(value, MatrixExpr) and value.shape == (1, 1):
        return Trace(value)
    return value


def expected(side: Callable[..., Any], values: Mapping[str, Any], laws: Mapping[MatrixSymbol, Law], call) -> Any:
    """E[side] by the moment algebra when ``side`` is an :class:`Expect`, else the side in normal form.

    A NumPy value (``eye(d, d)`` at a concrete size) is taken as the exact numbers it holds.
    """
    value = _scalar(exact(call(side, values)))
    return expectation(value, laws) if isinstance(side, Expect) else normal_form(value)


class _WithinFragment:
    """A check whose form takes moments: outside the fragment of the moment algebra it is undecided, with the reason."""

    kind: ClassVar[str]

    def run(self, seed: int, max_examples: int) -> Found:
        t0 = time.perf_counter()
        try:
            return super().run(seed, max_examples)  # type: ignore[misc]
        except OutsideFragment as exc:
            return Found(Evidence(self.kind, Status.UNDECIDED, outside(exc), time.perf_counter() - t0))

    def control_at(self, at: Any, corrected: Any) -> Evidence:
        try:
            return super().control_at(at, corrected)  # type: ignore[misc]
        except OutsideFragment as exc:
            return Evidence(Kind.CONTROL, ControlStatus.UNDECIDED, f"{self.kind}: {outside(exc)}", 0.0)


def outside(exc: OutsideFragment) -> str:
    """Why the moment algebra does not decide an expectation, and what checks it instead."""
    return f"not decided by the moment algebra: {exc}; the Monte Carlo check covers it"


@dataclass(frozen=True)
class MomentSymbolic(_WithinFragment, Symbolic):
    """:class:`Symbolic` on E[lhs] − E[rhs]; undecided outside the moment algebra's fragment."""


@dataclass(frozen=True)
class MomentExplicit(_WithinFragment, Explicit):
    """:class:`Explicit` on E[lhs] − E[rhs] at concrete sizes; undecided outside the moment algebra's fragment."""


def explicit_entries(expr: Any, symmetric: set[str]) -> Any:
    """``expr`` of concrete size with every matrix symbol written entry by entry (symmetric ones symmetric)."""

    def entries(m: MatrixSymbol) -> sp.ImmutableMatrix:
        if m.name in symmetric:
            return sp.ImmutableMatrix(m.rows, m.cols, lambda i, j: m[min(i, j), max(i, j)])
        return sp.ImmutableMatrix(m.as_explicit())

    explicit = expr.xreplace({m: entries(m) for m in expr.atoms(MatrixSymbol)}).doit()
    if isinstance(explicit, MatrixExpr):  # e.g. I + Matrix(...): entry by entry
        explicit = sp.ImmutableMatrix(explicit.as_explicit())
    return sp.expand(explicit)


# ---------------------------------------------------------------------------------------------
# Numeric: Monte Carlo


class Batch(np.ndarray):
    """Samples stacked on the first axis: ``.T`` transposes each sample (the last two axes)."""

    @property
    def T(self) -> Batch:
        return np.swapaxes(self, -1, -2)


def _parameter_value(parameter: Parameter, case: Mapping[str, Any]) -> Any:
    return case[parameter] if isinstance(parameter, str) else float(parameter)


def sample(spec: RandomSpec, case: Mapping[str, Any], n: int, rng: np.random.Generator) -> Batch:
    """``n`` draws of a random input at a case: Gaussian rows L z (Λ = L Lᵀ) or iid three-point entries.

    The symmetric three-point law ±s√κ with probability 1/(2κ) each, 0 otherwise, has variance s²
    and kurtosis κ exactly (κ ≥ 1).
    """
    dim = lambda s: int(case[s]) if isinstance(s, str) else s  # noqa: E731
    rows, cols = dim(spec.rows), dim(spec.cols)
    rows, cols = (cols, rows) if spec.column else (rows, cols)
    if spec.law == "gaussian":
        cov = _parameter_value(spec.cov, case)
        z = rng.standard_normal((n, rows, cols))
        draws = z @ np.linalg.cholesky(cov).T if np.ndim(cov) == 2 else math.sqrt(cov) * z
    else:
        s2, kappa = _parameter_value(spec.variance, case), _parameter_value(spec.kurtosis, case)
        u = rng.random((n, rows, cols))
        sign = np.where(rng.random((n, rows, cols)) < 0.5, -1.0, 1.0)
        draws = np.where(u < 1 / kappa, sign * math.sqrt(s2 * kappa), 0.0)
    draws = np.swapaxes(draws, -1, -2) if spec.column else draws
    return np.asarray(draws).view(Batch)


def samples_of(value: Any, n: int) -> np.ndarray:
    """A side's value per sample, shape (n, k): arrays with ``n`` rows are per sample, others repeated."""
    columns = []
    for p in parts(value):
        a = np.asarray(p, dtype=np.float64)
        per_sample = a.ndim >= 1 and a.shape[0] == n
        columns.append(a.reshape(n, -1) if per_sample else np.broadcast_to(a.ravel(), (n, a.size)))
    return np.concatenate(columns, axis=1)


@dataclass(frozen=True)
class Interval:
    """The Monte Carlo interval of E[lhs − rhs] at one case, at its worst entry, in the sides' own units.

    ``mean ± half``; ``scale`` the largest |lhs|, |rhs| drawn (the integrand is divided by it before
    any statistic, so entries near 1e-230 neither underflow nor give a zero-width interval);
    ``skewness`` the sample skewness of that entry; ``finite`` False when a draw overflowed or was
    undefined (NaN, inf): such a case decides nothing.
    """

    mean: float
    half: float
    scale: float
    skewness: float
    draws: int
    finite: bool = True

    @property
    def excludes_zero(self) -> bool:
        return self.finite and abs(self.mean) > self.half

    @property
    def heavy(self) -> bool:
        """The normal approximation is not to be trusted at Z: skewness beyond :func:`skewness_limit`."""
        return not abs(self.skewness) <= skewness_limit(self.draws)

    @property
    def refutes(self) -> bool:
        return self.excludes_zero and not self.heavy

    def text(self) -> str:
        return f"[{self.mean - self.half:.3g}, {self.mean + self.half:.3g}]"


def skewness_limit(n: int) -> float:
    """The largest sample skewness γ at which the interval mean ± Z·se may refute, for ``n`` draws.

    The first Edgeworth term of the Studentized mean's tail is φ(z) γ (2z² + 1) / (6√n) (Hall 1992,
    *The Bootstrap and Edgeworth Expansion*, §2.6); it is at most the normal tail φ(z)/z at z = Z
    when γ ≤ 6√n / (Z (2Z² + 1)) — 3.3 for 20 000 draws and Z = 5. Within it a true identity is
    refuted with probability ≤ 2 · 2(1 − Φ(Z)) ≈ 1.1e-6 per case (to first order); beyond it
    (x¹² of a Gaussian has γ ≈ 10³) the sample standard deviation understates the spread and the
    case cannot refute.
    """
    return 6 * math.sqrt(n) / (Z * (2 * Z**2 + 1))


ROUNDING = 1e-12
"""The interval's half-width is at least this fraction of the largest entry's mean |lhs| + |rhs|: rounding in
the sides, not randomness, where lhs − rhs is (almost) constant — for a small entry too, whose rounding comes
from the large terms that the products mix into it."""


def interval_of(lhs: np.ndarray, rhs: np.ndarray) -> Interval:
    """The :class:`Interval` of E[lhs − rhs] from (n, k) draws of each side."""
    with np.errstate(all="ignore"):
        scale = float(max(np.max(np.abs(lhs), initial=0.0), np.max(np.abs(rhs), initial=0.0)))
        if not math.isfinite(scale):
            return Interval(math.nan, math.nan, scale, math.nan, len(lhs), finite=False)
        if scale == 0.0:
            return Interval(0.0, 0.0, 0.0, 0.0, len(lhs))
        left, right = lhs / scale, rhs / scale
        diff = left - right
        mean = diff.mean(axis=0)
        spread = diff.std(axis=0, ddof=1)
        # one floor for every entry: an entry's rounding comes from terms as large as the largest (products mix them)
        floor = ROUNDING * float(np.max((np.abs(left) + np.abs(right)).mean(axis=0), initial=0.0))
        half = Z * spread / math.sqrt(len(diff)) + floor
        centred = diff - mean
        third = (centred**3).mean(axis=0)
        skew = np.where(spread > 0, third / np.where(spread > 0, spread, 1.0) ** 3, 0.0)
    worst = int(np.argmax(np.abs(mean) - half))
    return Interval(float(mean[worst] * scale), float(half[worst] * scale), scale, float(skew[worst]), len(diff))


@dataclass(frozen=True)
class MonteCarlo(Check):
    """``sides(case, n, rng)`` returns (lhs, rhs) sampled ``n`` times as (n, k) arrays; E[lhs] = E[rhs] is checked.

    Cases are drawn by Hypothesis and a refutation shrunk to the smallest sizes; each case's draws
    are seeded by the check's seed. A case refutes when its :class:`Interval` excludes 0 and its
    integrand is not heavy-tailed (:func:`skewness_limit`); a heavy-tailed case that would refute
    leaves the check undecided. ``only_sampled`` (non-empty) says that the declared laws are not
    fixed by what is sampled (an iid law of given variance and kurtosis, sampled as one three-point
    law): then a pass is no verification, only the text's note, while a refutation still stands —
    the sampled law is one of the declared ones.

    Its evidence is of kind ``monte_carlo``: a refutation by random draws, a candidate that no
    exact computation has confirmed.
    """

    cases: SearchStrategy[Mapping[str, Any]]
    sides: Callable[[Mapping[str, Any], int, np.random.Generator], tuple]
    only_sampled: str = ""

    kind: ClassVar[str] = Kind.MONTE_CARLO
    rank: ClassVar[int] = 3

    def interval(self, case: Mapping[str, Any], seed: int, sides=None) -> Interval:
        """The interval of E[lhs − rhs] at ``case`` from :data:`SAMPLES` draws seeded by ``seed``.

        A side undefined at a draw (a singular matrix to invert, a division by zero) makes the case
        undefined (``finite`` False): it is skipped and counted, like a rejected draw.
        """
        try:
            with np.errstate(all="ignore"):
                lhs, rhs = (sides or self.sides)(case, SAMPLES, np.random.default_rng(seed))
        except (np.linalg.LinAlgError, ZeroDivisionError, FloatingPointError, OverflowError):
            return Interval(math.nan, math.nan, math.nan, math.nan, SAMPLES, finite=False)
        return interval_of(lhs, rhs)

    def run(self, seed: int, max_examples: int) -> Found:
        t0 = time.perf_counter()
        seen = {"cases": 0, "heavy": 0, "undefined": 0, "widest": 0.0}

        def refutes(case: Mapping[str, Any]) -> bool:
            found = self.interval(case, seed)
            seen["cases"] += 1
            if not found.finite:
                seen["undefined"] += 1
                return False
            magnitude = found.scale
            seen["widest"] = max(seen["widest"], found.half / magnitude if magnitude > 0 else 0.0)
            seen["heavy"] += found.excludes_zero and found.heavy
            return found.refutes

        config = settings(
            settings.get_profile("default"), max_examples=min(max_examples, MONTE_CARLO_CASES), database=None,
            deadline=None, suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet,
            phases=[Phase.generate, Phase.shrink],
        )  # fmt: skip
        try:
            with source_independent_draws():
                case = find(self.cases, refutes, settings=config, random=random.Random(seed))
        except NoSuchExample:
            return Found(self._passed(seen, seed, time.perf_counter() - t0))
        found = self.interval(case, seed)
        sizes = {k: int(v) for k, v in case.items() if type(v) is int}
        values = {k: v for k, v in case.items() if k not in sizes}
        mean, half = found.mean, found.half
        measured = {"estimate": mean, "interval": [mean - half, mean + half], "predicted": 0.0}
        cex = counterexample(self.kind, sizes, values | measured, abs(mean), half, seed, interval=measured["interval"])
        detail = (
            f"Monte Carlo at {sizes}: E[lhs − rhs] ∈ {found.text()} excludes 0 ({SAMPLES} draws, seed {seed}, "
            f"sample skewness {found.skewness:.2g}); a statistical refutation, not confirmed exactly"
        )
        return Found(Evidence(self.kind, Status.REFUTED, detail, time.perf_counter() - t0, cex), (case, seed))

    def _passed(self, seen: Mapping[str, Any], seed: int, seconds: float) -> Evidence:
        """No case refuted: verified, or undecided when too wide, heavy-tailed, undefined or only the sampled law."""
        decided = seen["cases"] - seen["undefined"]
        text = f"{decided} cases × {SAMPLES} draws (seed {seed})"
        if seen["undefined"]:
            text += f"; {seen['undefined']} case(s) with an undefined or overflowing draw skipped"
        why = ""
        if decided == 0:
            detail = (
                f"Monte Carlo: every one of {seen['cases']} cases had an undefined or overflowing draw (a singular "
                "matrix, a division by zero): declare the inputs' domain (iv.matrix(..., spd=True), iv.scalar(positive=True))"
            )
            return Evidence(self.kind, Status.ERROR, detail, seconds)
        if seen["heavy"]:
            limit = skewness_limit(SAMPLES)
            why = f"heavy-tailed integrand: {seen['heavy']} case(s) excluded 0 with sample skewness above {limit:.2g}"
        elif seen["widest"] > RELATIVE:
            why = f"interval too wide to decide (half-width {seen['widest']:.2g} of the magnitude)"
        elif self.only_sampled:
            why = self.only_sampled
        if why:
            return Evidence(self.kind, Status.UNDECIDED, f"Monte Carlo undecided, {why}: {text}", seconds)
        verified = f"Monte Carlo: E[lhs − rhs] = 0 within ±{Z:g} standard errors at every case, {text}"
        return Evidence(self.kind, Status.VERIFIED, verified, seconds)

    def control_at(self, at: tuple, corrected: Callable[..., tuple]) -> Evidence:
        """The corrected sides at the same case and seed: the interval must contain 0."""
        case, seed = at
        found = self.interval(case, seed, corrected)
        ok = found.finite and not found.excludes_zero
        detail = f"Monte Carlo: the corrected form at the same case, E[lhs − rhs] ∈ {found.text()}"
        return Evidence(Kind.CONTROL, ControlStatus.PASSED if ok else ControlStatus.FAILED, detail, 0.0)
