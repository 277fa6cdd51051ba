"""1 × 1 matrices are scalars, on both sides of a statement.

vᵀA⁻¹u is a 1 × 1 matrix to NumPy and to SymPy, and neither adds it to a number the way a theorist
writes ``1 + v.T @ inverse(A) @ u``: NumPy keeps the shape (1, 1), SymPy refuses "Mix of Matrix and
Scalar symbols". Here a 1 × 1 value is the scalar it stands for: :func:`scalar_of` turns a side's
1 × 1 result into its entry (on SymPy matrix expressions its trace, tr(vᵀA⁻¹u) = vᵀA⁻¹u, which the
decision procedures rotate as any trace), and :class:`Declared` matrix symbols do it inside an
expression, for every product that is 1 × 1 by declaration and whose last (or first) factor is declared
or a sum of declared matrices (:class:`DeclaredSum`: (x − m)ᵀA(x − m) is a scalar as xᵀAx is).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
from sympy.matrices import ShapeError
from sympy.matrices.expressions import (
    Identity,
    MatAdd,
    MatMul,
    MatrixExpr,
    MatrixSymbol,
    Trace,
    Transpose,
    ZeroMatrix,
)


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


class _ScalarProducts:
    """Products that are 1 × 1 by declaration as scalars, and sums of declared matrices as :class:`DeclaredSum`.

    Its ``_op_priority`` is above that of every SymPy matrix expression, so SymPy hands it the reflected
    operations too: in ``v.T @ A @ u`` the last product is ``u``'s.
    """

    _op_priority = 11.5

    def __matmul__(self, other: Any) -> Any:
        return _scalar_product(super().__matmul__(other))  # type: ignore[misc]

    def __rmatmul__(self, other: Any) -> Any:
        return _scalar_product(super().__rmatmul__(other))  # type: ignore[misc]

    def __mul__(self, other: Any) -> Any:
        return _scalar_product(super().__mul__(other))  # type: ignore[misc]

    def __rmul__(self, other: Any) -> Any:
        return _scalar_product(super().__rmul__(other))  # type: ignore[misc]

    def __add__(self, other: Any) -> Any:
        return _sum(super().__add__(other))  # type: ignore[misc]

    def __radd__(self, other: Any) -> Any:
        return _sum(super().__radd__(other))  # type: ignore[misc]

    def __sub__(self, other: Any) -> Any:
        return _sum(super().__sub__(other))  # type: ignore[misc]

    def __rsub__(self, other: Any) -> Any:
        return _sum(super().__rsub__(other))  # type: ignore[misc]


class Declared(_ScalarProducts, MatrixSymbol):
    """A declared matrix symbol whose products that are 1 × 1 by declaration are scalars (:func:`scalar_of`).

    A product is 1 × 1 by declaration when its first factor has a row declared of size 1 (a row, or a
    transposed column) and its last a column declared of size 1 — vᵀA⁻¹u for columns u, v — never
    because a size happens to be 1 (u vᵀ stays a matrix at n = 1). The subclasses say which sizes were
    declared 1, so SymPy's rebuilt expressions keep it. A product of two undeclared factors
    (``v.T @ (A @ u)``) stays a 1 × 1 matrix inside the expression; as a side's value it is still a
    scalar (``parts`` applies :func:`scalar_of`).
    """

    unit_rows: bool = False
    unit_cols: bool = False


class DeclaredSum(_ScalarProducts, MatAdd):
    """A sum with a declared term, ``x − m``: its products that are 1 × 1 by declaration are scalars, and
    its transpose and negation are such sums again — so that (x − m)ᵀA(x − m) + c adds as xᵀAx + c does."""

    def __neg__(self) -> Any:
        return _sum(super().__neg__())

    def _eval_transpose(self) -> Any:
        return _sum(MatAdd(*[term.T for term in self.args]).doit())


class DeclaredProduct(_ScalarProducts, MatMul):
    """A product with a declared end, ``A(x − m)``: as :class:`DeclaredSum`, so that (A(x − m))ᵀB(x − m) is a scalar."""

    def __neg__(self) -> Any:
        return _scalar_product(super().__neg__())

    def _eval_transpose(self) -> Any:
        return _scalar_product(MatMul(*[f.T if isinstance(f, MatrixExpr) else f for f in self.args[::-1]]).doit())


def _sum(value: Any) -> Any:
    """A sum as a :class:`DeclaredSum` (its terms unchanged); anything else (a single term, 0) as it is."""
    return DeclaredSum(*value.args) if isinstance(value, MatAdd) and not isinstance(value, DeclaredSum) else value


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
    """Whether ``factor``'s rows and columns are declared of size 1 (a sum's when one of its terms' are)."""
    if isinstance(factor, Transpose):
        rows, cols = _ends(factor.arg)
        return cols, rows
    if isinstance(factor, MatAdd):
        ends = [_ends(term) for term in factor.args]
        return any(rows for rows, _ in ends), any(cols for _, cols in ends)
    if isinstance(factor, MatMul):
        matrices = [a for a in factor.args if isinstance(a, MatrixExpr)]
        return _ends(matrices[0])[0], _ends(matrices[-1])[1]
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

    def __matmul__(self, other: Any) -> Any:
        """(1 × 1) @ B as NumPy computes it: the scalar times B, for B with one row or a scalar."""
        if isinstance(other, MatrixExpr) and other.shape[0] != 1:
            raise ShapeError(f"a 1 × 1 product @ a matrix of {other.shape[0]} rows")
        return self * _entry_of(other)

    def __rmatmul__(self, other: Any) -> Any:
        if isinstance(other, MatrixExpr) and other.shape[1] != 1:
            raise ShapeError(f"a matrix of {other.shape[1]} columns @ a 1 × 1 product")
        return _entry_of(other) * self

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
    """A product that is 1 × 1 by declaration as its :class:`Entry`; a sum as a :class:`DeclaredSum`, a product
    with a declared end (``A(x − m)``) as a :class:`DeclaredProduct`; anything else as it is."""
    if isinstance(product, MatAdd):
        return _sum(product)
    if not isinstance(product, MatrixExpr):
        return product
    factors = [a for a in product.args if isinstance(a, MatrixExpr)] if isinstance(product, MatMul) else [product]
    rows, cols = _ends(factors[0])[0], _ends(factors[-1])[1]
    if product.shape == (1, 1) and rows and cols:
        return Entry(product)
    if isinstance(product, MatMul) and not isinstance(product, DeclaredProduct) and (rows or cols):
        return DeclaredProduct(*product.args)
    return product
