"""Deciding whether a SymPy residual is zero, and finding exact witnesses when it is not.

``is_zero`` answers ``True`` (proved zero), ``False`` (a concrete non-zero number) or ``None``
(SymPy could not decide). A ``None`` is never treated as a pass.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from typing import Any

import sympy as sp
from sympy.matrices.expressions import BlockMatrix, MatrixExpr, MatrixSymbol, ZeroMatrix, block_collapse
from sympy.matrices.expressions.matexpr import MatrixElement


def _is_zero_matrix_expr(expr: MatrixExpr) -> bool | None:
    collapsed = block_collapse(expr)
    if isinstance(collapsed, ZeroMatrix):
        return True
    if isinstance(collapsed, BlockMatrix):
        return _all(_is_zero_matrix_expr(b) if isinstance(b, MatrixExpr) else is_zero(b) for b in collapsed.blocks)
    if isinstance(collapsed, sp.MatrixBase):
        return is_zero(collapsed)
    expanded = sp.expand(collapsed)
    if isinstance(expanded, ZeroMatrix) or expanded == 0 or getattr(expanded, "is_ZeroMatrix", False):
        return True
    return None


def _all(answers: Iterable[bool | None]) -> bool | None:
    result: bool | None = True
    for a in answers:
        if a is False:
            return False
        if a is None:
            result = None
    return result


def is_zero(expr: Any) -> bool | None:
    """Decide whether a scalar, explicit matrix or matrix expression is identically zero.

    >>> x = sp.Symbol("x")
    >>> is_zero((x + 1)**2 - x**2 - 2*x - 1)
    True
    >>> is_zero(sp.Integer(3)) is False
    True
    """
    if isinstance(expr, sp.MatrixBase):
        return _all(is_zero(e) for e in expr)
    if isinstance(expr, MatrixExpr):
        return _is_zero_matrix_expr(expr)
    expr = sp.sympify(expr)
    if expr == 0:
        return True
    simplified = sp.simplify(sp.expand(expr))
    if simplified == 0:
        return True
    if simplified.is_number and simplified.is_zero is False:
        return False
    return None


def free_symbols(expr: Any) -> list[sp.Expr]:
    """The scalar unknowns of ``expr`` — symbols and entries of matrix symbols — in a fixed order."""
    entries = list(expr) if isinstance(expr, sp.MatrixBase) else [sp.sympify(expr)]
    unknowns: set[sp.Expr] = set()
    for e in entries:
        unknowns |= e.atoms(MatrixElement)
        unknowns |= {s for s in e.free_symbols if not isinstance(s, MatrixSymbol)}
    return sorted(unknowns, key=str)


_TRIAL_VALUES = (1, 2, -1, 3, sp.Rational(1, 2), -2, 5)


def find_witness(expr: Any, tries: int = 24) -> tuple[dict[str, Any], Any] | None:
    """Find small rational values of the free symbols at which ``expr`` is exactly non-zero.

    Returns ``(values, residual)`` with the residual evaluated exactly, or ``None``.
    Values are tried in a fixed order, so the witness is deterministic.
    """
    syms = free_symbols(expr)
    for k in range(tries):
        values = {s: _TRIAL_VALUES[(k + 3 * j) % len(_TRIAL_VALUES)] for j, s in enumerate(syms)}
        try:
            value = _substitute(expr, values)
        except (ZeroDivisionError, ValueError):
            continue
        if value is not None and is_zero(value) is False:
            return {str(s): v for s, v in values.items()}, value
    return None


def _substitute(expr: Any, values: Mapping[sp.Symbol, Any]) -> Any:
    out = expr.subs(values)
    if isinstance(out, sp.MatrixBase):
        out = out.applyfunc(sp.nsimplify)
        if any(e.has(sp.zoo, sp.nan) for e in out):
            return None
        return out
    out = sp.nsimplify(sp.simplify(out))
    return None if out.has(sp.zoo, sp.nan) else out


def max_abs(value: Any) -> float:
    """The largest entry in absolute value of a concrete residual, as a float."""
    if isinstance(value, sp.MatrixBase):
        return max(abs(complex(sp.N(e))) for e in value)
    return abs(complex(sp.N(value)))


def definite_value(expr: Any) -> Any | None:
    """``expr`` simplified, if that is a definite non-zero number or matrix of numbers; else ``None``.

    Such a residual refutes an identity with no witness needed: it is the same for every value
    of every symbol (e.g. ``(x + 1)**2 - x**2 - 2*x`` is ``1``).

    >>> x = sp.Symbol("x")
    >>> definite_value((x + 1)**2 - x**2 - 2*x)
    1
    >>> definite_value(x) is None
    True
    """
    value = simplified(expr)
    entries = list(value) if isinstance(value, sp.MatrixBase) else [value]
    if not all(isinstance(e, sp.Expr) and e.is_number for e in entries):
        return None
    return value if is_zero(value) is False else None


def simplified(expr: Any) -> Any:
    """A residual in its simplest printable form: matrix expressions collapsed and expanded,
    explicit matrices and scalars simplified and factored entrywise. Deterministic, for reports.

    >>> x, y = sp.symbols("x y")
    >>> simplified((x + y)**2 - x**2 - y**2)
    2*x*y
    >>> simplified(6.0 * x * y + 6.0 * x)
    6*x*(y + 1)
    """
    if isinstance(expr, sp.MatrixBase):
        return sp.ImmutableMatrix(expr.applyfunc(_simplified_scalar))
    if isinstance(expr, MatrixExpr):
        return sp.expand(block_collapse(expr))
    return _simplified_scalar(sp.sympify(expr))


def _simplified_scalar(expr: sp.Expr) -> sp.Expr:
    """Simplified, common factors pulled out, integer-valued floats (from float weights) as integers."""
    whole = {f: sp.Integer(int(f)) for f in expr.atoms(sp.Float) if float(f).is_integer()}
    return sp.factor_terms(sp.simplify(expr.xreplace(whole)))


def describe_sizes(sizes: Iterable[Mapping[str, int]]) -> str:
    """A short description of the concrete sizes that were checked, e.g. ``N_x,N ∈ {1,2}``."""
    sizes = list(sizes)
    keys = sorted({k for s in sizes for k in s})
    ranges = {k: sorted({s[k] for s in sizes if k in s}) for k in keys}
    return ", ".join(f"{k}∈{{{','.join(map(str, v))}}}" for k, v in ranges.items())


def grid(**ranges: Iterable[int]) -> list[dict[str, int]]:
    """All combinations of the given integer ranges, e.g. ``grid(nx=range(1, 3), n=range(1, 4))``."""
    keys = list(ranges)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(list(ranges[k]) for k in keys))]


def as_explicit(residuals: Any) -> list[sp.Matrix]:
    """Turn matrix-expression residual(s) of concrete size into explicit matrices of symbolic entries.

    Matrix symbols are replaced by their explicit entries first, so the products are multiplied
    out entrywise (much faster than expanding the symbolic product afterwards).
    """
    items = residuals if isinstance(residuals, (list, tuple)) else [residuals]
    out = []
    for r in items:
        if isinstance(r, MatrixExpr):
            entries = {m: sp.ImmutableMatrix(m.as_explicit()) for m in r.atoms(MatrixSymbol)}
            r = sp.Matrix(block_collapse(r.xreplace(entries)).as_explicit())
        out.append(r)
    return out
