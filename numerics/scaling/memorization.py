"""The MLP memorization experiment of Nguyen & Reddy (ICLR 2025, arXiv 2412.00104, §3.6).

An MLP φ: R^D → R^H → R^H → R (ReLU, ``numerics.shared.mlp``) is trained by SGD with the binary
cross-entropy on K random item–label pairs: items x_k ~ N(0, I_D/D), labels ℓ_k ∈ {±1}, exactly K/2 of each.
The loss of one pair is softplus(−ℓ φ(x)) = log(1 + e^{−ℓφ(x)}) (BCE on ±1 labels).

While it trains, the constants of the paper's reduced model (§3.4) are logged
on a geometric schedule, from the logits φ₊ on items labelled +1:

    c₁ = ⟨σ(−φ₊)⟩,   c₂ = 1 − ⟨σ(−φ₊)²⟩ / c₁,   c₃ = ⟨e^{−φ₊}⟩,

and the memorization "time" I_K(t) = ∫₀^t c₁ dt′ is integrated from the logged c₁ by the trapezoid rule
(the panels' cumulative sum, as :func:`scipy.integrate.cumulative_trapezoid` forms it; NumPy only, so a
sweep's worker processes do not import SciPy's integrate and stats packages, ≈ 0.5 s of start-up each).
The paper's scaling law is I_K(∞) ~ K^ν, ν ≈ 0.7.

Time unit: t = lr × (SGD steps), the gradient-flow time in which the (w, β) ODE of the paper
is written (dw/dt = (c₁/N)(e^β − c₂ w)). The paper's epochs (60 000 samples) are
``steps · batch / 60000``; both are recorded.

Convergence criterion for I_K(∞). With an unregularised BCE the logits keep growing and c₁
decays like 1/t once every item is memorised (logistic loss on separable data), so ∫₀^∞ c₁ dt
grows logarithmically without bound and "∞" must be a stated cut-off. In practice the tail is
small: at K = 128, H = 128, lr 0.1, c₁ ∝ t^−1.3 from 10 to 70 t_IWL and I_K grows by 3 % between
2 t_IWL and 50 t_IWL. Here I_K(∞) := I_K(T) at the first logged time T with

    c₁(T) ≤ ``c1_tol``   and   I_K(T) − I_K(T/2) ≤ ``rtol`` · I_K(T),

i.e. the MLP has memorised (residual error ≤ c1_tol) and the last doubling of time added at
most a fraction rtol. A run that reaches ``max_steps`` first is reported ``converged=False``;
one whose logits overflow (rate too large) is stopped and reported ``diverged=True``.
The second definition of memorization time, t_IWL, is the first time the in-weights accuracy
(sign φ(x_k) = ℓ_k over the evaluation items) reaches ``iwl_threshold``, interpolated linearly
between logged times.

Speed: float32, preallocated buffers, every SGD update fused into the BLAS call that forms its
gradient (:class:`StackedSGD`), and M networks (different K and/or seeds) trained as one stacked
computation. ``MemorizationSettings(backend="torch", device=...)`` trains with PyTorch instead
(``numerics.scaling.torch_backend``, CPU or CUDA; optional), on the same batches. A network that has
converged is dropped from the stack. Each network draws its items, initial weights and SGD
batches from its own ``numpy.random.default_rng(seed)``, so its run does not depend on which
other networks share the stack.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy.linalg.blas import get_blas_funcs

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import finite_result, finite_scalar, positive_int, seed_value, time_series
from icl_verify.numerics.shared.fuzz import Fuzz, logged_series
from icl_verify.numerics.shared.items import even_k, log_constants, sample_items
from icl_verify.numerics.shared.mlp import MLP, MLPPass, bce_gradient, init_stacked, mlp_backward, mlp_forward
from icl_verify.numerics.shared.stats import first_crossing
from icl_verify.numerics.shared.threads import blas_threads

PAPER_EPOCH = 60_000
"""Samples per epoch in the authors' code (docs/reference.md)."""

