"""Meta-training linear self-attention on random linear-regression tasks (von Oswald et al., ICML 2023, §3–4).

Every step draws fresh tasks (``numerics.lsa.regression.sample_tasks``), builds tokens (x_i, y_i) and
queries (x_q, 0) (``numerics.lsa.layers.make_tokens``), runs K LSA layers (paper eq. 7–8: keys/values
from the N context tokens only) and reads the prediction out as minus the query's y-part. The
loss is the paper's ½·MSE (``loss="half_mse"``; ``"mse"`` doubles it). Gradients are derived
by hand (backpropagation through the layers, written out below) and checked against finite
differences in the tests; the optimiser is Adam (Kingma & Ba 2015, Algorithm 1) after clipping
the gradient's global norm (optax-style; both in ``numerics.shared.optim``).

Row convention: a layer maps every token row e_t ↦ e_t + M e_t with
M = Σ_h V_h C K_h, V_h = P_h W_{V,h}, K_h = W_{K,h}ᵀ W_{Q,h}, C = Σ_{i<N} e_i e_iᵀ.

Paper vs code settings are explicit options of :class:`TrainConfig`: the x range (code 0.5,
text 1.0), the loss scale, the initialisation scale and the learning-rate schedule (the paper
trains with a constant Adam rate 1e-3; ``schedule="cosine"`` decays it to 0 to remove the
optimiser's noise floor in short runs).

From N(0, init_scale²) weights the training loss first sits on a plateau near the zero predictor's
loss (the origin is a degenerate saddle of the quartic parametrisation; the run can also linger
at the rank-one saddle that routes the label through the keys). How long a run stays there varies
widely with the seed; a run that leaves it late does not converge within a short budget.
``escape_step``/``escape_ratio``/``restarts`` make this a training diagnostic: a run whose loss
has not dropped below ``escape_ratio`` × its initial loss by ``escape_step`` is abandoned and
restarted from a fresh initialisation drawn from ``[seed, attempt]`` (all attempts are recorded).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.lsa.layers import LSAParams, attention_maps, stack_times, times_stack
from icl_verify.numerics.lsa.regression import CODE_X_RANGE, RegressionTasks, sample_tasks
from icl_verify.numerics.shared.checks import finite_scalar, positive_int, seed_value
from icl_verify.numerics.shared.optim import Adam, Layer, clip_by_global_norm

NAMES = ("P", "W_V", "W_K", "W_Q")
"""The trained arrays of one layer, each of shape (H, D, D)."""

ESCAPE_WINDOW = 25
"""Steps averaged for the plateau test: the first ``ESCAPE_WINDOW`` losses against the last ones before ``escape_step``."""


@dataclass(frozen=True)
class TrainConfig:
    """Settings of one meta-training run (defaults: von Oswald et al.'s d = N = 10, code's x range)."""

    nx: int = 10
    ny: int = 1
    n_context: int = 10
    n_layers: int = 1
    recurrent: bool = False
    heads: int = 1
    batch: int = 2048
    steps: int = 1000
    lr: float = 1e-3
    schedule: Literal["constant", "cosine"] = "constant"
    clip: float = 10.0
    init_scale: float = 0.01
    x_dist: Literal["uniform", "gaussian"] = "uniform"
    x_range: float = CODE_X_RANGE
    x_std: float | tuple[float, ...] = 1.0
    noise_std: float = 0.0
    loss: Literal["half_mse", "mse"] = "half_mse"
    dtype: Literal["float32", "float64"] = "float32"
    escape_step: int = 0
    escape_ratio: float = 0.7
    restarts: int = 0

    def __post_init__(self) -> None:
        for name in ("nx", "ny", "n_context", "n_layers", "heads", "batch", "steps"):
            positive_int(name, getattr(self, name))
        for name in ("lr", "clip", "init_scale", "x_range"):
            finite_scalar(name, getattr(self, name), positive=True)
        finite_scalar("noise_std", self.noise_std, nonnegative=True)
        for name in ("escape_step", "restarts"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 0:
                raise InvalidArgument(f"{name} must be a non-negative integer, got {getattr(self, name)!r}")
        if self.escape_step and not 2 * ESCAPE_WINDOW <= self.escape_step <= self.steps:
            raise InvalidArgument(
                f"escape_step must be 0 or lie in [{2 * ESCAPE_WINDOW}, steps = {self.steps}], got {self.escape_step}"
            )
        if not 0 < finite_scalar("escape_ratio", self.escape_ratio) < 1:
            raise InvalidArgument(f"escape_ratio must lie in (0, 1), got {self.escape_ratio!r}")
        if isinstance(self.x_std, list):
            object.__setattr__(self, "x_std", tuple(self.x_std))
        if np.any(np.asarray(self.x_std, dtype=float) <= 0) or np.size(self.x_std) not in (1, self.nx):
            raise InvalidArgument(f"x_std must be positive, a scalar or one value per input, got {self.x_std!r}")
        _choice("schedule", self.schedule, ("constant", "cosine"))
        _choice("x_dist", self.x_dist, ("uniform", "gaussian"))
        _choice("loss", self.loss, ("half_mse", "mse"))
        _choice("dtype", self.dtype, ("float32", "float64"))

    @property
    def width(self) -> int:
        """Token width D = Nx + Ny."""
        return self.nx + self.ny

    def sample(
        self, rng: np.random.Generator, batch: int | None = None, *, n_queries: int = 1, seed: int | None = None
    ) -> RegressionTasks:
        """Fresh regression tasks drawn with this run's input distribution (``seed`` is only recorded)."""
        return sample_tasks(
            rng,
            self.batch if batch is None else batch,
            self.n_context,
            self.nx,
            self.ny,
            x_dist=self.x_dist,
            x_range=self.x_range,
            x_std=self.x_std,
            noise_std=self.noise_std,
            n_queries=n_queries,
            seed=seed,
        )


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise InvalidArgument(f"{name} must be one of {allowed}, got {value!r}")


