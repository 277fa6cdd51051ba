"""Adam and global-norm gradient clipping on lists of named arrays (one dict per layer or block).

Shared by the trainers of the LSA group (``numerics.lsa.training``) and the RAW probe
(``numerics.raw.probe``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import finite_scalar

Layer = dict[str, NDArray[np.floating]]
"""The named arrays of one layer (or block) of parameters or gradients."""


def clip_by_global_norm(grads: list[Layer], max_norm: float) -> tuple[list[Layer], float]:
    """Scale all gradients by min(1, max_norm / ‖g‖) with ‖g‖ the norm over every array; returns (g, ‖g‖)."""
    max_norm = finite_scalar("max_norm", max_norm, positive=True)
    norm = float(np.sqrt(sum(float(np.sum(np.square(g[k], dtype=np.float64))) for g in grads for k in g)))
    if not norm > max_norm:  # scale 1 (also a NaN norm): the gradients as they are (g · 1 is g)
        return [dict(g) for g in grads], norm
    return [{k: v * v.dtype.type(max_norm / norm) for k, v in g.items()} for g in grads], norm


@dataclass
class Adam:
    """Adam (Kingma & Ba, ICLR 2015, Algorithm 1) with bias-corrected moments.

    The first step is −lr · g / (|g| + ε) ≈ −lr · sign(g).

    The update is elementwise, so when every parameter and gradient has one dtype all arrays are
    updated as one flat vector (a handful of NumPy calls per step instead of a handful per array; each
    entry gets the value the per-array update gives): the moments :attr:`m`, :attr:`v` and the returned
    parameters are then views into flat buffers.
    """

    lr: float = 1e-3
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    t: int = 0
    m: list[Layer] | None = None
    v: list[Layer] | None = None
    _flat: tuple[NDArray[np.floating], NDArray[np.floating]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        finite_scalar("lr", self.lr, positive=True)
        for name in ("beta1", "beta2"):
            b = finite_scalar(name, getattr(self, name))
            if not 0 <= b < 1:
                raise InvalidArgument(f"{name} must lie in [0, 1), got {b!r}")
        finite_scalar("eps", self.eps, positive=True)

    def step(self, params: list[Layer], grads: list[Layer], lr: float | None = None) -> list[Layer]:
        """Return the updated parameters (``lr`` overrides the base rate for schedules)."""
        if self.m is None or self.v is None:
            self._start(params, grads)
        self.t += 1
        rate = self.lr if lr is None else lr
        c1, c2 = 1 - self.beta1**self.t, 1 - self.beta2**self.t
        if self._flat is None:
            return [  # the moments were set by _start (`or []` only for the type checker)
                {k: self._moved(p[k], g[k], m[k], v[k], rate, c1, c2) for k in p}
                for p, g, m, v in zip(params, grads, self.m or [], self.v or [])
            ]
        flat_g = np.concatenate([g[k].ravel() for g in grads for k in g])
        flat_p = np.concatenate([p[k].ravel() for g, p in zip(grads, params) for k in g])
        if flat_g.dtype != self._flat[0].dtype or flat_p.dtype != self._flat[0].dtype:
            raise InvalidArgument(f"params and grads must keep the dtype {self._flat[0].dtype} of the first step")
        return _views(self._moved(flat_p, flat_g, *self._flat, rate, c1, c2), grads, params)

    def _start(self, params: list[Layer], grads: list[Layer]) -> None:
        """Zero moments: flat buffers (and views into them) when every array shares one dtype, else one per array."""
        dtypes = {a.dtype for layers in (params, grads) for layer in layers for a in layer.values()}
        if len(dtypes) == 1:
            size, dtype = sum(g[k].size for g in grads for k in g), dtypes.pop()
            self._flat = (np.zeros(size, dtype), np.zeros(size, dtype))
            self.m, self.v = (_views(buffer, grads) for buffer in self._flat)
        else:
            self.m = [{k: np.zeros_like(g[k]) for k in g} for g in grads]
            self.v = [{k: np.zeros_like(g[k]) for k in g} for g in grads]

    def _moved(self, p, g, m, v, rate: float, c1: float, c2: float) -> NDArray[np.floating]:
        """The moments m, v updated in place with the gradient g, and the moved parameters p (a new array)."""
        m *= self.beta1
        m += (1 - self.beta1) * g
        v *= self.beta2
        v += (1 - self.beta2) * g**2
        step = rate * (m / c1) / (np.sqrt(v / c2) + self.eps)
        return (p - step).astype(p.dtype)


def _views(flat: NDArray[np.floating], shapes: list[Layer], order: list[Layer] | None = None) -> list[Layer]:
    """``flat`` cut into arrays of the shapes of ``shapes``' arrays (in their order), as dicts keyed in ``order``'s order."""
    out: list[Layer] = []
    start = 0
    for i, layer in enumerate(shapes):
        cut = {}
        for k, a in layer.items():
            cut[k] = flat[start : start + a.size].reshape(a.shape)
            start += a.size
        out.append(cut if order is None else {k: cut[k] for k in order[i]})
    return out


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ_EXEMPT = {"clip_by_global_norm": "an optimiser kernel of the trainers, on the gradients they computed"}
