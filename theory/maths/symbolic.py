"""Deciding whether a SymPy residual is zero, and finding exact witnesses when it is not.

``is_zero`` answers ``True`` (proved zero), ``False`` (a concrete non-zero number) or ``None``
(SymPy could not decide). A ``None`` is never treated as a pass.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import sympy as sp
from sympy.matrices.expressions import (
    BlockMatrix,
    Determinant,
    Inverse,
    MatAdd,
    MatMul,
    MatPow,
    MatrixExpr,
    MatrixSymbol,
    Trace,
    Transpose,
    ZeroMatrix,
    block_collapse,
)
from sympy.matrices.expressions.matexpr import MatrixElement
from sympy.printing.latex import LatexPrinter

from icl_verify.maths.identities import Unsupported, expanded


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
    expr = _explicit_traces(sp.sympify(expr))
    if expr == 0:
        return True
    if _is_rational_function(expr, polynomial=True):  # the expanded form of a polynomial is canonical
        reduced = sp.expand(expr)
        return True if reduced == 0 else (False if reduced.is_number else None)
    if _is_rational_function(expr):  # p/q in lowest terms is 0 iff p is: exact, and fast for expanded inverses
        reduced = sp.cancel(sp.together(expr))
        return True if reduced == 0 else (False if reduced.is_number else None)
    if expr.has(Trace, Determinant, sp.Sum):  # of matrix expressions, or sums over a symbolic size: SymPy's simplify
        return None  # can run for minutes on them (det(I + XXᵀ/λ); the entries of −½xᵀAx + bᵀx, 30 s) — the
        # decision procedure for matrices, or the identity test over GF(p), decides them instead
    simplified = sp.simplify(sp.expand(expr))
    if simplified == 0:
        return True
    if simplified.is_number and simplified.is_zero is False:
        return False
    return None


def _explicit_traces(expr: sp.Basic) -> sp.Basic:
    """``expr`` with the traces and determinants of matrices of concrete size evaluated (tr I₂ = 2, tr of a 2 × 2
    of entries their sum), so that only those of symbolic size are left to the decision procedure."""
    if not expr.has(Trace, Determinant):
        return expr

    def concrete(e: Any) -> bool:
        return isinstance(e, (Trace, Determinant)) and all(sp.sympify(d).is_Integer for d in e.arg.shape)

    def value(e: Any) -> Any:
        m = e.arg if isinstance(e.arg, sp.MatrixBase) else e.arg.as_explicit()
        return m.trace() if isinstance(e, Trace) else m.det()

    return expr.replace(concrete, value)


def _is_rational_function(expr: sp.Basic, polynomial: bool = False) -> bool:
    """Whether ``expr`` is built from symbols, matrix entries and rationals by +, ×, integer powers only
    (with ``polynomial``, non-negative powers only: a polynomial with rational coefficients)."""
    if isinstance(expr, (sp.Symbol, MatrixElement, sp.Rational)):
        return True
    if isinstance(expr, sp.Pow):
        exponent_ok = expr.exp.is_Integer and (not polynomial or expr.exp >= 0)
        return bool(exponent_ok) and _is_rational_function(expr.base, polynomial)
    return isinstance(expr, (sp.Add, sp.Mul)) and all(_is_rational_function(a, polynomial) for a in expr.args)


def free_symbols(expr: Any) -> list[sp.Expr]:
    """The scalar unknowns of ``expr`` — symbols and entries of matrix symbols — in a fixed order."""
    entries = list(expr) if isinstance(expr, sp.MatrixBase) else [sp.sympify(expr)]
    unknowns: set[sp.Expr] = set()
    for e in entries:
        unknowns |= e.atoms(MatrixElement)
        unknowns |= {s for s in e.free_symbols if not isinstance(s, MatrixSymbol)}
    return sorted(unknowns, key=str)


_TRIAL_VALUES = (1, 2, -1, 3, sp.Rational(1, 2), -2, 5)


class Witness(NamedTuple):
    """Exact values of the free symbols, the non-zero residual there, and the singular draws skipped on the way."""

    values: dict[str, Any]
    value: Any
    singular: int


def find_witness(expr: Any, tries: int = 24) -> Witness | None:
    """Find small rational values of the free symbols at which ``expr`` is exactly non-zero.

    Returns a :class:`Witness` (the residual evaluated exactly) or ``None``. Values are tried in a
    fixed order, so the witness is deterministic. A draw where the expression is undefined (a
    singular matrix to invert, a division by zero) is skipped and counted, never a pass.
    """
    syms = free_symbols(expr)
    singular = 0
    for k in range(tries):
        values = {s: _TRIAL_VALUES[(k + 3 * j) % len(_TRIAL_VALUES)] for j, s in enumerate(syms)}
        try:
            value = _substitute(expr, values)
        except (ZeroDivisionError, ValueError):
            value = None
        if value is None:
            singular += 1
            continue
        if is_zero(value) is False:
            return Witness({str(s): v for s, v in values.items()}, value, singular)
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
    """A residual in its simplest printable form: matrix expressions collapsed and multiplied out
    noncommutatively with like terms collected (commutators show as ``B*A - A*B``),
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
        collapsed = block_collapse(expr)
        try:
            return expanded(collapsed)
        except Unsupported:
            return sp.expand(collapsed)
    return _simplified_scalar(sp.sympify(expr))


