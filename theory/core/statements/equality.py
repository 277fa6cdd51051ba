"""``lhs = rhs``: the symbolic check (an induction when a side recurses over an integer), the explicit
check at small sizes, and the numeric search with exact confirmation of what it finds.

The sides run on SymPy matrix symbols of symbolic size, on explicit SymPy matrices and on NumPy arrays;
:func:`semantics_differ` makes sure they compute the same thing on both (NumPy's ``**`` is element-wise).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp
from hypothesis import strategies as st
from sympy.matrices.expressions import Transpose
from sympy.matrices.expressions.matexpr import MatrixElement

from icl_verify.core.checks.base import Check, parts
from icl_verify.core.checks.explicit import Explicit
from icl_verify.core.checks.numeric import (
    OUTSIDE_DOMAIN,
    Inexact,
    MalformedComparison,
    Numeric,
    same_shape,
    side_values,
)
from icl_verify.core.checks.numeric import Sides as NumericSides
from icl_verify.core.checks.symbolic import Symbolic, decision
from icl_verify.core.induction import Induction, IntegerSpec, Recursion, induction_residuals
from icl_verify.core.statements.base import Given, StatementKind
from icl_verify.core.symbols import (
    MatrixSpec,
    Spec,
    call,
    drawn_from,
    for_symmetric,
    probe_values,
    size_names,
    size_symbol,
    symbolic_values,
    symmetric_names,
)
from icl_verify.errors import InvalidArgument
from icl_verify.maths.exact import entries, exact_case, floats_as_rationals
from icl_verify.maths.symbolic import as_explicit, explicit_value
from icl_verify.maths.tolerance import ATOL, term_scale


def residuals(lhs: Callable[..., Any], rhs: Callable[..., Any], values: Mapping[str, Any]) -> list[Any]:
    """lhs − rhs, part by part when the sides return tuples."""
    left, right = parts(call(lhs, values)), parts(call(rhs, values))
    if len(left) != len(right):
        raise InvalidArgument(f"lhs returns {len(left)} part(s) but rhs returns {len(right)}")
    return [a - b for a, b in zip(left, right)]


def _side(name: str, fn: Callable[..., Any], case: Mapping[str, Any]) -> list[np.ndarray]:
    """A side's parts at a case, each a real array of its own shape (:func:`side_values` names the part)."""
    values = parts(call(fn, case))
    label = (lambda i: name) if len(values) == 1 else (lambda i: f"{name} part {i}")
    return [side_values(label(i), v) for i, v in enumerate(values)]


def compare(lhs: Callable[..., Any], rhs: Callable[..., Any], case: Mapping[str, Any]) -> tuple:
    """(lhs, rhs, scale) at a drawn case, scale the term magnitude of either side (:mod:`icl_verify.maths.tolerance`).

    The sides are compared part by part, shapes first: a different number of parts or a part whose
    shape differs (x against xᵀ) is :class:`MalformedComparison`, never flattened away.
    """
    left, right = _side("lhs", lhs, case), _side("rhs", rhs, case)
    if len(left) != len(right):
        raise MalformedComparison(f"lhs returns {len(left)} part(s) but rhs returns {len(right)}")
    for i, (a, b) in enumerate(zip(left, right)):
        same_shape(a, b, "lhs and rhs" if len(left) == 1 else f"lhs and rhs part {i}")
    flat = lambda side: np.concatenate([np.ravel(p) for p in side])  # noqa: E731
    sides = (lambda **v: call(lhs, v), lambda **v: call(rhs, v))
    return flat(left), flat(right), term_scale(sides, case)


