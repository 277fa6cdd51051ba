"""The transformer layer of Akyürek et al. (ICLR 2023, §2), in NumPy.

One layer maps a hidden-state sequence h to

    a  = W^F [b_1; …; b_m],   b_k = softmax((W^Q_k h)ᵀ (W^K_k h)) (W^V_k h)   (causal, j ≤ i),
    h' = W_2 σ(W_1 λ(a + h)) + a + h,

with σ = GeLU (exact, x Φ(x)), λ = LayerNorm without learned affine (over the hidden units of
one timestep) and no 1/√d inside the softmax, exactly as printed.

Orientation: the paper writes one **column** per timestep; here a hidden state is an array of
shape ``(T, D)`` — one **row** per timestep, D hidden units — optionally with leading batch axes
``(..., T, D)`` (tokens as rows). Weight matrices keep the paper's shapes and act on
a timestep's vector as ``M @ h_t``, i.e. on the whole array as ``h @ M.T``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import erf

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import finite_array, finite_result, finite_scalar
from icl_verify.numerics.shared.fuzz import Fuzz

SQRT_HALF = np.sqrt(0.5)


def gelu(x: np.ndarray) -> np.ndarray:
    """GeLU(x) = x Φ(x) = ½ x (1 + erf(x/√2)) (Hendrycks & Gimpel), the σ of Akyürek et al.'s layer."""
    x = finite_array("x", x)
    return 0.5 * x * (1.0 + erf(x * SQRT_HALF))


def layer_norm(z: np.ndarray, eps: float = 0.0) -> np.ndarray:
    """Parameter-free LayerNorm over the last axis: (z − mean) / √(var + eps) (population variance).

    With ``eps = 0`` (the construction's exact form) a constant vector has no normalisation and
    raises ``ValueError``.
    """
    z = finite_array("z", z, ndim=tuple(range(1, 33)), nonempty=True)
    eps = finite_scalar("eps", eps, nonnegative=True)
    with np.errstate(over="ignore", invalid="ignore"):
        centred = z - z.mean(axis=-1, keepdims=True)
        var = finite_result(np.mean(centred**2, axis=-1, keepdims=True) + eps, "z overflows float64 in the variance")
    if np.any(var <= 0):
        raise InvalidArgument("z has a timestep with zero variance (set eps > 0)")
    return centred / np.sqrt(var)


@dataclass(frozen=True)
class Head:
    """One attention head: ``W_Q``, ``W_K`` of shape (k, D) and ``W_V`` of shape (v, D)."""

    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray

    def __post_init__(self) -> None:
        W_Q = finite_array("W_Q", self.W_Q, ndim=2)
        W_K = finite_array("W_K", self.W_K, ndim=2)
        W_V = finite_array("W_V", self.W_V, ndim=2)
        if W_K.shape != W_Q.shape:
            raise InvalidArgument(f"W_K must have the shape of W_Q {W_Q.shape}, got {W_K.shape}")
        if W_V.shape[1] != W_Q.shape[1]:
            raise InvalidArgument(f"W_V must have D = {W_Q.shape[1]} columns, got shape {W_V.shape}")
        for name, arr in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
            object.__setattr__(self, name, arr)


@dataclass(frozen=True)
class Layer:
    """Weights of one layer (Akyürek et al. 2023, §2): heads, W^F (D × Σv), W_1 (U × D), W_2 (D × U)."""

    heads: tuple[Head, ...]
    W_F: np.ndarray
    W_1: np.ndarray
    W_2: np.ndarray

    def __post_init__(self) -> None:
        heads = tuple(self.heads)
        if not heads or not all(isinstance(h, Head) for h in heads):
            raise InvalidArgument("heads must be a non-empty sequence of Head")
        D = heads[0].W_Q.shape[1]
        if any(h.W_Q.shape[1] != D for h in heads):
            raise InvalidArgument(f"every head must read D = {D} hidden units")
        W_F = finite_array("W_F", self.W_F, ndim=2)
        v = sum(h.W_V.shape[0] for h in heads)
        if W_F.shape != (D, v):
            raise InvalidArgument(f"W_F must have shape (D, Σv) = {(D, v)}, got {W_F.shape}")
        W_1 = finite_array("W_1", self.W_1, ndim=2)
        W_2 = finite_array("W_2", self.W_2, ndim=2)
        if W_1.shape[1] != D or W_2.shape != (D, W_1.shape[0]):
            raise InvalidArgument(f"W_1 must be (U, {D}) and W_2 ({D}, U), got {W_1.shape} and {W_2.shape}")
        for name, value in (("heads", heads), ("W_F", W_F), ("W_1", W_1), ("W_2", W_2)):
            object.__setattr__(self, name, value)

    @property
    def width(self) -> int:
        """Hidden width D."""
        return self.W_F.shape[0]

    @property
    def mlp_units(self) -> int:
        """Number of GeLU units U."""
        return self.W_1.shape[0]


