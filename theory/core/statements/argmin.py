"""``argmin_η L = rhs`` over a declared scalar (``lhs=iv.argmin(loss, over="eta")``): both conditions of a
minimum for every size (:mod:`icl_verify.core.optimality`), stationarity and curvature at small sizes, and a
numeric search for a lower value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import sympy as sp
from hypothesis import strategies as st

from icl_verify.core.checks.base import Check
from icl_verify.core.checks.bound import NumericBound
from icl_verify.core.checks.explicit import Explicit
from icl_verify.core.checks.numeric import (
    Numeric,
)
from icl_verify.core.checks.symbolic import Symbolic
from icl_verify.core.expectation import (
    expected,
    explicit_entries,
    random_symbols,
)
from icl_verify.core.optimality import Argmin, Optimality, StationaryExplicit, conditions
from icl_verify.core.statements.base import Given, StatementKind
from icl_verify.core.symbols import (
    ScalarSpec,
    call,
    covariance_names,
    drawn_from,
    inputs,
    randoms,
    scalar_assumptions,
    size_names,
    size_symbol,
    symbolic_values,
    symmetric_names,
)
from icl_verify.errors import InvalidArgument
from icl_verify.maths.tolerance import ATOL

CURVATURE = "curvature"
"""The key of L″(η*) at concrete sizes among the argmin forms (the explicit check's draws use it)."""


def _argmin_forms(symbols: Mapping[str, Any], lhs: Argmin, rhs: Callable[..., Any]) -> dict[str, Any]:
    """The counterparts of ``argmin L = rhs``: both conditions (symbolic), stationarity (explicit), L(rhs) ≤ L (numeric)."""
    over, covariances = lhs.over, covariance_names(symbols)
    if not isinstance(symbols.get(over), ScalarSpec):
        raise InvalidArgument(f"argmin over {over!r}: it must name a declared iv.scalar(...)")
    if over in inputs(rhs):
        raise InvalidArgument(f"the minimiser (rhs or corrected) cannot take {over!r}, the variable minimised over")

    def loss(sizes: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
        values = {**symbolic_values(symbols, sizes), **sizes}
        inputs, laws = random_symbols(randoms(symbols), sizes, values)
        return expected(lhs.loss, values | inputs, laws, call), values

    def symbolic() -> Any:
        sizes = {n: size_symbol(n) for n in size_names(symbols)}
        value, values = loss(sizes)
        given = scalar_assumptions({k: v for k, v in symbols.items() if k != over}, values)
        return conditions(value, values[over], call(rhs, values), list(sizes.values()), covariances, given)

    def explicit(**sizes: int) -> list[Any]:
        value, values = loss(sizes)
        slope = sp.diff(value, values[over]).subs(values[over], call(rhs, values))
        return [explicit_entries(sp.sympify(slope), symmetric_names(symbols))]

    def curvature(**sizes: int) -> tuple[Any, list[Any]]:
        value, values = loss(sizes)
        second = sp.diff(value, values[over], 2).subs(values[over], call(rhs, values))
        given = scalar_assumptions({k: v for k, v in symbols.items() if k != over}, values)
        return explicit_entries(sp.sympify(second), symmetric_names(symbols)), given

    def numeric(case: Mapping[str, Any]) -> tuple:
        star = {**case, over: float(np.asarray(call(rhs, case), dtype=np.float64).ravel()[0])}
        return call(lhs.loss, star), call(lhs.loss, case)

    forms: dict[str, Any] = {Symbolic.kind: symbolic, Explicit.kind: explicit, CURVATURE: curvature}
    return forms if randoms(symbols) else forms | {Numeric.kind: numeric}


def _argmin_checks(
    forms: Mapping[str, Any],
    over: str,
    cases: st.SearchStrategy,
    exact: list,
    rtol: float,
    timeout: float,
    symbolic: bool,
    explicit: bool,
    definite_names: set[str],
    drawn: str,
) -> list[Check]:
    """Both conditions of a minimum, stationarity and curvature draws at small sizes, and (deterministic losses) the numeric search for a lower value."""
    checks: list[Check] = [Optimality(forms[Symbolic.kind], over, int(timeout * 1000))] if symbolic else []
    definite = frozenset(definite_names)
    checks += [StationaryExplicit(forms[Explicit.kind], exact, forms[CURVATURE], definite)] if explicit else []
    if Numeric.kind in forms:
        checks.append(NumericBound(cases, forms[Numeric.kind], "<=", rtol, ATOL, drawn=drawn))
    return checks


class ArgminStatement(StatementKind):
    """``lhs=iv.argmin(loss, over=...)`` against the claimed minimiser."""

    def applies(self, given: Given) -> bool:
        return isinstance(given.lhs, Argmin)

    def forms(self, given: Given, rhs: Any) -> dict[str, Any]:
        return _argmin_forms(given.symbols, given.lhs, rhs)

    def checks(self, given: Given) -> list[Check]:
        return _argmin_checks(
            self.forms(given, given.rhs), given.lhs.over, given.cases(), given.exact, given.rtol, given.timeout,
            given.symbolic, given.explicit, symmetric_names(given.symbols), drawn_from(given.symbols),
        )  # fmt: skip