BACKENDS = ("numpy", "torch")
"""Trainers of :func:`memorize`: :class:`StackedSGD` (NumPy/SciPy BLAS) or ``torch_backend.TorchSGD`` (PyTorch, optional)."""

_INDEX_BLOCK = 64
"""SGD steps whose batch indices are drawn at once (per network)."""


# ---------------------------------------------------------------------------------------------
# The stacked SGD trainer (the hot loop)


class StackedSGD:
    """Plain SGD on M stacked MLPs (``numerics.shared.mlp``) with the mean BCE over a batch, all buffers preallocated.

    :meth:`gradients` returns ∇θ L (layout of :class:`~numerics.shared.mlp.MLP`, from the reference
    passes :func:`~numerics.shared.mlp.mlp_forward`/:func:`~numerics.shared.mlp.mlp_backward`) for a
    batch ``x (M, B, D)``, ``y (M, B)``; :meth:`step` applies θ ← θ − lr ∇θ L in place.

    The step is written for speed and computes the same update:

    * the first layer's weights and bias are one array ``[W1; b1]`` ``(M, D+1, H)`` that multiplies the
      items with a column of ones appended (:attr:`xa`), so the GEMM adds b1 and, in the backward
      pass, sums its gradient (and D + 1 = 64 at the paper's D = 63 suits the BLAS kernels);
    * every update is fused into the BLAS call that forms its gradient, W ← W − AᵀB as ``?gemm``
      (or ``?gemv``) with β = 1, the rate folded into the upstream gradient ∂L/∂φ — no gradient
      buffers, no separate update pass, no allocation per step;
    * the operands are C-contiguous (M-th network: row-major 2-D slices) and reach BLAS as their
      transposes in Fortran order, so nothing is copied;
    * every product goes to one BLAS library, SciPy's, with the threads the caller allows. NumPy
      bundles another OpenBLAS with a thread pool of its own; with products in both, each pool's
      threads spin on the cores while the other's work, and two threads ran many times slower
      than one. A threaded product may split and reorder its inner sums, so the weights after a
      step on several threads agree with those of one thread within float32 rounding, not bit for
      bit; a given thread count repeats its own results.

    :attr:`params` are views into this storage (they change in place at every step).
    """

    def __init__(self, params: MLP, batch: int, lr: float) -> None:
        self.lr = finite_scalar("lr", lr, positive=True)
        m, d, h = params.W1.shape
        batch = positive_int("batch", batch)
        dtype = params.W1.dtype
        self.layer1 = np.concatenate([params.W1, params.b1[:, None, :]], axis=1)
        self.W2, self.b2, self.w3 = (np.array(a, dtype) for a in (params.W2, params.b2, params.w3))
        self.b3 = np.array(params.b3, dtype)
        self.params = MLP(self.layer1[:, :d], self.layer1[:, d], self.W2, self.b2, self.w3, self.b3)
        self.xa = np.ones((m, batch, d + 1), dtype)
        self.x = self.xa[..., :d]
        self.y, self.z, self.g = (np.empty((m, batch), dtype) for _ in range(3))
        self.h1, self.h2, self.d1, self.d2 = (np.empty((m, batch, h), dtype) for _ in range(4))
        self.mask = np.empty((m, batch, h), bool)
        self.ones = np.ones(batch, dtype)
        self.gemm, self.gemv = get_blas_funcs(("gemm", "gemv"), dtype=dtype)
        self.items = np.empty((0, d + 1), dtype)
        self.labels = np.empty(0, dtype)
        self.work: MLPPass | None = None

    def gradients(self, x: np.ndarray, y: np.ndarray) -> MLP:
        """∇θ of the mean BCE of every network on its batch (``x (M,B,D)``, ``y (M,B)``), by the reference passes."""
        self.x[...] = x
        self.y[...] = y
        logits, self.work = mlp_forward(self.params, self.x, self.work)
        bce_gradient(logits, self.y, 1.0, out=self.g)
        return mlp_backward(self.params, self.work, self.g)

    def _gemm(self, alpha: float, a: np.ndarray, b: np.ndarray, beta: float, c: np.ndarray, ta: bool = False,
              tb: bool = False) -> None:  # fmt: skip
        """c ← α op(a) op(b) + β c in place for C-contiguous 2-D arrays (op(a) = aᵀ if ``ta``, likewise b).

        In Fortran order a C-contiguous array is its own transpose, so BLAS computes cᵀ = α op(b)ᵀ op(a)ᵀ + β cᵀ.
        """
        self.gemm(alpha, b.T, a.T, beta=beta, c=c.T, trans_a=tb, trans_b=ta, overwrite_c=True)

    def step_loaded(self) -> None:
        """One SGD step on the batch already in :attr:`xa` (items and a column of ones) and :attr:`y`.

        Forward h1 = relu(``[x, 1] @ [W1; b1]``), h2 = relu(h1 W2 + b2), φ = h2 w3 + b3; backward with
        g = lr ∂L/∂φ (:func:`~icl_verify.numerics.shared.mlp.bce_gradient`): δ2 = g w3ᵀ ⊙ [h2 > 0],
        δ1 = δ2 W2ᵀ ⊙ [h1 > 0] (before W2 changes), then W2 −= h1ᵀδ2, b2 −= δ2ᵀ1, w3 −= h2ᵀg,
        b3 −= gᵀ1, ``[W1; b1] −= [x, 1]ᵀ δ1``.
        """
        h1, h2, d1, d2, mask, g = self.h1, self.h2, self.d1, self.d2, self.mask, self.g
        for m in range(len(h1)):
            self._gemm(1.0, self.xa[m], self.layer1[m], 0.0, h1[m])
        np.maximum(h1, 0, out=h1)
        for m in range(len(h1)):
            self._gemm(1.0, h1[m], self.W2[m], 0.0, h2[m])
        h2 += self.b2[:, None, :]
        np.maximum(h2, 0, out=h2)
        for m in range(len(h1)):
            self.gemv(1.0, h2[m].T, self.w3[m], trans=1, beta=0.0, y=self.z[m], overwrite_y=True)
        self.z += self.b3[:, None]
        bce_gradient(self.z, self.y, self.lr, out=g)
        np.multiply(g[..., None], self.w3[:, None, :], out=d2)
        np.greater(h2, 0, out=mask)
        d2 *= mask
        for m in range(len(h1)):
            self._gemm(1.0, d2[m], self.W2[m], 0.0, d1[m], tb=True)
            self._gemm(-1.0, h1[m], d2[m], 1.0, self.W2[m], ta=True)
            self.gemv(-1.0, d2[m].T, self.ones, beta=1.0, y=self.b2[m], overwrite_y=True)
            self.gemv(-1.0, h2[m].T, g[m], beta=1.0, y=self.w3[m], overwrite_y=True)
        self.b3 -= g.sum(axis=-1)
        np.greater(h1, 0, out=mask)
        d1 *= mask
        for m in range(len(h1)):
            self._gemm(-1.0, self.xa[m], d1[m], 1.0, self.layer1[m], ta=True)

    def step(self, x: np.ndarray, y: np.ndarray) -> None:
        """One SGD step θ ← θ − lr ∇θ L on every network."""
        self.x[...] = x
        self.y[...] = y
        self.step_loaded()

    def set_items(self, items: np.ndarray, labels: np.ndarray) -> None:
        """The training items ``(M, K_max, D)`` and labels ``(M, K_max)`` that :meth:`step_indices` gathers from."""
        m, k, d = items.shape
        self.items = np.concatenate([items, np.ones((m, k, 1), items.dtype)], axis=2).reshape(m * k, d + 1)
        self.labels = labels.reshape(m * k)

    def step_indices(self, idx: np.ndarray) -> None:
        """One SGD step on the batch of rows ``idx (M, B)`` of the flattened items (network m's rows are its own)."""
        np.take(self.items, idx, axis=0, out=self.xa, mode="clip")  # "clip": no buffering (the indices are valid)
        np.take(self.labels, idx, out=self.y, mode="clip")
        self.step_loaded()

    def numpy_params(self) -> MLP:
        """The current weights (views, no copy)."""
        return self.params