def _simplified_scalar(expr: sp.Expr) -> sp.Expr:
    """Simplified, common factors pulled out, integer-valued floats (from float weights) as integers."""
    whole = {f: sp.Integer(int(f)) for f in expr.atoms(sp.Float) if float(f).is_integer()}
    return sp.factor_terms(sp.simplify(expr.xreplace(whole)))


class _Printer(LatexPrinter):
    """SymPy's LaTeX, with an entry of a matrix whose name has a subscript in parentheses: ``(W_{0})_{0,1}``, not
    ``{W_{0}}_{0,1}``, which typesets as the double subscript ``W_{00,1}``."""

    def _print_MatrixElement(self, expr: MatrixElement) -> str:
        parent = self._print(expr.parent)
        if "_" in parent:
            parent = rf"\left({parent}\right)"
        return f"{{{parent}}}_{{{self._print(expr.i)},{self._print(expr.j)}}}"


def latex(expr: Any) -> str:
    """``expr`` in LaTeX as SymPy writes it, with entries of subscripted matrices readable (:class:`_Printer`)."""
    return _Printer().doprint(expr)


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
            r = _explicit(r)
        elif isinstance(r, sp.Basic) and r.atoms(MatrixSymbol):  # a scalar of traces, determinants, entries
            r = _explicit_scalars_in(r)
        out.append(r)
    return out


def explicit_value(value: Any) -> Any:
    """An exact value (a matrix expression or a scalar of traces, determinants and entries of explicit
    matrices) carried out: matrices bottom-up as :func:`as_explicit` does, then anything left by ``doit``."""
    if isinstance(value, MatrixExpr) and not isinstance(value, sp.MatrixBase):
        value = _explicit(value)
    elif isinstance(value, sp.Basic) and value.atoms(Trace, Determinant, MatrixElement):
        value = _explicit_scalars_in(value)
    return value.doit() if isinstance(value, (sp.Basic, sp.MatrixBase)) else value


def _explicit(m: MatrixExpr) -> sp.Matrix:
    """The explicit matrix of ``m`` at concrete size, evaluated bottom-up (products multiplied entrywise)."""
    if isinstance(m, sp.MatrixBase):
        return sp.Matrix(m)
    if isinstance(m, MatAdd):
        return sum((_explicit(a) for a in m.args[1:]), _explicit(m.args[0]))
    if isinstance(m, MatMul):
        scalar = sp.Mul(*(_explicit_scalars_in(a) for a in m.args if not isinstance(a, MatrixExpr)))
        factors = [_explicit(a) for a in m.args if isinstance(a, MatrixExpr)]
        product = factors[0]
        for f in factors[1:]:
            product = product * f
        return scalar * product
    if isinstance(m, Transpose):
        return _explicit(m.arg).T
    if isinstance(m, Inverse):
        return _inverse(_explicit(m.arg))
    if isinstance(m, MatPow) and m.exp.is_Integer:
        base = _explicit(m.base)
        return (_inverse(base) if m.exp < 0 else base) ** abs(int(m.exp))
    if isinstance(m, BlockMatrix):  # block by block: SymPy's own entries of a product block are Sums
        return sp.Matrix.vstack(*(sp.Matrix.hstack(*map(_explicit, row)) for row in m.blocks.tolist()))
    return sp.Matrix(block_collapse(m).as_explicit())  # symbols, identities, zeros


def _inverse(m: sp.Matrix) -> sp.Matrix:
    """adj(M) / det(M), unsimplified (Gaussian elimination simplifies every pivot: slow on symbolic entries)."""
    return m.adjugate(method="berkowitz") / m.det(method="berkowitz")


def _explicit_scalars_in(e: Any) -> Any:
    """A scalar with every trace, determinant and entry of a matrix expression in it evaluated explicitly."""
    return sp.sympify(e).xreplace(
        {a: _explicit_scalar(a) for a in sp.sympify(e).atoms(Trace, Determinant, MatrixElement)}
    )


def _explicit_scalar(e: Any) -> Any:
    """A trace, determinant or entry of a matrix expression, evaluated explicitly."""
    if isinstance(e, Trace):
        return _explicit(e.arg).trace()
    if isinstance(e, Determinant):
        return _explicit(e.arg).det()
    if isinstance(e, MatrixElement) and not isinstance(e.parent, MatrixSymbol):
        return _explicit(e.parent)[e.i, e.j]
    return e
