"""Small trained transformers for in-context linear regression, probed against reference learners.

Akyürek et al. (ICLR 2023, §4) train GPT-2-style decoders (softmax attention, pre-LayerNorm, up to
16 layers, hidden size up to 512) on prompts x_1, f(x_1), …, x_n, f(x_n) and compare their
predictions with one step of gradient descent, ridge regression and least squares by the squared
prediction difference (SPD). This module trains much smaller models in NumPy, with hand-written
backpropagation, so that the comparison runs inside ``icl-verify check``.

Architecture (how it departs from the paper's GPT-2):

- one token per example, t_i = [x_i, y_i, 0] ∈ R^{d+2}, and one per query, [x_q, 0, 1] (the paper
  interleaves x and y tokens); a linear embedding h = t W_in of width D;
- L layers, each linear self-attention (von Oswald et al. 2023's LSA, one head, no softmax) and a
  ReLU MLP, both residual, no LayerNorm: a = (1/n) (h W_Q)(h_c W_K)ᵀ (h_c W_V), h ← h + a,
  h ← h + ReLU(h W_1 + b_1) W_2 + b_2, with h_c the n context rows;
- every token attends to the n context tokens only (not causal; queries do not see each other),
  so m queries appended to one context are m independent predictions of the same learner;
- the prediction is ŷ = h_q w_out + b_out, trained on the mean squared error at the queries
  (the paper averages the loss over all prefix lengths).

Tokens are rows, batch first: contexts ``X (B, n, d)``, ``y (B, n)``, queries ``Q (B, m, d)``.
Training: Adam (``numerics.shared.optim``) with global-norm clipping on fresh tasks
x ~ N(0, I_d), w ~ N(0, I_d), y = wᵀx + N(0, σ²) every step, all randomness from one seed; float64.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import finite_array, finite_result, finite_scalar, positive_int, seed_value
from icl_verify.numerics.shared.fuzz import Fuzz
from icl_verify.numerics.shared.optim import Adam, clip_by_global_norm

Params = dict[str, np.ndarray]
LAYER_KEYS = ("Wq", "Wk", "Wv", "W1", "b1", "W2", "b2")


@dataclass(frozen=True)
class ProbeConfig:
    """Task and model sizes and the training budget (defaults: the family's default check)."""

    d: int = 4
    n: int = 8
    depth: int = 1
    width: int = 16
    hidden: int = 32
    noise_std: float = 0.0
    steps: int = 600
    batch: int = 128
    queries: int = 4
    lr: float = 3e-3
    clip: float = 1.0
    init_scale: float = 0.3

    def __post_init__(self) -> None:
        for name in ("d", "n", "depth", "width", "hidden", "steps", "batch", "queries"):
            positive_int(name, getattr(self, name))
        finite_scalar("noise_std", self.noise_std, nonnegative=True)
        for name in ("lr", "clip", "init_scale"):
            finite_scalar(name, getattr(self, name), positive=True)


@dataclass(frozen=True)
class Trained:
    """Trained parameters (one dict for the embedding and readout, one per layer), the loss curve, the seed."""

    params: list[Params]
    losses: np.ndarray
    seed: int
    config: ProbeConfig


def init_params(config: ProbeConfig, rng: np.random.Generator) -> list[Params]:
    """N(0, init_scale² / fan_in) weights, zero biases: [embedding and readout, layer 1, …, layer L]."""
    e, D, H, s = config.d + 2, config.width, config.hidden, config.init_scale

    def dense(rows: int, cols: int) -> np.ndarray:
        return rng.standard_normal((rows, cols)) * s / np.sqrt(rows)

    io = {"W_in": dense(e, D), "w_out": dense(D, 1)[:, 0], "b_out": np.zeros(1)}
    layers = [
        {
            "Wq": dense(D, D),
            "Wk": dense(D, D),
            "Wv": dense(D, D),
            "W1": dense(D, H),
            "b1": np.zeros(H),
            "W2": dense(H, D),
            "b2": np.zeros(D),
        }
        for _ in range(config.depth)
    ]
    return [io, *layers]


def tokens(X: np.ndarray, y: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """(B, n + m, d + 2): context rows [x_i, y_i, 0], then query rows [x_q, 0, 1]."""
    B, n, d = X.shape
    m = Q.shape[1]
    out = np.zeros((B, n + m, d + 2))
    out[:, :n, :d], out[:, :n, d] = X, y
    out[:, n:, :d], out[:, n:, d + 1] = Q, 1.0
    return out


def _layer_forward(h: np.ndarray, p: Params, n: int) -> tuple[np.ndarray, tuple]:
    """h + a, then + MLP; a = (1/n)(h W_Q)(h_c W_K)ᵀ(h_c W_V) over the n context rows h_c."""
    q, k, v = h @ p["Wq"], h[:, :n] @ p["Wk"], h[:, :n] @ p["Wv"]
    S = q @ k.transpose(0, 2, 1) / n
    h1 = h + S @ v
    z = h1 @ p["W1"] + p["b1"]
    r = np.maximum(z, 0.0)
    return h1 + r @ p["W2"] + p["b2"], (h, q, k, v, S, h1, z, r)


def _outer_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Σ over batch and tokens of a_btᵀ b_bt, i.e. einsum("bti,btj->ij") as one matrix product."""
    return a.reshape(-1, a.shape[-1]).T @ b.reshape(-1, b.shape[-1])


def _layer_backward(g: np.ndarray, cache: tuple, p: Params, n: int) -> tuple[np.ndarray, Params]:
    """Gradient with respect to the layer's input and its parameters, given g = ∂loss/∂output."""
    h, q, k, v, S, h1, z, r = cache
    grads = {"W2": _outer_sum(r, g), "b2": g.sum(axis=(0, 1))}
    gz = (g @ p["W2"].T) * (z > 0)
    grads["W1"], grads["b1"] = _outer_sum(h1, gz), gz.sum(axis=(0, 1))
    g1 = g + gz @ p["W1"].T  # ∂/∂h1: residual plus MLP path
    gS = g1 @ v.transpose(0, 2, 1) / n  # (B, T, n), the 1/n of S folded in
    gq, gk, gv = gS @ k, gS.transpose(0, 2, 1) @ q, S.transpose(0, 2, 1) @ g1
    hc = h[:, :n]
    grads["Wq"], grads["Wk"], grads["Wv"] = _outer_sum(h, gq), _outer_sum(hc, gk), _outer_sum(hc, gv)
    gh = g1 + gq @ p["Wq"].T
    gh[:, :n] += gk @ p["Wk"].T + gv @ p["Wv"].T
    return gh, grads


def forward(params: list[Params], X: np.ndarray, y: np.ndarray, Q: np.ndarray) -> tuple[np.ndarray, list]:
    """Predictions (B, m) at the queries and the caches for :func:`backward`."""
    io, n = params[0], X.shape[1]
    t = tokens(X, y, Q)
    h = t @ io["W_in"]
    caches = []
    for p in params[1:]:
        h, cache = _layer_forward(h, p, n)
        caches.append(cache)
    return h[:, n:] @ io["w_out"] + io["b_out"][0], [t, h, caches]


def loss_and_grads(params: list[Params], X: np.ndarray, y: np.ndarray, Q: np.ndarray, y_q: np.ndarray):
    """Mean squared error at the queries, mean((ŷ − y_q)²), and its gradient for every parameter."""
    pred, (t, h, caches) = forward(params, X, y, Q)
    n, err = X.shape[1], pred - y_q
    g_pred = 2 * err / err.size
    io = params[0]
    gh = np.zeros_like(h)
    gh[:, n:] = g_pred[..., None] * io["w_out"]
    grads_io = {"w_out": _outer_sum(h[:, n:], g_pred[..., None])[:, 0], "b_out": np.array([g_pred.sum()])}
    layer_grads = []
    for p, cache in zip(reversed(params[1:]), reversed(caches)):
        gh, g = _layer_backward(gh, cache, p, n)
        layer_grads.append(g)
    grads_io["W_in"] = _outer_sum(t, gh)
    return float(np.mean(err**2)), [grads_io, *reversed(layer_grads)]


def sample_tasks(rng: np.random.Generator, batch: int, n: int, m: int, d: int, noise_std: float) -> tuple:
    """x ~ N(0, I_d), w ~ N(0, I_d), y = Xw + N(0, σ²) for context and queries: (X, y, Q, y_q)."""
    w = rng.standard_normal((batch, d))
    X, Q = rng.standard_normal((batch, n, d)), rng.standard_normal((batch, m, d))
    y = np.einsum("bnd,bd->bn", X, w) + noise_std * rng.standard_normal((batch, n))
    y_q = np.einsum("bmd,bd->bm", Q, w) + noise_std * rng.standard_normal((batch, m))
    return X, y, Q, y_q


def train(config: ProbeConfig, seed: int, restart: int = 0) -> Trained:
    """Meta-train on fresh tasks every step with Adam (constant rate, clipped gradients); seeded by
    (seed, depth) for restart 0 and (seed, depth, restart) for later restarts."""
    key = [seed_value("seed", seed), config.depth]
    rng = np.random.default_rng(key if restart == 0 else [*key, seed_value("restart", restart)])
    params = init_params(config, rng)
    opt = Adam(lr=config.lr)
    losses = np.empty(config.steps)
    for step in range(config.steps):
        X, y, Q, y_q = sample_tasks(rng, config.batch, config.n, config.queries, config.d, config.noise_std)
        losses[step], grads = loss_and_grads(params, X, y, Q, y_q)
        grads, _ = clip_by_global_norm(grads, config.clip)
        params = opt.step(params, grads)
    finite_result(losses, f"training diverged at seed {seed} (non-finite loss): lr {config.lr:g} too large")
    return Trained(params, losses, seed, config)


def train_best(config: ProbeConfig, seed: int, restarts: int) -> Trained:
    """The run with the lowest mean training loss over its last tenth of steps among ``restarts``
    seeded runs (selection on training tasks only, never on the probe's test tasks)."""
    runs = [train(config, seed, r) for r in range(positive_int("restarts", restarts))]
    tail = max(1, config.steps // 10)
    return min(runs, key=lambda run: float(np.mean(run.losses[-tail:])))


def as_learner(model: Trained):
    """The trained model as a learner ``(X (n, d), y (n,), X_query (m, d)) -> predictions (m,)``
    (``numerics.raw.learners`` signature), so :func:`~icl_verify.numerics.raw.learners.spd` applies."""
    cfg = model.config

    def learner(X: np.ndarray, y: np.ndarray, X_query: np.ndarray) -> np.ndarray:
        X, y = finite_array("X", X, ndim=2), finite_array("y", y, ndim=1)
        Q = finite_array("X_query", X_query, ndim=2)
        if X.shape != (cfg.n, cfg.d) or y.shape != (cfg.n,) or Q.shape[1:] != (cfg.d,):
            raise InvalidArgument(f"the model takes X ({cfg.n}, {cfg.d}), y ({cfg.n},), X_query (m, {cfg.d})")
        return forward(model.params, X[None], y[None], Q[None])[0][0]

    return learner


@dataclass(frozen=True)
class ProbeResult:
    """Per-task SPD and ILWD of a trained model against each reference learner (arrays of length n_tasks)."""

    spd: dict[str, np.ndarray]
    ilwd: dict[str, np.ndarray]
    seed: int
    n_tasks: int
    n_probes: int


def probe(
    model: Trained, references: dict, *, seed: int, n_tasks: int = 400, n_probes: int | None = None
) -> ProbeResult:
    """SPD and ILWD (Akyürek et al. 2023, §4) of ``model`` against linear reference learners, task by task.

    ``references`` maps names to weight functions ``(X, y) -> w``. Per task D and ``n_probes``
    fresh inputs X' (default 4d): SPD = mean over X' of (model(D)(x') − x'ᵀw_ref)², and
    ILWD = ‖ŵ − w_ref‖² with ŵ the least-squares fit of the model's predictions on X'
    (``numerics.raw.learners.implied_weights``); both use the same tasks for every reference.
    """
    cfg = model.config
    m = 4 * cfg.d if n_probes is None else positive_int("n_probes", n_probes)
    if m < cfg.d:
        raise InvalidArgument(f"n_probes must be at least d = {cfg.d}, got {m}")
    n_tasks = positive_int("n_tasks", n_tasks)
    rng = np.random.default_rng([seed_value("seed", seed), 7])
    X, y, P, _ = sample_tasks(rng, n_tasks, cfg.n, m, cfg.d, cfg.noise_std)
    pred = finite_result(forward(model.params, X, y, P)[0], "the trained model's predictions overflowed")
    implied = np.stack([np.linalg.lstsq(P[b], pred[b], rcond=None)[0] for b in range(n_tasks)])
    spd, ilwd = {}, {}
    for name, weights in references.items():
        w = np.stack([weights(X[b], y[b]) for b in range(n_tasks)])
        spd[name] = np.mean((pred - np.einsum("bmd,bd->bm", P, w)) ** 2, axis=1)
        ilwd[name] = np.sum((implied - w) ** 2, axis=1)
    return ProbeResult(spd, ilwd, seed, n_tasks, m)


def ratio_of_means(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """ā / b̄ for paired samples and its delta-method standard error √(Var(a − R b) / N) / b̄."""
    a, b = finite_array("a", a, ndim=1), finite_array("b", b, ndim=1)
    if a.shape != b.shape or a.size < 2:
        raise InvalidArgument(f"a and b must be paired samples of the same length >= 2, got {a.shape} and {b.shape}")
    if not b.mean() > 0:
        raise InvalidArgument(f"b must have a positive mean, got {b.mean()!r}")
    with np.errstate(all="ignore"):
        r = float(a.mean() / b.mean())
        se = float(np.std(a - r * b, ddof=1) / np.sqrt(a.size) / b.mean())
    return finite_result((r, se), "a and b overflow float64 (entries too large or mean of b too small)")


def paired_log_ratios(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log(a_k / b_k) for paired positive samples; the exponential of their mean is the geometric mean of the
    per-task ratios a_k / b_k, which a few extreme pairs move by at most their share of the mean of the logs."""
    a, b = finite_array("a", a, ndim=1), finite_array("b", b, ndim=1)
    if a.shape != b.shape or a.size < 2:
        raise InvalidArgument(f"a and b must be paired samples of the same length >= 2, got {a.shape} and {b.shape}")
    if not (np.all(a > 0) and np.all(b > 0)):
        raise InvalidArgument("a and b must hold positive numbers (a logarithm of each ratio is taken)")
    return np.log(a) - np.log(b)


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ = {
    "paired_log_ratios": Fuzz(lambda: {"a": np.array([1.0, 2.0, 3.0]), "b": np.array([1.0, 1.5, 1.0])}),
    "ratio_of_means": Fuzz(lambda: {"a": np.array([1.0, 2.0, 3.0]), "b": np.array([1.0, 1.5, 1.0])}),
}
FUZZ_EXEMPT = {
    **{
        name: "transformer kernel or trainer on a validated ProbeConfig"
        for name in (
            "init_params",
            "tokens",
            "forward",
            "loss_and_grads",
            "sample_tasks",
            "train",
            "train_best",
            "as_learner",
        )
    },
    "probe": "takes a Trained model (its ProbeConfig validated) and weight functions",
}
