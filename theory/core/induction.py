"""Integer parameters (K steps, L layers) and statements over every K, proved by induction.

``iv.integer(low=1)`` declares an integer parameter that is not a matrix size: the explicit check
takes its two smallest values, the numeric check draws it in [low, high] like a size (shrinking to
``low``). A side may be defined by its recursion, ``iv.recursion(base=…, step=…, over="K")``: its
value at K = low is ``base(...)`` and ``step(prev, ...)`` maps the value at K to the value at K + 1
(``step`` may also take K, the index of ``prev``). Then :class:`Induction` proves the statement for
every K ≥ low, as the Newton family's ``newton-residual-squares`` does by hand:

* base — lhs(low) − rhs(low) reduces to 0 for symbolic sizes;
* step — with Z standing for the common value lhs(K) = rhs(K) (the induction hypothesis, Z a fresh
  symbol of the sides' shape) and K symbolic: lhs_step(Z) − rhs_step(Z) reduces to 0 when both
  sides are recursions; with a closed-form rhs, lhs_step(rhs(K)) − rhs(K + 1) reduces to 0.

Both reduced to 0 ⇒ PROVED by induction on K (for every size, as the reductions are dimension-free).
Each residual is decided as the symbolic check decides one, matrix powers with the symbolic
exponent included (``iv.matpow(M, K)``: Mᴷ⁺¹ = Mᴷ·M, Mᴷ commuting with M, :mod:`icl_verify.maths.identities`).
A base case decided non-zero refutes the statement at K = low; a step that is not 0 only leaves it
undecided (the hypothesis may be too weak). A recursion may be used inside an expression
(``rec - (lambda wstar: wstar)``, ``1 - rec``): a shift and a sign, which the step inverts.
Without a recursion the statement is VERIFIED over the K values drawn.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import sympy as sp
from hypothesis import strategies as st
from sympy.matrices.expressions import MatrixExpr, MatrixSymbol

from icl_verify.core.checks.base import Check, Found, parts
from icl_verify.core.checks.symbolic import REDUCED, decision
from icl_verify.core.evidence import ControlStatus, Evidence, Kind, Status, counterexample, explain
from icl_verify.errors import InvalidArgument
from icl_verify.maths.identities import Decision
from icl_verify.maths.strategies import wide_integers
from icl_verify.maths.symbolic import definite_value, max_abs

PREVIOUS = "prev"
"""The name of a step's argument that receives the value at K."""


SEARCH_HIGH = 10**6
"""How far above ``low`` a bound's integer parameter is searched (first values, then log-uniform)."""

RECURSION_HIGH = 10**3
"""The same when a side recurses over it: a recursion of K steps costs K evaluations of its step."""


@dataclass(frozen=True)
class IntegerSpec:
    """A declared integer parameter: drawn in [low, high] (``high`` ``None``: low + 3, or a wide search)."""

    low: int = 1
    high: int | None = None
    name: str = ""

    def strategy(
        self, name: str, given: Any = None, *, wide: bool = False, recursion: bool = False
    ) -> st.SearchStrategy[int]:
        """Values in [low, high] (or ``given``: an int or a (low, high) pair, none below ``low``), shrinking to the low end.

        ``wide`` (a bound's parameter) searches up to ``low +`` :data:`SEARCH_HIGH` when no ``high`` is
        declared — :data:`RECURSION_HIGH` when a side recurses over it — by the first values and a
        log-uniform draw (:func:`~icl_verify.maths.strategies.wide_integers`); a declared ``high`` is
        drawn the same way, a range given in ``sizes`` uniformly as it is.
        """
        if given is None and wide:
            top = self.low + (RECURSION_HIGH if recursion else SEARCH_HIGH) if self.high is None else self.high
            return wide_integers(self.low, top)
        pair = (self.low, self.low + 3 if self.high is None else self.high) if given is None else given
        pair = (pair, pair) if type(pair) is int else pair
        ok = isinstance(pair, tuple) and len(pair) == 2 and all(type(v) is int for v in pair)
        if not (ok and self.low <= pair[0] <= pair[1]):
            raise InvalidArgument(
                f"sizes[{name!r}] must be an int or a (low, high) pair of ints, none below {self.low}, got {given!r}"
            )
        return st.integers(*pair)


