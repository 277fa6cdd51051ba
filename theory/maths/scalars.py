"""1 × 1 matrices are scalars, on both sides of a statement.

vᵀA⁻¹u is a 1 × 1 matrix to NumPy and to SymPy, and neither adds it to a number the way a theorist
writes ``1 + v.T @ inverse(A) @ u``: NumPy keeps the shape (1, 1), SymPy refuses "Mix of Matrix and
Scalar symbols". Here a 1 × 1 value is the scalar it stands for: :func:`scalar_of` turns a side's
1 × 1 result into its entry (on SymPy matrix expressions its trace, tr(vᵀA⁻¹u) = vᵀA⁻¹u, which the
decision procedures rotate as any trace), and :class:`Declared` matrix symbols do it inside an
expression, for every product that is 1 × 1 by declaration and whose last (or first) factor is declared.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
from sympy.matrices.expressions import Identity, MatMul, MatrixExpr, MatrixSymbol, Trace, Transpose, ZeroMatrix


def scalar_of(value: Any) -> Any:
    """``value``'s one entry if it is a 1 × 1 matrix (a NumPy array, an explicit SymPy matrix, or a matrix
    expression, as its trace), else ``value`` itself.

    >>> print(scalar_of(np.array([[2.5]])))  # print: NumPy 1 and 2 show the scalar's repr differently
    2.5
    >>> n = sp.Symbol("n", integer=True, positive=True)
    >>> u, v = MatrixSymbol("u", n, 1), MatrixSymbol("v", n, 1)
    >>> scalar_of(v.T * u)
    Trace(v.T*u)
    >>> scalar_of(u) == u
    True
    """
    if isinstance(value, np.ndarray) and value.shape == (1, 1):
        return value[0, 0]
    if isinstance(value, sp.MatrixBase) and value.shape == (1, 1):
        return value[0, 0]
    if isinstance(value, MatrixExpr) and value.shape == (1, 1):
        return Trace(value)
    return value


class Declared(MatrixSymbol):
    """A declared matrix symbol whose products that are 1 × 1 by declaration are scalars (:func:`scalar_of`).

    A product is 1 × 1 by declaration when its first factor has a row declared of size 1 (a row, or a
    transposed column) and its last a column declared of size 1 — vᵀA⁻¹u for columns u, v — never
    because a size happens to be 1 (u vᵀ stays a matrix at n = 1). The subclasses say which sizes were
    declared 1, so SymPy's rebuilt expressions keep it. Its ``_op_priority`` is above that of every SymPy
    matrix expression, so SymPy hands it the reflected product too: in ``v.T @ A @ u`` the last product
    is ``u``'s. A product of two undeclared factors (``v.T @ (A @ u)``) stays a 1 × 1 matrix inside the
    expression; as a side's value it is still a scalar (``parts`` applies :func:`scalar_of`).
    """

    _op_priority = 11.5
    unit_rows: bool = False
    unit_cols: bool = False

    def __matmul__(self, other: Any) -> Any:
        return _scalar_product(super().__matmul__(other))

    def __rmatmul__(self, other: Any) -> Any:
        return _scalar_product(super().__rmatmul__(other))

    def __mul__(self, other: Any) -> Any:
        return _scalar_product(super().__mul__(other))

    def __rmul__(self, other: Any) -> Any:
        return _scalar_product(super().__rmul__(other))


class _Row(Declared):
    unit_rows = True


class _Column(Declared):
    unit_cols = True


class _Unit(Declared):
    unit_rows = unit_cols = True


def declared(name: str, rows: Any, cols: Any, units: tuple[bool, bool] = (False, False)) -> Declared:
    """The declared matrix ``name`` of shape rows × cols; ``units`` says whether its rows, its columns were declared 1.

    >>> n = sp.Symbol("n", integer=True, positive=True)
    >>> u, v = declared("u", n, 1, (False, True)), declared("v", n, 1, (False, True))
    >>> 1 + v.T @ u
    Entry(v.T*u) + 1
    >>> u1, v1 = declared("u", 1, 1, (False, True)), declared("v", 1, 1, (False, True))
    >>> (u1 @ v1.T).shape  # n = 1: an outer product is still a matrix
    (1, 1)
    """
    cls = {(False, False): Declared, (True, False): _Row, (False, True): _Column, (True, True): _Unit}[units]
    return cls(name, rows, cols)


def _ends(factor: Any) -> tuple[bool, bool]:
    """Whether ``factor``'s rows and columns are declared of size 1."""
    if isinstance(factor, Transpose):
        rows, cols = _ends(factor.arg)
        return cols, rows
    return (factor.unit_rows, factor.unit_cols) if isinstance(factor, Declared) else (False, False)


class Entry(Trace):
    """The scalar a 1 × 1 product by declaration stands for: tr(vᵀA⁻¹u) = vᵀA⁻¹u.

    It still reads as the 1 × 1 matrix it came from where code treats it as one: ``[0, 0]`` is itself,
    ``.T`` is itself, and a 1 × 1 matrix added to it (``I_1 + vᵀA⁻¹u``) is taken as its entry. Its
    ``_op_priority`` is above that of matrix expressions, so SymPy hands it those sums.
    """

    _op_priority = 12.0

    def __getitem__(self, key: Any) -> Entry:
        if key not in ((0, 0), 0):
            raise IndexError(f"a 1 × 1 product has only the entry [0, 0], got {key!r}")
        return self

    @property
    def T(self) -> Entry:  # SymPy's name for the transpose
        return self

    def __add__(self, other: Any) -> Any:
        return super().__add__(_entry_of(other))

    def __radd__(self, other: Any) -> Any:
        return super().__radd__(_entry_of(other))

    def __sub__(self, other: Any) -> Any:
        return super().__sub__(_entry_of(other))

    def __rsub__(self, other: Any) -> Any:
        return super().__rsub__(_entry_of(other))


def _entry_of(value: Any) -> Any:
    """A 1 × 1 matrix expression as its entry (its trace), anything else as it is."""
    if not (isinstance(value, MatrixExpr) and value.shape == (1, 1)):
        return value
    if isinstance(value, (Identity, ZeroMatrix)):
        return sp.Integer(1 if isinstance(value, Identity) else 0)
    return Trace(value)


def _scalar_product(product: Any) -> Any:
    """A product that is 1 × 1 by declaration as its :class:`Entry`; any other product as it is."""
    if not (isinstance(product, MatrixExpr) and product.shape == (1, 1)):
        return product
    factors = [a for a in product.args if isinstance(a, MatrixExpr)] if isinstance(product, MatMul) else [product]
    return Entry(product) if _ends(factors[0])[0] and _ends(factors[-1])[1] else product
