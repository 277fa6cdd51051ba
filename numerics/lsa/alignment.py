"""Comparing a trained LSA with gradient descent (von Oswald et al., ICML 2023, §3 and Fig. 2).

A *model* here is a callable ``model(X, Y, x_q) -> ŷ`` on a batch of tasks (shapes as in
``numerics.lsa.regression``: X (B, N, Nx), Y (B, N, Ny), x_q (B, Q, Nx), ŷ (B, Q, Ny)). The paper's
metrics over test tasks:

* preds diff  = mean ‖ŷ_θ − ŷ_GD‖,
* model cos   = mean cos(∂ŷ_θ/∂x_q, ∂ŷ_GD/∂x_q),
* model diff  = mean ‖∂ŷ_θ/∂x_q − ∂ŷ_GD/∂x_q‖,

against GD with the rate tuned by line search (the paper: over 10⁴ tasks). Every model here is
linear in x_q (the query never enters the keys/values), so ∂ŷ/∂x_q is read off exactly by feeding
the Nx unit vectors as queries (:func:`query_gradient`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import minimize, minimize_scalar

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.lsa.layers import LSAParams, lsa_stack, make_tokens, readout, theta_gd
from icl_verify.numerics.lsa.regression import RegressionTasks, gd, sample_tasks
from icl_verify.numerics.shared.checks import (
    MAX_STEPS,
    finite_array,
    finite_result,
    finite_scalar,
    positive_int,
    well_conditioned,
)
from icl_verify.numerics.shared.fuzz import Fuzz

Model = Callable[[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]], NDArray[np.float64]]


# ---------------------------------------------------------------------------------------------
# Models


def lsa_model(layers: Sequence[LSAParams]) -> Model:
    """The LSA stack as a model: tokens (x_i, y_i), queries (x_q, 0), readout −(query's y-part)."""
    layers = list(layers)

    def model(X: NDArray[np.float64], Y: NDArray[np.float64], x_q: NDArray[np.float64]) -> NDArray[np.float64]:
        out = lsa_stack(make_tokens(X, Y, x_q), layers, X.shape[1])
        return readout(out, Y.shape[2], X.shape[1])

    return model


def gd_model(eta: float, steps: int = 1) -> Model:
    """``steps`` GD steps from W = 0 on L(W) = 1/(2N) Σ‖W x_i − y_i‖², then ŷ = W x_q (independent of LSA)."""
    eta = finite_scalar("eta", eta)
    steps = positive_int("steps", steps, maximum=MAX_STEPS)

    def model(X: NDArray[np.float64], Y: NDArray[np.float64], x_q: NDArray[np.float64]) -> NDArray[np.float64]:
        W = gd(np.zeros((Y.shape[2], X.shape[2])), X, Y, eta, steps)
        return np.einsum("byx,bqx->bqy", W, x_q)

    return model


def gdpp_model(eta: float, gamma: float, steps: int = 1) -> Model:
    """``steps`` weight-tied GD++ layers (paper eq. 23, W0 = 0), written directly on (x, residual) pairs.

    Each layer, with S = Σ_{i≤N} x_i x_iᵀ and s = Σ_{i≤N} r_i x_iᵀ over the current context, maps
    every token x_j ↦ (I − γ S) x_j and r_j ↦ r_j − (η/N) s x_j (context r_i start at y_i, the
    query's at 0; ŷ = −r_q). Same map as stacking :func:`numerics.lsa.layers.theta_gdpp` layers (tested).
    """
    eta, gamma, steps = (
        finite_scalar("eta", eta),
        finite_scalar("gamma", gamma),
        positive_int("steps", steps, maximum=MAX_STEPS),
    )

    def model(X: NDArray[np.float64], Y: NDArray[np.float64], x_q: NDArray[np.float64]) -> NDArray[np.float64]:
        return _gdpp_layers(_gdpp_start(X, Y, x_q), eta, gamma, steps)

    return model


def _gdpp_start(X: NDArray[np.float64], Y: NDArray[np.float64], x_q: NDArray[np.float64]) -> tuple:
    """The tokens (Z, R) the first GD++ layer reads and its context sums S = Σ x_i x_iᵀ, s = Σ r_i x_iᵀ,
    which depend on the tasks only (not on η, γ)."""
    n = X.shape[1]
    Z = np.concatenate([X, x_q], axis=1)
    R = np.concatenate([Y, np.zeros((*x_q.shape[:2], Y.shape[2]))], axis=1)
    return Z, R, np.swapaxes(Z[:, :n], 1, 2) @ Z[:, :n], np.swapaxes(R[:, :n], 1, 2) @ Z[:, :n], n


def _gdpp_layers(start: tuple, eta: float, gamma: float, steps: int) -> NDArray[np.float64]:
    """``steps`` GD++ layers from :func:`_gdpp_start`'s tokens and first sums; the prediction −r_q."""
    Z, R, S, s, n = start
    for step in range(steps):
        if step:
            S = np.swapaxes(Z[:, :n], 1, 2) @ Z[:, :n]
            s = np.swapaxes(R[:, :n], 1, 2) @ Z[:, :n]
        Z, R = Z - gamma * Z @ S, R - (eta / n) * Z @ np.swapaxes(s, 1, 2)
    return -R[:, n:]


def predict(model: Model, tasks: RegressionTasks) -> NDArray[np.float64]:
    """The model's predictions for the tasks' queries, (B, Q, Ny)."""
    return np.asarray(model(tasks.X, tasks.Y, tasks.x_q), dtype=np.float64)


def task_losses(model: Model, tasks: RegressionTasks) -> NDArray[np.float64]:
    """½ Σ_{q,y} (ŷ − y_q)² / (Q·Ny) per task, shape (B,) — the paper's ½·MSE, task by task."""
    r = predict(model, tasks) - tasks.y_q
    return 0.5 * np.mean(r**2, axis=(1, 2))


# ---------------------------------------------------------------------------------------------
# Metrics


def query_gradient(model: Model, tasks: RegressionTasks) -> NDArray[np.float64]:
    """∂ŷ/∂x_q per task, (B, Ny, Nx), for a model linear in x_q: its outputs on the unit vectors e_1..e_Nx."""
    B, _, nx = tasks.X.shape
    basis = np.broadcast_to(np.eye(nx), (B, nx, nx))
    return np.swapaxes(np.asarray(model(tasks.X, tasks.Y, basis), dtype=np.float64), 1, 2)


def preds_diff(model_a: Model, model_b: Model, tasks: RegressionTasks) -> NDArray[np.float64]:
    """‖ŷ_a − ŷ_b‖ per task (over queries and outputs), shape (B,)."""
    diff = predict(model_a, tasks) - predict(model_b, tasks)
    return np.sqrt(np.sum(diff**2, axis=(1, 2)))


def model_cos(model_a: Model, model_b: Model, tasks: RegressionTasks) -> NDArray[np.float64]:
    """cos(∂ŷ_a/∂x_q, ∂ŷ_b/∂x_q) per task, shape (B,); 0 where a gradient vanishes."""
    ga, gb = query_gradient(model_a, tasks), query_gradient(model_b, tasks)
    dot = np.sum(ga * gb, axis=(1, 2))
    norms = np.sqrt(np.sum(ga**2, axis=(1, 2)) * np.sum(gb**2, axis=(1, 2)))
    return np.divide(dot, norms, out=np.zeros_like(dot), where=norms > 0)


def model_diff(model_a: Model, model_b: Model, tasks: RegressionTasks) -> NDArray[np.float64]:
    """‖∂ŷ_a/∂x_q − ∂ŷ_b/∂x_q‖ per task, shape (B,)."""
    diff = query_gradient(model_a, tasks) - query_gradient(model_b, tasks)
    return np.sqrt(np.sum(diff**2, axis=(1, 2)))


def mean_interval(samples: ArrayLike, z: float = 2.576) -> tuple[float, float, float]:
    """(mean, low, high): the mean of iid samples ± z standard errors (default 99 % normal interval)."""
    x = finite_array("samples", samples, ndim=1)
    z = finite_scalar("z", z, positive=True)
    if x.size < 2:
        raise InvalidArgument(f"samples must hold at least 2 values, got {x.size}")
    with np.errstate(all="ignore"):
        m, se = finite_result(
            (float(np.mean(x)), float(np.std(x, ddof=1) / np.sqrt(x.size))),
            "samples overflow float64 (entries too large)",
        )
    return m, m - z * se, m + z * se


# ---------------------------------------------------------------------------------------------
# Tuning the baselines (the paper's line search over 10⁴ tasks)


def one_step_rate(tasks: RegressionTasks) -> float:
    """The exact minimiser of the empirical ½·MSE of one GD step from 0 over η.

    ŷ(η) = η ŷ₁ with ŷ₁ the unit-rate prediction, so the loss is quadratic in η and
    η̂ = Σ ŷ₁ y_q / Σ ŷ₁².
    """
    p1 = predict(gd_model(1.0), tasks)
    with np.errstate(over="ignore", invalid="ignore"):
        power = float(np.sum(p1**2))
        rate = float(np.sum(p1 * tasks.y_q)) / power if power > 0 else np.nan
    if power == 0:
        raise InvalidArgument(
            "tasks are degenerate: one GD step predicts 0 on every query (zero X or Y), so η is undefined"
        )
    return finite_result(rate, "tasks overflow float64 in the one-step rate (entries of X, Y or x_q too large)")


def line_search_rate(tasks: RegressionTasks, steps: int = 1, upper: float | None = None) -> float:
    """η minimising the empirical ½·MSE of ``steps`` GD steps from 0 (bracketed bounded Brent search).

    One step uses the exact quadratic minimiser (:func:`one_step_rate`). For several steps the
    minimum is first bracketed (:func:`_bracket_rate`: from the one-step optimum, the bracket grows
    geometrically until the loss rises on both sides), so no fixed bound cuts the search short; with
    ``upper`` the search is on (0, ``upper``]. Either way a minimum that lands on the edge of the
    search interval raises ValueError instead of being returned as if it were the optimum.
    """
    steps = positive_int("steps", steps, maximum=MAX_STEPS)
    eta1 = one_step_rate(tasks)
    if steps == 1 and upper is None:
        return eta1

    def loss(eta: float) -> float:
        with np.errstate(over="ignore", invalid="ignore"):
            value = float(np.mean(task_losses(gd_model(eta, steps), tasks)))
        return value if np.isfinite(value) else np.inf

    if upper is None:
        low, high = _bracket_rate(loss, eta1)
    else:
        low, high = 0.0, finite_scalar("upper", upper, positive=True)
    res = minimize_scalar(loss, bounds=(low, high), method="bounded", options={"xatol": 1e-6 * high})
    eta = float(res.x)
    if eta > high - 1e-4 * high or (upper is not None and eta < 1e-4 * high):
        raise InvalidArgument(f"upper: the {steps}-step loss is minimised at the edge of (0, {high:g}] (η = {eta:.6g})")
    return eta


def _bracket_rate(loss: Callable[[float], float], start: float, factor: float = 1.25) -> tuple[float, float]:
    """(a, c) with a < b < c and loss(b) < loss(a), loss(b) < loss(c) for some b: an interval holding a minimum.

    b starts at ``start`` (halved while it is no better than η = 0), then the triple moves up by
    ``factor`` while the loss keeps falling; at most 200 moves, else ValueError.
    """
    a, b = 0.0, finite_scalar("start", start, positive=True)
    f0 = loss(0.0)
    for _ in range(200):
        if loss(b) < f0:
            break
        b /= 2
    else:
        raise InvalidArgument("loss: no rate below the start improves on η = 0")
    fb = loss(b)
    for _ in range(200):
        c = b * factor
        fc = loss(c)
        if fc > fb:
            return a, c
        a, b, fb = b, c, fc
    raise InvalidArgument(f"loss: still decreasing at η = {b:g}, no minimum bracketed")


def tune_gdpp(tasks: RegressionTasks, steps: int, eta0: float, gamma0: float = 0.0) -> tuple[float, float]:
    """(η, γ) minimising the empirical ½·MSE of ``steps`` weight-tied GD++ layers (Nelder–Mead)."""
    steps = positive_int("steps", steps, maximum=MAX_STEPS)
    x0 = np.array([finite_scalar("eta0", eta0), finite_scalar("gamma0", gamma0)])
    start = _gdpp_start(tasks.X, tasks.Y, tasks.x_q)  # formed once: Nelder–Mead evaluates ~10² (η, γ) on these tasks

    def loss(v: NDArray[np.float64]) -> float:
        """The mean ½·MSE of :func:`gdpp_model` (η, γ) = v on the tasks (the same arithmetic, the first sums reused)."""
        return float(np.mean(task_losses(lambda *_: _gdpp_layers(start, v[0], v[1], steps), tasks)))

    res = minimize(
        loss,
        x0,
        method="Nelder-Mead",
        options={"xatol": 1e-5, "fatol": 1e-8, "maxiter": 400},
    )
    return float(res.x[0]), float(res.x[1])


# ---------------------------------------------------------------------------------------------
# Weights: products up to the rescaling symmetry, interpolation


def _single_head(params: LSAParams) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    if params.P.shape[0] != 1:
        raise InvalidArgument(f"params must have a single head for a product comparison, got {params.P.shape[0]}")
    return params.value_map()[0], params.key_query_map()[0]


def readout_blocks(
    V: NDArray[np.float64], K: NDArray[np.float64], nx: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The parts a single layer's readout depends on: V's y-rows (P W_V) and K's x-columns (W_Kᵀ W_Q)."""
    return V[nx:, :], K[:, :nx]


def product_alignment(trained: LSAParams, reference: LSAParams, nx: int | None = None) -> tuple[float, float, float]:
    """(s, rel. error of P W_V, rel. error of W_Kᵀ W_Q) after the best rescaling (s V, K / s).

    The layer only depends on the products up to (s P W_V, W_Kᵀ W_Q / s) (paper §3); s is the
    least-squares scale of the trained P W_V onto the reference's. With ``nx`` only the blocks a
    single layer's readout sees are compared (:func:`readout_blocks`).
    """
    V, K = _single_head(trained)
    V_ref, K_ref = _single_head(reference)
    if nx is not None:
        nx = positive_int("nx", nx)
        (V, K), (V_ref, K_ref) = readout_blocks(V, K, nx), readout_blocks(V_ref, K_ref, nx)
    denom = float(np.sum(V * V))
    if denom == 0:
        raise InvalidArgument("trained has a zero value map P W_V")
    s = float(np.sum(V * V_ref)) / denom
    if s == 0:
        raise InvalidArgument("trained's value map is orthogonal to the reference's")
    err_v = float(np.linalg.norm(s * V - V_ref) / np.linalg.norm(V_ref))
    err_k = float(np.linalg.norm(K / s - K_ref) / np.linalg.norm(K_ref))
    return s, err_v, err_k


def interpolate(trained: LSAParams, reference: LSAParams, weight: float = 0.5) -> LSAParams:
    """The interpolation test's layer: (1−w)·(rescaled trained) + w·reference, on the products.

    The trained products are first rescaled onto the reference's (:func:`product_alignment`),
    so averaging is meaningful despite the (s V, K/s) symmetry; the result has P = W_K = I.
    """
    weight = finite_scalar("weight", weight)
    s, _, _ = product_alignment(trained, reference)
    V, K = _single_head(trained)
    V_ref, K_ref = _single_head(reference)
    V_mix = (1 - weight) * s * V + weight * V_ref
    K_mix = (1 - weight) * K / s + weight * K_ref
    eye = np.eye(V.shape[0])[None]
    return LSAParams(P=eye, W_V=V_mix[None], W_K=eye, W_Q=K_mix[None])


def gd_reference(nx: int, ny: int, eta: float, n_context: int) -> LSAParams:
    """θ_GD(η) with W0 = 0 (Proposition 1), the reference for :func:`product_alignment`."""
    return theta_gd(nx, ny, eta, n_context)


def effective_preconditioner(params: LSAParams, nx: int, n_context: int) -> NDArray[np.float64]:
    """A with (label-odd part of ŷ) = x_qᵀ A (1/N) Σ_i y_i x_i, for a single layer with one output.

    Writing v = (P W_V)[y, :] and K = W_Kᵀ W_Q, the readout −v C K (x_q, 0) has the label-odd part
    −Σ_i y_i (v_yy x_iᵀ K_xx + (v_x·x_i) K_yx) x_q, so A = −N Σ_h (v_yy K_xxᵀ + K_yxᵀ v_xᵀ).
    Zhang–Frei–Bartlett (2024, Thm. 4.1) predict A = Γ⁻¹ at the trained optimum. The label-even
    terms (v_x·x_i)(x_iᵀ K_xx x_q) and v_yy y_i² K_yx x_q are not part of A.
    """
    nx, n = positive_int("nx", nx), positive_int("n_context", n_context)
    V, K = params.value_map(), params.key_query_map()
    if V.shape[1] != nx + 1:
        raise InvalidArgument(f"params must have token width nx + 1 = {nx + 1} (one output), got {V.shape[1]}")
    v_yy, v_x, k_yx = V[:, nx, nx], V[:, nx, :nx], K[:, nx, :nx]
    A = np.einsum("h,hij->ji", v_yy, K[:, :nx, :nx]) + np.einsum("ha,hb->ab", k_yx, v_x)
    return -n * A


def preconditioner_moments(tasks: RegressionTasks) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Sufficient statistics (FᵀF, Fᵀy) of the least-squares fit ŷ = x_qᵀ A g, g = (1/N) Σ_i y_i x_i.

    F has one row per query with entries x_q[a] g[c]; sums over groups of tasks pool exactly.
    """
    if tasks.Y.shape[2] != 1:
        raise InvalidArgument(f"tasks must have a single output (Ny = 1), got Ny = {tasks.Y.shape[2]}")
    g = np.einsum("bn,bnx->bx", tasks.Y[..., 0], tasks.X) / tasks.X.shape[1]
    F = np.einsum("bqa,bc->bqac", tasks.x_q, g).reshape(-1, g.shape[1] ** 2)
    return F.T @ F, F.T @ tasks.y_q.reshape(-1)


def fit_preconditioner(moments: tuple[NDArray[np.float64], NDArray[np.float64]]) -> NDArray[np.floating]:
    """The least-squares A from :func:`preconditioner_moments` (possibly summed over groups).

    The population minimiser is the optimal one-layer LSA's preconditioner (Zhang–Frei–Bartlett
    2024; Ahn et al. 2023): a Monte Carlo estimate independent of any closed form.
    """
    if not isinstance(moments, tuple) or len(moments) != 2:
        raise InvalidArgument("moments must be the pair (FᵀF, Fᵀy) of preconditioner_moments")
    Fty = finite_array("moments", moments[1], ndim=1, nonempty=True)
    d = math.isqrt(Fty.shape[0])
    if d * d != Fty.shape[0]:
        raise InvalidArgument(f"moments' Fᵀy must have a square length d², got {Fty.shape[0]}")
    FtF = finite_array("moments", moments[0], ndim=2)
    if FtF.shape != (d * d, d * d):
        raise InvalidArgument(f"moments' FᵀF must have shape {(d * d, d * d)}, got {FtF.shape}")
    well_conditioned("moments", FtF, "FᵀF (too few or degenerate tasks)")
    return np.linalg.solve(FtF, Fty).reshape(d, d)


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ = {
    "mean_interval": Fuzz(lambda: {"samples": np.array([1.0, 2.0, 2.5]), "z": 2.0}),
    "gd_model": Fuzz(lambda: {"eta": 0.1, "steps": 2}),
    "gdpp_model": Fuzz(lambda: {"eta": 0.1, "gamma": 0.1, "steps": 2}),
    "gd_reference": Fuzz(lambda: {"nx": 2, "ny": 1, "eta": 0.1, "n_context": 4}),
    "fit_preconditioner": Fuzz(
        lambda: {"moments": preconditioner_moments(sample_tasks(np.random.default_rng(0), 64, 8, 2, n_queries=4))}
    ),
}
FUZZ_EXEMPT = {
    name: "takes models or RegressionTasks built by the package"
    for name in (
        "lsa_model",
        "predict",
        "task_losses",
        "query_gradient",
        "preds_diff",
        "model_cos",
        "model_diff",
        "one_step_rate",
        "line_search_rate",
        "tune_gdpp",
        "readout_blocks",
        "product_alignment",
        "interpolate",
        "effective_preconditioner",
        "preconditioner_moments",
    )
}