def integer(name: str = "", *, low: int = 1, high: int | None = None) -> IntegerSpec:
    """Declare an integer parameter ≥ ``low`` (not a matrix size); ``name``, if given, must be its key in ``symbols``."""
    if type(low) is not int or low < 0:
        raise InvalidArgument(f"low must be a non-negative int, got {low!r}")
    if high is not None and (type(high) is not int or high < low):
        raise InvalidArgument(f"high must be an int at least low = {low}, got {high!r}")
    if not isinstance(name, str) or (name and not name.isidentifier()):
        raise InvalidArgument(f"name must be a Python identifier, got {name!r}")
    return IntegerSpec(low, high, name)


def _parameters(fn: Callable[..., Any]) -> list[str]:
    params = inspect.signature(fn).parameters.values()
    return [p.name for p in params if p.default is inspect.Parameter.empty]


def _select(fn: Callable[..., Any], values: Mapping[str, Any]) -> Any:
    return fn(**{p: values[p] for p in _parameters(fn)})


Term = Any
"""A term added to a recursion's value: a number, or a function of the declared symbols (a side)."""


@dataclass(frozen=True)
class Recursion:
    """A side defined by ``base`` (its value at K = ``low``) and ``step`` (value at K ↦ value at K + 1).

    It can be used in an expression with numbers and sides: ``rec - 1``, ``rec - (lambda wstar: wstar)``,
    ``c - rec`` — the value is ``sign`` · (the iterate) + the sum of ``terms``, an invertible map of the
    iterate, so the step still carries the value at K to the value at K + 1.
    """

    base: Callable[..., Any]
    step: Callable[..., Any]
    over: str
    low: int = 1
    sign: int = 1
    terms: tuple[Term, ...] = ()

    def inputs(self) -> list[str]:
        """The symbols and sizes the side takes: those of base, step and terms, and the integer parameter."""
        sides = [t for t in self.terms if callable(t)]
        names = [*_parameters(self.base), *_parameters(self.step), *(p for t in sides for p in _parameters(t))]
        return [n for n in dict.fromkeys([*names, self.over]) if n != PREVIOUS]

    def _value(self, iterate: Any, values: Mapping[str, Any], inverse: bool = False) -> Any:
        """sign · iterate + Σ terms (``inverse``: the iterate behind the value ``iterate``; sign = ±1)."""
        offset = [_select(t, values) if callable(t) else t for t in self.terms]
        if inverse:
            return self.sign * (iterate - sum(offset[1:], offset[0])) if offset else self.sign * iterate
        return self.sign * iterate + sum(offset[1:], offset[0]) if offset else self.sign * iterate

    def first(self, values: Mapping[str, Any]) -> Any:
        """The value at K = ``low``."""
        return self._value(_select(self.base, values), values)

    def next(self, prev: Any, k: Any, values: Mapping[str, Any]) -> Any:
        """The value at k + 1 from the value ``prev`` at k."""
        iterate = self._value(prev, values, inverse=True)
        return self._value(_select(self.step, {**values, PREVIOUS: iterate, self.over: k}), values)

    def __call__(self, **values: Any) -> Any:
        """The value at K = ``values[over]`` (an int), by iterating the step from the base."""
        value = _select(self.base, values)
        for k in range(self.low, int(values[self.over])):
            value = _select(self.step, {**values, PREVIOUS: value, self.over: k})
        return self._value(value, values)

    def _plus(self, term: Term, sign: int = 1) -> Recursion:
        if not (callable(term) or isinstance(term, (int, float, sp.Expr))) or isinstance(term, (bool, Recursion)):
            raise InvalidArgument(
                f"a recursion can be shifted by a number or a function of the declared symbols, got {term!r}"
            )
        if sign < 0:
            term = _negated(term) if callable(term) else -term
        return replace(self, terms=(*self.terms, term))

    def __add__(self, term: Term) -> Recursion:
        return self._plus(term)

    __radd__ = __add__

    def __sub__(self, term: Term) -> Recursion:
        return self._plus(term, -1)

    def __neg__(self) -> Recursion:
        return replace(self, sign=-self.sign, terms=tuple(-t if not callable(t) else _negated(t) for t in self.terms))

    def __rsub__(self, term: Term) -> Recursion:
        return (-self)._plus(term)

    def _product(self, other: Any) -> Recursion:
        raise InvalidArgument(
            "a recursion's value can be shifted (rec − f, f − rec, −rec), not multiplied: the step must carry the "
            "value at K to K + 1; write the product into a recursion of its own, e.g. for (I − M)·S_K the recursion "
            "T_0 = (I − M)·S_0, T_{K+1} = (I − M)·step"
        )

    __mul__ = __rmul__ = __matmul__ = __rmatmul__ = __truediv__ = __rtruediv__ = _product