# ---------------------------------------------------------------------------------------------
# Logged constants and the memorization integral


def memorization_integral(times: np.ndarray, c1: np.ndarray) -> np.ndarray:
    """I_K(t_j) = ∫₀^{t_j} c₁ dt at every logged time (trapezoid rule on the logged grid)."""
    t, c = time_series("times", times, "c1", c1)
    with np.errstate(over="ignore", invalid="ignore"):
        integral = _integral(t, c)
    return finite_result(integral, "times and c1 overflow float64 in the integral (entries too large)")


def _panels(times: np.ndarray, c1: np.ndarray) -> np.ndarray:
    """The trapezoid rule's panels (t_{j+1} − t_j)(c_j + c_{j+1})/2 on the logged grid."""
    return np.diff(times) * (c1[1:] + c1[:-1]) / 2.0


def _integral(times: np.ndarray, c1: np.ndarray) -> np.ndarray:
    """:func:`memorization_integral` without validation, for the trainer's own logs (NaN once a run diverged)."""
    return np.concatenate(([0.0], np.cumsum(_panels(times, c1))))


def converged(times: np.ndarray, c1: np.ndarray, c1_tol: float, rtol: float) -> bool:
    """The stated criterion for I_K(∞): c₁(T) ≤ c1_tol and I(T) − I(T/2) ≤ rtol · I(T)."""
    times, c1 = time_series("times", times, "c1", c1)
    c1_tol, rtol = finite_scalar("c1_tol", c1_tol, nonnegative=True), finite_scalar("rtol", rtol, nonnegative=True)
    return _converged(times, c1, c1_tol, rtol)