@dataclass(frozen=True)
class TrainResult:
    """Trained layers (as :class:`~numerics.lsa.layers.LSAParams`), the loss per step, the seed and the settings."""

    layers: list[LSAParams]
    losses: NDArray[np.float64]
    seed: int
    config: TrainConfig
    seconds: float = field(default=0.0, compare=False)
    abandoned: tuple[tuple[int, float], ...] = ()
    """Attempts restarted by the plateau test, as (attempt, loss ratio at ``escape_step``); the result is the next one."""

    @property
    def attempt(self) -> int:
        """Index of the attempt returned (0: the first, initialised from ``seed`` itself; k: from ``[seed, k]``)."""
        return len(self.abandoned)

    def restart_note(self) -> str:
        """One line for the evidence: which attempts were abandoned and why ('' when none was)."""
        if not self.abandoned:
            return ""
        c = self.config
        tried = ", ".join(f"attempt {k} loss ratio {r:.3f}" for k, r in self.abandoned)
        return (
            f"restarted {len(self.abandoned)}× (loss at step {c.escape_step} not below {c.escape_ratio:g} × initial:"
            f" {tried}); kept attempt {self.attempt}, init seed [{self.seed}, {self.attempt}]"
        )


# ---------------------------------------------------------------------------------------------
# Parameters


def init_layers(config: TrainConfig, rng: np.random.Generator) -> list[Layer]:
    """Entries ~ N(0, init_scale²); one layer if ``recurrent`` (weight-tied), else ``n_layers``."""
    D, H = config.width, config.heads
    count = 1 if config.recurrent else config.n_layers
    return [
        {k: (config.init_scale * rng.standard_normal((H, D, D))).astype(config.dtype) for k in NAMES}
        for _ in range(count)
    ]


def as_params(layers: list[Layer], config: TrainConfig) -> list[LSAParams]:
    """The layers as applied, in order (the tied layer repeated ``n_layers`` times when recurrent)."""
    params = [LSAParams(**{k: np.asarray(layer[k], dtype=np.float64) for k in NAMES}) for layer in layers]
    return params * config.n_layers if config.recurrent else params


# ---------------------------------------------------------------------------------------------
# Forward and backward


def _maps(layer: Layer) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """V_h = P_h W_{V,h} and K_h = W_{K,h}ᵀ W_{Q,h}, each (H, D, D)."""
    return layer["P"] @ layer["W_V"], np.swapaxes(layer["W_K"], 1, 2) @ layer["W_Q"]


