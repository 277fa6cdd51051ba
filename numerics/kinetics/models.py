"""The reduced ("minimal") model of Nguyen & Reddy (ICLR 2025, arXiv 2412.00104, §3.2), trained by SGD.

    z(x_t) = φ(x_t) + w Σ_{j=1}^{N} softmax_j(β x_t·x_j) ℓ_j,        loss = log(1 + e^{−ℓ_t z}),

with φ an MLP D → H → H → 1 (ReLU; PyTorch's default nn.Linear init, as the authors' code;
``numerics.shared.mlp``) and w, β scalars (the attention path). The sum runs over the N context
tokens (the query's own label is hidden). Forward and backward passes are written by hand
(tested against finite differences). The model reads a sequence only through x_t, the scores
g_j = x_t·x_j and the labels, so it takes them as :class:`numerics.kinetics.task.Scores`, sampled
without forming the context items (K → ∞: from their sufficient statistics; finite K: from the task's
Gram matrix — ``numerics.kinetics.task``).

Training: plain SGD with rate η on the batch-mean loss; weight decay λ on the attention path only
(w, β), as PyTorch's SGD applies it (gradient += λθ). While training, the MLP constants c₁, c₂, c₃
(§3.4) are measured on the training items, and ICL / IWL accuracy on fixed evaluation sets.

Conventions (:class:`ReducedConfig`; ours are the defaults, the authors' code — github
anhhuyalex/icl-kinetics — does otherwise, as cited):

* ``context="pairs"``: N context pairs plus the query. ``"with_query"``: N counts the query, as the
  code's ``len_context`` (main_icl.py l. 277: a sequence of ``len_seq = len_context`` items whose
  last is the query, l. 333–338), i.e. N − 1 context pairs (:attr:`ReducedConfig.context_pairs`).
* ``clock="lr_steps"``: t = η × steps, the gradient-flow time of the paper's ODE (§3.4), so a run
  compares with ``numerics.kinetics.ode.integrate``. ``"iterations"``: t = steps, as the code counts
  time (analysis.py l. 94–99: epoch index × 469 iterations per epoch). Its stamps are an epoch
  off: c₁, measured on the first 10 batches of epoch t, is stamped (t + 1) × 469 (l. 213), one epoch
  late; t_ICL, the first epoch e whose end-of-epoch ICL accuracy exceeds 0.95, is stamped e × 469
  (l. 351–357), though (e + 1) × 469 iterations have run. Here every record is stamped with the
  steps done when it is measured. :func:`ode_for_run` answers in the run's clock.
* ``constants_labels="both"``: u = ℓ φ(x) over all K items (what the derivation of the simplified
  loss averages over). ``"positive"``: φ₊ over the +1 items only, as the paper writes and the
  code computes (analysis.py l. 202–205; the code takes the logits of the first 10 training
  batches every 10 epochs, mlp.py l. 280, 296 — here the items are the fixed set of
  ``constants_items`` training items at every record, so only the label restriction is the code's).
* ``c2_convention="paper"``: the recorded c₂ is the paper's c₂ = 1 − ⟨σ(−φ₊)²⟩/c₁ (§3.4). ``"code"``:
  the quantity the code stores as ``c2`` (analysis.py l. 207–208: the comment states the paper's c₂,
  the expression is 1 − (1 − ⟨σ(−φ₊)²⟩/c₁) = ⟨σ(−φ₊)²⟩/c₁, i.e. 1 − c₂; its DataFrame column is
  named ``"1-c2"``, l. 219, and the figure "Supp Fig A2b: c2 vs. iterations" plots it, l. 232–236).
  The two agree only where ⟨σ(−φ₊)²⟩ = c₁/2, e.g. φ₊ ≡ 0 at initialisation (both ½); as the MLP
  memorises, the paper's c₂ → 1 and the code's → 0 (:func:`code_c2`; the claim
  ``kinetics-authors-code-c2-is-paper-c2``). :func:`ode_for_run` always drives the ODE with the paper's c₂.
* ``lr``: ours 0.1 here (0.5 in the built-in claims and ``icl-verify kinetics``); the code's
  experiments run at 0.01 (main.sh l. 16, ``--lr 0.01``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy.special import expit

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.kinetics import ode as kin
from icl_verify.numerics.kinetics import task as icl_task
from icl_verify.numerics.shared.checks import finite_scalar, positive_int, seed_value
from icl_verify.numerics.shared.items import even_k, log_constants
from icl_verify.numerics.shared.mlp import MLP, MLPPass, bce, bce_gradient, init_mlp, mlp_backward, mlp_forward
from icl_verify.numerics.shared.threads import blas_threads

# ---------------------------------------------------------------------------------------------
# The reduced model


@dataclass
class Reduced:
    """Reduced-model parameters: the MLP φ and the attention scalars w, β."""

    mlp: MLP
    w: float
    beta: float


@dataclass(frozen=True)
class ReducedGrads:
    mlp: MLP
    w: float
    beta: float


def attention_logit(w: float, beta: float, seqs: icl_task.Scores) -> tuple[np.ndarray, tuple]:
    """w Σ_j softmax_j(β g_j) ℓ_j, g_j = x_q·x_j, for each sequence ``(B,)``, and the cache for the backward pass."""
    g = seqs.g
    s = beta * g
    a = np.exp(s - s.max(axis=1, keepdims=True))
    a /= a.sum(axis=1, keepdims=True)
    weighted = a * seqs.labels  # a_j ℓ_j
    mix = weighted.sum(axis=1)
    return w * mix, (g, a, weighted, mix)


def reduced_forward(p: Reduced, seqs: icl_task.Scores, work: MLPPass | None = None) -> tuple[np.ndarray, tuple]:
    """Logits z = φ(x_q) + w Σ_j softmax_j(β x_q·x_j) ℓ_j ``(B,)`` (paper §3.2).

    ``work``: an MLP pass of the batch's shapes to reuse (:func:`~icl_verify.numerics.shared.mlp.mlp_forward`).
    """
    phi, mlp_cache = mlp_forward(p.mlp, seqs.x_q, work)
    att, att_cache = attention_logit(p.w, p.beta, seqs)
    return phi + att, (mlp_cache, att_cache)


def reduced_grads(p: Reduced, seqs: icl_task.Scores, work: MLPPass | None = None) -> tuple[np.ndarray, ReducedGrads]:
    """Logits z ``(B,)`` and the gradient of the batch-mean BCE (hand-written backward pass).

    ``work``: as for :func:`reduced_forward`; the MLP's gradients then live in its buffers.
    """
    z, (mlp_cache, (g, a, weighted, mix)) = reduced_forward(p, seqs, work)
    dz = bce_gradient(z, seqs.l_q)
    g_bar = (a * g).sum(axis=1)
    dmix_dbeta = (weighted * g).sum(axis=1) - mix * g_bar  # ∂a_j/∂β = a_j (g_j − ḡ)
    grads = ReducedGrads(
        mlp_backward(p.mlp, mlp_cache, dz), float((dz * mix).sum()), float((dz * p.w * dmix_dbeta).sum())
    )
    return z, grads


def reduced_loss_grads(p: Reduced, seqs: icl_task.Scores) -> tuple[float, ReducedGrads]:
    """Batch-mean BCE of the reduced model and its gradient (hand-written backward pass)."""
    z, grads = reduced_grads(p, seqs)
    return float(bce(z, seqs.l_q)), grads


def accuracy(p: Reduced, seqs: icl_task.Scores) -> float:
    """Fraction of sequences with sign z = ℓ_q (the code's ``(z·ℓ > 0)``)."""
    z = mlp_forward(p.mlp, seqs.x_q)[0] + attention_logit(p.w, p.beta, seqs)[0]
    return float(np.mean(z * seqs.l_q > 0))


def code_c2(phi_plus: np.ndarray) -> float:
    """The ``c2`` of the authors' code on the logits φ₊ of +1 items, as written there (analysis.py l. 205, 208):
    c₁ = ⟨σ(−φ₊)⟩, then 1 − (1 − ⟨σ(−φ₊)²⟩/c₁), which is ⟨σ(−φ₊)²⟩/c₁ = 1 − the paper's c₂ (§3.4)."""
    s = expit(-np.asarray(phi_plus, dtype=np.float64))
    c1 = np.mean(s)
    return float(1 - (1 - np.mean(s**2) / c1))


def in_c2_convention(c2: float | np.ndarray, convention: str) -> float | np.ndarray:
    """The paper's c₂ expressed in ``convention``: itself (``"paper"``) or the code's 1 − c₂ (``"code"``).

    The map is its own inverse, so it also takes a recorded value back to the paper's c₂."""
    return c2 if convention == "paper" else 1.0 - c2


def mlp_constants(mlp: MLP, items: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """c₁, c₂, c₃ (§3.4) from u = ℓ φ(x) over the given items (symmetric form of the φ₊ average)."""
    phi, _ = mlp_forward(mlp, items)
    return log_constants(labels * phi, np.ones_like(labels))


# ---------------------------------------------------------------------------------------------
# Training


CONTEXTS = ("pairs", "with_query")
CLOCKS = ("lr_steps", "iterations")
CONSTANTS_LABELS = ("both", "positive")
C2_CONVENTIONS = ("paper", "code")


@dataclass(frozen=True)
class ReducedConfig:
    """Settings of one reduced-model run. ``k=None`` is K → ∞; ``decay`` is λ on (w, β) only.

    ``stop_icl``: stop at the first record with ICL accuracy above it (the authors' code stops at 0.99).
    ``context``, ``clock``, ``constants_labels``, ``c2_convention``: the conventions of the module docstring.
    """

    d: int = 32
    k: int | None = 256
    n: int = 16
    hidden: int = 64
    lr: float = 0.1
    batch: int = 64
    steps: int = 2000
    w0: float = 0.0
    beta0: float = 0.0
    decay: float = 0.0
    equalised: bool = False
    record_every: int = 10
    eval_batch: int = 512
    constants_items: int = 1024
    stop_icl: float | None = None
    context: str = "pairs"
    clock: str = "lr_steps"
    constants_labels: str = "both"
    c2_convention: str = "paper"

    @property
    def context_pairs(self) -> int:
        """Context pairs per sequence: N (``context="pairs"``) or N − 1 (``"with_query"``: N counts the query)."""
        return self.n - (self.context == "with_query")

    def __post_init__(self) -> None:
        for name in ("d", "n", "hidden", "batch", "steps", "record_every", "eval_batch", "constants_items"):
            positive_int(name, getattr(self, name))
        if self.k is not None:
            even_k("k", self.k)
        finite_scalar("lr", self.lr, positive=True)
        finite_scalar("w0", self.w0)
        finite_scalar("beta0", self.beta0)
        finite_scalar("decay", self.decay, nonnegative=True)
        for name, allowed in (
            ("context", CONTEXTS),
            ("clock", CLOCKS),
            ("constants_labels", CONSTANTS_LABELS),
            ("c2_convention", C2_CONVENTIONS),
        ):
            if getattr(self, name) not in allowed:
                raise InvalidArgument(f"{name} must be one of {', '.join(allowed)}, got {getattr(self, name)!r}")
        if self.context_pairs < 1:
            raise InvalidArgument(f"n must be at least 2 when it counts the query (context='with_query'), got {self.n}")
        if self.equalised and self.context_pairs % 2:
            parity = "even" if self.context == "pairs" else "odd when it counts the query (n − 1 context pairs)"
            raise InvalidArgument(f"n must be {parity} for equalised contexts, got {self.n}")


@dataclass
class ReducedRun:
    """A recorded run: times t = η·step and, at each, w, β, c₁, c₂, c₃, ICL and IWL accuracy, loss."""

    config: ReducedConfig
    seed: int
    t: list[float] = field(default_factory=list)
    w: list[float] = field(default_factory=list)
    beta: list[float] = field(default_factory=list)
    c1: list[float] = field(default_factory=list)
    c2: list[float] = field(default_factory=list)
    c3: list[float] = field(default_factory=list)
    icl_acc: list[float] = field(default_factory=list)
    iwl_acc: list[float] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)

    def arrays(self) -> dict[str, np.ndarray]:
        keys = ("t", "w", "beta", "c1", "c2", "c3", "icl_acc", "iwl_acc", "loss")
        return {k: np.asarray(getattr(self, k), dtype=float) for k in keys}

    def t_icl(self, threshold: float = 0.95) -> float:
        """First recorded time with ICL accuracy > ``threshold`` (the code's t_ICL); NaN if never."""
        acc = np.asarray(self.icl_acc)
        hit = np.flatnonzero(acc > threshold)
        return float(self.t[hit[0]]) if hit.size else float("nan")


def _constant_items(cfg: ReducedConfig, task: icl_task.ItemLabelTask | None, rng: np.random.Generator):
    """Items on which c₁, c₂ are measured: the K training items, or fresh items with random labels (K → ∞)."""
    if task is not None:
        items, labels = task.items, task.labels
    else:
        items = (rng.standard_normal((cfg.constants_items, cfg.d)) / np.sqrt(cfg.d)).astype(np.float32)
        labels = rng.choice(np.array([1.0, -1.0], dtype=np.float32), cfg.constants_items)
    if cfg.constants_labels == "positive":
        return items[labels > 0], labels[labels > 0]
    return items, labels


def _record(run: ReducedRun, p: Reduced, step: int, loss: float, evals: dict, items) -> None:
    run.t.append(run.config.lr * step if run.config.clock == "lr_steps" else float(step))
    run.w.append(p.w)
    run.beta.append(p.beta)
    c = mlp_constants(p.mlp, *items)
    run.c1.append(c["c1"])
    run.c2.append(in_c2_convention(c["c2"], run.config.c2_convention))
    run.c3.append(c["c3"])
    run.icl_acc.append(accuracy(p, evals["icl"]))
    run.iwl_acc.append(accuracy(p, evals["iwl"]) if "iwl" in evals else float("nan"))
    run.loss.append(loss)


def sgd_step(p: Reduced, grads: ReducedGrads, lr: float, decay: float) -> None:
    """One SGD step in place; weight decay λ only on w and β (gradient += λθ)."""
    for param, grad in zip(p.mlp.arrays(), grads.mlp.arrays()):
        param -= lr * grad
    p.w -= lr * (grads.w + decay * p.w)
    p.beta -= lr * (grads.beta + decay * p.beta)


def train_reduced(config: ReducedConfig, seed: int, *, threads: int = 1) -> ReducedRun:
    """Train the reduced model from (w₀, β₀) with SGD and record its kinetics (see module docstring).

    Everything random (items, initial MLP, batches, evaluation sets) comes from
    ``numpy.random.default_rng(seed)``; the seed is stored in the run. Runs with ``threads``
    OpenBLAS threads (one is fastest for these small products on a shared machine).
    """
    seed = seed_value("seed", seed)
    with blas_threads(threads):
        return _train(config, seed)


@dataclass
class _Start:
    """A run's state before its first step: its generator, the model, the evaluation sets, the items on
    which c₁, c₂ are measured, its empty record and its batch sampler."""

    rng: np.random.Generator
    task: icl_task.ItemLabelTask | None
    p: Reduced
    evals: dict
    items: tuple
    run: ReducedRun
    sample: Any


def _start(cfg: ReducedConfig, seed: int) -> _Start:
    """Draw a run's task, initial MLP and evaluation sets from ``numpy.random.default_rng(seed)``, in this order."""
    rng = np.random.default_rng(seed)
    task = icl_task.make_task(cfg.k, cfg.d, rng, seed=seed) if cfg.k is not None else None
    p = Reduced(init_mlp(cfg.d, cfg.hidden, rng), float(cfg.w0), float(cfg.beta0))
    n = cfg.context_pairs
    evals = {"icl": icl_task.sample_icl_eval_scores(cfg.d, n, cfg.eval_batch, rng, equalised=cfg.equalised)}
    if task is not None and task.k > n:
        evals["iwl"] = icl_task.sample_iwl_eval_scores(task, n, cfg.eval_batch, rng)
    items = _constant_items(cfg, task, rng)
    sample = icl_task.training_scores_sampler(task, n, cfg.batch, d=cfg.d, equalised=cfg.equalised)
    return _Start(rng, task, p, evals, items, ReducedRun(cfg, seed), sample)


def _train(cfg: ReducedConfig, seed: int) -> ReducedRun:
    s = _start(cfg, seed)
    p, run = s.p, s.run
    work, loss = None, float("nan")
    for step in range(cfg.steps + 1):
        if step % cfg.record_every == 0:
            _record(run, p, step, loss, s.evals, s.items)
        if step == cfg.steps or (cfg.stop_icl is not None and run.icl_acc[-1] > cfg.stop_icl):
            break
        seqs = s.sample(s.rng)
        if work is None:
            work = MLPPass(p.mlp, seqs.x_q)
        z, grads = reduced_grads(p, seqs, work)
        if (step + 1) % cfg.record_every == 0:  # the loss is read only by the next record
            loss = float(bce(z, seqs.l_q))
        sgd_step(p, grads, cfg.lr, cfg.decay)
    return run


def train_reduced_together(configs: list[ReducedConfig], seeds: list[int], *, threads: int = 1) -> list[ReducedRun]:
    """:func:`train_reduced` for several runs that differ only in (w₀, β₀) and the seed, as one stacked computation.

    Each run draws from its own generator exactly as :func:`train_reduced` does and gets the same record,
    bit for bit (tested): the MLPs' products are the per-network BLAS products of a stack
    (``numerics.shared.mlp``), the attention sums run along each sequence as before, and w, β are
    rounded to float32 where the single run's Python floats are. Small models (the bimodality claims:
    width 32, batch 64) spend most of a single run's step on NumPy calls, which the stack shares.
    ``stop_icl`` must be None (every run takes ``steps`` steps).
    """
    if not configs or len(configs) != len(seeds):
        raise InvalidArgument(
            f"configs and seeds must be non-empty and of equal length, got {len(configs)} and {len(seeds)}"
        )
    base = replace(configs[0], w0=0.0, beta0=0.0)
    if any(replace(c, w0=0.0, beta0=0.0) != base for c in configs):
        raise InvalidArgument("configs must differ only in w0 and beta0")
    if base.stop_icl is not None:
        raise InvalidArgument("stop_icl must be None for runs trained together")
    seeds = [seed_value("seeds", seed) for seed in seeds]
    with blas_threads(threads):
        return _train_together(configs, seeds)


def _train_together(configs: list[ReducedConfig], seeds: list[int]) -> list[ReducedRun]:
    cfg = configs[0]
    starts = [_start(c, seed) for c, seed in zip(configs, seeds)]
    mlp = MLP(*(np.stack(arrays) for arrays in zip(*(s.p.mlp.arrays() for s in starts))))
    w = np.array([s.p.w for s in starts])
    beta = np.array([s.p.beta for s in starts])
    own = [MLP(*(a[m, ...] for a in mlp.arrays())) for m in range(len(starts))]  # views of each network
    rngs = [s.rng for s in starts]
    tasks = [s.task for s in starts if s.task is not None and s.task.gram is not None]
    together = len(tasks) == len(starts) and not cfg.equalised
    if together:  # every task's batch gathered in one pass
        sample = icl_task.stacked_scores_sampler(tasks, cfg.context_pairs, cfg.batch)
        batch = sample(rngs)
    else:
        first = [s.sample(s.rng) for s in starts]
        batch = icl_task.Scores(*(np.stack(parts) for parts in zip(*((q.g, q.labels, q.x_q, q.l_q) for q in first))))
    work = MLPPass(mlp, batch.x_q)
    losses = [float("nan")] * len(starts)
    for step in range(cfg.steps + 1):
        if step % cfg.record_every == 0:
            for m, s in enumerate(starts):
                _record(s.run, Reduced(own[m], float(w[m]), float(beta[m])), step, losses[m], s.evals, s.items)
        if step == cfg.steps:
            break
        if step and together:
            batch = sample(rngs)
        elif step:
            for m, s in enumerate(starts):
                q = s.sample(s.rng)
                batch.g[m], batch.labels[m], batch.x_q[m], batch.l_q[m] = q.g, q.labels, q.x_q, q.l_q
        w32, beta32 = w.astype(np.float32), beta.astype(np.float32)  # what a Python float becomes beside float32
        phi, _ = mlp_forward(mlp, batch.x_q, work)
        scores = beta32[:, None, None] * batch.g
        a = np.exp(scores - scores.max(axis=-1, keepdims=True))
        a /= a.sum(axis=-1, keepdims=True)
        weighted = a * batch.labels
        mix = weighted.sum(axis=-1)
        z = phi + w32[:, None] * mix
        dz = bce_gradient(z, batch.l_q)
        dmix_dbeta = (weighted * batch.g).sum(axis=-1) - mix * (a * batch.g).sum(axis=-1)
        grads = mlp_backward(mlp, work, dz)
        grad_w = (dz * mix).sum(axis=-1).astype(np.float64)
        grad_beta = (dz * w32[:, None] * dmix_dbeta).sum(axis=-1).astype(np.float64)
        if (step + 1) % cfg.record_every == 0:
            losses = [float(bce(z[m], batch.l_q[m])) for m in range(len(starts))]
        for param, grad in zip(mlp.arrays(), grads.arrays()):
            param -= cfg.lr * grad
        w -= cfg.lr * (grad_w + cfg.decay * w)
        beta -= cfg.lr * (grad_beta + cfg.decay * beta)
    return [s.run for s in starts]


def threshold_job(config: Mapping[str, Any]) -> dict[str, Any]:
    """A sweep job: one reduced-model run → its final ICL/IWL accuracy (for the K*(N) sweeps of the scaling family).

    ``config = {"reduced": {ReducedConfig fields}, "seed": int}``. Nguyen & Reddy §3.6 locate K*
    from the final ICL accuracy (novel items, query in context) against log₁₀ K at fixed N.
    """
    run = train_reduced(ReducedConfig(**config["reduced"]), config["seed"])
    t_icl = run.t_icl()
    return {
        "n": run.config.n,
        "k": run.config.k,
        "seed": run.seed,
        "icl_acc": float(run.icl_acc[-1]),
        "iwl_acc": float(run.iwl_acc[-1]),
        "c1_final": float(run.c1[-1]),
        "t_icl": None if np.isnan(t_icl) else t_icl,
        "t_final": float(run.t[-1]),
    }


def ode_for_run(
    run: ReducedRun, *, beta_cap: float = kin.BETA_CAP, t_eval: object | None = None
) -> kin.KineticsSolution:
    """The paper's (w, β) ODE (eq. 4) from the run's (w₀, β₀), driven by the run's *measured* c₁(t), c₂(t).

    c₂ is the paper's whatever convention the run records it in (``c2_convention``).
    Same number of context pairs N, weight decay (λ on w and β) and context statistics as the run:
    equalised contexts use the drive (c₁/N)(e^β − 1) without the c₂ term (§3.7). ``beta_cap`` is
    the level whose first crossing ``t_icl`` reports; it stops at the last recorded time. Times
    (``t_eval``, the returned ``t`` and ``t_icl``) are in the run's clock; the ODE is integrated in
    gradient-flow time η × steps.
    """
    a, cfg = run.arrays(), run.config
    flow = cfg.lr if cfg.clock == "iterations" else 1.0  # run time × flow = η × steps
    t = a["t"] * flow
    c2 = 0.0 if cfg.equalised else kin.table(t, in_c2_convention(a["c2"], cfg.c2_convention), name="c2")
    sol = kin.integrate(
        cfg.w0,
        cfg.beta0,
        n=cfg.context_pairs,
        c1=kin.table(t, a["c1"], name="c1"),
        c2=c2,
        t_max=float(t[-1]),
        decay_w=cfg.decay,
        decay_beta=cfg.decay,
        t_eval=None if t_eval is None else np.asarray(t_eval, dtype=float) * flow,
        beta_cap=beta_cap,
        equalised=cfg.equalised,
    )
    return replace(sol, t=sol.t / flow, t_icl=sol.t_icl / flow)


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ_EXEMPT = {
    # inner-loop kernels on a validated ReducedConfig; a check per call would cost the trainer's time
    **{
        name: "reduced-model kernel or trainer on a validated ReducedConfig"
        for name in (
            "attention_logit",
            "reduced_forward",
            "reduced_loss_grads",
            "reduced_grads",
            "accuracy",
            "mlp_constants",
            "sgd_step",
        )
    },
    "train_reduced": "trainer: its ReducedConfig validates every field",
    "train_reduced_together": "trainer: its ReducedConfigs validate every field, and it checks they differ only in w0, beta0",
    "threshold_job": "one reduced-model training run (its ReducedConfig validates)",
    "ode_for_run": "takes a finished ReducedRun",
    "code_c2": "the authors' expression, transcribed as written (its claim draws its logits)",
    "in_c2_convention": "c₂ on a validated ReducedConfig's convention",
}
