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
from sympy.matrices.expressions import MatrixSymbol

from icl_verify.core.checks.base import Check, parts
from icl_verify.core.checks.explicit import Explicit
from icl_verify.core.checks.numeric import MalformedComparison, Numeric, same_shape, side_values
from icl_verify.core.checks.symbolic import Symbolic
from icl_verify.core.claims import Claim, Corrected, NoControl
from icl_verify.errors import InvalidArgument
from icl_verify.maths.strategies import Dimension, dimension, matrices, nonzero_matrices, reals
from icl_verify.maths.symbolic import as_explicit, grid
from icl_verify.maths.tolerance import ATOL, RTOL, term_scale

Size = str | int


@dataclass(frozen=True)
class MatrixSpec:
    """A declared matrix: its shape as size names (or integers), entries bounded by ``bound``."""

    rows: Size
    cols: Size
    nonzero: bool = False  # numeric side: never the all-zero matrix (e.g. W0 ≠ 0)
    bound: float = 3.0


@dataclass(frozen=True)
class ScalarSpec:
    """A declared real scalar, optionally positive or non-zero, bounded by ``bound``."""

    positive: bool = False
    nonzero: bool = False
    bound: float = 2.0


def matrix(rows: Size, cols: Size, *, nonzero: bool = False, bound: float = 3.0) -> MatrixSpec:
    """Declare a matrix of shape (rows, cols); a size is a name such as ``"N"`` or an integer."""
    for arg, value in (("rows", rows), ("cols", cols)):
        if isinstance(value, bool) or not isinstance(value, (str, int)) or (isinstance(value, int) and value < 1):
            raise InvalidArgument(f"{arg} must be a size name or a positive integer, got {value!r}")
        if isinstance(value, str) and not value.isidentifier():
            raise InvalidArgument(f"{arg} must be a size name that is a Python identifier, got {value!r}")
    _positive_bound(bound)
    return MatrixSpec(rows, cols, nonzero, float(bound))


def scalar(*, positive: bool = False, nonzero: bool = False, bound: float = 2.0) -> ScalarSpec:
    """Declare a real scalar; ``positive`` or ``nonzero`` become SymPy assumptions and drawing bounds."""
    _positive_bound(bound)
    return ScalarSpec(positive, nonzero, float(bound))


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
        if isinstance(spec, MatrixSpec):
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
        name: MatrixSymbol(name, dim(spec.rows), dim(spec.cols))
        if isinstance(spec, MatrixSpec)
        else _scalar_symbol(name, spec)
        for name, spec in symbols.items()
    }


def _draw_spec(spec: Spec, sizes: Mapping[str, int]) -> st.SearchStrategy:
    if isinstance(spec, ScalarSpec):
        if spec.positive:
            return reals(spec.bound, positive=True)
        if spec.nonzero:
            magnitude = reals(spec.bound, positive=True)
            return st.one_of(magnitude, magnitude.map(lambda v: -v))
        return reals(spec.bound)
    rows, cols = (sizes[s] if isinstance(s, str) else s for s in (spec.rows, spec.cols))
    return (nonzero_matrices if spec.nonzero else matrices)(rows, cols, spec.bound)


def cases(symbols: Mapping[str, Spec], sizes: Mapping[str, Dimension]) -> st.SearchStrategy[dict]:
    """Hypothesis cases: every size drawn in its range (shrinking to the low end), then every symbol."""
    dimensions = {name: dimension(f"sizes[{name!r}]", value) for name, value in sizes.items()}

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
    params = inspect.signature(fn).parameters.values()
    return [p.name for p in params if p.default is inspect.Parameter.empty]


def _call(fn: Callable[..., Any], values: Mapping[str, Any]) -> Any:
    """Call a side with the declared symbols and sizes that its parameters name."""
    return fn(**{p: values[p] for p in _inputs(fn)})


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

    def symbolic(self) -> list[Any]:
        names = size_names(self.symbols)
        sizes = {n: _size_symbol(n) for n in names}
        return residuals(self.lhs, self.rhs, {**symbolic_values(self.symbols, sizes), **sizes})

    def explicit(self, **sizes: int) -> list[Any]:
        return as_explicit(residuals(self.lhs, self.rhs, {**symbolic_values(self.symbols, sizes), **sizes}))

    def numeric(self, case: Mapping[str, Any]) -> tuple:
        return compare(self.lhs, self.rhs, case)