def _summed(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """Σ_b a_b b_b over the stacks ``a`` (B, I, J) and ``b`` (B, J, K), as one GEMM over (b, j)."""
    return np.tensordot(a, b, axes=([0, 2], [0, 1]))


def _layer_forward(E: NDArray[np.float64], layer: Layer, n: int) -> tuple[NDArray[np.float64], dict]:
    """One layer E ↦ E + E Mᵀ (paper eq. 8 in rows) and the intermediates the backward pass needs.

    Only C_b and E_b M_bᵀ are products of per-task matrices; V_h C_b K_h are GEMMs with shared factors.
    """
    V, K = _maps(layer)
    context = E[:, :n]
    C = np.swapaxes(context, 1, 2) @ context
    M = attention_maps(V, C, K)
    return E + E @ np.swapaxes(M, 1, 2), {"E": E, "C": C, "M": M, "V": V, "K": K}


def _layer_backward(G: NDArray[np.float64], cache: dict, layer: Layer, n: int) -> tuple[NDArray[np.float64], Layer]:
    """Gradients w.r.t. the layer's input tokens and its four arrays, given G = ∂L/∂(output).

    With S_b = G_bᵀ E_b = ∂L/∂M_b: ∂V_h = Σ_b S_b K_hᵀ C_b, ∂K_h = Σ_b C_b V_hᵀ S_b,
    ∂C_b = Σ_h V_hᵀ S_b K_hᵀ, and ∂E = G + G M + [i < N] E (∂C + ∂Cᵀ).
    """
    E, C, M, V, K = cache["E"], cache["C"], cache["M"], cache["V"], cache["K"]
    S = np.swapaxes(G, 1, 2) @ E
    dE = G + G @ M
    dC = np.zeros_like(C)
    dV, dK = np.empty_like(V), np.empty_like(K)
    for h in range(V.shape[0]):
        SK = stack_times(S, K[h].T)
        dV[h] = _summed(SK, C)
        dK[h] = _summed(stack_times(C, V[h].T), S)
        dC += times_stack(V[h].T, SK)
    dE[:, :n] += E[:, :n] @ (dC + np.swapaxes(dC, 1, 2))
    grads = {
        "P": dV @ np.swapaxes(layer["W_V"], 1, 2),
        "W_V": np.swapaxes(layer["P"], 1, 2) @ dV,
        "W_K": layer["W_Q"] @ np.swapaxes(dK, 1, 2),
        "W_Q": layer["W_K"] @ dK,
    }
    return dE, grads


def _schedule_of(config: TrainConfig) -> list[int]:
    """Index of the stored layer used at each depth (all 0 when weight-tied)."""
    return [0] * config.n_layers if config.recurrent else list(range(config.n_layers))


def loss_and_grads(
    layers: list[Layer], tokens: NDArray[np.float64], y_q: NDArray[np.float64], config: TrainConfig
) -> tuple[float, list[Layer]]:
    """The training loss on one batch and its exact gradient w.r.t. every stored array.

    ``tokens`` (B, N+Q, D) from :func:`numerics.lsa.layers.make_tokens`, ``y_q`` (B, Q, Ny). Prediction
    ŷ = −(query's y-part) after all layers (paper §2); loss ½·mean((ŷ − y_q)²), or twice that.
    """
    n, nx = config.n_context, config.nx
    E, caches = tokens, []
    order = _schedule_of(config)
    for i in order:
        E, cache = _layer_forward(E, layers[i], n)
        caches.append(cache)
    r = -E[:, n:, nx:] - y_q
    factor = 0.5 if config.loss == "half_mse" else 1.0
    loss = factor * float(np.mean(r**2))
    G = np.zeros_like(E)
    G[:, n:, nx:] = -2.0 * factor * r / r.size
    grads = [{k: np.zeros_like(v) for k, v in layer.items()} for layer in layers]
    for i, cache in zip(reversed(order), reversed(caches)):
        G, g = _layer_backward(G, cache, layers[i], n)
        for k in NAMES:
            grads[i][k] += g[k]
    return loss, grads


def learning_rate(config: TrainConfig, step: int) -> float:
    """The rate at ``step`` (0-based): constant, or cosine decay lr · ½(1 + cos(π step / steps))."""
    if config.schedule == "constant":
        return config.lr
    return config.lr * 0.5 * (1.0 + np.cos(np.pi * step / config.steps))


# ---------------------------------------------------------------------------------------------
# Training


def batch_tokens(config: TrainConfig, rng: np.random.Generator, batch: int | None = None):
    """Fresh tasks as (tokens, y_q) in the training dtype: the tokens of
    :func:`~icl_verify.numerics.lsa.layers.make_tokens` with W0 = 0, written in place (the draws are finite)."""
    tasks = config.sample(rng, batch)
    n, nx = config.n_context, config.nx
    tokens = np.zeros((tasks.X.shape[0], n + tasks.x_q.shape[1], config.width), config.dtype)
    tokens[:, :n, :nx], tokens[:, :n, nx:], tokens[:, n:, :nx] = tasks.X, tasks.Y, tasks.x_q
    return tokens, tasks.y_q.astype(config.dtype)


def train(config: TrainConfig, seed: int, *, on_step: Callable[[int, float], None] | None = None) -> TrainResult:
    """Meta-train LSA from N(0, init_scale²) weights on fresh tasks every step; all randomness from ``seed``.

    Attempt 0 draws from ``default_rng(seed)``; with ``config.restarts`` an attempt that fails the
    plateau test (:func:`_escaped`) is abandoned at ``escape_step`` and attempt k draws from
    ``default_rng([seed, k])``. The last allowed attempt always runs to the end. ``on_step``, if
    given, is called after every step with the attempt's step count and that step's loss (the CLI's
    progress bar).
    """
    seed = seed_value("seed", seed)
    t0 = time.perf_counter()
    abandoned: list[tuple[int, float]] = []
    for attempt in range(config.restarts + 1):
        rng = np.random.default_rng(seed if attempt == 0 else [seed, attempt])
        last = attempt == config.restarts
        layers, losses = run_steps(config, rng, check_at=None if last else config.escape_step or None, on_step=on_step)
        if losses.size == config.steps:
            return TrainResult(
                as_params(layers, config), losses, seed, config, time.perf_counter() - t0, tuple(abandoned)
            )
        abandoned.append((attempt, _loss_ratio(losses)))
    raise AssertionError("unreachable: the last attempt runs all steps")


def _loss_ratio(losses: NDArray[np.float64]) -> float:
    """Mean of the last ESCAPE_WINDOW losses over the mean of the first ESCAPE_WINDOW."""
    return float(np.mean(losses[-ESCAPE_WINDOW:]) / np.mean(losses[:ESCAPE_WINDOW]))


def run_steps(
    config: TrainConfig,
    rng: np.random.Generator,
    *,
    start: list[Layer] | None = None,
    check_at: int | None = None,
    on_step: Callable[[int, float], None] | None = None,
) -> tuple[list[Layer], NDArray[np.float64]]:
    """``config.steps`` Adam steps (fresh moments, clipping, ``config``'s schedule) on fresh tasks from ``rng``,
    from ``start`` (default: layers initialised from ``rng``); stops early (returning the losses so far) if at
    step ``check_at`` the loss ratio is not below ``config.escape_ratio``."""
    layers = init_layers(config, rng) if start is None else start
    opt = Adam(lr=config.lr)
    losses = np.empty(config.steps)
    for step in range(config.steps):
        if step == check_at and _loss_ratio(losses[:step]) >= config.escape_ratio:
            return layers, losses[:step]
        tokens, y_q = batch_tokens(config, rng)
        with np.errstate(over="ignore", invalid="ignore"):  # a diverging run is reported below, not warned about
            losses[step], grads = loss_and_grads(layers, tokens, y_q, config)
            grads, _ = clip_by_global_norm(grads, config.clip)
            layers = opt.step(layers, grads, learning_rate(config, step))
        if not (np.isfinite(losses[step]) and all(np.all(np.isfinite(w)) for layer in layers for w in layer.values())):
            raise InvalidArgument(
                f"the training diverged at step {step + 1} (the loss or the weights are no longer finite) at the"
                f" learning rate lr = {config.lr:g}: try a smaller one"
            )
        if on_step is not None:
            on_step(step + 1, float(losses[step]))
    return layers, losses


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ_EXEMPT = {
    name: "LSA meta-training kernel on a validated TrainConfig"
    for name in ("init_layers", "as_params", "loss_and_grads", "learning_rate", "batch_tokens", "train", "run_steps")
}