def _converged(times: np.ndarray, c1: np.ndarray, c1_tol: float, rtol: float) -> bool:
    """:func:`converged` without validation, for the trainer's own logs (False once a run diverged)."""
    if len(times) < 3 or c1[-1] > c1_tol:
        return False
    integral = _integral(times, c1)
    half = np.interp(times[-1] / 2, times, integral)
    return bool(integral[-1] - half <= rtol * integral[-1])


# ---------------------------------------------------------------------------------------------
# Runs


@dataclass(frozen=True)
class MemorizationSettings:
    """Everything that defines a memorization run except K and the seed.

    Defaults are the paper's (§3.6): D = 63, H = 512, SGD lr 0.01, batch 128.
    ``log_ratio``/``min_log_gap``: c's are logged at steps s_{j+1} = max(s_j + min_log_gap, ⌈log_ratio · s_j⌉).
    ``n_eval``: at most this many training items (a fixed random subset) give the logged c's.
    ``backend``/``device``: the trainer (:data:`BACKENDS`) and, for ``"torch"``, its device (``"cpu"``,
    ``"cuda"``, ``"cuda:1"``…). Both are recorded with the run: the backends agree within float32
    rounding step by step, so a seed's run on one is not bitwise the run on the other.
    """

    d: int = 63
    hidden: int = 512
    lr: float = 0.01
    batch: int = 128
    max_steps: int = 10_000_000
    c1_tol: float = 0.02
    rtol: float = 0.05
    iwl_threshold: float = 0.95
    log_ratio: float = 1.05
    min_log_gap: int = 20
    n_eval: int = 2048
    dtype: str = "float32"
    backend: str = "numpy"
    device: str = "cpu"

    def __post_init__(self) -> None:
        for name in ("d", "hidden", "batch", "max_steps", "min_log_gap", "n_eval"):
            positive_int(name, getattr(self, name))
        finite_scalar("lr", self.lr, positive=True)
        finite_scalar("c1_tol", self.c1_tol, positive=True)
        finite_scalar("rtol", self.rtol, positive=True)
        if not 0 < finite_scalar("iwl_threshold", self.iwl_threshold) <= 1:
            raise InvalidArgument(f"iwl_threshold must lie in (0, 1], got {self.iwl_threshold!r}")
        if finite_scalar("log_ratio", self.log_ratio) <= 1:
            raise InvalidArgument(f"log_ratio must be > 1, got {self.log_ratio!r}")
        if self.dtype not in ("float32", "float64"):
            raise InvalidArgument(f"dtype must be 'float32' or 'float64', got {self.dtype!r}")
        if self.backend not in BACKENDS:
            raise InvalidArgument(f"backend must be one of {', '.join(map(repr, BACKENDS))}, got {self.backend!r}")
        if not isinstance(self.device, str) or (self.backend == "numpy" and self.device != "cpu"):
            raise InvalidArgument(
                f"device must be 'cpu' with the numpy backend (a torch device with torch), got {self.device!r}"
            )


