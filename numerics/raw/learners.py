"""Reference learners for in-context linear regression and the SPD / ILWD metrics.

Akyürek et al., ICLR 2023 (§4; docs/reference.md). Examples are rows: ``X`` (n, d), ``y`` (n,),
queries ``X_query`` (m, d). Every learner has the signature
``learner(X, y, X_query) -> predictions (m,)`` so any two can be compared by :func:`spd` and
:func:`ilwd`; linear learners also expose their weight vector.

The GD learners use the loss of Theorem 1, L(w) = Σ_i (wᵀx_i − y_i)² + λ‖w‖², so one step is
w' = w − 2α(Σ_i (x_i(wᵀx_i) − y_i x_i) + λw).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import (
    finite_array,
    finite_result,
    finite_scalar,
    positive_int,
    seed_value,
    well_conditioned,
)
from icl_verify.numerics.shared.fuzz import Fuzz, linear_data

Learner = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _data(X: object, y: object) -> tuple[np.ndarray, np.ndarray]:
    X = finite_array("X", X, ndim=2)
    y = finite_array("y", y, ndim=1)
    if X.shape[0] != y.shape[0] or X.shape[0] == 0 or X.shape[1] == 0:
        raise InvalidArgument(f"X must be (n, d) with n, d >= 1 and y (n,), got {X.shape} and {y.shape}")
    return X, y


def _w0(w0: object, d: int) -> np.ndarray:
    if w0 is None:
        return np.zeros(d)
    w0 = finite_array("w0", w0, ndim=1)
    if w0.shape != (d,):
        raise InvalidArgument(f"w0 must have shape ({d},), got {w0.shape}")
    return w0


def _finite_weights(w: np.ndarray, learner: str, cause: str) -> np.ndarray:
    """``w`` if finite; else a ``ValueError`` reporting that ``learner`` diverged or overflowed, naming ``cause``."""
    return finite_result(w, f"{learner} diverged or overflowed (non-finite weights): {cause} too large for these X, y")


def ols_weights(X: object, y: object) -> np.ndarray:
    """Least squares; the minimum-norm solution X⁺y when n < d (Moore–Penrose pseudo-inverse)."""
    X, y = _data(X, y)
    return _finite_weights(np.linalg.lstsq(X, y, rcond=None)[0], "ols_weights", "X")


def ridge_weights(X: object, y: object, lam: float) -> np.ndarray:
    """(XᵀX + λI)⁻¹ Xᵀ y, λ > 0."""
    X, y = _data(X, y)
    lam = finite_scalar("lam", lam, positive=True)
    A = well_conditioned("X and lam", X.T @ X + lam * np.eye(X.shape[1]), "XᵀX + λI")
    return _finite_weights(np.linalg.solve(A, X.T @ y), "ridge_weights", "X")


def gd_step_weights(X: object, y: object, alpha: float, lam: float = 0.0, w0: object = None) -> np.ndarray:
    """One batch GD step on L(w) = Σ_i (wᵀx_i − y_i)² + λ‖w‖² from w0 (default 0)."""
    X, y = _data(X, y)
    alpha, lam = finite_scalar("alpha", alpha), finite_scalar("lam", lam)
    w = _w0(w0, X.shape[1])
    with np.errstate(over="ignore", invalid="ignore"):
        w = w - 2 * alpha * (X.T @ (X @ w - y) + lam * w)
    return _finite_weights(w, "gd_step_weights", "alpha or lam")


SGD_GROWTH_LIMIT = 1e6
"""Largest growth of one SGD pass over the bound of a non-expanding pass before it counts as divergence.