def _negated(fn: Callable[..., Any]) -> Callable[..., Any]:
    """−fn, with fn's parameters (the symbols it takes)."""

    def negated(**values: Any) -> Any:
        return -_select(fn, values)

    negated.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
    return negated


def recursion(*, base: Callable[..., Any], step: Callable[..., Any], over: str) -> Recursion:
    """A side over every value of the integer parameter ``over``: ``base`` at its lowest value, then ``step``."""
    for arg, fn in (("base", base), ("step", step)):
        if not callable(fn):
            raise InvalidArgument(f"{arg} must be a function of the declared symbols, got {type(fn).__name__}")
    if PREVIOUS not in _parameters(step):
        raise InvalidArgument(f"step must take {PREVIOUS!r}, the value at {over}")
    return Recursion(base, step, over)


def bound(side: Any, lows: Mapping[str, int]) -> Any:
    """A recursion with its lowest index set from the declared integer parameter."""
    if isinstance(side, Recursion):
        if side.over not in lows:
            raise InvalidArgument(f"recursion over {side.over!r}, which is not declared with iv.integer(...)")
        return replace(side, low=lows[side.over])
    return side


def _hypothesis(value: Any) -> Any:
    """A fresh symbol of ``value``'s shape: the common value of the two sides at K."""
    if isinstance(value, MatrixExpr):
        return MatrixSymbol("Z_K", *value.shape)
    if isinstance(value, sp.MatrixBase):
        return sp.Matrix(value.rows, value.cols, lambda i, j: sp.Symbol(f"Z_K_{i}_{j}"))
    return sp.Symbol("Z_K")


@dataclass(frozen=True)
class Residuals:
    """The residuals of an induction on K from ``low``: the base case (K = low) and the step (K → K + 1)."""

    base: list[Any]
    step: list[Any]
    low: int


def induction_residuals(lhs: Any, rhs: Any, over: str, values: Mapping[str, Any], low: int) -> Residuals:
    """The base and step residuals of ``lhs = rhs`` for every K ≥ ``low`` (``values``: symbolic sizes and symbols)."""
    k = values[over]
    at = lambda side, index: _select(side, {**values, over: index})  # noqa: E731
    start = {**values, over: sp.Integer(low)}
    base_l = lhs.first(start) if isinstance(lhs, Recursion) else _select(lhs, start)
    base_r = rhs.first(start) if isinstance(rhs, Recursion) else _select(rhs, start)
    if isinstance(lhs, Recursion) and isinstance(rhs, Recursion):
        z = _hypothesis(base_l)
        step = [a - b for a, b in zip(parts(lhs.next(z, k, values)), parts(rhs.next(z, k, values)))]
    elif isinstance(lhs, Recursion):
        step = [a - b for a, b in zip(parts(lhs.next(at(rhs, k), k, values)), parts(at(rhs, k + 1)))]
    else:
        step = [a - b for a, b in zip(parts(at(lhs, k + 1)), parts(rhs.next(at(lhs, k), k, values)))]
    base = [a - b for a, b in zip(parts(base_l), parts(base_r))]
    return Residuals([sp.expand(r) if not isinstance(r, MatrixExpr) else r for r in base], step, low)


