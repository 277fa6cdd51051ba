"""One code path for both sides: the few operations whose spelling differs between SymPy and NumPy.

A building block is written once with ``@``, ``+``, ``−``, scalar ``*`` and ``.T`` (shared by
NumPy arrays and SymPy matrices) and the helpers here for everything else (stacking, identity,
zero blocks, element-wise functions). An argument that is a SymPy object — a ``MatrixSymbol`` of
symbolic or concrete size, an explicit ``Matrix``, a ``Symbol`` — selects the symbolic side;
otherwise the arguments are NumPy arrays (tokens are **columns** on both sides, as in the papers).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import sympy as sp
from scipy import special
from sympy.matrices.expressions import BlockMatrix, Identity, MatrixExpr, OneMatrix, Trace, ZeroMatrix

from icl_verify.errors import InvalidArgument


def is_symbolic(*values: Any) -> bool:
    """True when any of ``values`` is a SymPy expression or matrix."""
    return any(isinstance(v, (sp.Basic, sp.MatrixBase)) for v in values)


def block(rows: Sequence[Sequence[Any]]) -> Any:
    """The block matrix with the given rows of blocks (``BlockMatrix`` or ``np.block``)."""
    if is_symbolic(*(b for row in rows for b in row)):
        return BlockMatrix([list(row) for row in rows])
    return np.block([list(row) for row in rows])


def vstack(*parts: Any) -> Any:
    """``parts`` stacked on top of each other."""
    return block([[p] for p in parts])


def hstack(*parts: Any) -> Any:
    """``parts`` side by side."""
    return block([list(parts)])


def eye(n: Any, like: Any) -> Any:
    """The n × n identity on the side of ``like`` (``Identity(n)`` for symbolic ``n`` or ``like``)."""
    return Identity(n) if is_symbolic(n, like) else np.eye(int(n))


def zeros(rows: Any, cols: Any, like: Any) -> Any:
    """The rows × cols zero block on the side of ``like``."""
    return ZeroMatrix(rows, cols) if is_symbolic(rows, cols, like) else np.zeros((int(rows), int(cols)))


def scale(p: Any, m: Any) -> Any:
    """``p · m`` for a scalar ``p``, ``p @ m`` for a matrix ``p``."""
    return p @ m if is_matrix(p) else p * m


def is_matrix(value: Any) -> bool:
    """True for a matrix on either side (not for a scalar or a 0-d array)."""
    return isinstance(value, (MatrixExpr, sp.MatrixBase)) or (isinstance(value, np.ndarray) and value.ndim == 2)


def elementwise(fn_sympy: Callable[[sp.Expr], sp.Expr], fn_numpy: Callable[[Any], Any], x: Any) -> Any:
    """Apply a scalar function entry by entry (to an explicit matrix on the symbolic side).

    A matrix expression of symbolic size has no entries to apply it to: :class:`InvalidArgument`.
    """
    if isinstance(x, MatrixExpr) and not all(sp.sympify(d).is_Integer for d in x.shape):
        raise InvalidArgument(
            f"{getattr(fn_sympy, '__name__', fn_sympy)} applies entry by entry: it needs a matrix of concrete size, "
            f"got shape {tuple(x.shape)} (a scalar, e.g. a trace, is fine)"
        )
    if isinstance(x, MatrixExpr):
        x = sp.Matrix(x.as_explicit())
    if isinstance(x, sp.MatrixBase):
        return x.applyfunc(fn_sympy)
    return fn_sympy(x) if isinstance(x, sp.Basic) else fn_numpy(x)


def exp(x: Any) -> Any:
    """The exponential of a scalar (or element-wise): ``sp.exp`` on the symbolic side, ``np.exp`` on arrays."""
    return elementwise(sp.exp, np.exp, x)


def log(x: Any) -> Any:
    """The natural logarithm of a scalar (or element-wise): ``sp.log`` on the symbolic side, ``np.log`` on arrays.

    Where it is undefined (x ≤ 0) the NumPy value is NaN, a draw outside the domain.
    """
    return elementwise(sp.log, np.log, x)


def abs(x: Any) -> Any:  # the public name iv.abs; this module never needs the builtin
    """The absolute value of a scalar (or element-wise): ``sp.Abs`` on the symbolic side, ``np.abs`` on arrays."""
    return elementwise(sp.Abs, np.abs, x)


def erf(x: Any) -> Any:
    """Element-wise error function."""
    return elementwise(sp.erf, special.erf, x)


def sqrt(x: Any) -> Any:
    """The square root of a scalar (or element-wise): ``sp.sqrt`` on the symbolic side, ``np.sqrt`` on arrays."""
    return elementwise(sp.sqrt, np.sqrt, x)


def total(m: Any) -> Any:
    """The sum of all entries (for a symbolic size, tr(1ᵀ M 1) with all-ones columns: one expression, no Sum)."""
    if isinstance(m, MatrixExpr) and not all(sp.sympify(d).is_Integer for d in m.shape):
        return Trace(OneMatrix(1, m.shape[0]) * m * OneMatrix(m.shape[1], 1))
    if isinstance(m, MatrixExpr):
        m = sp.Matrix(m.as_explicit())
    return sum(m, sp.Integer(0)) if isinstance(m, sp.MatrixBase) else np.sum(m)


def inverse(m: Any) -> Any:
    """The matrix inverse (``Inverse`` on the symbolic side) of a square matrix; of a scalar (a 1 × 1
    product), its reciprocal.

    A matrix that is not square, whatever its sizes, is a usage error naming its shape: for symbolic
    sizes n and d the inverse of an n × d matrix is undefined unless n = d, which a statement would
    declare with one size name. A NumPy stack of matrices is inverted along its last two axes.
    """
    shape: tuple[Any, ...] = tuple(getattr(m, "shape", ()))
    if len(shape) == 0:
        return 1 / m
    if len(shape) < 2 or sp.sympify(shape[-2] - shape[-1]) != 0:
        raise InvalidArgument(f"inverse needs a square matrix, got shape {tuple(shape)}")
    if isinstance(m, MatrixExpr):
        return m.I
    if isinstance(m, sp.MatrixBase):
        return m.inv()
    return np.linalg.inv(m)


def _differ(size: Any, expected: Any) -> bool:
    """True when two sizes are known to differ (symbolic sizes that may be equal are left to SymPy)."""
    if isinstance(size, (int, np.integer)) and isinstance(expected, (int, np.integer)):
        return bool(size != expected)
    return bool(sp.simplify(sp.sympify(size) - sp.sympify(expected)).is_zero is False)


def matrix_arg(name: str, value: Any, rows: Any = None, cols: Any = None) -> Any:
    """``value`` if it is a real matrix with ``rows`` rows and ``cols`` columns (``None``: any), else
    :class:`InvalidArgument` naming ``name``: on the NumPy side a 2-D array of real numbers (never complex,
    never broadcast against a transposed argument), on the SymPy side a matrix whose known sizes agree."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise InvalidArgument(f"{name} must be a matrix of real numbers, got dtype {value.dtype}")
        if value.ndim != 2:
            raise InvalidArgument(f"{name} must be a matrix (2 dimensions), got shape {value.shape}")
    elif not isinstance(value, (MatrixExpr, sp.MatrixBase)):
        raise InvalidArgument(f"{name} must be a NumPy or SymPy matrix, got {type(value).__name__}")
    want = (value.shape[0] if rows is None else rows, value.shape[1] if cols is None else cols)
    if any(_differ(got, w) for got, w in zip(value.shape, want)):
        raise InvalidArgument(f"{name} must have shape {want}, got {tuple(value.shape)}")
    return value
