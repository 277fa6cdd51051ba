"""Claims: iterative Newton for the inverse (Fu et al. 2024, §3), the second-order method that the
layers of trained transformers are reported to track.

Numerics: ``numerics.literature.newton``. For S = XᵀX, iterative Newton (Schulz 1933) starts at
M₀ = αS and steps M_{k+1} = 2M_k − M_k S M_k; the estimate of the regression weights after k steps is
M_k Xᵀy. The residual of the inverse squares at every step, I − M_{k+1}S = (I − M_k S)², so
I − M_k S = (I − αS²)^{2^k}: a polynomial identity in the non-commuting S and M, true for every
square S of every size (claim ``newton-residual-squares``, proved by induction on k). For a
symmetric S with eigenvalues λᵢ the eigen-residuals are (1 − αλᵢ²)^{2^k}: the iteration converges to
S⁻¹ exactly when |1 − αλᵢ²| < 1 for all i, that is 0 < α < 2/λ_max(S)², and then quadratically.
At the boundary α = 2/λ_max(S)² the top eigen-residual is −1, and (−1)^{2^k} = 1 for every k ≥ 1:
the top eigendirection never converges (``newton-converges-at-the-boundary-rate``, refuted with a
one-dimensional counterexample; its control states the residual that stays). The authors' code
(repository DeqingFu/transformers-icl-second-order, ``src/models.py``, ``newton_inv``) scales
α = 1/‖SSᵀ‖_F, which is at most 1/λ_max(S)² and so inside the region of convergence.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
from hypothesis import strategies as st

from icl_verify.core.checks.explicit import Explicit
from icl_verify.core.checks.numeric import Numeric
from icl_verify.core.checks.symbolic import Symbolic
from icl_verify.core.claims import Claim, Corrected
from icl_verify.core.figure import Figure
from icl_verify.maths.strategies import dims, matrices, reals, spd_matrices
from icl_verify.maths.symbolic import grid
from icl_verify.numerics.literature.newton import boundary_rate, newton_residual

FAMILY = "newton"
PAPER = "Fu et al. 2024"

ALPHA = sp.Symbol("alpha", real=True)


def residual_recursion() -> list:
    """The base case I − M₀S = I − αS² and the step I − (2M − MSM)S = (I − MS)², with S, M
    non-commuting symbols (ring identities, so true for square matrices of every size)."""
    S, M = sp.symbols("S M", commutative=False)
    base = (1 - (ALPHA * S) * S) - (1 - ALPHA * S**2)
    step = (1 - (2 * M - M * S * M) * S) - (1 - M * S) * (1 - M * S)
    return [sp.expand(base), sp.expand(step)]


def _symbolic_matrix(d: int) -> sp.Matrix:
    return sp.Matrix(d, d, lambda i, j: sp.Symbol(f"s_{i}_{j}", real=True))


def _newton_residual_exact(S: sp.Matrix, alpha: Any, k: int) -> sp.Matrix:
    """I − M_k S computed by the iteration itself, in exact arithmetic."""
    M = alpha * S
    for _ in range(k):
        M = (2 * M - M * S * M).expand()
    return sp.eye(S.rows) - M * S


def residual_at(d: int, k: int) -> list:
    """(I − M_k S) − (I − αS²)^{2^k} for a symbolic d × d matrix S, the iteration run k times."""
    S = _symbolic_matrix(d)
    return [(_newton_residual_exact(S, ALPHA, k) - (sp.eye(d) - ALPHA * S * S) ** (2**k)).expand()]


@st.composite
def newton_cases(draw) -> dict:
    d = draw(dims(1, 4))
    return {"d": d, "k": draw(st.integers(0, 4)), "S": draw(matrices(d, d, bound=1.0)), "alpha": draw(reals(1.0))}


def _residual_vs_power(case: dict) -> tuple:
    S, alpha, k = case["S"], case["alpha"], case["k"]
    power = np.linalg.matrix_power(np.eye(len(S)) - alpha * S @ S, 2**k)
    scale = (1 + abs(alpha) * np.linalg.norm(S) ** 2) ** (2**k)  # every term of the expansion is at most this
    return newton_residual(S, alpha, k), power, scale


RESIDUAL_SQUARES = Claim(
    name="newton-residual-squares",
    source=f"{PAPER}, §3 (Iterative Newton's method, M₀ = αS, M_{{k+1}} = 2M_k − M_k S M_k)",
    statement=r"I - M_k S = (I - \alpha S^2)^{2^k}\quad (k \ge 0),\qquad M_0 = \alpha S,\ M_{k+1} = 2M_k - M_k S M_k",
    checks=(
        Symbolic(residual_recursion),
        Explicit(residual_at, grid(d=(1, 2), k=(0, 1, 2))),
        Numeric(newton_cases(), _residual_vs_power, rtol=1e-9, atol=1e-12),
    ),
    assumptions=("S square (symmetry is not needed)",),
    note="The dimension-free check is the induction: base case and step are identities of the free ring.",
)


# ---------------------------------------------------------------------------------------------
# The convergence boundary α = 2/λ_max(S)²


LAMBDA = sp.Symbol("lambda", positive=True)


def boundary_residual(k: int, corrected: bool = False) -> list:
    """d = 1, S = λ, α = 2/λ²: I − M_k S against 0 (the claim) or against 1 (what stays, the control)."""
    S = sp.Matrix([[LAMBDA]])
    stays = sp.eye(1) if corrected else sp.zeros(1)
    return [(_newton_residual_exact(S, 2 / LAMBDA**2, k) - stays).applyfunc(sp.simplify)]


@st.composite
def boundary_cases(draw) -> dict:
    d = draw(dims(1, 4))
    return {"d": d, "k": draw(st.integers(1, 5)), "S": draw(spd_matrices(d, min_eigenvalue=0.5, max_eigenvalue=2.0))}


def _top_residual(case: dict) -> np.ndarray:
    """(I − M_k S) v for the top eigenvector v of S, at α = 2/λ_max(S)²."""
    S, k = case["S"], case["k"]
    v = np.linalg.eigh(S)[1][:, -1]
    return newton_residual(S, boundary_rate(S), k) @ v, v


def _boundary_converged(case: dict) -> tuple:
    residual, v = _top_residual(case)
    return residual, np.zeros_like(v), 1.0


def _boundary_stays(case: dict) -> tuple:
    residual, v = _top_residual(case)
    return residual, v, 1.0


BOUNDARY = Claim(
    name="newton-converges-at-the-boundary-rate",
    source=f"{PAPER}, §3 (convergence of iterative Newton for α up to 2/λ_max(S)²)",
    statement=r"\alpha = 2/\lambda_{\max}(S)^2:\ (I - M_k S)\,v_{\max} \to 0\quad(k \to \infty)",
    checks=(
        Explicit(boundary_residual, grid(k=(1, 2, 3))),
        Numeric(boundary_cases(), _boundary_converged, rtol=1e-9, atol=1e-12),
    ),
    holds=False,
    corrected=Corrected(
        "newton-residual-squares", explicit=lambda k: boundary_residual(k, corrected=True), numeric=_boundary_stays
    ),
    assumptions=("S symmetric positive definite",),
    builds_on=("newton-residual-squares",),
    note="At α = 2/λ_max² the top eigen-residual is 1 − 2 = −1 and its square is 1 for ever: "
    "(I − M_k S) v_max = v_max for every k ≥ 1. Convergence needs α strictly below 2/λ_max(S)².",
)


# ---------------------------------------------------------------------------------------------
# Figure: the residual's spectral norm over the steps, below, at and above the boundary


def _boundary_data(seed: int = 0, d: int = 4, steps: int = 8) -> dict:
    """‖I − M_k S‖₂ for S = XᵀX/n (n = 32 rows of N(0, 1), d = 4) at α = c · 2/λ_max(S)²."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((32, d))
    S = X.T @ X / 32
    data: dict = {"k": np.arange(steps + 1)}
    for c in (0.5, 0.9, 1.0, 1.01):
        alpha = c * boundary_rate(S)
        data[f"c={c}"] = np.array([np.linalg.norm(newton_residual(S, alpha, k), 2) for k in range(steps + 1)])
    return data


def _draw_boundary(ax, data) -> None:
    for key, values in data.items():
        if key != "k":
            ax.semilogy(data["k"], np.maximum(values, 1e-17), "o-", label=f"α = {key[2:]} · 2/λ_max²")
    ax.set_xlabel("Newton step k")
    ax.set_ylabel("‖I − M_k S‖₂")
    ax.legend()


FIGURES = (
    Figure(
        name="boundary",
        caption="Iterative Newton for S⁻¹ (S = XᵀX/32, d = 4, seed 0): the residual's spectral norm falls "
        "quadratically once α < 2/λ_max², stays at 1 at the boundary and grows past it.",
        data=_boundary_data,
        draw=_draw_boundary,
    ),
)