@dataclass
class MemorizationRun:
    """One network's logged run: c's, accuracy and I_K on the logged times, with the two memorization times."""

    k: int
    seed: int
    settings: MemorizationSettings
    steps: list[int] = field(default_factory=list)
    c1: list[float] = field(default_factory=list)
    c2: list[float] = field(default_factory=list)
    c3: list[float] = field(default_factory=list)
    iwl_acc: list[float] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)
    converged: bool = False
    diverged: bool = False

    @property
    def times(self) -> np.ndarray:
        """Gradient-flow time t = lr × steps."""
        return self.settings.lr * np.asarray(self.steps, dtype=np.float64)

    @property
    def integral(self) -> np.ndarray:
        """I_K(t) = ∫₀^t c₁ dt′ at the logged times."""
        return _integral(self.times, np.asarray(self.c1))

    @property
    def i_inf(self) -> float:
        """I_K(∞) by the stated criterion (meaningful when :attr:`converged`)."""
        return float(self.integral[-1])

    @property
    def quadrature_error(self) -> float:
        """Integration-error estimate for I_K(T): |I_h − I_2h| / 3 (trapezoid on every logged time vs every other one)."""
        coarse = np.r_[np.arange(0, len(self.steps), 2), len(self.steps) - 1] if len(self.steps) % 2 == 0 else None
        idx = np.arange(0, len(self.steps), 2) if coarse is None else np.unique(coarse)
        return float(abs(self.i_inf - np.sum(_panels(self.times[idx], np.asarray(self.c1)[idx]))) / 3)

    @property
    def t_iwl(self) -> float | None:
        """First time the IWL accuracy reaches the threshold (None if it never did)."""
        return first_crossing(self.times, np.asarray(self.iwl_acc), self.settings.iwl_threshold)

    def summary(self) -> dict[str, Any]:
        """A JSON-ready record: settings, K, seed, I_K(∞), t_IWL, convergence and the logged curves."""
        return {
            "k": self.k,
            "seed": self.seed,
            "settings": asdict(self.settings),
            "i_inf": _finite_or_none(self.i_inf),
            "t_iwl": self.t_iwl,
            "converged": self.converged,
            "diverged": self.diverged,
            "quadrature_error": _finite_or_none(self.quadrature_error),
            "final_step": self.steps[-1],
            "epochs": self.steps[-1] * self.settings.batch / PAPER_EPOCH,
            "curves": {
                "t": self.times.tolist(),
                **{key: [_finite_or_none(v) for v in getattr(self, key)] for key in ("c1", "c2", "c3", "iwl_acc")},
            },
        }


def _finite_or_none(value: float) -> float | None:
    """JSON has no NaN: a non-finite value (a diverged run) is recorded as null."""
    return float(value) if np.isfinite(value) else None


