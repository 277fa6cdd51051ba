"""Trace, determinant, inverse, matrix powers, all-ones matrices, scalar broadcast and softmax, on both sides.

SymPy side: a matrix of symbolic size gives ``Trace``, ``Determinant``, ``Inverse`` and
``OneMatrix`` expressions, which the symbolic check decides for every size
(:mod:`icl_verify.maths.identities`), and :func:`matpow` a ``MatPow`` whose exponent may be a symbol
(an integer parameter K, proved by induction); an explicit matrix gives its exact value. NumPy side:
the floating-point value (``numpy.linalg.matrix_power``: never NumPy's element-wise ``**``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
from sympy.matrices.expressions import Determinant, MatPow, MatrixExpr, OneMatrix, Trace

from icl_verify.blocks.backend import exp, inverse, is_matrix, is_symbolic
from icl_verify.errors import InvalidArgument
from icl_verify.maths.tolerance import Magnitude

__all__ = ["broadcast", "det", "inverse", "matpow", "ones", "softmax", "trace"]


def _square(name: str, m: Any) -> None:
    if not is_matrix(m):
        raise InvalidArgument(f"{name} needs a matrix, got {type(m).__name__}")
    rows, cols = m.shape
    if sp.sympify(rows - cols) != 0:
        raise InvalidArgument(f"{name} needs a square matrix, got shape ({rows}, {cols})")


def trace(m: Any) -> Any:
    """tr M = Σ_i M_ii of a square matrix (``Trace`` on the symbolic side)."""
    _square("trace", m)
    if isinstance(m, MatrixExpr):
        return Trace(m)
    if isinstance(m, Magnitude):  # the term magnitude of a trace is the trace of the magnitudes (no float: it cancels)
        return np.trace(m)
    return m.trace() if isinstance(m, sp.MatrixBase) else float(np.trace(m))


def det(m: Any) -> Any:
    """det M of a square matrix (``Determinant`` on the symbolic side)."""
    _square("det", m)
    if isinstance(m, MatrixExpr):
        return Determinant(m)
    if isinstance(m, Magnitude):
        return _det_magnitude(m)
    return m.det() if isinstance(m, sp.MatrixBase) else float(np.linalg.det(m))


def _det_magnitude(m: Magnitude) -> Any:
    """A bound on the terms of det M from their magnitudes |M|: Σ over permutations of ∏ |m_iσ(i)| = perm |M|
    ≤ ∏_i Σ_j |m_ij| (each term takes one entry per row). det |M| would bound nothing: it cancels."""
    return np.prod(np.sum(m, axis=1))


def matpow(m: Any, k: Any) -> Any:
    """The matrix power Mᵏ of a square matrix (M·M·…·M, k factors; M⁰ = I), the same on both sides.

    SymPy side: ``MatPow(M, k)``, ``k`` an integer or an integer symbol (the K of ``iv.integer``); NumPy
    side: ``numpy.linalg.matrix_power`` (a negative ``k`` inverts). A scalar (a 1 × 1 value) is raised to ``k``.

    >>> import numpy as np
    >>> matpow(np.array([[1.0, 1.0], [0.0, 1.0]]), 3).tolist()
    [[1.0, 3.0], [0.0, 1.0]]
    """
    if not is_matrix(m):
        return m**k
    _square("matpow", m)
    if is_symbolic(m, k):
        if isinstance(k, (float, np.floating)) or not sp.sympify(k).is_integer:
            raise InvalidArgument(f"matpow needs an integer exponent, got {k!r}")
        base = m if isinstance(m, MatrixExpr) else sp.ImmutableMatrix(m)
        return MatPow(base, k) if isinstance(base, MatrixExpr) and not sp.sympify(k).is_Integer else base ** int(k)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InvalidArgument(f"matpow needs an integer exponent, got {k!r}")
    return np.linalg.matrix_power(m, int(k))


def ones(rows: Any, cols: Any = 1, like: Any = None) -> Any:
    """The rows × cols all-ones matrix (``OneMatrix`` for a symbolic size or a SymPy ``like``); a column by default."""
    if not all(sp.sympify(d).is_Integer for d in (rows, cols)):
        return OneMatrix(rows, cols)
    if is_symbolic(rows, cols, like):
        return sp.ones(int(rows), int(cols))
    return np.ones((int(rows), int(cols)))


def broadcast(c: Any, like: Any) -> Any:
    """The scalar ``c`` in every entry of a matrix of the shape of ``like``: c · 1 1ᵀ (not ``like*0 + c``)."""
    if not is_matrix(like):
        raise InvalidArgument(f"broadcast needs a matrix to take the shape of, got {type(like).__name__}")
    rows, cols = like.shape
    return c * ones(rows, cols, like)


def softmax(z: Any) -> Any:
    """Column-wise softmax: exp(z_ij) / Σ_k exp(z_kj), for a matrix (or column) of concrete size."""
    if isinstance(z, MatrixExpr) and not all(sp.sympify(d).is_Integer for d in z.shape):
        raise InvalidArgument("softmax needs concrete sizes: it has no dimension-free form (use symbolic=False)")
    e = exp(z)
    if is_symbolic(e):
        e = sp.Matrix(e)
        return sp.Matrix(e.rows, e.cols, lambda i, j: e[i, j] / sum(e[:, j], sp.Integer(0)))
    return e / np.sum(e, axis=0, keepdims=True)