def _decide(part: str, residual: Any, seed: int) -> Decision:
    """A residual decided as the symbolic check decides one; a step that is not 0 refutes nothing."""
    found = decision(residual, seed)
    if part == "step" and found.holds is False:
        why = f"{found.how}; a step that does not reduce to 0 refutes nothing (the hypothesis may be too weak)"
        return Decision(None, why)
    return found


@dataclass(frozen=True)
class Induction(Check):
    """``residuals()`` returns the :class:`Residuals`; base and step decided 0 ⇒ PROVED by induction on ``over``.

    Each residual is decided like the symbolic check's (SymPy's reduction, then
    :func:`icl_verify.maths.identities.decide`: canonical forms in which Mᴷ⁺¹ = Mᴷ·M and Mᴷ commutes
    with M). A base case decided non-zero is a refutation at K = low (with the sizes it was found
    at); a step that is not 0 leaves the statement undecided, never refuted.
    """

    residuals: Callable[[], Residuals]
    over: str

    kind: ClassVar[str] = Kind.SYMBOLIC
    proves: ClassVar[bool] = True
    rank: ClassVar[int] = 2

    def _decisions(self, residuals: Residuals, seed: int) -> list[tuple[str, Any, Decision]]:
        """(part, residual, decision) for each residual, stopping at the first that is not proved 0."""
        out = []
        for part, items in (("base", residuals.base), ("step", residuals.step)):
            for r in items:
                out.append((part, r, _decide(part, r, seed)))
                if out[-1][2].holds is not True:
                    return out
        return out

    def run(self, seed: int, max_examples: int) -> Found:
        t0 = time.perf_counter()
        residuals = self.residuals()
        decided = self._decisions(residuals, seed)
        seconds = lambda: time.perf_counter() - t0  # noqa: E731
        part, residual, last = decided[-1]
        if last.holds is True:
            hows = [d.how for _, _, d in decided if d.how != REDUCED]
            detail = f"proved by induction on {self.over}: base case and step reduce to 0 for symbolic dimensions"
            detail += "".join(f" ({how})" for how in dict.fromkeys(hows))
            return Found(Evidence(self.kind, Status.PROVED, detail, seconds()))
        if last.holds is False:  # the base case: false at K = low (and at the sizes in ``how``)
            detail = f"induction on {self.over}: the base case {self.over} = {residuals.low} is false: {last.how}"
            value = definite_value(residual) if last.sizes is None else None
            cex = None
            if value is not None:
                cex = counterexample(self.kind, {self.over: residuals.low}, {}, max_abs(value), 0.0, None)
            return Found(Evidence(self.kind, Status.REFUTED, detail, seconds(), cex, explain(residual, None)))
        detail = f"induction on {self.over}: the {part} does not reduce to 0 ({last.how})"
        return Found(Evidence(self.kind, Status.UNDECIDED, detail, seconds(), residual=explain(residual, None)))

    def control_at(self, at: Any, corrected: Callable[[], Residuals]) -> Evidence:
        """The corrected form's base and step must reduce to 0: passed when they do, failed when its base case is
        false, undecided when a residual is not reduced (a step that is not 0 refutes nothing, as in :meth:`run`)."""
        t0 = time.perf_counter()
        part, _, last = self._decisions(corrected(), 0)[-1]
        if last.holds is True:
            status, detail = ControlStatus.PASSED, "symbolic: the corrected form is proved by induction"
        elif last.holds is False:
            status, detail = ControlStatus.FAILED, f"symbolic: the corrected form's base case is false ({last.how})"
        else:
            status = ControlStatus.UNDECIDED
            detail = f"symbolic: the corrected form is not proved by induction: its {part} does not reduce to 0"
        return Evidence(Kind.CONTROL, status, detail, time.perf_counter() - t0)
