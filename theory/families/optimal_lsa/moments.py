"""The optimal one-step rate derived from the input moments: the papers' stated forms, the
preconditioner's gradient (Zhang–Frei–Bartlett's Γ), and the derivation of η* and ½·MSE* in the document.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp
from sympy.matrices.expressions import Identity, MatrixSymbol, Trace

from icl_verify.core.caches import cached
from icl_verify.core.derivation import Derivation, Step
from icl_verify.experiments.lsa import (
    ETA,
    KAPPA,
    S2,
    SIGMA2,
    W_TASK,
    X_CONTEXT,
    X_QUERY,
    D,
    N,
    one_step_loss,
    symmetric_moments,
)
from icl_verify.maths.moments import Law, commutative_value, expectation, trace_gradient


def stated_eta(n=N, d=D, s2=S2, kappa=KAPPA) -> sp.Expr:
    """η* = N / (s² (N + d + κ − 2)) for iid inputs of kurtosis κ (derived here)."""
    return n / (s2 * (n + d + kappa - 2))


GAUSSIAN_STATED = N / (S2 * (N + D + 1))
"""Ahn et al. (2023): the isotropic Gaussian rate n/(n + d + 1), here with input variance s²."""
MAHANKALI_STATED = N / (N + D + 1 + SIGMA2)
"""Mahankali et al. (2024): c* = n/(n + d + 1 + σ²) for x, w ~ N(0, I) and label noise σ²."""


def stated_loss(n=N, d=D, s2=S2, kappa=KAPPA) -> sp.Expr:
    """½·MSE* = ½ s² d (d + κ − 2) / (N + d + κ − 2) (derived here)."""
    return s2 * d * (d + kappa - 2) / (2 * (n + d + kappa - 2))


LAMBDA = MatrixSymbol("Lambda", D, D)
"""The input covariance Λ (symmetric positive definite, any d)."""
PRECONDITIONER = MatrixSymbol("A", D, D)
"""The preconditioner A of the readout ŷ = x_q A (1/N) Xᵀ y (row form of x_qᵀ A (1/N) Σ y_i x_i)."""
GAMMA_MATRIX = (1 + 1 / N) * LAMBDA + Trace(LAMBDA) / N * Identity(D)
"""Γ = (1 + 1/N) Λ + (tr Λ / N) I for symbolic d and Λ (Zhang–Frei–Bartlett 2024, Thm. 4.1)."""


@cached()
def preconditioner_gradient() -> sp.MatrixExpr:
    """G(A) with dL = tr(Gᵀ dA), L(A) = E ½(x_q A (1/N) Xᵀ X wᵀ − x_q wᵀ)², rows of X and x_q ~ N(0, Λ).

    The directional derivative E tr(errᵀ x_q B (1/N) Xᵀ X wᵀ) is expanded by the moment algebra, for
    symbolic d, N and Λ. L is the expectation of a square of a function affine in A, so convex: G = 0
    is a global minimum.
    """
    direction = MatrixSymbol("B", D, D)
    laws = {X_CONTEXT: Law.gaussian(LAMBDA), X_QUERY: Law.gaussian(LAMBDA), W_TASK: Law.gaussian(sp.S.One)}
    gram = X_CONTEXT.T * X_CONTEXT / N
    error = X_QUERY * PRECONDITIONER * gram * W_TASK.T - X_QUERY * W_TASK.T
    return trace_gradient(expectation(Trace(error.T * X_QUERY * direction * gram * W_TASK.T), laws), direction)


def gradient_at(preconditioner: sp.MatrixExpr) -> sp.Expr:
    """G(A) at a preconditioner that is a function of Λ, as a rational function of an eigenvalue λ of Λ
    (:func:`~icl_verify.maths.moments.commutative_value`): zero iff A is stationary, for every d and Λ."""
    lam = sp.Symbol("lambda", positive=True)
    return commutative_value(preconditioner_gradient().xreplace({PRECONDITIONER: preconditioner}), LAMBDA, lam)


def preconditioner_optimum(d: int) -> sp.Matrix:
    """The A solving G(A) = 0 at d, Λ = diag(λ₁..λ_d) with symbolic λ and N (G: :func:`preconditioner_gradient`)."""
    A = sp.Matrix(d, d, lambda a, b: sp.Symbol(f"a_{a}{b}"))
    explicit = {MatrixSymbol("Lambda", d, d): sp.ImmutableMatrix(sp.diag(*lambdas(d))), MatrixSymbol("A", d, d): A}
    gradient = sp.Matrix(preconditioner_gradient().subs(D, d).xreplace(explicit).doit())
    (solution,) = sp.solve(list(gradient), list(A), dict=True)
    return A.subs(solution)


def stated_gamma(lam: Sequence[sp.Expr], n: sp.Expr = N) -> sp.Matrix:
    """Γ = (1 + 1/N) Λ + (tr Λ / N) I (Zhang–Frei–Bartlett 2024, Thm. 4.1)."""
    Lam = sp.diag(*lam)
    return (1 + 1 / n) * Lam + (sum(lam) / n) * sp.eye(len(lam))


def lambdas(d: int) -> list[sp.Symbol]:
    return list(sp.symbols(f"lambda_1:{d + 1}", positive=True))


def _one_step_derivation() -> Derivation:
    """The expected one-step loss from the index-sum expansion to its completed square."""
    K = N + D + KAPPA - 2
    return Derivation(
        name="optimal-one-step-rate",
        title="The optimal one-step rate and loss for iid inputs",
        source="von Oswald et al. 2023 (tuned GD baseline) [derived]",
        start=one_step_loss(symmetric_moments(S2, KAPPA)),
        steps=[
            Step(
                S2 / 2 * (ETA**2 * S2**2 * D * K / N - 2 * ETA * S2 * D + D),
                "E over x_q gives s²‖ηg − w‖², g = (1/N)Σ y_i x_i; E gᵀw = s²d; E‖g‖² = s⁴d(N − 1)/N"
                " (pairs i ≠ j) + s⁴d(d + κ − 1)/N (i = j, E‖x‖⁴ = s⁴ d(d + κ − 1))",
                "",
            ),
            Step(
                S2 * D / 2 * (S2**2 * K / N * (ETA - N / (S2 * K)) ** 2 + (D + KAPPA - 2) / K),
                "complete the square: minimum at η* = N/(s²(N + d + κ − 2)), value ½ s² d (d + κ − 2)/(N + d + κ − 2)",
                "",
            ),
        ],
        intro="Inputs have iid symmetric coordinates with variance s² and kurtosis κ, w ~ N(0, I_d), no label "
        "noise, and ŷ = (η/N) Σ_i y_i x_iᵀ x_q. The first line is the expectation for symbolic N and d, taken by "
        "the moment algebra (Wick pairings of the data matrices plus the fourth cumulant), computed by "
        "`one_step_loss`.",
    )


ONE_STEP_DERIVATION = _one_step_derivation()
