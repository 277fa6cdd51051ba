"""GeLU, LayerNorm and a single-example SGD step, on both sides (Akyürek et al., ICLR 2023)."""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
from scipy import special
from sympy.matrices.expressions import OneMatrix, Trace

from icl_verify.blocks.backend import elementwise, is_symbolic, sqrt, total
from icl_verify.errors import InvalidArgument


def gelu(x: Any) -> Any:
    """GeLU(x) = x Φ(x) = (x/2)(1 + erf(x/√2)), element-wise (Akyürek et al. 2023, App. C, the MUL construction)."""
    return elementwise(
        lambda z: z * (1 + sp.erf(z / sp.sqrt(2))) / 2, lambda z: z * (1 + special.erf(z / np.sqrt(2))) / 2, x
    )


def layer_norm(z: Any, eps: Any = 0) -> Any:
    """λ(z) = (z − mean z) / √(var z + ε) for a column z, no gain or bias (Akyürek et al. 2023, App. C).

    A column of symbolic size n stays a matrix expression: z − 1 (1ᵀz)/n scaled by
    1/√(tr(cᵀc)/n + ε), c the centred column (the 1 × 1 product read as a scalar through its trace).
    """
    if isinstance(z, sp.MatrixExpr) and not z.shape[0].is_Integer:
        n = z.shape[0]
        centred = z - OneMatrix(n, n) * z / n
        return centred / sp.sqrt(Trace(centred.T * centred) / n + eps)
    z = sp.Matrix(z.as_explicit()) if isinstance(z, sp.MatrixExpr) else z
    n = z.shape[0]
    ones = sp.ones(*z.shape) if is_symbolic(z) else np.ones(z.shape)
    centred = z - (total(z) / n) * ones
    squares = centred.applyfunc(lambda e: e**2) if is_symbolic(centred) else centred * centred
    return centred / sqrt(total(squares) / n + eps)


SGD_CONVENTIONS = ("half", "full")


def sgd_step(w: Any, x: Any, y: Any, alpha: Any, lam: Any, *, convention: str = "half") -> Any:
    """One SGD step on one example of ridge regression (Akyürek et al. 2023, Theorem 1).

    ``convention="half"``: loss ½(wᵀx − y)² + (λ/2)‖w‖², step w − α (x (xᵀw − y) + λ w);
    ``convention="full"``: loss (wᵀx − y)² + λ‖w‖², step w − 2α (x (xᵀw − y) + λ w).
    ``w`` and ``x`` are columns, ``y`` a scalar.
    """
    if convention not in SGD_CONVENTIONS:
        raise InvalidArgument(f"convention must be one of {SGD_CONVENTIONS}, got {convention!r}")
    factor = 1 if convention == "half" else 2
    residual = (x.T @ w)[0, 0] - y
    return w - factor * alpha * (x * residual + lam * w)
