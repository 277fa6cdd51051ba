"""The one-layer transformer of Nguyen & Reddy (ICLR 2025, arXiv 2412.00104, §3.1), NumPy, by hand.

As the authors' code (attention.py, ``CausalTransformer``): tokens t_j = x_j ⊕ onehot(ℓ_j) of width
E = D + 2 (the query's label entries are zero); LayerNorm with affine (γ, b) on every token; one
softmax head, scale 1, no positional code, keys/values/query from the normalised tokens
(h W_K, h W_V, h_q W_Q, no bias); the query (last token) attends causally to all N + 1 tokens;
the logit is MLP(h_q + attention output), MLP E → H → H → 1 (ReLU). With D = 63 the MLP is the
paper's 65 → 512 → 512 → 1. BCE on ±1 labels.

Weight decay λ applies to the attention path only — the LayerNorm affine and W_Q, W_K, W_V — as the
code's optimiser groups do (the MLP group gets 1e-10, i.e. none). SGD; t = lr × steps.
Forward and backward passes are hand-written and tested against finite differences.
Tokens are rows, batch first; float32 in training.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.kinetics import task as icl_task
from icl_verify.numerics.shared.checks import finite_scalar, positive_int, seed_value
from icl_verify.numerics.shared.items import even_k
from icl_verify.numerics.shared.mlp import (
    MLP,
    bce,
    bce_gradient,
    init_mlp,
    mlp_backward,
    mlp_forward,
    mlp_input_gradient,
)
from icl_verify.numerics.shared.threads import blas_threads

LN_EPS = 1e-5
"""PyTorch's LayerNorm ε."""


@dataclass
class Transformer:
    """Parameters: LayerNorm ``gamma``, ``beta_ln`` (E,); ``Wq``, ``Wk``, ``Wv`` (E, E) acting on rows; the MLP."""

    gamma: np.ndarray
    beta_ln: np.ndarray
    Wq: np.ndarray
    Wk: np.ndarray
    Wv: np.ndarray
    mlp: MLP

    def attention_arrays(self) -> tuple[np.ndarray, ...]:
        """The weight-decayed attention path."""
        return (self.gamma, self.beta_ln, self.Wq, self.Wk, self.Wv)


def init_transformer(d: int, hidden: int, rng: np.random.Generator, *, dtype: type = np.float32) -> Transformer:
    """PyTorch defaults: LayerNorm γ = 1, b = 0; Linear(E, 3E, bias=False) ~ U(±1/√E); MLP as nn.Linear."""
    e = positive_int("d", d) + 2
    bound = 1 / np.sqrt(e)
    w = [rng.uniform(-bound, bound, (e, e)).astype(dtype) for _ in range(3)]
    return Transformer(np.ones(e, dtype), np.zeros(e, dtype), *w, init_mlp(e, hidden, rng, dtype=dtype))


def tokens(seqs: icl_task.Sequences) -> np.ndarray:
    """(B, N + 1, D + 2): context tokens x ⊕ onehot(ℓ) with ℓ = +1 ↦ (0, 1), −1 ↦ (1, 0), then the query x_q ⊕ 0."""
    b, n, d = seqs.x.shape
    out = np.zeros((b, n + 1, d + 2), dtype=seqs.x.dtype)
    out[:, :n, :d] = seqs.x
    out[:, n, :d] = seqs.x_q
    out[:, :n, d] = seqs.labels < 0
    out[:, :n, d + 1] = seqs.labels > 0
    return out


def forward(p: Transformer, x: np.ndarray) -> tuple[np.ndarray, tuple]:
    """Logits (B,) of the query (last token) for token arrays ``x (B, T, E)``, and the backward cache."""
    mu = x.mean(axis=2, keepdims=True)
    xc = x - mu
    inv = 1 / np.sqrt((xc**2).mean(axis=2, keepdims=True) + LN_EPS)
    xhat = xc * inv
    h = xhat * p.gamma + p.beta_ln
    hq = h[:, -1]
    q = hq @ p.Wq
    k = h @ p.Wk
    v = h @ p.Wv
    s = np.einsum("bte,be->bt", k, q)
    a = np.exp(s - s.max(axis=1, keepdims=True))
    a /= a.sum(axis=1, keepdims=True)
    r = hq + np.einsum("bt,bte->be", a, v)
    z, mlp_cache = mlp_forward(p.mlp, r)
    return z, (xhat, h, q, k, v, a, mlp_cache)


