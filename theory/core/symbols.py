"""The declared symbols of a statement: matrices, scalars and sizes, how they are drawn, and how a side is called.

``iv.matrix("Nx", "N")`` and ``iv.scalar(positive=True)`` declare the inputs of a statement's sides
(:mod:`icl_verify.core.statement`); this module turns the declarations into SymPy symbols of symbolic or
concrete size (1 × 1 products by declaration are scalars: :mod:`icl_verify.maths.scalars`), into
Hypothesis strategies for the numeric checks, and into the assumptions the proofs take.
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

from icl_verify.core.expectation import Expect, RandomSpec
from icl_verify.core.induction import Recursion
from icl_verify.core.optimality import Argmin
from icl_verify.errors import InvalidArgument
from icl_verify.maths.scalars import declared
from icl_verify.maths.strategies import Dimension, dimension, matrices, nonzero_matrices, reals
from icl_verify.maths.symbolic import is_zero

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


def size_names(symbols: Mapping[str, Spec]) -> list[str]:
    """The size names used by the declared matrices, in order of first appearance."""
    names: list[str] = []
    for spec in symbols.values():
        if isinstance(spec, (MatrixSpec, RandomSpec)):
            names += [s for s in (spec.rows, spec.cols) if isinstance(s, str) and s not in names]
    return names


def size_symbol(name: str) -> sp.Symbol:
    return sp.Symbol(name, positive=True, integer=True)


def scalar_symbol(name: str, spec: ScalarSpec) -> sp.Symbol:
    if spec.positive:
        return sp.Symbol(name, positive=True)
    return sp.Symbol(name, real=True, nonzero=True) if spec.nonzero else sp.Symbol(name, real=True)


def symbolic_values(symbols: Mapping[str, Spec], sizes: Mapping[str, Any]) -> dict[str, Any]:
    """Matrix symbols of the given (symbolic or integer) sizes and scalar symbols, by name."""
    dim = lambda s: sizes[s] if isinstance(s, str) else s  # noqa: E731
    return {
        name: declared(name, dim(spec.rows), dim(spec.cols), (spec.rows == 1, spec.cols == 1))  # maths.scalars
        if isinstance(spec, MatrixSpec)
        else scalar_symbol(name, spec)
        for name, spec in symbols.items()
        if not isinstance(spec, RandomSpec)
    }


def draw_scalar(spec: ScalarSpec) -> st.SearchStrategy[float]:
    """A number of the declared domain (:meth:`ScalarSpec.interval`), never an excluded value."""
    low, high = spec.interval()
    if spec.nonzero and spec.low is None and spec.high is None:
        magnitude = reals(spec.bound, positive=True)
        drawn = st.one_of(magnitude, magnitude.map(lambda v: -v))
    else:
        drawn = st.floats(low, high, allow_nan=False, allow_infinity=False, allow_subnormal=False)
    forbidden = set(spec.exclude) | ({0.0} if spec.nonzero or spec.positive else set())
    return drawn.filter(lambda v: v not in forbidden) if forbidden else drawn


def _drawn_interval(name: str, spec: ScalarSpec) -> str:
    """The numbers :func:`draw_scalar` draws for ``spec``: ``x∈[-2,2]``, ``η∈(0,3]``, ``|c|∈[0.0625,2]``, ``r∈[0,2]∖{1}``."""
    low, high = spec.interval()
    if spec.nonzero and spec.low is None and spec.high is None:
        text = f"|{name}|∈[{1 / 16:g},{spec.bound:g}]"
    else:
        opening = "(" if (spec.positive or spec.nonzero) and low == 0 else "["
        text = f"{name}∈{opening}{low:g},{high:g}]"
    inside = sorted(v for v in set(spec.exclude) | ({0.0} if spec.nonzero else set()) if low < v < high)
    return text + (f"∖{{{','.join(f'{v:g}' for v in inside)}}}" if inside and "|" not in text else "")


def drawn_from(symbols: Mapping[str, Spec]) -> str:
    """Where the numeric checks draw the declared scalars from, for their evidence (see :func:`_drawn_interval`)."""
    ranges = [_drawn_interval(name, spec) for name, spec in symbols.items() if isinstance(spec, ScalarSpec)]
    return f"scalars drawn from {', '.join(ranges)}" if ranges else ""


def simple_cases(symbols: Mapping[str, Spec], grid: Iterable[Mapping[str, int]]) -> tuple[dict[str, Any], ...]:
    """The simplest cases at each sizes of ``grid``: every matrix the (padded) identity, then every matrix all ones
    (I + 11ᵀ where it must be invertible), every scalar 1 — or the middle of its domain where 1 is not in it."""
    out = []
    for sizes in grid:
        for ones in (False, True):
            case: dict[str, Any] = dict(sizes)
            for name, spec in symbols.items():
                if isinstance(spec, ScalarSpec):
                    case[name] = _simple_scalar(spec)
                elif isinstance(spec, MatrixSpec):
                    rows, cols = (sizes[s] if isinstance(s, str) else s for s in (spec.rows, spec.cols))
                    square = spec.spd or spec.invertible
                    case[name] = (np.eye(rows, cols) * square + np.ones((rows, cols))) if ones else np.eye(rows, cols)
            out.append(case)
    return tuple(out)


def _simple_scalar(spec: ScalarSpec) -> float:
    low, high = spec.interval()
    for value in (1.0, (low + high) / 2, low + (high - low) / 4):
        if low <= value <= high and value not in spec.exclude and not (value == 0 and (spec.nonzero or spec.positive)):
            return value
    return high


def _invertible(m: np.ndarray, negative: bool, bound: float) -> np.ndarray:
    """±(M + (n·bound + 1) I): strictly diagonally dominant, hence invertible (Lévy–Desplanques)."""
    shifted = m + (m.shape[0] * bound + 1.0) * np.eye(m.shape[0])
    return -shifted if negative else shifted


def draw_spec(spec: Spec, sizes: Mapping[str, int]) -> st.SearchStrategy:
    if isinstance(spec, ScalarSpec):
        return draw_scalar(spec)
    rows, cols = (sizes[s] if isinstance(s, str) else s for s in (spec.rows, spec.cols))
    drawn = (nonzero_matrices if spec.nonzero else matrices)(rows, cols, spec.bound)
    if spec.invertible:
        return st.tuples(drawn, st.booleans()).map(lambda mb: _invertible(mb[0], mb[1], spec.bound))
    return drawn.map(lambda m: m @ m.T + np.eye(rows)) if spec.spd else drawn


def size_strategies(sizes: Mapping[str, Dimension | st.SearchStrategy[int]]) -> dict[str, st.SearchStrategy[int]]:
    """A strategy for each size (an integer parameter comes with its own)."""
    return {
        name: value if isinstance(value, st.SearchStrategy) else dimension(f"sizes[{name!r}]", value)
        for name, value in sizes.items()
    }


def cases(
    symbols: Mapping[str, Spec], sizes: Mapping[str, Dimension | st.SearchStrategy[int]]
) -> st.SearchStrategy[dict]:
    """Hypothesis cases: every size drawn in its range (shrinking to the low end), then every symbol."""
    dimensions = size_strategies(sizes)

    @st.composite
    def draw_case(draw) -> dict:
        case: dict[str, Any] = {name: draw(d) for name, d in dimensions.items()}
        for name, spec in symbols.items():
            case[name] = draw(draw_spec(spec, case))
        return case

    return draw_case()


def probe_values(symbols: Mapping[str, Spec], sizes: Mapping[str, int]) -> dict[str, Any]:
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


def inputs(fn: Callable[..., Any]) -> list[str]:
    """The parameters of a side without a default value: the symbols and sizes it takes."""
    if isinstance(fn, Recursion):
        return fn.inputs()
    if isinstance(fn, Argmin):
        return inputs(fn.loss)
    params = inspect.signature(fn.fn if isinstance(fn, Expect) else fn).parameters.values()
    return [p.name for p in params if p.default is inspect.Parameter.empty]


SCALAR_MATMUL = (
    "@ between two scalars: a 1 × 1 product is a scalar, and so is a sum of it with other scalars "
    "(xᵀAx − tr A); write * for the product of two scalars"
)


def call(fn: Callable[..., Any], values: Mapping[str, Any]) -> Any:
    """Call a side with the declared symbols and sizes that its parameters name."""
    try:
        return fn(**{p: values[p] for p in inputs(fn)})
    except TypeError as exc:
        if str(exc).startswith("unsupported operand type(s) for @") and "Matrix" not in str(exc):
            raise TypeError(f"{SCALAR_MATMUL} ({exc})") from None
        raise


def randoms(symbols: Mapping[str, Any]) -> dict[str, RandomSpec]:
    return {n: s for n, s in symbols.items() if isinstance(s, RandomSpec)}


def covariance_names(symbols: Mapping[str, Any]) -> set[str]:
    return {s.cov for s in randoms(symbols).values() if s.law == "gaussian" and isinstance(s.cov, str)}


def symmetric_names(symbols: Mapping[str, Any]) -> set[str]:
    """The declared matrices that are symmetric: the covariances of Gaussian laws and the ``spd`` matrices."""
    return covariance_names(symbols) | {n for n, s in symbols.items() if isinstance(s, MatrixSpec) and s.spd}


def for_symmetric(residual: Any, names: set[str]) -> Any:
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


def scalar_assumptions(symbols: Mapping[str, Spec], values: Mapping[str, Any]) -> list[Any]:
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
