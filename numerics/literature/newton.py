"""Iterative Newton for the inverse of S = XᵀX (Fu et al. 2024, §3; Schulz 1933; Pan & Schreiber 1991).

M₀ = αS and M_{k+1} = 2M_k − M_k S M_k, so that I − M_{k+1}S = (I − M_k S)² and hence
I − M_k S = (I − αS²)^{2^k}: every eigen-residual 1 − αλ² is squared at each step. The iteration
converges to S⁻¹ exactly when 0 < αλ² < 2 for every eigenvalue λ of S, i.e. 0 < α < 2/λ_max(S)².
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import MAX_STEPS, finite_array, finite_result, finite_scalar, nonnegative_int
from icl_verify.numerics.shared.fuzz import Fuzz


def _square(name: str, S: object) -> NDArray[np.float64]:
    S = finite_array(name, S, ndim=2, nonempty=True)
    if S.shape[0] != S.shape[1]:
        raise InvalidArgument(f"{name} must be square, got shape {S.shape}")
    return S


def newton_iterates(S: ArrayLike, alpha: float, steps: int) -> list[NDArray[np.float64]]:
    """M₀, …, M_steps of iterative Newton, M₀ = αS, M_{k+1} = 2M_k − M_k S M_k (Fu et al. 2024, §3)."""
    S = _square("S", S)
    alpha = finite_scalar("alpha", alpha)
    steps = nonnegative_int("steps", steps, maximum=MAX_STEPS)
    M = [alpha * S]
    with np.errstate(over="ignore", invalid="ignore"):  # divergence is reported just below
        for _ in range(steps):
            M.append(2 * M[-1] - M[-1] @ S @ M[-1])
    finite_result(M[-1], "iterative Newton overflowed: alpha · λ_max(S)² must lie in (0, 2) for convergence")
    return M


def newton_residual(S: ArrayLike, alpha: float, k: int) -> NDArray[np.float64]:
    """I − M_k S after k Newton steps."""
    S, k = _square("S", S), nonnegative_int("k", k, maximum=MAX_STEPS)
    return np.eye(len(S)) - newton_iterates(S, alpha, k)[-1] @ S


def boundary_rate(S: ArrayLike) -> float:
    """2/λ_max(S)² for a symmetric S with a positive top eigenvalue: the supremum of the rates α that converge."""
    S = _square("S", S)
    if not np.allclose(S, S.T, rtol=0, atol=1e-12 * np.abs(S).max()):
        raise InvalidArgument("S must be symmetric")
    top = float(np.linalg.eigvalsh(S)[-1])
    if not top > 0:
        raise InvalidArgument(f"S must have a positive largest eigenvalue, got {top:.3g}")
    with np.errstate(over="ignore", under="ignore"):
        rate = 2.0 / np.float64(top) ** 2
    if not 0 < rate < np.inf:
        raise InvalidArgument(f"S has largest eigenvalue {top:.3g}, which puts 2/λ_max(S)² outside float64")
    return float(rate)


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ = {
    "newton_iterates": Fuzz(lambda: {"S": np.diag([1.0, 2.0]), "alpha": 0.1, "steps": 3}),
    "newton_residual": Fuzz(lambda: {"S": np.diag([1.0, 2.0]), "alpha": 0.1, "k": 3}),
    "boundary_rate": Fuzz(lambda: {"S": np.diag([1.0, 2.0])}),
}
