"""The posterior mean over a finite set of pretraining tasks (Raventós et al. 2023, §2, "dMMSE").

Pretraining draws M tasks w₁, …, w_M ~ N(0, I_d) once. Given in-context data (X, y) with noise
variance σ², the Bayes-optimal estimator under the uniform prior on those M tasks is

    ŵ_M = Σ_m w_m exp(−‖y − X w_m‖²/2σ²) / Σ_m exp(−‖y − X w_m‖²/2σ²).

Under the Gaussian prior N(0, I_d) itself the posterior mean is ridge regression with λ = σ²:
(XᵀX + σ² I)⁻¹Xᵀy. ŵ_M is the self-normalised importance-sampling estimate of that posterior mean
with the prior as proposal, so ŵ_M → ridge as M → ∞ with E‖ŵ_M − ŵ_ridge‖² = C/M + O(M⁻²)
(Owen 2013, *Monte Carlo theory, methods and examples*, §9.2, the delta-method variance of the
ratio estimate).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import softmax

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import (
    finite_array,
    finite_result,
    finite_scalar,
    positive_int,
    same_size,
    seed_value,
)
from icl_verify.numerics.shared.fuzz import Fuzz, linear_data

MAX_EXACT_INTEGER = 2.0**53
"""The largest M accepted: above 2⁵³ a float64 no longer holds every integer."""


def dmmse_weights(X: ArrayLike, y: ArrayLike, tasks: ArrayLike, sigma2: float) -> NDArray[np.float64]:
    """ŵ_M: the posterior mean of w under the uniform prior on the rows of ``tasks`` (M × d)."""
    X = finite_array("X", X, ndim=2, nonempty=True)
    y = finite_array("y", y, ndim=1)
    tasks = finite_array("tasks", tasks, ndim=2, nonempty=True)
    same_size("y", y.size, X.shape[0], "the number of rows of X")
    same_size("tasks", tasks.shape[1], X.shape[1], "columns = the columns of X")
    sigma2 = finite_scalar("sigma2", sigma2, positive=True)
    with np.errstate(over="ignore", invalid="ignore"):
        estimate = softmax(-((y[None, :] - tasks @ X.T) ** 2).sum(axis=1) / (2 * sigma2)) @ tasks
    return finite_result(estimate, "X, y, tasks and sigma2 give residuals whose weights overflow float64")


def dmmse_ridge_gaps(
    X: ArrayLike, y: ArrayLike, sigma2: float, Ms: ArrayLike, pools: int, seed: int
) -> NDArray[np.float64]:
    """‖ŵ_M − ŵ_ridge‖² for one in-context data set (X, y), over independent pretraining draws.

    Each of the ``pools`` rows draws max(Ms) tasks from N(0, I_d); for each M of ``Ms`` the pool is
    cut into max(Ms)/M disjoint sets of M tasks, and the squared gaps of their dMMSE estimates to
    ridge (λ = σ²) are averaged. Every M must divide max(Ms). Returns an array pools × len(Ms).
    """
    X = finite_array("X", X, ndim=2, nonempty=True)
    y = finite_array("y", y, ndim=1)
    same_size("y", y.size, X.shape[0], "the number of rows of X")
    sigma2 = finite_scalar("sigma2", sigma2, positive=True)
    Ms = finite_array("Ms", Ms, ndim=1, nonempty=True)
    pools = positive_int("pools", pools)
    if np.any(Ms < 1) or np.any(Ms > MAX_EXACT_INTEGER) or np.any(Ms != np.round(Ms)) or np.any(Ms.max() % Ms):
        raise InvalidArgument(
            f"Ms must be positive integers that divide their maximum (at most 2**53), got {Ms.tolist()}"
        )
    size = int(Ms.max())
    d = X.shape[1]
    ridge = finite_result(
        np.linalg.solve(X.T @ X + sigma2 * np.eye(d), X.T @ y), "X, y and sigma2 overflow float64 in ridge"
    )
    rng = np.random.default_rng(seed_value("seed", seed))
    gaps = np.empty((pools, Ms.size))
    for row in range(pools):
        tasks = rng.standard_normal((size, d))
        with np.errstate(over="ignore"):
            log_weights = -((y[None, :] - tasks @ X.T) ** 2).sum(axis=1) / (2 * sigma2)
        finite_result(log_weights, "X, y and sigma2 give residuals whose weights overflow float64")
        for col, M in enumerate(Ms.astype(int)):
            weights = softmax(log_weights.reshape(-1, M), axis=1)
            estimates = np.einsum("cm,cmd->cd", weights, tasks.reshape(-1, M, d))
            gaps[row, col] = np.mean(np.sum((estimates - ridge) ** 2, axis=1))
    return gaps


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ = {
    "dmmse_weights": Fuzz(
        lambda: linear_data() | {"tasks": np.random.default_rng(12).standard_normal((6, 2)), "sigma2": 0.5}
    ),
    "dmmse_ridge_gaps": Fuzz(
        lambda: linear_data() | {"sigma2": 0.5, "Ms": np.array([2.0, 4.0]), "pools": 2, "seed": 0}
    ),
}