def _hidden(h: object, width: int) -> np.ndarray:
    arr = finite_array("h", h)
    if arr.ndim < 2:
        raise InvalidArgument(f"h must have shape (..., T, D), got {arr.shape}")
    if arr.shape[-1] != width:
        raise InvalidArgument(f"h must have D = {width} hidden units (last axis), got {arr.shape[-1]}")
    return arr


def causal_softmax(scores: np.ndarray) -> np.ndarray:
    """Row-wise softmax of ``(..., T, T)`` scores over keys j ≤ i (query i, key j)."""
    scores = finite_array("scores", scores, ndim=tuple(range(2, 33)), nonempty=True)
    if scores.shape[-1] != scores.shape[-2]:
        raise InvalidArgument(f"scores must be square (..., T, T), got shape {scores.shape}")
    T = scores.shape[-1]
    masked = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf)
    masked = masked - masked.max(axis=-1, keepdims=True)
    weights = np.exp(masked)
    return weights / weights.sum(axis=-1, keepdims=True)


def attention(h: object, layer: Layer) -> np.ndarray:
    """The attention output a = W^F [b_1; …; b_m] for every timestep, shape of ``h``."""
    h = _hidden(h, layer.width)
    outs = []
    for head in layer.heads:
        scores = (h @ head.W_Q.T) @ np.swapaxes(h @ head.W_K.T, -1, -2)
        outs.append(causal_softmax(scores) @ (h @ head.W_V.T))
    return np.concatenate(outs, axis=-1) @ layer.W_F.T


def layer_forward(
    h: object, layer: Layer, *, eps: float = 0.0, inspect: Callable[[np.ndarray], None] | None = None
) -> np.ndarray:
    """h' = W_2 GeLU(W_1 λ(a + h)) + a + h (Akyürek et al. 2023, §2).

    ``inspect``, if given, is called with a + h (the LayerNorm's input) before the MLP runs, e.g. to
    check it against the range a compiled layer was built for (``numerics.raw.compiler``).
    """
    h = _hidden(h, layer.width)
    eps = finite_scalar("eps", eps, nonnegative=True)
    z = h + attention(h, layer)
    if inspect is not None:
        inspect(z)
    if layer.mlp_units == 0:
        return z
    return z + gelu(layer_norm(z, eps) @ layer.W_1.T) @ layer.W_2.T


def forward(h: object, layers: Sequence[Layer], *, eps: float = 0.0) -> np.ndarray:
    """Apply ``layers`` in order."""
    if len(layers) == 0:
        raise InvalidArgument("layers must contain at least one Layer")
    out = _hidden(h, layers[0].width)
    for layer in layers:
        out = layer_forward(out, layer, eps=eps)
    return out


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ = {
    "gelu": Fuzz(lambda: {"x": np.linspace(-2, 2, 5)}),
    "layer_norm": Fuzz(lambda: {"z": np.arange(6.0).reshape(2, 3), "eps": 1e-6}),
    "causal_softmax": Fuzz(lambda: {"scores": np.arange(9.0).reshape(3, 3)}),
}
FUZZ_EXEMPT = {
    "attention": "takes a Layer (validated by its constructor)",
    "layer_forward": "takes a Layer (validated by its constructor)",
    "forward": "takes Layers (validated by their constructor)",
}