A step w ↦ (I − 2α(x xᵀ + λI)) w + 2α y x whose linear part has norm ≤ 1 (0 ≤ 2α(‖x‖² + λ) ≤ 2
and 0 ≤ 2αλ ≤ 2) adds at most 2|α| |y| ‖x‖ to ‖w‖, so a pass of such steps ends with
‖w‖ ≤ B = ‖w0‖ + 2|α| Σ_i |y_i| ‖x_i‖. A few mildly expanding steps exceed B by a small factor;
exceeding it a million-fold means the steps amplify geometrically (|1 − 2α(‖x‖² + λ)| > 1 again
and again) and the iterate approximates nothing."""


def sgd_weights(X: object, y: object, alpha: float, lam: float = 0.0, w0: object = None) -> np.ndarray:
    """One pass of SGD, one example at a time in order: w ← w − 2α(x(wᵀx) − yx + λw) (Theorem 1 steps).

    Raises ``ValueError`` when the pass diverges: non-finite weights, or ‖w‖ above
    :data:`SGD_GROWTH_LIMIT` times the bound of a non-expanding pass (a huge finite number such as
    1e137 is no answer either).
    """
    X, y = _data(X, y)
    alpha, lam = finite_scalar("alpha", alpha), finite_scalar("lam", lam)
    w = _w0(w0, X.shape[1])
    with np.errstate(over="ignore", invalid="ignore"):
        for x_i, y_i in zip(X, y):
            w = w - 2 * alpha * (x_i * (w @ x_i) - y_i * x_i + lam * w)
        bound = np.linalg.norm(_w0(w0, X.shape[1])) + 2 * abs(alpha) * float(np.abs(y) @ np.linalg.norm(X, axis=1))
    w = _finite_weights(w, "sgd_weights", "alpha or lam")
    largest = float(np.max(np.abs(w)))  # ≤ ‖w‖, and cannot overflow
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        growth = largest / bound if largest > 0 else 0.0
        # the steps' own amplification Π max(1, ‖I − 2α(x xᵀ + λI)‖): a growth past the bound that the
        # steps cannot produce is round-off of a bound that underflowed, not divergence
        steps = np.maximum(np.abs(1 - 2 * alpha * (np.sum(X**2, axis=1) + lam)), abs(1 - 2 * alpha * lam))
        amplification = float(np.sum(np.log(np.maximum(steps, 1.0))))
    if not growth <= SGD_GROWTH_LIMIT and not amplification <= np.log(SGD_GROWTH_LIMIT):
        raise InvalidArgument(
            f"sgd_weights diverged: max |w_j| = {largest:.3g} is {growth:.3g} times the bound of a non-expanding"
            f" pass (limit {SGD_GROWTH_LIMIT:g}); alpha or lam too large for these X, y (need 0 ≤ 2α(‖x_i‖² + λ) ≤ 2)"
        )
    return w


def bayes_weights(X: object, y: object, sigma2: float, tau2: float) -> np.ndarray:
    """Posterior mean E[w | X, y] for w ~ N(0, τ²I), y = Xw + N(0, σ²I), by Gaussian conditioning:
    E[w | y] = Cov(w, y) Cov(y)⁻¹ y = τ² Xᵀ (τ² X Xᵀ + σ² I)⁻¹ y (an n × n solve, not ridge's d × d)."""
    X, y = _data(X, y)
    sigma2 = finite_scalar("sigma2", sigma2, positive=True)
    tau2 = finite_scalar("tau2", tau2, positive=True)
    A = well_conditioned("X, sigma2 and tau2", tau2 * X @ X.T + sigma2 * np.eye(X.shape[0]), "τ² X Xᵀ + σ² I")
    return _finite_weights(tau2 * X.T @ np.linalg.solve(A, y), "bayes_weights", "X")


def _queries(X_query: object, d: int) -> np.ndarray:
    Q = finite_array("X_query", X_query, ndim=2)
    if Q.shape[1] != d:
        raise InvalidArgument(f"X_query must have d = {d} columns, got shape {Q.shape}")
    return Q


def linear(weights: Callable[..., np.ndarray], **kwargs: float) -> Learner:
    """The learner predicting x_queryᵀ w with w = weights(X, y, **kwargs)."""

    def learner(X: np.ndarray, y: np.ndarray, X_query: np.ndarray) -> np.ndarray:
        w = weights(X, y, **kwargs)
        return _queries(X_query, w.shape[0]) @ w

    return learner


def knn(X: object, y: object, X_query: object, k: int = 3, weighting: str = "uniform") -> np.ndarray:
    """k-nearest neighbours (Euclidean): mean of the k nearest labels (``"uniform"``) or weighted
    by inverse distance (``"distance"``; an exact match returns its label). k is capped at n."""
    X, y = _data(X, y)
    Q = _queries(X_query, X.shape[1])
    k = min(positive_int("k", k), X.shape[0])
    if weighting not in ("uniform", "distance"):
        raise InvalidArgument(f"weighting must be 'uniform' or 'distance', got {weighting!r}")
    dist = np.linalg.norm(Q[:, None, :] - X[None, :, :], axis=-1)
    idx = np.argsort(dist, axis=1, kind="stable")[:, :k]
    near, labels = np.take_along_axis(dist, idx, axis=1), y[idx]
    if weighting == "uniform":
        return labels.mean(axis=1)
    exact = near[:, 0] == 0
    weights = 1.0 / np.where(near == 0, 1.0, near)
    out = (weights * labels).sum(axis=1) / weights.sum(axis=1)
    return np.where(exact, labels[:, 0], out)


def learners(
    lam: float = 0.1, alpha: float = 0.01, sigma2: float = 0.25, tau2: float = 1.0, k: int = 3
) -> dict[str, Learner]:
    """The reference learners of Akyürek et al. (2023, §4), by name."""
    lam, sigma2, tau2 = (
        finite_scalar(n, v, positive=True) for n, v in (("lam", lam), ("sigma2", sigma2), ("tau2", tau2))
    )
    alpha, k = finite_scalar("alpha", alpha), positive_int("k", k)
    return {
        "ols": linear(ols_weights),
        "ridge": linear(ridge_weights, lam=lam),
        "gd": linear(gd_step_weights, alpha=alpha),
        "sgd": linear(sgd_weights, alpha=alpha),
        "bayes": linear(bayes_weights, sigma2=sigma2, tau2=tau2),
        "knn-uniform": partial(knn, k=k, weighting="uniform"),
        "knn-distance": partial(knn, k=k, weighting="distance"),
    }


# ---------------------------------------------------------------------------------------------
# Metrics


@dataclass(frozen=True)
class Discrepancy:
    """A Monte-Carlo mean over tasks with its standard error, the seed it used, and the per-task values."""

    value: float
    stderr: float
    n_tasks: int
    seed: int
    per_task: tuple[float, ...]


def _sample_task(rng: np.random.Generator, n: int, d: int, noise_std: float) -> tuple[np.ndarray, np.ndarray]:
    """An isotropic Gaussian task: w ~ N(0, I), x ~ N(0, I), y = wᵀx + N(0, noise_std²)."""
    w = rng.standard_normal(d)
    X = rng.standard_normal((n, d))
    return X, X @ w + noise_std * rng.standard_normal(n)


def _mean(values: list[float], seed: int) -> Discrepancy:
    v = finite_result(
        np.asarray(values), "the discrepancy overflowed float64: noise_std too large or a learner diverged"
    )
    stderr = float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else 0.0
    return Discrepancy(float(v.mean()), stderr, len(v), seed, tuple(map(float, v)))


def _check_sizes(n: int, d: int, n_tasks: int, noise_std: float) -> tuple[int, int, int, float]:
    return (
        positive_int("n", n),
        positive_int("d", d),
        positive_int("n_tasks", n_tasks),
        finite_scalar("noise_std", noise_std, nonnegative=True),
    )


def spd(
    a1: Learner,
    a2: Learner,
    *,
    n: int,
    d: int,
    seed: int,
    n_tasks: int = 200,
    n_queries: int = 16,
    noise_std: float = 0.0,
) -> Discrepancy:
    """Squared prediction difference E_{D, x'} (A1(D)(x') − A2(D)(x'))² (Akyürek et al. 2023, §4)."""
    n, d, n_tasks, noise_std = _check_sizes(n, d, n_tasks, noise_std)
    rng = np.random.default_rng(seed_value("seed", seed))
    values = []
    for _ in range(n_tasks):
        X, y = _sample_task(rng, n, d, noise_std)
        Q = rng.standard_normal((positive_int("n_queries", n_queries), d))
        values.append(float(np.mean((a1(X, y, Q) - a2(X, y, Q)) ** 2)))
    return _mean(values, seed)


def implied_weights(learner: Learner, X: np.ndarray, y: np.ndarray, probes: np.ndarray) -> np.ndarray:
    """ŵ_A: the least-squares fit of A(D)'s predictions on the probe inputs (Akyürek et al. 2023, §4)."""
    return np.linalg.lstsq(probes, learner(X, y, probes), rcond=None)[0]


def ilwd(
    a1: Learner,
    a2: Learner,
    *,
    n: int,
    d: int,
    seed: int,
    n_tasks: int = 200,
    n_probes: int | None = None,
    noise_std: float = 0.0,
) -> Discrepancy:
    """Implicit linear weight difference E_D E_{X'} ‖ŵ_A1 − ŵ_A2‖² (Akyürek et al. 2023, §4).

    ``n_probes`` fresh inputs X' per task (default 4d, at least d so ŵ is determined).
    """
    n, d, n_tasks, noise_std = _check_sizes(n, d, n_tasks, noise_std)
    m = 4 * d if n_probes is None else positive_int("n_probes", n_probes)
    if m < d:
        raise InvalidArgument(f"n_probes must be at least d = {d}, got {m}")
    rng = np.random.default_rng(seed_value("seed", seed))
    values = []
    for _ in range(n_tasks):
        X, y = _sample_task(rng, n, d, noise_std)
        probes = rng.standard_normal((m, d))
        diff = implied_weights(a1, X, y, probes) - implied_weights(a2, X, y, probes)
        values.append(float(diff @ diff))
    return _mean(values, seed)


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ = {
    "ols_weights": Fuzz(linear_data),
    "ridge_weights": Fuzz(lambda: linear_data() | {"lam": 0.5}),
    "gd_step_weights": Fuzz(lambda: linear_data() | {"alpha": 0.01, "lam": 0.1, "w0": np.zeros(2)}),
    "sgd_weights": Fuzz(lambda: linear_data() | {"alpha": 0.01, "lam": 0.1, "w0": np.zeros(2)}),
    "bayes_weights": Fuzz(lambda: linear_data() | {"sigma2": 0.25, "tau2": 1.0}),
    "knn": Fuzz(lambda: linear_data() | {"X_query": np.ones((2, 2)), "k": 2}),
    "learners": Fuzz(lambda: {"lam": 0.1, "alpha": 0.01, "sigma2": 0.25, "tau2": 1.0, "k": 3}),
    "spd": Fuzz(
        lambda: (
            {"a1": linear(ols_weights), "a2": knn, "n": 4, "d": 2, "seed": 0}
            | {"n_tasks": 3, "n_queries": 2, "noise_std": 0.1}
        ),
        fixed=("a1", "a2"),
    ),
    "ilwd": Fuzz(
        lambda: (
            {"a1": linear(ols_weights), "a2": linear(ridge_weights, lam=0.5)}
            | {"n": 4, "d": 2, "seed": 0, "n_tasks": 3, "n_probes": 4, "noise_std": 0.1}
        ),
        fixed=("a1", "a2"),
    ),
}
FUZZ_EXEMPT = {
    "linear": "wraps a weight function; fuzzed through the learners it returns",
    "implied_weights": "takes a learner callable and sampled tasks",
}
