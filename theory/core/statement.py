"""One statement, every check: a claim written once as ``lhs = rhs`` over declared symbols.

The two sides are Python functions of the declared matrices and scalars (and, by name, of the
sizes). From that single definition :func:`statement` derives an ordinary :class:`Claim`:

* :class:`~icl_verify.core.checks.symbolic.Symbolic` — the sides on SymPy ``MatrixSymbol`` s of *symbolic* size: lhs − rhs reduced to
  zero by ``engine.symbolic.is_zero`` proves the identity for every size;
* :class:`~icl_verify.core.checks.explicit.Explicit` — the same at small concrete sizes, entries expanded, an exact rational witness
  when lhs ≠ rhs (``engine.symbolic.find_witness``);
* :class:`~icl_verify.core.checks.numeric.Numeric` — the same functions on NumPy arrays, sizes and entries drawn and shrunk by
  Hypothesis, compared with the automatic tolerance of ``engine.tolerance`` (users write no scale).

A statement expected to be false (``holds=False``) names its corrected right-hand side
(``corrected=``) or why there is none (``no_control=``); the corrected right-hand side becomes the
claim's :class:`~icl_verify.core.claims.Corrected` form, a counterpart for every check.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp
from hypothesis import strategies as st
from sympy.matrices.expressions import MatrixSymbol, Transpose
from sympy.matrices.expressions.matexpr import MatrixElement

from icl_verify.core.bounds import DEFAULT_TIMEOUT, check_relation, inequality_checks
from icl_verify.core.checks.base import Check, parts
from icl_verify.core.checks.bound import NumericBound
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
from icl_verify.core.claims import Claim, Corrected, NoControl, expectation
from icl_verify.core.expectation import (
    Expect,
    MomentExplicit,
    MomentSymbolic,
    MonteCarlo,
    RandomSpec,
    expected,
    explicit_entries,
    random_symbols,
    sample,
    samples_of,
)
from icl_verify.core.induction import Induction, IntegerSpec, Recursion, bound, induction_residuals
from icl_verify.core.optimality import Argmin, Optimality, StationaryExplicit, conditions
from icl_verify.errors import InvalidArgument
from icl_verify.maths.exact import entries, exact_case, floats_as_rationals
from icl_verify.maths.scalars import declared
from icl_verify.maths.strategies import Dimension, dimension, matrices, nonzero_matrices, reals, spd_matrices
from icl_verify.maths.symbolic import as_explicit, explicit_value, grid, is_zero
from icl_verify.maths.tolerance import ATOL, RTOL, term_scale

Size = str | int


@dataclass(frozen=True)
class MatrixSpec:
    """A declared matrix: its shape as size names (or integers), entries bounded by ``bound``."""

    rows: Size
    cols: Size
    nonzero: bool = False  # numeric side: never the all-zero matrix (e.g. W0 ≠ 0)
    bound: float = 3.0
    spd: bool = False  # symmetric positive definite: Aᵀ = A on the symbolic sides, drawn as M Mᵀ + I
    invertible: bool = False  # a general invertible matrix: drawn diagonally dominant, of either sign


@dataclass(frozen=True)
class ScalarSpec:
    """A declared real scalar, optionally positive or non-zero, in [low, high] and never one of ``exclude``.

    ``bound`` is only the magnitude of the numbers drawn where the range leaves a side open; ``low``,
    ``high`` and ``exclude`` are the domain, and every check assumes them (z3 and the symbolic side too).
    """

    positive: bool = False
    nonzero: bool = False
    bound: float = 2.0
    low: float | None = None
    high: float | None = None
    exclude: tuple[float, ...] = ()

    def interval(self) -> tuple[float, float]:
        """The interval the numbers are drawn from: the domain, cut to ``bound`` where it is open."""
        low = self.low if self.low is not None else (0.0 if self.positive else -self.bound)
        high = self.high if self.high is not None else max(self.bound, low + self.bound)
        if self.low is None and self.high is not None and not self.positive:
            low = min(-self.bound, high - self.bound)
        if self.positive and self.low is None:
            low = min(1.0 / 16, high / 2)  # positive numbers bounded away from 0, as reals(positive=True) draws
        return low, high


def matrix(
    rows: Size, cols: Size, *, nonzero: bool = False, bound: float = 3.0, spd: bool = False, invertible: bool = False
) -> MatrixSpec:
    """Declare a matrix of shape (rows, cols); a size is a name such as ``"N"`` or an integer.

    ``spd=True`` declares a symmetric positive definite matrix (rows = cols): the symbolic and exact
    checks use Aᵀ = A (a symmetric matrix of entries), the numeric check draws M Mᵀ + I. An identity
    of rational functions that holds for every SPD matrix holds for every symmetric one (SPD
    matrices are Zariski-dense in the symmetric ones), so the checks lose nothing by it.
    ``invertible=True`` declares a general (non-symmetric) invertible matrix: the numeric check draws
    ±(M + (n·bound + 1) I), strictly diagonally dominant and so invertible (Lévy–Desplanques) with
    condition number below 2n·bound + 1; these form an open set, so an identity of rational functions
    refuted anywhere is refuted there too.
    """
    if (spd or invertible) and rows != cols:
        what = "spd=True" if spd else "invertible=True"
        raise InvalidArgument(f"{what} needs a square matrix, got rows={rows!r} and cols={cols!r}")
    for arg, value in (("rows", rows), ("cols", cols)):
        if isinstance(value, bool) or not isinstance(value, (str, int)) or (isinstance(value, int) and value < 1):
            raise InvalidArgument(f"{arg} must be a size name or a positive integer, got {value!r}")
        if isinstance(value, str) and not value.isidentifier():
            raise InvalidArgument(f"{arg} must be a size name that is a Python identifier, got {value!r}")
    _positive_bound(bound)
    return MatrixSpec(rows, cols, nonzero, float(bound), bool(spd), bool(invertible))


def scalar(
    *,
    positive: bool = False,
    nonzero: bool = False,
    bound: float = 2.0,
    low: float | None = None,
    high: float | None = None,
    exclude: Iterable[float] = (),
) -> ScalarSpec:
    """Declare a real scalar; ``positive`` or ``nonzero`` become SymPy assumptions and drawing bounds.

    ``low`` and ``high`` (inclusive) and ``exclude`` (values such as ``r = 1`` where a side is
    undefined) declare its domain: every check assumes them, z3 included. ``bound`` is the magnitude
    of the numbers drawn where the domain is open.
    """
    _positive_bound(bound)
    ends = {name: _finite_number(name, value) for name, value in (("low", low), ("high", high)) if value is not None}
    if "low" in ends and "high" in ends and ends["low"] >= ends["high"]:
        raise InvalidArgument(f"low must be below high, got low={low!r} and high={high!r}")
    if positive and ends.get("high", 1.0) <= 0:
        raise InvalidArgument(f"a positive scalar needs high > 0, got high={high!r}")
    if isinstance(exclude, (str, bytes)) or not isinstance(exclude, Iterable):
        raise InvalidArgument(f"exclude must be a list of numbers, got {exclude!r}")
    excluded = tuple(_finite_number("exclude", v) for v in exclude)
    low_end = max(ends.get("low", 0.0), 0.0) if positive else ends.get("low")
    return ScalarSpec(positive, nonzero, float(bound), low_end, ends.get("high"), excluded)


def _finite_number(arg: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
        raise InvalidArgument(f"{arg} must be a finite number, got {value!r}")
    return float(value)


def _positive_bound(bound: Any) -> None:
    if isinstance(bound, bool) or not isinstance(bound, (int, float)) or not np.isfinite(bound) or bound <= 0:
        raise InvalidArgument(f"bound must be a positive finite number, got {bound!r}")


Spec = MatrixSpec | ScalarSpec


# ---------------------------------------------------------------------------------------------
# The declared symbols on each side


def size_names(symbols: Mapping[str, Spec]) -> list[str]:
    """The size names used by the declared matrices, in order of first appearance."""
    names: list[str] = []
    for spec in symbols.values():
        if isinstance(spec, (MatrixSpec, RandomSpec)):
            names += [s for s in (spec.rows, spec.cols) if isinstance(s, str) and s not in names]
    return names


def _size_symbol(name: str) -> sp.Symbol:
    return sp.Symbol(name, positive=True, integer=True)


def _scalar_symbol(name: str, spec: ScalarSpec) -> sp.Symbol:
    if spec.positive:
        return sp.Symbol(name, positive=True)
    return sp.Symbol(name, real=True, nonzero=True) if spec.nonzero else sp.Symbol(name, real=True)


def symbolic_values(symbols: Mapping[str, Spec], sizes: Mapping[str, Any]) -> dict[str, Any]:
    """Matrix symbols of the given (symbolic or integer) sizes and scalar symbols, by name."""
    dim = lambda s: sizes[s] if isinstance(s, str) else s  # noqa: E731
    return {
        name: declared(name, dim(spec.rows), dim(spec.cols), (spec.rows == 1, spec.cols == 1))  # maths.scalars
        if isinstance(spec, MatrixSpec)
        else _scalar_symbol(name, spec)
        for name, spec in symbols.items()
        if not isinstance(spec, RandomSpec)
    }


def _draw_scalar(spec: ScalarSpec) -> st.SearchStrategy[float]:
    """A number of the declared domain (:meth:`ScalarSpec.interval`), never an excluded value."""
    low, high = spec.interval()
    if spec.nonzero and spec.low is None and spec.high is None:
        magnitude = reals(spec.bound, positive=True)
        drawn = st.one_of(magnitude, magnitude.map(lambda v: -v))
    else:
        drawn = st.floats(low, high, allow_nan=False, allow_infinity=False, allow_subnormal=False)
    forbidden = set(spec.exclude) | ({0.0} if spec.nonzero or spec.positive else set())
    return drawn.filter(lambda v: v not in forbidden) if forbidden else drawn


def drawn_from(symbols: Mapping[str, Spec]) -> str:
    """Where the numeric checks draw the declared scalars from, for their evidence: ``x∈[-2,2], η∈[0.0625,2]∖{0}``."""
    ranges = []
    for name, spec in symbols.items():
        if isinstance(spec, ScalarSpec):
            low, high = spec.interval()
            excluded = sorted(set(spec.exclude) | ({0.0} if spec.nonzero and low < 0 < high else set()))
            skip = f"∖{{{','.join(f'{v:g}' for v in excluded)}}}" if excluded else ""
            ranges.append(f"{name}∈[{low:g},{high:g}]{skip}")
    return f"scalars drawn from {', '.join(ranges)}" if ranges else ""


def _invertible(m: np.ndarray, negative: bool, bound: float) -> np.ndarray:
    """±(M + (n·bound + 1) I): strictly diagonally dominant, hence invertible (Lévy–Desplanques)."""
    shifted = m + (m.shape[0] * bound + 1.0) * np.eye(m.shape[0])
    return -shifted if negative else shifted


def _draw_spec(spec: Spec, sizes: Mapping[str, int]) -> st.SearchStrategy:
    if isinstance(spec, ScalarSpec):
        return _draw_scalar(spec)
    rows, cols = (sizes[s] if isinstance(s, str) else s for s in (spec.rows, spec.cols))
    drawn = (nonzero_matrices if spec.nonzero else matrices)(rows, cols, spec.bound)
    if spec.invertible:
        return st.tuples(drawn, st.booleans()).map(lambda mb: _invertible(mb[0], mb[1], spec.bound))
    return drawn.map(lambda m: m @ m.T + np.eye(rows)) if spec.spd else drawn


def _dimensions(sizes: Mapping[str, Dimension | st.SearchStrategy[int]]) -> dict[str, st.SearchStrategy[int]]:
    """A strategy for each size (an integer parameter comes with its own)."""
    return {
        name: value if isinstance(value, st.SearchStrategy) else dimension(f"sizes[{name!r}]", value)
        for name, value in sizes.items()
    }


def cases(
    symbols: Mapping[str, Spec], sizes: Mapping[str, Dimension | st.SearchStrategy[int]]
) -> st.SearchStrategy[dict]:
    """Hypothesis cases: every size drawn in its range (shrinking to the low end), then every symbol."""
    dimensions = _dimensions(sizes)

    @st.composite
    def draw_case(draw) -> dict:
        case: dict[str, Any] = {name: draw(d) for name, d in dimensions.items()}
        for name, spec in symbols.items():
            case[name] = draw(_draw_spec(spec, case))
        return case

    return draw_case()


# ---------------------------------------------------------------------------------------------
# Residuals and comparisons derived from the two sides


def _inputs(fn: Callable[..., Any]) -> list[str]:
    """The parameters of a side without a default value: the symbols and sizes it takes."""
    if isinstance(fn, Recursion):
        return fn.inputs()
    if isinstance(fn, Argmin):
        return _inputs(fn.loss)
    params = inspect.signature(fn.fn if isinstance(fn, Expect) else fn).parameters.values()
    return [p.name for p in params if p.default is inspect.Parameter.empty]


SCALAR_MATMUL = (
    "@ between two scalars: a 1 × 1 product is a scalar, and so is a sum of it with other scalars "
    "(xᵀAx − tr A); write * for the product of two scalars"
)


def _call(fn: Callable[..., Any], values: Mapping[str, Any]) -> Any:
    """Call a side with the declared symbols and sizes that its parameters name."""
    try:
        return fn(**{p: values[p] for p in _inputs(fn)})
    except TypeError as exc:
        if str(exc).startswith("unsupported operand type(s) for @") and "Matrix" not in str(exc):
            raise TypeError(f"{SCALAR_MATMUL} ({exc})") from None
        raise


def residuals(lhs: Callable[..., Any], rhs: Callable[..., Any], values: Mapping[str, Any]) -> list[Any]:
    """lhs − rhs, part by part when the sides return tuples."""
    left, right = parts(_call(lhs, values)), parts(_call(rhs, values))
    if len(left) != len(right):
        raise InvalidArgument(f"lhs returns {len(left)} part(s) but rhs returns {len(right)}")
    return [a - b for a, b in zip(left, right)]


def _side(name: str, fn: Callable[..., Any], case: Mapping[str, Any]) -> list[np.ndarray]:
    """A side's parts at a case, each a real array of its own shape (:func:`side_values` names the part)."""
    values = parts(_call(fn, case))
    label = (lambda i: name) if len(values) == 1 else (lambda i: f"{name} part {i}")
    return [side_values(label(i), v) for i, v in enumerate(values)]