@dataclass(frozen=True)
class _Sides:
    """The three checks of ``lhs = rhs`` over the declared symbols, as bound methods for a :class:`Claim`."""

    symbols: Mapping[str, Spec]
    lhs: Callable[..., Any]
    rhs: Callable[..., Any]
    integers: tuple[str, ...] = ()

    def symbolic(self) -> list[Any]:
        names = size_names(self.symbols)
        sizes = {n: size_symbol(n) for n in names}
        with floats_as_rationals():  # a literal 0.5 is the rational 1/2, not a 53-bit Float that rounds
            found = self._symmetric(residuals(self.lhs, self.rhs, {**symbolic_values(self.symbols, sizes), **sizes}))
        symmetric = symmetric_names(self.symbols)
        if not symmetric:
            return found
        # Aᵀ → A proves soundly (zero for every A, so for every symmetric A); a residual that is not proved so
        # is decided with A = R + Rᵀ, every symmetric matrix, so that a refutation does not use a non-symmetric A
        return [r if decision(r, 0).holds is True else for_symmetric(r, symmetric) for r in found]

    def explicit(self, **sizes: int) -> list[Any]:
        values = symbolic_values(self.symbols, sizes)
        with floats_as_rationals():
            return self._symmetric(as_explicit(residuals(self.lhs, self.rhs, {**values, **sizes})))

    def _symmetric(self, parts: list[Any]) -> list[Any]:
        """Aᵀ → A for every ``spd`` matrix; at concrete sizes A[j, i] → A[i, j] (i < j)."""
        spd = [name for name, spec in self.symbols.items() if isinstance(spec, MatrixSpec) and spec.spd]
        if not spd:
            return parts
        out = []
        for r in parts:
            r = r.replace(
                lambda e: isinstance(e, Transpose) and str(getattr(e.arg, "name", "")) in spd, lambda e: e.arg
            )
            lower = {
                e: e.parent[e.j, e.i]
                for e in r.atoms(MatrixElement)
                if str(getattr(e.parent, "name", "")) in spd and e.i > e.j
            }
            out.append(r.xreplace(lower) if lower else r)
        return out

    def numeric(self, case: Mapping[str, Any]) -> tuple:
        return compare(self.lhs, self.rhs, case)

    def exact(self, case: Mapping[str, Any], decimal: bool = False) -> list[Any]:
        """lhs − rhs at a drawn case in exact arithmetic (its floats as rationals; see :func:`exact_residuals`)."""
        return exact_residuals(self.lhs, self.rhs, case, decimal)

    def probe(self) -> str | None:
        """A message when the sides compute different things on NumPy arrays and on exact SymPy matrices.

        Both evaluations at one generic point (:func:`probe_values`, distinct sizes 2, 3, …) must agree
        to well within rounding; NumPy's ``**`` on a matrix is element-wise where SymPy's is the matrix
        power, the usual cause. ``None`` when they agree or a side does not run on exact numbers.
        """
        names = size_names(self.symbols) + list(self.integers)
        sizes = {n: 2 + i for i, n in enumerate(names)}
        values = {**probe_values(self.symbols, sizes), **sizes}
        return semantics_differ({"lhs": self.lhs, "rhs": self.rhs}, values)


def exact_residuals(
    lhs: Callable[..., Any], rhs: Callable[..., Any], case: Mapping[str, Any], decimal: bool = False
) -> list[Any]:
    """lhs − rhs at ``case`` with its floats as the rationals they are, evaluated by SymPy.

    The float literals in the sides' code become binary rationals too, or with ``decimal`` the decimals
    they print as. Raises what :data:`~icl_verify.core.checks.numeric.OUTSIDE_DOMAIN` lists where a side
    is undefined there (a singular matrix), and :class:`Inexact` where a side needs NumPy numbers.
    """
    values = exact_case(case)
    try:
        with floats_as_rationals(decimal):
            out = [explicit_value(r) for r in residuals(lhs, rhs, values)]
    except OUTSIDE_DOMAIN:
        raise
    except Exception as exc:  # a side that needs NumPy numbers (np.exp of a Rational, a float() of a matrix …)
        raise Inexact(f"{type(exc).__name__}: {exc}") from None
    for r in out:
        if any(e.has(sp.zoo, sp.nan) for e in entries(r)):
            raise ZeroDivisionError("a side divides by zero at this point in exact arithmetic")
        if any(e.free_symbols or e.atoms(sp.Float) for e in entries(r)):
            raise Inexact("a side's exact value is not a number of SymPy's exact kinds")
    return out


PROBE_AGREEMENT = 1e-6
"""How closely the NumPy and the exact evaluation of a side must agree at the probe point (relative)."""


