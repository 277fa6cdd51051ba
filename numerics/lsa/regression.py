"""Linear-regression tasks and gradient descent on them (von Oswald et al., ICML 2023, §2).

Conventions: batch first, examples as rows. A batch of tasks holds
``X`` of shape ``(B, N, Nx)``, ``Y`` of shape ``(B, N, Ny)`` and weights ``W`` of shape
``(B, Ny, Nx)`` with ``y = W x`` (+ noise). The paper writes examples as columns.

The loss is the paper's L(W) = 1/(2N) Σ_i ‖W x_i − y_i‖², so one GD step is
ΔW = −η ∇L(W) = −(η/N) Σ_i (W x_i − y_i) x_iᵀ.

Paper-vs-code conventions are explicit options of :func:`sample_tasks`:
the paper's text draws x ~ U(−1, 1)^d, the released code draws x ~ U(−0.5, 0.5)^d
(``x_range``; the reported one-step-GD loss ≈ 0.2 matches only the code's 0.5), and
reported losses are ½·MSE (:func:`half_mse`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import (
    MAX_STEPS,
    finite_array,
    finite_result,
    finite_scalar,
    nonnegative_int,
    positive_int,
    same_size,
)
from icl_verify.numerics.shared.fuzz import Fuzz

PAPER_X_RANGE = 1.0
"""x ~ U(−1, 1)^d as written in von Oswald et al.'s text."""
CODE_X_RANGE = 0.5
"""x ~ U(−0.5, 0.5)^d as drawn by the authors' released code."""


@dataclass(frozen=True)
class RegressionTasks:
    """A batch of linear-regression tasks: context (X, Y), queries (x_q, y_q) and true weights W."""

    X: NDArray[np.float64]  # (B, N, Nx)
    Y: NDArray[np.float64]  # (B, N, Ny)
    x_q: NDArray[np.float64]  # (B, Q, Nx)
    y_q: NDArray[np.float64]  # (B, Q, Ny)
    W: NDArray[np.float64]  # (B, Ny, Nx)
    seed: int | None = None