def compare(lhs: Callable[..., Any], rhs: Callable[..., Any], case: Mapping[str, Any]) -> tuple:
    """(lhs, rhs, scale) at a drawn case, scale the term magnitude of either side (``engine.tolerance``).

    The sides are compared part by part, shapes first: a different number of parts or a part whose
    shape differs (x against xᵀ) is :class:`MalformedComparison`, never flattened away.
    """
    left, right = _side("lhs", lhs, case), _side("rhs", rhs, case)
    if len(left) != len(right):
        raise MalformedComparison(f"lhs returns {len(left)} part(s) but rhs returns {len(right)}")
    for i, (a, b) in enumerate(zip(left, right)):
        same_shape(a, b, "lhs and rhs" if len(left) == 1 else f"lhs and rhs part {i}")
    flat = lambda side: np.concatenate([np.ravel(p) for p in side])  # noqa: E731
    sides = (lambda **v: _call(lhs, v), lambda **v: _call(rhs, v))
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
        sizes = {n: _size_symbol(n) for n in names}
        with floats_as_rationals():  # a literal 0.5 is the rational 1/2, not a 53-bit Float that rounds
            found = self._symmetric(residuals(self.lhs, self.rhs, {**symbolic_values(self.symbols, sizes), **sizes}))
        symmetric = _symmetric_names(self.symbols)
        if not symmetric:
            return found
        # Aᵀ → A proves soundly (zero for every A, so for every symmetric A); a residual that is not proved so
        # is decided with A = R + Rᵀ, every symmetric matrix, so that a refutation does not use a non-symmetric A
        return [r if decision(r, 0).holds is True else _for_symmetric(r, symmetric) for r in found]

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

        Both evaluations at one generic point (:func:`_probe_values`, distinct sizes 2, 3, …) must agree
        to well within rounding; NumPy's ``**`` on a matrix is element-wise where SymPy's is the matrix
        power, the usual cause. ``None`` when they agree or a side does not run on exact numbers.
        """
        names = size_names(self.symbols) + list(self.integers)
        sizes = {n: 2 + i for i, n in enumerate(names)}
        values = {**_probe_values(self.symbols, sizes), **sizes}
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
                approximate = [np.asarray(p) for p in parts(_call(fn, values))]
            if any(a.dtype.kind not in "biuf" for a in approximate):
                continue  # complex or non-numeric: the numeric check names it
            with floats_as_rationals():
                exact_parts = [explicit_value(p) for p in parts(_call(fn, exact_case(values)))]
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


def _check_side(arg: str, fn: Any, known: Iterable[str]) -> None:
    if not (callable(fn) or isinstance(fn, Argmin)):
        raise InvalidArgument(f"{arg} must be a function of the declared symbols, got {type(fn).__name__}")
    known = set(known)
    for p in _inputs(fn):
        if p not in known:
            raise InvalidArgument(f"{arg} takes {p!r}, which is neither a declared symbol nor a size ({sorted(known)})")


def _check_symbols(symbols: Any) -> None:
    if not isinstance(symbols, Mapping) or not symbols:
        raise InvalidArgument("symbols must be a non-empty dict of name -> iv.matrix(...) or iv.scalar(...)")
    for name, spec in symbols.items():
        if not (isinstance(name, str) and name.isidentifier()):
            raise InvalidArgument(f"symbols: every name must be a Python identifier, got {name!r}")
        if not isinstance(spec, (MatrixSpec, ScalarSpec, RandomSpec, IntegerSpec)):
            raise InvalidArgument(
                f"symbols[{name!r}] must be iv.matrix(...), iv.scalar(...), iv.gaussian(...) or iv.iid(...), "
                f"got {type(spec).__name__}"
            )


def _check_control(holds: bool, corrected: Callable[..., Any] | None, no_control: str, correction: str) -> None:
    if holds and (corrected is not None or no_control):
        raise InvalidArgument("corrected and no_control are for statements expected to be false (holds=False)")
    if not holds and (corrected is None) == (not no_control):
        raise InvalidArgument(
            "a statement with holds=False needs exactly one of corrected (its true rhs) or no_control"
        )
    if correction and corrected is None:
        raise InvalidArgument("correction names the claim stating the corrected form: give its rhs as corrected too")


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
    elif (over := _recursion_over(lhs, rhs)) is not None:

        def induction() -> Any:
            sizes = {n: _size_symbol(n) for n in size_names(symbols)}
            values = {**symbolic_values(symbols, sizes), **sizes, over: sp.Symbol(over, integer=True, nonnegative=True)}
            return induction_residuals(lhs, rhs, over, values, integers[over].low)

        forms[Symbolic.kind] = induction
    return forms


def _recursion_over(lhs: Any, rhs: Any) -> str | None:
    """The integer parameter a side recurses over, if any."""
    return next((side.over for side in (lhs, rhs) if isinstance(side, Recursion)), None)


def _equality_checks(
    forms: Mapping[str, Any],
    over: str | None,
    cases: st.SearchStrategy,
    exact: list,
    rtol: float,
    *,
    symbolic: bool,
    explicit: bool,
) -> list[Check]:
    """The symbolic (an induction on ``over`` when given), explicit and numeric checks of ``lhs = rhs``."""
    checks: list[Check] = []
    if symbolic and Symbolic.kind in forms:
        proof = forms[Symbolic.kind]
        checks.append(Induction(proof, over) if over else Symbolic(proof))
    checks += [Explicit(forms[Explicit.kind], exact)] if explicit else []
    checks.append(Numeric(cases, forms[Numeric.kind], rtol, ATOL))
    return checks


# ---------------------------------------------------------------------------------------------
# Expectations: random inputs declared with a law, a side wrapped in iv.expect (icl_verify.core.expectation)


def _randoms(symbols: Mapping[str, Any]) -> dict[str, RandomSpec]:
    return {n: s for n, s in symbols.items() if isinstance(s, RandomSpec)}


def _covariances(symbols: Mapping[str, Any]) -> set[str]:
    return {s.cov for s in _randoms(symbols).values() if s.law == "gaussian" and isinstance(s.cov, str)}


def _check_laws(symbols: Mapping[str, Any], sides: Mapping[str, Any]) -> None:
    """Law parameters name declared symbols of the right kind; only ``iv.expect`` sides take random inputs."""
    for name, spec in _randoms(symbols).items():
        for arg in ("cov", "variance", "kurtosis"):
            value = getattr(spec, arg)
            wanted = MatrixSpec if arg == "cov" else ScalarSpec
            if isinstance(value, str) and not isinstance(symbols.get(value), wanted):
                raise InvalidArgument(
                    f"symbols[{name!r}]: {arg}={value!r} must name a declared {wanted.__name__[:-4].lower()}"
                )
    for arg, side in sides.items():
        taken = set(_randoms(symbols)) & set(_inputs(side))
        if taken and not isinstance(side, Expect):
            raise InvalidArgument(f"{arg} takes the random input(s) {sorted(taken)}: wrap it in iv.expect(...)")


def _moment_residual(symbols: Mapping[str, Any], lhs: Any, rhs: Any, sizes: Mapping[str, Any]) -> Any:
    """E[lhs] − E[rhs] by the moment algebra, at symbolic or concrete sizes."""
    values = {**symbolic_values(symbols, sizes), **sizes}
    inputs, laws = random_symbols(_randoms(symbols), sizes, values)
    values |= inputs
    return expected(lhs, values, laws, _call) - expected(rhs, values, laws, _call)


def _symmetric_names(symbols: Mapping[str, Any]) -> set[str]:
    """The declared matrices that are symmetric: the covariances of Gaussian laws and the ``spd`` matrices."""
    return _covariances(symbols) | {n for n, s in symbols.items() if isinstance(s, MatrixSpec) and s.spd}


def _for_symmetric(residual: Any, names: set[str]) -> Any:
    """``residual`` as an expression whose zero-testing over general matrices decides it over symmetric ones.

    Aᵀ → A for each symmetric A; if SymPy does not then reduce it to 0, A → R + Rᵀ for a general
    square matrix R named ``A_half``: every symmetric matrix is R + Rᵀ for some R (R = A/2), so the
    residual vanishes for every symmetric A exactly when the substituted one vanishes for every R —
    and the decision procedure for general matrices (identity testing over GF(p) included) applies
    to it. (A residual zero for every positive definite A is zero for every symmetric one: it is a
    rational function, and the positive definite matrices are open among the symmetric ones.)
    """
    if not isinstance(residual, sp.Basic):
        return residual
    symmetric = {m for m in residual.atoms(MatrixSymbol) if m.name in names}
    if not symmetric:
        return residual
    residual = residual.replace(lambda e: isinstance(e, Transpose) and e.arg in symmetric, lambda e: e.arg)
    if is_zero(residual) is True:
        return residual
    halves = {m: MatrixSymbol(f"{m.name}_half", *m.shape) for m in symmetric}
    return residual.xreplace({m: h + h.T for m, h in halves.items()})


def _moment_forms(symbols: Mapping[str, Any], lhs: Any, rhs: Any) -> dict[str, Any]:
    """The counterpart of ``E[lhs] = E[rhs]`` for each check kind; covariances and ``spd`` matrices symmetric in each."""
    symmetric = _symmetric_names(symbols)

    def symbolic() -> list[Any]:
        sizes = {n: _size_symbol(n) for n in size_names(symbols)}
        return [_for_symmetric(_moment_residual(symbols, lhs, rhs, sizes), symmetric)]

    def explicit(**sizes: int) -> list[Any]:
        return [explicit_entries(_moment_residual(symbols, lhs, rhs, sizes), symmetric)]

    def measured(case: Mapping[str, Any], n: int, rng: Any) -> tuple:
        values = dict(case) | {k: sample(spec, case, n, rng) for k, spec in _randoms(symbols).items()}
        return samples_of(_call(lhs, values), n), samples_of(_call(rhs, values), n)

    return {Symbolic.kind: symbolic, Explicit.kind: explicit, MonteCarlo.kind: measured}


def _moment_cases(symbols: Mapping[str, Any], ranges: Mapping[str, Dimension]) -> st.SearchStrategy[dict]:
    """Sizes and deterministic symbols drawn as for equalities; covariances SPD, kurtoses at least 1."""
    dimensions = _dimensions(ranges)
    covariances = _covariances(symbols)
    kurtoses = {s.kurtosis for s in _randoms(symbols).values() if isinstance(s.kurtosis, str)}

    @st.composite
    def draw_case(draw) -> dict:
        case: dict[str, Any] = {name: draw(d) for name, d in dimensions.items()}
        for name, spec in symbols.items():
            if name in covariances:
                case[name] = draw(
                    spd_matrices(
                        case[spec.rows] if isinstance(spec.rows, str) else spec.rows,
                        min_eigenvalue=0.25,
                        max_eigenvalue=4.0,
                    )
                )
            elif name in kurtoses:
                case[name] = 1.0 + draw(reals(spec.bound, positive=True))
            elif not isinstance(spec, RandomSpec):
                case[name] = draw(_draw_spec(spec, case))
        return case

    return draw_case()


def _expectation_checks(
    symbols: Mapping[str, Any], lhs: Any, rhs: Any, ranges: dict, exact: list, *, symbolic: bool, explicit: bool
) -> list[Check]:
    _check_laws(symbols, {"lhs": lhs, "rhs": rhs})
    forms = _moment_forms(symbols, lhs, rhs)
    checks: list[Check] = [MomentSymbolic(forms[Symbolic.kind])] if symbolic else []
    checks += [MomentExplicit(forms[Explicit.kind], exact)] if explicit else []
    iid = sorted(n for n, spec in _randoms(symbols).items() if spec.law == "iid")
    only = (
        f"{', '.join(iid)} sampled from one three-point law; iv.iid declares every law of that variance and "
        "kurtosis, and laws agree on moments up to the fourth only"
    )
    checks.append(MonteCarlo(_moment_cases(symbols, ranges), forms[MonteCarlo.kind], only if iid else ""))
    return checks


# ---------------------------------------------------------------------------------------------
# Optimality: lhs=iv.argmin(loss, over="eta"), rhs the claimed minimiser (icl_verify.core.optimality)


CURVATURE = "curvature"
"""The key of L″(η*) at concrete sizes among the argmin forms (the explicit check's draws use it)."""


def _argmin_forms(symbols: Mapping[str, Any], lhs: Argmin, rhs: Callable[..., Any]) -> dict[str, Any]:
    """The counterparts of ``argmin L = rhs``: both conditions (symbolic), stationarity (explicit), L(rhs) ≤ L (numeric)."""
    over, covariances = lhs.over, _covariances(symbols)
    if not isinstance(symbols.get(over), ScalarSpec):
        raise InvalidArgument(f"argmin over {over!r}: it must name a declared iv.scalar(...)")
    if over in _inputs(rhs):
        raise InvalidArgument(f"the minimiser (rhs or corrected) cannot take {over!r}, the variable minimised over")

    def loss(sizes: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
        values = {**symbolic_values(symbols, sizes), **sizes}
        inputs, laws = random_symbols(_randoms(symbols), sizes, values)
        return expected(lhs.loss, values | inputs, laws, _call), values

    def symbolic() -> Any:
        sizes = {n: _size_symbol(n) for n in size_names(symbols)}
        value, values = loss(sizes)
        given = _scalar_assumptions({k: v for k, v in symbols.items() if k != over}, values)
        return conditions(value, values[over], _call(rhs, values), list(sizes.values()), covariances, given)

    def explicit(**sizes: int) -> list[Any]:
        value, values = loss(sizes)
        slope = sp.diff(value, values[over]).subs(values[over], _call(rhs, values))
        return [explicit_entries(sp.sympify(slope), _symmetric_names(symbols))]

    def curvature(**sizes: int) -> tuple[Any, list[Any]]:
        value, values = loss(sizes)
        second = sp.diff(value, values[over], 2).subs(values[over], _call(rhs, values))
        given = _scalar_assumptions({k: v for k, v in symbols.items() if k != over}, values)
        return explicit_entries(sp.sympify(second), _symmetric_names(symbols)), given

    def numeric(case: Mapping[str, Any]) -> tuple:
        star = {**case, over: float(np.asarray(_call(rhs, case), dtype=np.float64).ravel()[0])}
        return _call(lhs.loss, star), _call(lhs.loss, case)

    forms: dict[str, Any] = {Symbolic.kind: symbolic, Explicit.kind: explicit, CURVATURE: curvature}
    return forms if _randoms(symbols) else forms | {Numeric.kind: numeric}


def _argmin_checks(
    forms: Mapping[str, Any],
    over: str,
    drawn: st.SearchStrategy,
    exact: list,
    rtol: float,
    timeout: float,
    symbolic: bool,
    explicit: bool,
    definite_names: set[str],
) -> list[Check]:
    """Both conditions of a minimum, stationarity and curvature draws at small sizes, and (deterministic losses) the numeric search for a lower value."""
    checks: list[Check] = [Optimality(forms[Symbolic.kind], over, int(timeout * 1000))] if symbolic else []
    definite = frozenset(definite_names)
    checks += [StationaryExplicit(forms[Explicit.kind], exact, forms[CURVATURE], definite)] if explicit else []
    if Numeric.kind in forms:
        checks.append(NumericBound(drawn, forms[Numeric.kind], "<=", rtol, ATOL))
    return checks


# ---------------------------------------------------------------------------------------------
# Inequalities: relation="<=", ">=", "<" or ">" (icl_verify.core.bounds)


def _scalar_assumptions(symbols: Mapping[str, Spec], values: Mapping[str, Any]) -> list[Any]:
    """The declared scalar assumptions as SymPy relations: x > 0 for positive, x ≠ 0 for nonzero, and the domain
    (x ≥ low, x ≤ high, x ≠ v for each excluded v)."""
    out: list[Any] = []
    for name, spec in symbols.items():
        if not isinstance(spec, ScalarSpec):
            continue
        x = values[name]
        if spec.positive:
            out.append(sp.StrictGreaterThan(x, 0, evaluate=False))
        elif spec.nonzero:
            out.append(sp.Ne(x, 0, evaluate=False))
        exact_end = lambda v: sp.Rational(v)  # noqa: E731  (a float end point is the rational it is)
        if spec.low is not None and not (spec.positive and spec.low == 0):
            out.append(sp.GreaterThan(x, exact_end(spec.low), evaluate=False))
        if spec.high is not None:
            out.append(sp.LessThan(x, exact_end(spec.high), evaluate=False))
        out += [sp.Ne(x, exact_end(v), evaluate=False) for v in spec.exclude]
    return out


DECIMAL, DOMAIN = "decimal", "domain"
"""Keys of the inequality forms beside the check kinds: the proof's sides with decimal literals, the assumptions."""


def _inequality_sides(
    symbols: Mapping[str, Spec], lhs: Callable[..., Any], rhs: Callable[..., Any], *, proof: bool
) -> dict:
    """The counterparts of ``lhs relation rhs`` for each check kind: numeric sides, and proof sides when every symbol is a scalar.

    Beside them: the scalar assumptions (``DOMAIN``), which bound the search too, and the proof's sides
    with their float literals read as the decimals they show (``DECIMAL``).
    """
    scalars = {name: spec for name, spec in symbols.items() if isinstance(spec, ScalarSpec)}
    values = {name: _scalar_symbol(name, spec) for name, spec in scalars.items()}
    given = _scalar_assumptions(scalars, values)
    forms: dict[str, Any] = {Numeric.kind: lambda case: compare(lhs, rhs, case), DOMAIN: given}
    if proof and len(scalars) == len(symbols):
        forms[Symbolic.kind] = lambda: (_call(lhs, values), _call(rhs, values), given)
        forms[DECIMAL] = lambda: (*(_decimal_literals(side, values) for side in (lhs, rhs)), given)
    return forms


def _decimal_literals(side: Callable[..., Any], values: Mapping[str, Any]) -> Any:
    """A side over symbols with each float literal read as the decimal it shows (0.1 → 1/10), before SymPy folds them."""
    with sp.evaluate(False):
        value = sp.sympify(_call(side, values))
    return value.xreplace({f: sp.Rational(repr(float(f))) for f in value.atoms(sp.Float)})


def _inequality_checks(
    forms: Mapping[str, Any],
    relation: str,
    drawn: st.SearchStrategy,
    lhs: Any,
    rhs: Any,
    *,
    rtol: float,
    timeout: float,
) -> list[Check]:
    return inequality_checks(
        relation,
        proof_sides=forms.get(Symbolic.kind),
        cases=drawn,
        numeric_sides=forms[Numeric.kind],
        exact_sides=lambda case: (_call(lhs, case), _call(rhs, case)),
        rtol=rtol,
        atol=ATOL,
        timeout=timeout,
        assumptions=forms[DOMAIN],
        decimal_sides=forms.get(DECIMAL),
    )


def _ordered_sizes(
    symbols: Mapping[str, Spec], sizes: Mapping[str, Any], explicit_sizes: Mapping[str, Any], integers: list[str]
) -> list:
    """The size names and integer parameters, those given in ``sizes`` first and in its order; unknown names are an error."""
    names = size_names(symbols) + integers
    clash = set(names) & set(symbols)
    if clash:
        raise InvalidArgument(f"symbols: {sorted(clash)} name both a symbol and a size")
    for arg, given in (("sizes", sizes), ("explicit_sizes", explicit_sizes)):
        unknown = set(given) - set(names)
        if unknown:
            raise InvalidArgument(
                f"{arg} names {sorted(unknown)}, which is neither a size of a declared matrix nor an iv.integer (sizes: {names})"
            )
    return [n for n in sizes if n in names] + [n for n in names if n not in sizes]


def _probe_values(symbols: Mapping[str, Spec], sizes: Mapping[str, int]) -> dict[str, Any]:
    """Fixed numbers for every declared matrix and scalar at concrete sizes, for reading the sides' shapes.

    Numbers rather than symbols: a side that works entry by entry (a softmax, an ``exp``) would
    otherwise expand symbolic matrices. Generic values (seed 0; an SPD matrix as M Mᵀ + I, positive
    and non-zero scalars in [0.5, 1.5]) keep inverses defined.
    """
    rng = np.random.default_rng(0)
    values: dict[str, Any] = {}
    for name, spec in symbols.items():
        if isinstance(spec, ScalarSpec) and (spec.low is not None or spec.high is not None):
            low, high = spec.interval()
            values[name] = rng.uniform(low + (high - low) / 4, high - (high - low) / 4)
        elif isinstance(spec, ScalarSpec):
            values[name] = rng.uniform(0.5, 1.5) if spec.positive or spec.nonzero else rng.uniform(-1.0, 1.0)
        elif isinstance(spec, MatrixSpec):
            rows, cols = (sizes[s] if isinstance(s, str) else s for s in (spec.rows, spec.cols))
            m = rng.uniform(-1.0, 1.0, size=(rows, cols))
            values[name] = m @ m.T + np.eye(rows) if spec.spd else _invertible(m, False, 1.0) if spec.invertible else m
    return values


def _probe_shapes(arg: str, fn: Callable[..., Any], values: Mapping[str, Any]) -> list[tuple] | None:
    """The shapes of a side's parts at the probe values; a usage error (an inverse of a non-square matrix)
    names the side; a side that cannot run here gives ``None`` (its checks report it)."""
    try:
        with np.errstate(all="ignore"):
            return [getattr(p, "shape", ()) for p in parts(_call(fn, values))]
    except InvalidArgument as exc:
        sizes = {k: v for k, v in values.items() if isinstance(v, int)}
        raise InvalidArgument(f"{arg} is undefined for the declared shapes: {exc} at sizes {sizes}") from None
    except Exception:
        return None


def _check_defined(symbols: Mapping[str, Spec], names: list[str], sides: Mapping[str, Callable]) -> None:
    """Every side must be defined for the declared shapes, and ``corrected`` have the shape of both sides:
    checked at distinct concrete sizes 2, 3, …, on numbers (so n × d is not square even where n = d could be)."""
    sizes = {n: 2 + i for i, n in enumerate(names)}
    values = {**_probe_values(symbols, sizes), **sizes}
    shapes = {arg: _probe_shapes(arg, fn, values) for arg, fn in sides.items()}
    if "corrected" not in shapes or any(v is None for v in shapes.values()):
        return
    for arg in ("lhs", "rhs"):
        if shapes[arg] != shapes["corrected"]:
            raise InvalidArgument(
                f"corrected returns shape(s) {shapes['corrected']} but {arg} returns {shapes[arg]} (at sizes {sizes})"
            )


def _explicit_values(name: str, values: Iterable[int], minimum: int = 1) -> list[int]:
    values = list(values) if isinstance(values, Iterable) else []
    if not values or not all(type(v) is int and v >= minimum for v in values):
        raise InvalidArgument(f"explicit_sizes[{name!r}] must be a non-empty list of ints at least {minimum}")
    return values


def statement(
    name: str,
    source: str,
    statement: str,
    *,
    symbols: Mapping[str, Spec],
    lhs: Callable[..., Any],
    rhs: Callable[..., Any],
    sizes: Mapping[str, int | tuple[int, int]] | None = None,
    explicit_sizes: Mapping[str, Iterable[int]] | None = None,
    symbolic: bool = True,
    explicit: bool = True,
    holds: bool = True,
    corrected: Callable[..., Any] | None = None,
    no_control: str = "",
    correction: str = "",
    rtol: float = RTOL,
    relation: str = "=",
    timeout: float = DEFAULT_TIMEOUT,
    expect: str | None = None,
    **claim_fields: Any,
) -> Claim:
    """The :class:`Claim` ``lhs = rhs`` with its symbolic, explicit and numeric checks derived.

    ``symbols`` declares the inputs (``iv.matrix("Nx", "N")``, ``iv.scalar(positive=True)``); the
    sides are functions whose parameters name declared symbols or sizes. ``sizes`` gives each size's
    numeric range (default 1 to 4), ``explicit_sizes`` the sizes of the exact check (default 1 and 2).
    Turn off ``symbolic`` when a side needs concrete sizes (e.g. softmax), ``explicit`` when the
    expansion is too slow. ``rtol`` multiplies the term magnitude; the default is the rounding bound
    of ``engine.tolerance``. ``correction`` names the claim stating the ``corrected`` form.
    ``relation`` ``"<="``, ``">="``, ``"<"`` or ``">"`` states an inequality (:mod:`icl_verify.core.bounds`):
    decided by z3 within ``timeout`` seconds when every symbol is a scalar, else searched. Other
    keyword arguments (``note``, ``assumptions``, ``builds_on``, …) go to the :class:`Claim`.
    ``expect="proved"`` asks for a proof for every size: a true statement only VERIFIED is then not as
    expected (by default it is: VERIFIED or PROVED, :func:`~icl_verify.core.claims.expectation`).
    """
    _check_symbols(symbols)
    check_relation(relation, timeout)
    integers = {n: spec for n, spec in symbols.items() if isinstance(spec, IntegerSpec)}
    for key, spec in integers.items():
        if spec.name and spec.name != key:
            raise InvalidArgument(f"symbols[{key!r}] = iv.integer({spec.name!r}, ...): the name must be its key")
    symbols = {n: spec for n, spec in symbols.items() if n not in integers}
    lhs, rhs, corrected = (bound(side, {n: i.low for n, i in integers.items()}) for side in (lhs, rhs, corrected))
    sizes, explicit_sizes = dict(sizes or {}), dict(explicit_sizes or {})
    names = _ordered_sizes(symbols, sizes, explicit_sizes, list(integers))
    known = [*symbols, *names]
    _check_side("lhs", lhs, known)
    _check_side("rhs", rhs, known)
    _check_control(holds, corrected, no_control, correction)
    if corrected is not None:
        _check_side("corrected", corrected, known)
    _check_defined(symbols, names, {"lhs": lhs, "rhs": rhs} | ({"corrected": corrected} if corrected else {}))
    ranges = {
        n: integers[n].strategy(n, sizes.get(n), wide=relation != "=", recursion=_recursion_over(lhs, rhs) == n)
        if n in integers
        else sizes.get(n, (1, 4))
        for n in names
    }
    low = {n: integers[n].low for n in integers}
    exact = grid(
        **{
            n: _explicit_values(n, explicit_sizes.get(n, (low.get(n, 1), low.get(n, 1) + 1)), low.get(n, 1))
            for n in names
        }
    )
    if relation != "=" and (isinstance(lhs, Argmin) or _randoms(symbols)):
        raise InvalidArgument("relation is for bounds between deterministic sides: not with iv.argmin or random inputs")
    forms: Callable[[Any], dict[str, Any]]
    if isinstance(lhs, Argmin):
        forms = lambda side: _argmin_forms(symbols, lhs, side)  # noqa: E731
        checks = _argmin_checks(
            forms(rhs), lhs.over, cases(symbols, ranges), exact, rtol, timeout, symbolic, explicit,
            _symmetric_names(symbols),
        )  # fmt: skip
    elif _randoms(symbols):
        checks = _expectation_checks(symbols, lhs, rhs, ranges, exact, symbolic=symbolic, explicit=explicit)
        _check_laws(symbols, {"corrected": corrected} if corrected is not None else {})
        forms = lambda side: _moment_forms(symbols, lhs, side)  # noqa: E731
    elif relation != "=":
        forms = lambda side: _inequality_sides(symbols, lhs, side, proof=not integers)  # noqa: E731
        checks = _inequality_checks(forms(rhs), relation, cases(symbols, ranges), lhs, rhs, rtol=rtol, timeout=timeout)
    else:
        forms = lambda side: _equality_forms(symbols, lhs, side, integers)  # noqa: E731
        over = _recursion_over(lhs, rhs)
        checks = _equality_checks(
            forms(rhs), over, cases(symbols, ranges), exact, rtol, symbolic=symbolic, explicit=explicit
        )
    fixed: Corrected | NoControl | None = NoControl(no_control) if no_control else None
    if corrected is not None:
        fixed = Corrected(correction, **{c.kind: forms(corrected)[c.kind] for c in checks})
    return Claim(
        name=name,
        source=source,
        statement=statement,
        checks=tuple(checks),
        holds=holds,
        corrected=fixed,
        expect=expectation(expect, holds),
        **claim_fields,
    )