def _check_side(arg: str, fn: Any, known: Iterable[str]) -> None:
    if not callable(fn):
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
        if not isinstance(spec, (MatrixSpec, ScalarSpec)):
            raise InvalidArgument(
                f"symbols[{name!r}] must be iv.matrix(...) or iv.scalar(...), got {type(spec).__name__}"
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


def _corrected(
    symbols: Mapping[str, Spec],
    lhs: Callable[..., Any],
    rhs: Callable[..., Any] | None,
    checks: Iterable[Check],
    correction: str,
) -> Corrected | None:
    """The corrected form ``lhs = rhs``: for each check, the same check of the corrected sides (``None`` without ``rhs``)."""
    if rhs is None:
        return None
    sides = _Sides(symbols, lhs, rhs)
    counterparts = {Symbolic.kind: sides.symbolic, Explicit.kind: sides.explicit, Numeric.kind: sides.numeric}
    return Corrected(correction, **{c.kind: counterparts[c.kind] for c in checks})


def _ordered_sizes(symbols: Mapping[str, Spec], sizes: Mapping[str, Any], explicit_sizes: Mapping[str, Any]) -> list:
    """The size names, those given in ``sizes`` first and in its order; unknown names are an error."""
    names = size_names(symbols)
    clash = set(names) & set(symbols)
    if clash:
        raise InvalidArgument(f"symbols: {sorted(clash)} name both a symbol and a size")
    for arg, given in (("sizes", sizes), ("explicit_sizes", explicit_sizes)):
        unknown = set(given) - set(names)
        if unknown:
            raise InvalidArgument(f"{arg} names {sorted(unknown)}, which no declared matrix uses (sizes: {names})")
    return [n for n in sizes if n in names] + [n for n in names if n not in sizes]


def _explicit_values(name: str, values: Iterable[int]) -> list[int]:
    values = list(values) if isinstance(values, Iterable) else []
    if not values or not all(type(v) is int and v >= 1 for v in values):
        raise InvalidArgument(f"explicit_sizes[{name!r}] must be a non-empty list of positive ints")
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
    **claim_fields: Any,
) -> Claim:
    """The :class:`Claim` ``lhs = rhs`` with its symbolic, explicit and numeric checks derived.

    ``symbols`` declares the inputs (``iv.matrix("Nx", "N")``, ``iv.scalar(positive=True)``); the
    sides are functions whose parameters name declared symbols or sizes. ``sizes`` gives each size's
    numeric range (default 1 to 4), ``explicit_sizes`` the sizes of the exact check (default 1 and 2).
    Turn off ``symbolic`` when a side needs concrete sizes (e.g. softmax), ``explicit`` when the
    expansion is too slow. ``rtol`` multiplies the term magnitude; the default is the rounding bound
    of ``engine.tolerance``. ``correction`` names the claim stating the ``corrected`` form. Other
    keyword arguments (``note``, ``assumptions``, ``builds_on``, …) go to the :class:`Claim`.
    """
    _check_symbols(symbols)
    sizes, explicit_sizes = dict(sizes or {}), dict(explicit_sizes or {})
    names = _ordered_sizes(symbols, sizes, explicit_sizes)
    known = [*symbols, *names]
    _check_side("lhs", lhs, known)
    _check_side("rhs", rhs, known)
    _check_control(holds, corrected, no_control, correction)
    if corrected is not None:
        _check_side("corrected", corrected, known)
    ranges = {n: sizes.get(n, (1, 4)) for n in names}
    exact = grid(**{n: _explicit_values(n, explicit_sizes.get(n, (1, 2))) for n in names})
    sides = _Sides(symbols, lhs, rhs)
    checks: list[Check] = [Symbolic(sides.symbolic)] if symbolic else []
    checks += [Explicit(sides.explicit, exact)] if explicit else []
    checks.append(Numeric(cases(symbols, ranges), sides.numeric, rtol, ATOL))
    return Claim(
        name=name,
        source=source,
        statement=statement,
        checks=tuple(checks),
        holds=holds,
        corrected=NoControl(no_control) if no_control else _corrected(symbols, lhs, corrected, checks, correction),
        **claim_fields,
    )
