"""Exact arithmetic at a drawn point: floats as the rationals they are, and signs decided rigorously.

A float64 is a dyadic rational, so a case drawn by Hypothesis is an exact point: :func:`exact_case`
turns its floats into ``sp.Rational`` and its matrices into ``sp.ImmutableMatrix`` of rationals, and
the sides of a statement, evaluated there by SymPy, give the residual *exactly*. :func:`sign` then
decides whether a residual is zero: exactly for rational numbers; for algebraic and transcendental
numbers by a rigorous interval enclosure (``mpmath.iv``, outward-rounded interval arithmetic at rising
precision; a real root ``CRootOf`` enters as its isolating interval, refined until narrow enough). A
floating-point counterexample counts only once its residual's sign is decided non-zero here.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import mpmath
import numpy as np
import sympy as sp

Sign = int | None
"""−1, 0 or 1; ``None`` when the sign could not be decided."""

_SYMPY_CONVERTER: dict[type, Any] = sys.modules["sympy.core.sympify"]._sympy_converter
"""SymPy's table of how a Python type becomes a SymPy object (``sympify``)."""

PRECISIONS = (80, 200, 600)
"""Bits of working precision of the successive interval evaluations."""


def exact(value: Any) -> Any:
    """``value`` with every float replaced by the rational it is exactly (arrays as SymPy matrices).

    Integers and booleans stay as they are (sizes); a 0-d array is a number, a 1-D array a column,
    a 2-D array an ``ImmutableMatrix``; lists, tuples and dicts are converted item by item.

    >>> exact(0.1)
    3602879701896397/36028797018963968
    >>> exact(np.array([[0.5, 2.0]]))
    Matrix([[1/2, 2]])
    """
    if isinstance(value, (bool, int, np.integer)):
        return value
    if isinstance(value, (float, np.floating)):
        return sp.Rational(float(value))
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise TypeError(f"cannot convert an array of dtype {value.dtype} to exact numbers")
        if value.ndim == 0:
            return exact(value[()])
        rows = value.reshape(-1, 1) if value.ndim == 1 else value
        if rows.ndim != 2:
            raise TypeError(f"cannot convert an array of {value.ndim} dimensions to a matrix")
        return sp.ImmutableMatrix(rows.shape[0], rows.shape[1], [exact(v) for v in rows.ravel()])
    if isinstance(value, dict):
        return {k: exact(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(exact(v) for v in value)
    return value


def exact_case(case: Mapping[str, Any]) -> dict[str, Any]:
    """A drawn case with every value exact (:func:`exact`)."""
    return {name: exact(value) for name, value in case.items()}


def entries(value: Any) -> list[sp.Expr]:
    """The scalar entries of an exact value (a number, a matrix, or a list of them)."""
    if isinstance(value, (list, tuple)):
        return [e for v in value for e in entries(v)]
    if isinstance(value, sp.MatrixBase):
        return [sp.sympify(e) for e in value]
    if isinstance(value, sp.MatrixExpr):
        return [sp.sympify(e) for e in value.as_explicit()]
    return [sp.sympify(value)]


def sign(value: Any) -> Sign:
    """The sign of a real SymPy number, decided rigorously, or ``None``.

    Rationals are decided exactly. Other numbers are enclosed in intervals by :func:`enclose` at
    rising precision; the sign is that of an enclosure that excludes 0. A number that simplifies to
    exactly 0 (``sp.nsimplify`` is not used: only SymPy's automatic and ``simplify`` forms) has sign 0.

    >>> sign(sp.Rational(-1, 3)), sign(sp.sqrt(2) - sp.Rational(140, 99)), sign(sp.exp(1) - sp.E)
    (-1, 1, 0)
    """
    x = sp.sympify(value)
    if x.is_Rational:
        return int(sp.sign(x))
    if x.free_symbols or x.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return None
    for prec in PRECISIONS:
        box = enclose(x, prec)
        if box is None:
            break
        if box.a > 0:
            return 1
        if box.b < 0:
            return -1
    try:
        simplified = sp.simplify(x)
    except Exception:  # SymPy could not simplify this number
        simplified = x
    return 0 if simplified == 0 or _algebraic_zero(x) else None


def _algebraic_zero(x: sp.Expr) -> bool:
    """Whether ``x`` is an algebraic number whose minimal polynomial is t, i.e. exactly 0.

    Needed beside ``simplify``, which reduces a polynomial in a ``CRootOf`` to 0 only from SymPy 1.14: for the
    plastic number r (the real root of x³ − x − 1), r³ − r − 1 stays unsimplified in SymPy 1.13.
    A number that is not algebraic, or that ``minimal_polynomial`` does not handle, is not decided here.
    """
    t = sp.Dummy("t")
    try:
        return bool(sp.minimal_polynomial(x, t) == t)
    except Exception:  # NotAlgebraic, or an expression minimal_polynomial does not handle: undecided here
        return False


def nonzero(values: Any) -> bool | None:
    """Whether some entry of an exact value is non-zero: True, False (all exactly 0) or None (undecided)."""
    signs = [sign(e) for e in entries(values)]
    if any(s not in (0, None) for s in signs):
        return True
    return False if all(s == 0 for s in signs) else None


_FUNCTIONS: dict[type, Callable[[Any], Any]] = {
    sp.exp: lambda a: mpmath.iv.exp(a),
    sp.log: lambda a: mpmath.iv.log(a),
    sp.sin: lambda a: mpmath.iv.sin(a),
    sp.cos: lambda a: mpmath.iv.cos(a),
    sp.tan: lambda a: mpmath.iv.tan(a),
    sp.Abs: lambda a: abs(a),
}


def enclose(x: sp.Expr, prec: int) -> Any:
    """An ``mpmath.iv`` interval containing the real number ``x`` at ``prec`` bits, or ``None``.

    Outward rounding at every operation makes the enclosure rigorous (mpmath's interval context).
    Supported: rationals, π and e, sums, products, integer and rational powers, exp, log, sin, cos,
    tan, |·|, and real algebraic numbers ``CRootOf`` (their isolating interval). Anything else: ``None``.
    """
    saved, mpmath.iv.prec = mpmath.iv.prec, prec
    try:
        return _enclose(x, prec)
    except (TypeError, ValueError, ZeroDivisionError, NotImplementedError):
        return None
    finally:
        mpmath.iv.prec = saved


def _enclose(x: sp.Expr, prec: int) -> Any:
    iv = mpmath.iv
    if x.is_Rational:
        return iv.mpf(int(x.p)) / iv.mpf(int(x.q))
    if x is sp.pi:
        return iv.pi
    if x is sp.E:
        return iv.e
    if isinstance(x, sp.Add):
        return sum((_enclose(a, prec) for a in x.args), iv.mpf(0))
    if isinstance(x, sp.Mul):
        out = iv.mpf(1)
        for a in x.args:
            out = out * _enclose(a, prec)
        return out
    if isinstance(x, sp.Pow):
        base, power = x.args
        if power.is_Integer:
            return _enclose(base, prec) ** int(power)
        if power.is_Rational:
            b = _enclose(base, prec)
            if power == sp.Rational(1, 2):
                return iv.sqrt(b)
            return iv.exp(_enclose(power, prec) * iv.log(b))
        return iv.exp(_enclose(power, prec) * iv.log(_enclose(base, prec)))
    if isinstance(x, sp.CRootOf) and x.is_real:
        return _root_interval(x, prec)
    fn = _FUNCTIONS.get(type(x))
    if fn is not None and len(x.args) == 1:
        return fn(_enclose(x.args[0], prec))
    raise NotImplementedError(type(x).__name__)


def _root_interval(root: sp.CRootOf, prec: int) -> Any:
    """The isolating interval of a real root, refined to about ``prec`` bits (rational end points)."""
    interval = root._get_interval()
    while sp.Rational(interval.b - interval.a) > sp.Rational(1, 2**prec) * max(1, abs(sp.Rational(interval.a))):
        interval = interval.refine()
    a, b = sp.Rational(interval.a), sp.Rational(interval.b)
    low = mpmath.iv.mpf(int(a.p)) / int(a.q)
    high = mpmath.iv.mpf(int(b.p)) / int(b.q)
    return mpmath.iv.mpf([low.a, high.b])


_CONVERTER_LOCK = threading.Lock()


@contextmanager
def floats_as_rationals(decimal: bool = False) -> Iterator[None]:
    """Within this block, a Python float meeting a SymPy number becomes the rational it is, not a 53-bit ``Float``.

    A side written ``1.5 * trace(A)`` evaluated at an exact point then stays exact (SymPy would otherwise
    round every later operation to the float's precision). With ``decimal`` a float becomes the decimal
    it prints as (0.1 → 1/10): what its author meant, to tell a refutation caused by binary literals.
    SymPy's conversion table of Python types is restored on leaving; a lock keeps two threads of one
    process from interleaving the swap.

    >>> with floats_as_rationals():
    ...     0.1 * sp.Rational(1, 3)
    3602879701896397/108086391056891904
    >>> with floats_as_rationals(decimal=True):
    ...     0.1 * sp.Rational(1, 3)
    1/30
    """
    with _CONVERTER_LOCK:
        saved = _SYMPY_CONVERTER[float]
        _SYMPY_CONVERTER[float] = (lambda x: sp.Rational(repr(x))) if decimal else sp.Rational
        try:
            yield
        finally:
            _SYMPY_CONVERTER[float] = saved
