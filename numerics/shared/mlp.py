"""The ReLU MLP φ: R^D → R^H → R^H → R of Nguyen & Reddy (ICLR 2025, arXiv 2412.00104) and its BCE loss.

One implementation for the reduced model, the transformer's readout (``numerics.kinetics``) and the
memorization trainer (``numerics.scaling.memorization``): forward and backward passes written by
hand (tested against finite differences), PyTorch's default ``nn.Linear`` initialisation (the
authors' code builds the MLP from ``nn.Linear`` layers).

Layout: weights act on rows, φ(x) = relu(relu(x W1 + b1) W2 + b2) · w3 + b3 with ``W1 (…, D, H)``,
``W2 (…, H, H)``, ``w3 (…, H)``, ``b1``, ``b2 (…, H)``, ``b3 (…)``. Leading axes ``…`` stack
independent networks (the memorization trainer trains M of them as one computation, inputs
``(M, B, D)``); a single network has none (inputs ``(B, D)``). The buffers of a pass
(:class:`MLPPass`) can be kept and reused, so an SGD loop allocates nothing per step.

Loss: the BCE on ±1 labels ℓ, softplus(−ℓφ) = log(1 + e^{−ℓφ}) (:func:`bce`, :func:`bce_gradient`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import positive_int


@dataclass
class MLP:
    """Weights of one MLP D → H → H → 1, or of a stack of them (leading axes); layout in the module docstring."""

    W1: NDArray[np.floating]
    b1: NDArray[np.floating]
    W2: NDArray[np.floating]
    b2: NDArray[np.floating]
    w3: NDArray[np.floating]
    b3: NDArray[np.floating]

    def arrays(self) -> tuple[NDArray[np.floating], ...]:
        return (self.W1, self.b1, self.W2, self.b2, self.w3, self.b3)

    def take(self, keep: NDArray[np.bool_] | NDArray[np.integer]) -> MLP:
        """The stacked networks selected by ``keep`` (boolean or index array), as contiguous copies."""
        return MLP(*(np.ascontiguousarray(a[keep]) for a in self.arrays()))


def init_mlp(d: int, hidden: int, rng: np.random.Generator, *, dtype: type = np.float32) -> MLP:
    """PyTorch's default ``nn.Linear`` init: every weight and bias iid U(±1/√fan_in), drawn layer by layer.

    >>> p = init_mlp(3, 4, np.random.default_rng(0))
    >>> p.W1.shape, p.w3.shape, p.b3.shape, bool(np.all(np.abs(p.W1) <= 1 / np.sqrt(3)))
    ((3, 4), (4,), (), True)
    """
    d, hidden = positive_int("d", d), positive_int("hidden", hidden)

    def u(fan_in: int, shape: tuple[int, ...]) -> NDArray[np.floating]:
        return rng.uniform(-1 / np.sqrt(fan_in), 1 / np.sqrt(fan_in), shape).astype(dtype)

    return MLP(u(d, (d, hidden)), u(d, (hidden,)), u(hidden, (hidden, hidden)), u(hidden, (hidden,)),
               u(hidden, (hidden,)), u(hidden, ()))  # fmt: skip


def init_stacked(rngs: Sequence[np.random.Generator], d: int, hidden: int, dtype: type = np.float32) -> MLP:
    """One :func:`init_mlp` network per generator, stacked along a new leading axis.

    >>> init_stacked([np.random.default_rng(i) for i in range(2)], 3, 4).W2.shape
    (2, 4, 4)
    """
    nets = [init_mlp(d, hidden, rng, dtype=dtype).arrays() for rng in rngs]
    return MLP(*(np.stack(arrays) for arrays in zip(*nets)))


class MLPPass:
    """The activations of one forward pass (kept for the backward pass) and the buffers of its gradients.

    ``x`` is referenced, not copied. Gradient buffers are allocated at the first backward pass; a
    pass that is reused (``mlp_forward(p, x, work)``) overwrites them.
    """

    def __init__(self, p: MLP, x: NDArray[np.floating]) -> None:
        dtype = np.result_type(x, p.W1)
        rows = x.shape[:-1]
        self.x = x
        self.h1, self.h2 = np.empty(rows + p.W1.shape[-1:], dtype), np.empty(rows + p.W1.shape[-1:], dtype)
        self.z = np.empty(rows + (1,), dtype)
        self.d1: NDArray[np.floating] | None = None
        self.d2: NDArray[np.floating] | None = None
        self.mask: NDArray[np.bool_] | None = None
        self.grads: MLP | None = None


def mlp_forward(p: MLP, x: NDArray[np.floating], work: MLPPass | None = None) -> tuple[NDArray[np.floating], MLPPass]:
    """Logits φ(x), ``x (…, B, D)`` → ``(…, B)``, and the pass for :func:`mlp_backward`.

    ``work``: a pass of the same shapes to reuse (its buffers are overwritten; the logits are a view of them).
    """
    if work is None:
        work = MLPPass(p, x)
    work.x = x
    np.matmul(x, p.W1, out=work.h1)
    work.h1 += p.b1[..., None, :]
    np.maximum(work.h1, 0, out=work.h1)
    np.matmul(work.h1, p.W2, out=work.h2)
    work.h2 += p.b2[..., None, :]
    np.maximum(work.h2, 0, out=work.h2)
    np.matmul(work.h2, p.w3[..., :, None], out=work.z)
    work.z += p.b3[..., None, None]
    return work.z[..., 0], work


def _backward_buffers(
    p: MLP, work: MLPPass
) -> tuple[MLP, NDArray[np.floating], NDArray[np.floating], NDArray[np.bool_]]:
    """The gradient buffers of ``work`` (``grads``, ``d1``, ``d2``, ``mask``), allocated at its first backward pass."""
    if work.grads is None or work.d1 is None or work.d2 is None or work.mask is None:
        work.d1, work.d2 = np.empty_like(work.h1), np.empty_like(work.h2)
        work.mask = np.empty(work.h1.shape, bool)
        work.grads = MLP(*(np.empty(a.shape, work.h1.dtype) for a in p.arrays()))
    return work.grads, work.d1, work.d2, work.mask


def mlp_backward(p: MLP, work: MLPPass, g: NDArray[np.floating]) -> MLP:
    """Gradients of Σ_b g_b φ(x_b) with respect to every parameter (backprop through the ReLUs), for
    the pass ``work`` of :func:`mlp_forward` and upstream gradients ``g (…, B)``.

    The result lives in ``work``'s buffers (same layout as :class:`MLP`).
    """
    grads, d1, d2, mask = _backward_buffers(p, work)
    gz = g[..., None]
    np.matmul(np.swapaxes(work.h2, -1, -2), gz, out=grads.w3[..., None])
    np.sum(g, axis=-1, out=grads.b3)
    np.multiply(gz, p.w3[..., None, :], out=d2)
    np.greater(work.h2, 0, out=mask)
    d2 *= mask
    np.matmul(np.swapaxes(work.h1, -1, -2), d2, out=grads.W2)
    np.sum(d2, axis=-2, out=grads.b2)
    np.matmul(d2, np.swapaxes(p.W2, -1, -2), out=d1)
    np.greater(work.h1, 0, out=mask)
    d1 *= mask
    np.matmul(np.swapaxes(work.x, -1, -2), d1, out=grads.W1)
    np.sum(d1, axis=-2, out=grads.b1)
    return grads


def mlp_input_gradient(p: MLP, work: MLPPass) -> NDArray[np.floating]:
    """Gradient of Σ_b g_b φ(x_b) with respect to the input ``x (…, B, D)``, after :func:`mlp_backward`."""
    if work.d1 is None:
        raise InvalidArgument("work has no backward pass: call mlp_backward first")
    return work.d1 @ np.swapaxes(p.W1, -1, -2)


def bce(
    logits: NDArray[np.floating], labels: NDArray[np.floating], axis: int | None = -1
) -> NDArray[np.floating] | np.floating:
    """BCE on ±1 labels, softplus(−ℓφ) = log(1 + e^{−ℓφ}), averaged over ``axis``.

    The default (the last axis, the batch) gives one loss per stacked network; ``axis=None`` the mean
    over every entry.

    ``labels`` must have the shape of the trailing axes of ``logits`` (one label per logit, never
    broadcast against a stray axis), and NaN logits are refused.

    >>> float(bce(np.zeros(4), np.array([1.0, -1.0, 1.0, -1.0])))  # log 2 at φ = 0
    0.6931471805599453
    """
    logits, labels = np.asarray(logits), np.asarray(labels)
    if labels.ndim > logits.ndim or logits.shape[logits.ndim - labels.ndim :] != labels.shape:
        raise InvalidArgument(f"labels of shape {labels.shape} do not match the last axes of logits {logits.shape}")
    if np.any(np.isnan(logits)):
        raise InvalidArgument("logits must not contain NaN")
    return np.mean(np.logaddexp(0.0, -labels * logits), axis=axis)


def bce_gradient(
    logits: NDArray[np.floating],
    labels: NDArray[np.floating],
    scale: float = 1.0,
    out: NDArray[np.floating] | None = None,
) -> NDArray[np.floating]:
    """∂/∂φ_b of ``scale`` × :func:`bce` over the last axis (B entries): −scale · ℓ_b σ(−ℓ_b φ_b) / B.

    ``out``: an array of the logits' shape to write into (no allocation).

    >>> bce_gradient(np.zeros(2), np.array([1.0, -1.0]))  # ∓σ(0)/2
    array([-0.25,  0.25])
    """
    out = np.multiply(logits, labels, out=out)
    np.negative(out, out=out)
    expit(out, out=out)
    out *= labels
    out *= -scale
    out /= labels.shape[-1]
    return out


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

# inner-loop kernels on arrays the trainers build and validate at their entry (MemorizationSettings,
# ReducedConfig, TransformerConfig); a check per call would cost the trainers' time
FUZZ_EXEMPT = {
    name: "MLP kernel inside the trainers"
    for name in ("init_mlp", "init_stacked", "mlp_forward", "mlp_backward", "mlp_input_gradient", "bce", "bce_gradient")
}