def semantics_differ(sides: Mapping[str, Callable[..., Any]], values: Mapping[str, Any]) -> str | None:
    """A message naming the first side whose NumPy value differs from its exact value at ``values``, else ``None``."""
    for name, fn in sides.items():
        try:
            with np.errstate(all="ignore"):
                approximate = [np.asarray(p) for p in parts(call(fn, values))]
            if any(a.dtype.kind not in "biuf" for a in approximate):
                continue  # complex or non-numeric: the numeric check names it
            with floats_as_rationals():
                exact_parts = [explicit_value(p) for p in parts(call(fn, exact_case(values)))]
            exact_values = [np.array([float(e) for e in entries(p)]) for p in exact_parts]
        except Exception:  # a side that does not run here is reported by the checks themselves
            continue
        for a, e in zip(approximate, exact_values):
            if a.size != e.size or not np.all(np.isfinite(a)):
                continue
            gap = float(np.max(np.abs(a.ravel() - e), initial=0.0))
            if gap > PROBE_AGREEMENT * (1.0 + float(np.max(np.abs(e), initial=0.0))):
                return (
                    f"{name} computes different values on NumPy arrays and on SymPy matrices at the same point "
                    f"(sizes {_sizes_text(values)}; largest difference {gap:.3g}): NumPy's ** is element-wise "
                    "where SymPy's is a matrix power — write iv.matpow(M, k) for the matrix power"
                )
    return None


def _sizes_text(values: Mapping[str, Any]) -> str:
    return str({k: v for k, v in values.items() if isinstance(v, int)})


def _equality_forms(
    symbols: Mapping[str, Spec], lhs: Callable[..., Any], rhs: Callable[..., Any], integers: Mapping[str, IntegerSpec]
) -> dict[str, Any]:
    """The counterpart of ``lhs = rhs`` for each check kind; over an integer parameter the symbolic one is the induction."""
    sides = _Sides(symbols, lhs, rhs, tuple(integers))
    forms: dict[str, Any] = {
        Explicit.kind: sides.explicit,
        Numeric.kind: NumericSides(sides.numeric, sides.exact, sides.probe),
    }
    if not integers:
        forms[Symbolic.kind] = sides.symbolic
    elif (over := recursion_over(lhs, rhs)) is not None:

        def induction() -> Any:
            sizes = {n: size_symbol(n) for n in size_names(symbols)}
            values = {**symbolic_values(symbols, sizes), **sizes, over: sp.Symbol(over, integer=True, nonnegative=True)}
            return induction_residuals(lhs, rhs, over, values, integers[over].low)

        forms[Symbolic.kind] = induction
    return forms


def recursion_over(lhs: Any, rhs: Any) -> str | None:
    """The integer parameter a side recurses over, if any."""
    return next((side.over for side in (lhs, rhs) if isinstance(side, Recursion)), None)


def _equality_checks(
    forms: Mapping[str, Any],
    over: str | None,
    cases: st.SearchStrategy,
    exact: list,
    rtol: float,
    symbolic: bool,
    explicit: bool,
    drawn: str,
) -> list[Check]:
    """The symbolic (an induction on ``over`` when given), explicit and numeric checks of ``lhs = rhs``."""
    checks: list[Check] = []
    if symbolic and Symbolic.kind in forms:
        proof = forms[Symbolic.kind]
        checks.append(Induction(proof, over) if over else Symbolic(proof))
    checks += [Explicit(forms[Explicit.kind], exact)] if explicit else []
    checks.append(Numeric(cases, forms[Numeric.kind], rtol, ATOL, drawn))
    return checks


class EqualityStatement(StatementKind):
    """``lhs = rhs`` between deterministic sides."""

    def applies(self, given: Given) -> bool:
        return given.relation == "="

    def forms(self, given: Given, rhs: Any) -> dict[str, Any]:
        return _equality_forms(given.symbols, given.lhs, rhs, given.integers)

    def checks(self, given: Given) -> list[Check]:
        over = recursion_over(given.lhs, given.rhs)
        forms = self.forms(given, given.rhs)
        return _equality_checks(
            forms,
            over,
            given.cases(),
            given.exact,
            given.rtol,
            given.symbolic,
            given.explicit,
            drawn_from(given.symbols),
        )