def sample_tasks(
    rng: np.random.Generator,
    batch: int,
    n_context: int,
    nx: int,
    ny: int = 1,
    *,
    x_dist: Literal["uniform", "gaussian"] = "uniform",
    x_range: float = CODE_X_RANGE,
    x_std: ArrayLike = 1.0,
    noise_std: float = 0.0,
    n_queries: int = 1,
    seed: int | None = None,
) -> RegressionTasks:
    """Draw ``batch`` tasks y = W x + ε with W ~ N(0, I) entrywise.

    ``x_dist="uniform"`` draws x ~ U(−x_range, x_range)^Nx (default: the code's 0.5;
    pass :data:`PAPER_X_RANGE` for the paper's text); ``"gaussian"`` draws x ~ N(0, x_std² I), or
    x ~ N(0, diag(x_std²)) when ``x_std`` holds one standard deviation per input (anisotropic inputs,
    Zhang–Frei–Bartlett 2024).
    ``noise_std`` adds ε ~ N(0, noise_std²) to every label. ``seed`` is only recorded.
    """
    if not isinstance(rng, np.random.Generator):
        raise InvalidArgument(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    batch, n_context = positive_int("batch", batch), positive_int("n_context", n_context)
    nx, ny, n_queries = positive_int("nx", nx), positive_int("ny", ny), positive_int("n_queries", n_queries)
    noise_std = finite_scalar("noise_std", noise_std, nonnegative=True)
    n_all = n_context + n_queries
    if x_dist == "uniform":
        a = finite_scalar("x_range", x_range, positive=True)
        x = rng.uniform(-a, a, size=(batch, n_all, nx))
    elif x_dist == "gaussian":
        x = _x_std(x_std, nx) * rng.standard_normal((batch, n_all, nx))
    else:
        raise InvalidArgument(f"x_dist must be 'uniform' or 'gaussian', got {x_dist!r}")
    W = rng.standard_normal((batch, ny, nx))
    y = np.einsum("bnx,byx->bny", x, W) + noise_std * rng.standard_normal((batch, n_all, ny))
    return RegressionTasks(
        X=x[:, :n_context], Y=y[:, :n_context], x_q=x[:, n_context:], y_q=y[:, n_context:], W=W, seed=seed
    )


_OVERFLOW = "W, X and Y overflow float64 in the loss or its gradient (entries too large)"


def _x_std(x_std: ArrayLike, nx: int) -> float | NDArray[np.float64]:
    if np.ndim(x_std) == 0:
        return finite_scalar("x_std", x_std, positive=True)
    std = finite_array("x_std", x_std, ndim=1)
    same_size("x_std", std.shape[0], nx, "length Nx")
    if np.any(std <= 0):
        raise InvalidArgument("x_std must be positive")
    return std


def _check_data(X: ArrayLike, Y: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    X = finite_array("X", X, ndim=3, nonempty=True)
    Y = finite_array("Y", Y, ndim=3, nonempty=True)
    same_size("Y", Y.shape[0], X.shape[0], "batch size (axis 0) of X")
    same_size("Y", Y.shape[1], X.shape[1], "number of examples (axis 1) of X")
    return X, Y


def _check_weights(
    W: ArrayLike, X: NDArray[np.float64], Y: NDArray[np.float64], name: str = "W"
) -> NDArray[np.float64]:
    W = finite_array(name, W, ndim=(2, 3))
    want = (Y.shape[2], X.shape[2])
    if W.shape[-2:] != want:
        raise InvalidArgument(f"{name} must have trailing shape (Ny, Nx) = {want}, got {W.shape}")
    if W.ndim == 3 and W.shape[0] != X.shape[0]:
        raise InvalidArgument(f"{name} must have the batch size of X = {X.shape[0]} (axis 0), got {W.shape[0]}")
    return np.broadcast_to(W, (X.shape[0], *want))


def linreg_loss(W: ArrayLike, X: ArrayLike, Y: ArrayLike) -> NDArray[np.float64]:
    """L(W) = 1/(2N) Σ_i ‖W x_i − y_i‖² per task, shape ``(B,)``."""
    X, Y = _check_data(X, Y)
    W = _check_weights(W, X, Y)
    with np.errstate(over="ignore", invalid="ignore"):
        r = np.einsum("byx,bnx->bny", W, X) - Y
        return finite_result(0.5 * np.sum(r**2, axis=(1, 2)) / X.shape[1], _OVERFLOW)


def linreg_grad(W: ArrayLike, X: ArrayLike, Y: ArrayLike) -> NDArray[np.float64]:
    """∇_W L = (1/N) Σ_i (W x_i − y_i) x_iᵀ per task, shape ``(B, Ny, Nx)``."""
    X, Y = _check_data(X, Y)
    with np.errstate(over="ignore", invalid="ignore"):
        return finite_result(_grad(_check_weights(W, X, Y), X, Y), _OVERFLOW)


def _grad(W: NDArray[np.float64], X: NDArray[np.float64], Y: NDArray[np.float64]) -> NDArray[np.float64]:
    """∇_W L on validated arrays (shared by :func:`linreg_grad` and :func:`gd`)."""
    r = np.einsum("byx,bnx->bny", W, X) - Y
    return np.einsum("bny,bnx->byx", r, X) / X.shape[1]


def gd(W0: ArrayLike, X: ArrayLike, Y: ArrayLike, eta: float, steps: int = 1) -> NDArray[np.float64]:
    """``steps`` steps of W ← W − η ∇L(W) from ``W0``; returns ``(B, Ny, Nx)``."""
    X, Y = _check_data(X, Y)
    W = np.array(_check_weights(W0, X, Y, "W0"))
    eta = finite_scalar("eta", eta)
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(nonnegative_int("steps", steps, maximum=MAX_STEPS)):
            W = W - eta * _grad(W, X, Y)
    return finite_result(W, f"gd diverged (non-finite weights): eta = {eta!r} is too large for X")


def half_mse(pred: ArrayLike, target: ArrayLike) -> float:
    """½·mean squared error, the loss von Oswald et al. report."""
    pred = finite_array("pred", pred, nonempty=True)
    target = finite_array("target", target)
    if pred.shape != target.shape:
        raise InvalidArgument(f"pred and target must have the same shape, got {pred.shape} and {target.shape}")
    with np.errstate(over="ignore"):
        return finite_result(0.5 * float(np.mean((pred - target) ** 2)), "pred and target overflow float64 in the MSE")


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)


def _example_batch() -> dict[str, NDArray[np.float64]]:
    r = np.random.default_rng(1)
    return {"W": r.standard_normal((2, 1, 3)), "X": r.standard_normal((2, 4, 3)), "Y": r.standard_normal((2, 4, 1))}


FUZZ = {
    "linreg_loss": Fuzz(_example_batch),
    "linreg_grad": Fuzz(_example_batch),
    "gd": Fuzz(
        lambda: {
            "W0": _example_batch()["W"],
            "X": _example_batch()["X"],
            "Y": _example_batch()["Y"],
            "eta": 0.1,
            "steps": 2,
        }
    ),
    "half_mse": Fuzz(lambda: {"pred": np.arange(3.0), "target": np.ones(3)}),
    "sample_tasks": Fuzz(
        lambda: {
            "rng": np.random.default_rng(0),
            "batch": 2,
            "n_context": 3,
            "nx": 2,
            "x_range": 1.0,
            "noise_std": 0.1,
        },
        fixed=("rng",),
    ),
}
