"""The least-squares baselines of in-context linear regression (Garg et al. 2022, §3 and App. A).

Tasks: x ~ N(0, I_d), w ~ N(0, I_d), y = xᵀw + ε with ε ~ N(0, σ²); k in-context examples, then a
query x_q. The error of a prediction ŷ is (ŷ − x_qᵀw)², averaged over tasks; Garg et al. divide it by
d ("normalised squared error").

* k < d, σ = 0: the minimum-norm least-squares fit ŵ = X⁺y = Pw, P the projector on the row space of
  X, has error ‖(I − P)w‖² on average over x_q, and E‖(I − P)w‖² = tr(I − P) = d − k: normalised
  (d − k)/d.
* k > d + 1: OLS ŵ = (XᵀX)⁻¹Xᵀy has excess error x_qᵀ(XᵀX)⁻¹Xᵀε, of mean σ² E tr((XᵀX)⁻¹) =
  σ² d/(k − d − 1), the mean of an inverse Wishart matrix (Anderson 2003, §7.7).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from icl_verify.numerics.shared.checks import finite_result, finite_scalar, positive_int, seed_value
from icl_verify.numerics.shared.fuzz import Fuzz


def _tasks(rng: np.random.Generator, tasks: int, k: int, d: int, noise_std: float):
    X = rng.standard_normal((tasks, k, d))
    w = rng.standard_normal((tasks, d))
    x_q = rng.standard_normal((tasks, d))
    y = np.einsum("tkd,td->tk", X, w) + noise_std * rng.standard_normal((tasks, k))
    return X, y, w, x_q


def _min_norm_fit(X: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
    """X⁺y for a batch of full-rank X (rank min(k, d) with probability 1 for Gaussian X):
    (XᵀX)⁻¹Xᵀy when k ≥ d, Xᵀ(XXᵀ)⁻¹y when k < d."""
    Xt = np.swapaxes(X, 1, 2)
    if X.shape[1] >= X.shape[2]:
        return np.linalg.solve(Xt @ X, np.einsum("tkd,tk->td", X, y)[..., None])[..., 0]
    return np.einsum("tdk,tk->td", Xt, np.linalg.solve(X @ Xt, y[..., None])[..., 0])


def least_squares_errors(k: int, d: int, noise_std: float, tasks: int, seed: int) -> NDArray[np.float64]:
    """Squared query errors (x_qᵀ(ŵ − w))² of the minimum-norm least-squares fit ŵ = X⁺y, one per task."""
    k, d, tasks = positive_int("k", k), positive_int("d", d), positive_int("tasks", tasks)
    noise_std = finite_scalar("noise_std", noise_std, nonnegative=True)
    X, y, w, x_q = _tasks(np.random.default_rng(seed_value("seed", seed)), tasks, k, d, noise_std)
    with np.errstate(over="ignore", invalid="ignore"):
        errors = np.einsum("td,td->t", x_q, _min_norm_fit(X, y) - w) ** 2
    return finite_result(errors, f"noise_std = {noise_std:g} makes the squared errors overflow float64")


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ = {"least_squares_errors": Fuzz(lambda: {"k": 3, "d": 2, "noise_std": 0.5, "tasks": 4, "seed": 0})}
