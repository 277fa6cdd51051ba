"""One GD step read by a linear attention layer: its loss derived from the input moments, and the paired loss.

The expected ½·MSE of ŷ = (η/N) Σ_i y_i x_iᵀ x_q on random linear regression is a polynomial in η,
taken by the moment algebra (:mod:`icl_verify.maths.moments`) for symbolic N and d from the input
density's variance and kurtosis (:func:`density_moment`); :func:`iid_optimum` minimises it. The
optimal-LSA family states and checks these results; ``icl-verify train`` compares a trained layer with
the optimum (:func:`paper_values`), its loss estimated with GD at η* as control variate (:func:`paired_loss`).
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp
from sympy.matrices.expressions import MatrixSymbol, Trace

from icl_verify.core.caches import cached
from icl_verify.errors import InvalidArgument
from icl_verify.maths.moments import Law, expectation
from icl_verify.numerics.lsa.alignment import Model, mean_interval, task_losses
from icl_verify.numerics.lsa.regression import RegressionTasks

Moment = Callable[[int], sp.Expr]


@cached()
def density_moment(kind: str, k: int, scale: sp.Expr) -> sp.Expr:
    """E x^k by integrating the density: ``"uniform"`` on (−scale, scale), ``"gaussian"`` N(0, scale²)."""
    x = sp.Symbol("x", real=True)
    if kind == "uniform":
        return sp.simplify(sp.integrate(x**k / (2 * scale), (x, -scale, scale)))
    if kind == "gaussian":
        density = sp.exp(-(x**2) / (2 * scale**2)) / sp.sqrt(2 * sp.pi * scale**2)
        return sp.simplify(sp.integrate(x**k * density, (x, -sp.oo, sp.oo)))
    raise InvalidArgument(f"kind must be 'uniform' or 'gaussian', got {kind!r}")


def kurtosis(kind: str, scale: sp.Expr = sp.S.One) -> sp.Expr:
    """κ = E x⁴ / (E x²)² of a density (:func:`density_moment`)."""
    return sp.simplify(density_moment(kind, 4, scale) / density_moment(kind, 2, scale) ** 2)


def symmetric_moments(s2: sp.Expr, kappa: sp.Expr) -> Moment:
    """Moments of a symmetric variable with variance s2 and kurtosis κ: m₂ = s², m₄ = κ s⁴, odd ones 0."""

    def moment(k: int) -> sp.Expr:
        if k % 2:
            return sp.Integer(0)
        if k == 2:
            return s2
        if k == 4:
            return kappa * s2**2
        raise InvalidArgument(f"moment of order {k} is not determined by variance and kurtosis")

    return moment


def gaussian_moments(variance: sp.Expr) -> Moment:
    """Moments of N(0, variance), from the density."""
    return lambda k: density_moment("gaussian", k, sp.sqrt(variance))


N, D = sp.symbols("N d", positive=True, integer=True)
S2, KAPPA, SIGMA2, ETA = sp.symbols("s^2 kappa sigma^2 eta", positive=True)


X_CONTEXT = MatrixSymbol("X", N, D)
"""The N × d context inputs, one example per row (rows independent)."""
X_QUERY = MatrixSymbol("x_q", 1, D)
"""The query input, a 1 × d row."""
W_TASK = MatrixSymbol("w", 1, D)
"""The task weights as a 1 × d row, w ~ N(0, I_d); labels y = X wᵀ (+ noise)."""
NOISE = MatrixSymbol("epsilon", 1, N)
"""The context labels' noise as a 1 × N row."""


def one_step_loss(x_moments: Moment, noise_variance: sp.Expr = sp.S.Zero, *, per_example: bool = True) -> sp.Expr:
    """E ½(ŷ − y_q)² for ŷ = c Σ_i y_i x_iᵀ x_q = c x_q Xᵀ y, y = X wᵀ + ε, w ~ N(0, I_d), as a polynomial in η.

    ``per_example`` (the paper's θ_GD, P = η/N) uses c = η/N; otherwise c = η (the P = ηI reading).
    The input coordinates are iid with the variance s² = E x² and kurtosis κ = E x⁴ / s⁴ of ``x_moments``;
    the expectation is taken by the moment algebra (:mod:`icl_verify.maths.moments`) for symbolic N
    and d. The query label is noiseless (noise on y_q only adds σ²/2).
    """
    s2 = x_moments(2)
    law = Law.iid(s2, sp.simplify(x_moments(4) / s2**2))
    laws = {X_CONTEXT: law, X_QUERY: law, W_TASK: Law.gaussian(sp.S.One)}
    labels = X_CONTEXT * W_TASK.T
    if noise_variance != 0:
        laws[NOISE] = Law.gaussian(noise_variance)
        labels = labels + NOISE.T
    c = ETA / N if per_example else ETA
    error = c * X_QUERY * X_CONTEXT.T * labels - X_QUERY * W_TASK.T
    return sp.expand(expectation(Trace(error.T * error), laws) / 2)


def minimise(loss: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(η*, loss(η*)) of a loss quadratic in η."""
    (eta_star,) = sp.solve(sp.diff(loss, ETA), ETA)
    return sp.simplify(eta_star), sp.simplify(loss.subs(ETA, eta_star))


@cached()
def iid_optimum(per_example: bool = True) -> tuple[sp.Expr, sp.Expr]:
    """Derived (η*, ½·MSE*) for noiseless iid symmetric inputs of variance s² and kurtosis κ."""
    return minimise(one_step_loss(symmetric_moments(S2, KAPPA), per_example=per_example))


def paper_values(half_width: sp.Expr, n: int = 10, d: int = 10) -> tuple[sp.Expr, sp.Expr]:
    """Exact (η*, ½·MSE*) from the derived optimum for x ~ U(−a, a)^d (s², κ from the density), N examples."""
    eta, loss = iid_optimum()
    values = {N: n, D: d, S2: density_moment("uniform", 2, half_width), KAPPA: kurtosis("uniform")}
    return sp.nsimplify(eta.subs(values)), sp.nsimplify(loss.subs(values))


def paired_loss(
    model: Model, reference: Model, tasks: RegressionTasks, reference_loss: float
) -> tuple[float, float, float]:
    """Loss of ``model`` as reference_loss + mean(ℓ_model − ℓ_reference) on shared tasks (control variate), 99 % CI."""
    diff = task_losses(model, tasks) - task_losses(reference, tasks)
    m, lo, hi = mean_interval(diff)
    return reference_loss + m, reference_loss + lo, reference_loss + hi
