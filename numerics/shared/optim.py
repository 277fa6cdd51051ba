"""Adam and global-norm gradient clipping on lists of named arrays (one dict per layer or block).

Shared by the trainers of the LSA group (``numerics.lsa.training``) and the RAW probe
(``numerics.raw.probe``).
"""

from __future__ import annotations

from dataclasses import dataclass

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
    scale = min(1.0, max_norm / norm) if norm > 0 else 1.0
    return [{k: v * v.dtype.type(scale) for k, v in g.items()} for g in grads], norm


@dataclass
class Adam:
    """Adam (Kingma & Ba, ICLR 2015, Algorithm 1) with bias-corrected moments.

    The first step is −lr · g / (|g| + ε) ≈ −lr · sign(g).
    """

    lr: float = 1e-3
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    t: int = 0
    m: list[Layer] | None = None
    v: list[Layer] | None = None

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
            self.m = [{k: np.zeros_like(g[k]) for k in g} for g in grads]
            self.v = [{k: np.zeros_like(g[k]) for k in g} for g in grads]
        self.t += 1
        rate = self.lr if lr is None else lr
        c1, c2 = 1 - self.beta1**self.t, 1 - self.beta2**self.t
        out = []
        for p, g, m, v in zip(params, grads, self.m, self.v):
            new = {}
            for k in p:
                m[k] = self.beta1 * m[k] + (1 - self.beta1) * g[k]
                v[k] = self.beta2 * v[k] + (1 - self.beta2) * g[k] ** 2
                step = rate * (m[k] / c1) / (np.sqrt(v[k] / c2) + self.eps)
                new[k] = (p[k] - step).astype(p[k].dtype)
            out.append(new)
        return out


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ_EXEMPT = {"clip_by_global_norm": "an optimiser kernel of the trainers, on the gradients they computed"}