def loss_grads(p: Transformer, x: np.ndarray, labels: np.ndarray) -> tuple[float, Transformer]:
    """Batch-mean BCE log(1 + e^{−ℓ z}) and its gradient with respect to every parameter."""
    z, (xhat, h, q, k, v, a, mlp_cache) = forward(p, x)
    dz = bce_gradient(z, labels)
    g_mlp = mlp_backward(p.mlp, mlp_cache, dz)
    dr = mlp_input_gradient(p.mlp, mlp_cache)
    dh = np.zeros_like(h)
    dh[:, -1] = dr  # residual h_q + o
    dv = a[:, :, None] * dr[:, None, :]
    da = np.einsum("bte,be->bt", v, dr)
    ds = a * (da - np.sum(a * da, axis=1, keepdims=True))
    dk = ds[:, :, None] * q[:, None, :]
    dq = np.einsum("bt,bte->be", ds, k)
    hq = h[:, -1]
    dh += dk @ p.Wk.T + dv @ p.Wv.T
    dh[:, -1] += dq @ p.Wq.T
    flat = h.reshape(-1, h.shape[2])
    grads = Transformer(
        np.sum(dh * xhat, axis=(0, 1)),
        np.sum(dh, axis=(0, 1)),
        hq.T @ dq,
        flat.T @ dk.reshape(flat.shape),
        flat.T @ dv.reshape(flat.shape),
        g_mlp,
    )
    return float(bce(z, labels)), grads


def sgd_step(p: Transformer, g: Transformer, lr: float, decay: float) -> None:
    """One SGD step in place, weight decay λ on the attention path only (gradient += λθ)."""
    for param, grad in zip(p.attention_arrays(), g.attention_arrays()):
        param -= lr * (grad + decay * param)
    for param, grad in zip(p.mlp.arrays(), g.mlp.arrays()):
        param -= lr * grad


def accuracy(p: Transformer, seqs: icl_task.Sequences) -> float:
    """Fraction of sequences with z·ℓ_q > 0 (the code's accuracy)."""
    z, _ = forward(p, tokens(seqs))
    return float(np.mean(z * seqs.l_q > 0))


@dataclass(frozen=True)
class TransformerConfig:
    """One run: D = 63, N = 100, width 512 are the paper's sizes; ``k=None`` is K → ∞."""

    d: int = 63
    k: int | None = 10_000
    n: int = 100
    hidden: int = 512
    lr: float = 0.1
    batch: int = 128
    steps: int = 1000
    decay: float = 0.0
    equalised: bool = False
    record_every: int = 50
    eval_batch: int = 512

    def __post_init__(self) -> None:
        for name in ("d", "n", "hidden", "batch", "steps", "record_every", "eval_batch"):
            positive_int(name, getattr(self, name))
        if self.k is not None:
            even_k("k", self.k)
        finite_scalar("lr", self.lr, positive=True)
        finite_scalar("decay", self.decay, nonnegative=True)
        if self.equalised and self.n % 2:
            raise InvalidArgument(f"n must be even for equalised contexts, got {self.n}")


@dataclass
class TransformerRun:
    """Recorded times t = lr·step with ICL / IWL accuracy and the training loss."""

    config: TransformerConfig
    seed: int
    t: list[float] = field(default_factory=list)
    icl_acc: list[float] = field(default_factory=list)
    iwl_acc: list[float] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)


def train_transformer(config: TransformerConfig, seed: int, *, threads: int = 1) -> TransformerRun:
    """SGD on the item–label task; everything random comes from ``default_rng(seed)`` (recorded)."""
    seed = seed_value("seed", seed)
    with blas_threads(threads):
        return _train(config, seed)


def _train(cfg: TransformerConfig, seed: int) -> TransformerRun:
    rng = np.random.default_rng(seed)
    task = icl_task.make_task(cfg.k, cfg.d, rng, seed=seed) if cfg.k is not None else None
    p = init_transformer(cfg.d, cfg.hidden, rng)
    icl = icl_task.sample_icl_eval(cfg.d, cfg.n, cfg.eval_batch, rng, equalised=cfg.equalised)
    iwl = icl_task.sample_iwl_eval(task, cfg.n, cfg.eval_batch, rng) if task is not None and task.k > cfg.n else None
    run = TransformerRun(cfg, seed)
    loss = float("nan")
    for step in range(cfg.steps + 1):
        if step % cfg.record_every == 0:
            run.t.append(cfg.lr * step)
            run.icl_acc.append(accuracy(p, icl))
            run.iwl_acc.append(accuracy(p, iwl) if iwl is not None else float("nan"))
            run.loss.append(loss)
        if step == cfg.steps:
            break
        seqs = icl_task.sample_training(task, cfg.n, cfg.batch, rng, d=cfg.d, equalised=cfg.equalised)
        loss, grads = loss_grads(p, tokens(seqs), seqs.l_q)
        sgd_step(p, grads, cfg.lr, cfg.decay)
    return run


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ_EXEMPT = {
    **{
        name: "transformer kernel on a validated TransformerConfig"
        for name in ("init_transformer", "tokens", "forward", "loss_grads", "sgd_step", "accuracy")
    },
    "train_transformer": "trainer: TransformerConfig validates every field",
}