def _next_log(step: int, s: MemorizationSettings) -> int:
    return max(step + s.min_log_gap, int(np.ceil(s.log_ratio * step)))


class _Stack:
    """The data of the networks still training: padded items, batch-index streams, eval subsets."""

    def __init__(self, ks: Sequence[int], seeds: Sequence[int], s: MemorizationSettings) -> None:
        dtype = np.dtype(s.dtype)
        self.rngs = [np.random.default_rng(seed) for seed in seeds]
        data = [sample_items(r, k, s.d, dtype) for r, k in zip(self.rngs, ks)]
        self.params = init_stacked(self.rngs, s.d, s.hidden, dtype)
        self.ks = np.asarray(ks)
        kmax = int(self.ks.max())
        self.items = np.zeros((len(ks), kmax, s.d), dtype)
        self.labels = np.zeros((len(ks), kmax), dtype)
        for m, (x, y) in enumerate(data):
            self.items[m, : len(y)], self.labels[m, : len(y)] = x, y
        n_eval = [min(k, s.n_eval) for k in ks]
        self.eval_idx = [np.sort(r.permutation(k)[:n]) for r, k, n in zip(self.rngs, ks, n_eval)]
        self.batch = s.batch
        self.ids = np.arange(len(ks))
        self.offsets = self.ids[:, None] * kmax
        self.block: np.ndarray = np.empty((len(ks), 0, s.batch), np.int64)

    def batch_indices(self, j: int) -> np.ndarray:
        """Flat row indices into ``items.reshape(-1, D)`` for step j of the current index block."""
        if j == 0:
            block = [r.integers(0, k, (_INDEX_BLOCK, self.batch)) for r, k in zip(self.rngs, self.ks)]
            self.block = np.stack(block)
        return self.block[:, j] + self.offsets

    def logits_on_eval(self) -> list[np.ndarray]:
        """φ on each network's evaluation items (float64)."""
        out = []
        for m in range(len(self.ks)):
            p = self.params.take(np.array([m]))
            out.append(mlp_forward(p, self.items[m : m + 1, self.eval_idx[m]])[0][0].astype(np.float64))
        return out

    def eval_labels(self, m: int) -> np.ndarray:
        return self.labels[m, self.eval_idx[m]].astype(np.float64)

    def keep(self, mask: np.ndarray) -> None:
        """Drop the networks where ``mask`` is False."""
        idx = np.flatnonzero(mask)
        self.params = self.params.take(idx)
        self.items, self.labels = self.items[idx], self.labels[idx]
        self.ks, self.ids = self.ks[idx], self.ids[idx]
        self.rngs = [self.rngs[i] for i in idx]
        self.eval_idx = [self.eval_idx[i] for i in idx]
        self.block = self.block[idx]
        self.offsets = np.arange(len(idx))[:, None] * self.items.shape[1]


def _log(stack: _Stack, runs: list[MemorizationRun], step: int) -> None:
    for m, phi in enumerate(stack.logits_on_eval()):
        run = runs[stack.ids[m]]
        c = log_constants(phi, stack.eval_labels(m))
        run.steps.append(step)
        for key in ("c1", "c2", "c3", "iwl_acc", "loss"):
            getattr(run, key).append(c[key])


def memorize(
    ks: Sequence[int], seeds: Sequence[int], settings: MemorizationSettings | None = None
) -> list[MemorizationRun]:
    """Train one MLP per (K, seed) pair, all stacked, until each meets the I_K(∞) criterion.

    Returns one :class:`MemorizationRun` per pair, in the order given. Nguyen & Reddy §3.6.
    """
    s = MemorizationSettings() if settings is None else settings
    ks = [even_k("ks", k) for k in ks]
    seeds = [seed_value("seeds", sd) for sd in seeds]
    if len(ks) != len(seeds) or not ks:
        raise InvalidArgument(f"ks and seeds must be non-empty and of equal length, got {len(ks)} and {len(seeds)}")
    runs = [MemorizationRun(k, seed, s) for k, seed in zip(ks, seeds)]
    stack = _Stack(ks, seeds, s)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is detected at the next log and reported
        return _train(stack, runs, s)


def _trainer(stack: _Stack, s: MemorizationSettings) -> StackedSGD:
    """The SGD trainer of the networks in ``stack`` on the settings' backend, its items loaded; ``stack.params`` its weights."""
    if s.backend == "torch":
        from icl_verify.numerics.scaling.torch_backend import TorchSGD  # optional: imported only when asked for

        trainer = TorchSGD(stack.params, s.batch, s.lr, s.device)
    else:
        trainer = StackedSGD(stack.params, s.batch, s.lr)
    trainer.set_items(stack.items, stack.labels)
    stack.params = trainer.numpy_params()
    return trainer


def _train(stack: _Stack, runs: list[MemorizationRun], s: MemorizationSettings) -> list[MemorizationRun]:
    """The training loop of :func:`memorize`: log on the schedule, drop finished networks, step."""
    trainer = _trainer(stack, s)
    step, next_log = 0, 0
    while True:
        if step == next_log:
            stack.params = trainer.numpy_params()
            _log(stack, runs, step)
            done = np.array([_converged(runs[i].times, np.asarray(runs[i].c1), s.c1_tol, s.rtol) for i in stack.ids])
            for i in stack.ids[done]:
                runs[i].converged = True
            for i in stack.ids:  # overflow (lr too large): stop that network and say so
                runs[i].diverged = not np.isfinite(runs[i].c1[-1])
            done |= np.array([runs[i].diverged for i in stack.ids])
            if done.all() or step >= s.max_steps:
                return runs
            if done.any():
                stack.keep(~done)
                trainer = _trainer(stack, s)
            next_log = min(_next_log(step, s), s.max_steps)
        trainer.step_indices(stack.batch_indices(step % _INDEX_BLOCK))
        step += 1


def sweep_job(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A sweep job (``numerics.shared.sweep``): ``{"ks": [...], "seeds": [...], "settings": {...}}`` → run summaries.

    The networks of one job are trained as one stack; ``settings`` are :class:`MemorizationSettings` fields.
    The job runs with one OpenBLAS thread wherever it runs (a local process, a Dask worker thread), so
    identical configs give the same results within float32 rounding on every executor (a threaded
    product may sum in another order), and small products avoid OpenBLAS's threaded path, which is
    many times slower on a shared machine; likewise PyTorch's CPU threads with
    ``settings["backend"] == "torch"``.
    """
    if not isinstance(config, Mapping):
        raise InvalidArgument(f"config must be a mapping with keys 'ks' and 'seeds', got {type(config).__name__}")
    unknown = set(config) - {"ks", "seeds", "settings"}
    if unknown:
        raise InvalidArgument(f"config has unknown keys {sorted(unknown)}")
    missing = {"ks", "seeds"} - set(config)
    if missing:
        raise InvalidArgument(f"config is missing the keys {sorted(missing)}")
    try:
        settings = MemorizationSettings(**config.get("settings", {}))
    except TypeError as exc:
        raise InvalidArgument(f"config['settings'] has a field MemorizationSettings does not know: {exc}") from None
    with blas_threads(1), ExitStack() as threads:
        if settings.backend == "torch":
            from icl_verify.numerics.scaling.torch_backend import torch_threads

            threads.enter_context(torch_threads(1))
        runs = memorize(config["ks"], config["seeds"], settings)
    return [r.summary() for r in runs]


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ = {
    "memorization_integral": Fuzz(logged_series),
    "converged": Fuzz(lambda: logged_series() | {"c1_tol": 0.05, "rtol": 0.1}),
    "sweep_job": Fuzz(lambda: {"config": {"ks": [4], "seeds": [0], "settings": {"bad": 1}}}),
}
FUZZ_EXEMPT = {"memorize": "trainer: MemorizationSettings and seeds are validated"}
