"""A bound ``lhs <= rhs`` (``relation="<="``, ``">="``, ``"<"`` or ``">"``): decided by z3 when every symbol is
a scalar, else searched numerically with exact confirmation (:mod:`icl_verify.core.bounds`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import product
from typing import Any

import sympy as sp
from hypothesis import strategies as st

from icl_verify.core.bounds import inequality_checks
from icl_verify.core.checks.base import Check
from icl_verify.core.checks.numeric import (
    Numeric,
)
from icl_verify.core.checks.symbolic import Symbolic
from icl_verify.core.statements.base import Given, StatementKind
from icl_verify.core.statements.equality import compare
from icl_verify.core.symbols import (
    ScalarSpec,
    Spec,
    call,
    drawn_from,
    scalar_assumptions,
    scalar_symbol,
    simple_cases,
)
from icl_verify.maths.strategies import FIRST_VALUES
from icl_verify.maths.tolerance import ATOL

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
    values = {name: scalar_symbol(name, spec) for name, spec in scalars.items()}
    given = scalar_assumptions(scalars, values)
    forms: dict[str, Any] = {Numeric.kind: lambda case: compare(lhs, rhs, case), DOMAIN: given}
    if proof and len(scalars) == len(symbols):
        forms[Symbolic.kind] = lambda: (call(lhs, values), call(rhs, values), given)
        forms[DECIMAL] = lambda: (*(_decimal_literals(side, values) for side in (lhs, rhs)), given)
    return forms


def _decimal_literals(side: Callable[..., Any], values: Mapping[str, Any]) -> Any:
    """A side over symbols with each float literal read as the decimal it shows (0.1 → 1/10), before SymPy folds them."""
    with sp.evaluate(False):
        value = sp.sympify(call(side, values))
    return value.xreplace({f: sp.Rational(repr(float(f))) for f in value.atoms(sp.Float)})


def _inequality_checks(
    forms: Mapping[str, Any],
    relation: str,
    cases: st.SearchStrategy,
    lhs: Any,
    rhs: Any,
    *,
    rtol: float,
    timeout: float,
    drawn: str,
    examples: tuple[Mapping[str, Any], ...],
) -> list[Check]:
    return inequality_checks(
        relation,
        proof_sides=forms.get(Symbolic.kind),
        cases=cases,
        numeric_sides=forms[Numeric.kind],
        exact_sides=lambda case: (call(lhs, case), call(rhs, case)),
        rtol=rtol,
        atol=ATOL,
        timeout=timeout,
        assumptions=forms[DOMAIN],
        decimal_sides=forms.get(DECIMAL),
        drawn=drawn,
        examples=examples,
    )


class InequalityStatement(StatementKind):
    """A bound between deterministic sides."""

    def applies(self, given: Given) -> bool:
        return given.relation != "="

    def forms(self, given: Given, rhs: Any) -> dict[str, Any]:
        return _inequality_sides(given.symbols, given.lhs, rhs, proof=not given.integers)

    def checks(self, given: Given) -> list[Check]:
        return _inequality_checks(
            self.forms(given, given.rhs), given.relation, given.cases(), given.lhs, given.rhs,
            rtol=given.rtol, timeout=given.timeout, drawn=drawn_from(given.symbols),
            examples=simple_cases(given.symbols, _first_values(given)),
        )  # fmt: skip


def _first_values(given: Given) -> list[dict[str, int]]:
    """The explicit sizes with each integer parameter at each of its first :data:`FIRST_VALUES` values instead,
    smallest first: the simple cases a bound is tried at (the search's shrinking stops where Hypothesis's release
    does: K² ≤ 10K + 1 shrank to K = 16 under 6.90, to the first failure K = 11 under 6.170)."""
    values = {
        name: range(
            spec.low, spec.low + FIRST_VALUES if spec.high is None else min(spec.low + FIRST_VALUES, spec.high + 1)
        )
        for name, spec in given.integers.items()
    }
    sizes = [dict(size) | dict(zip(values, chosen)) for size in given.exact for chosen in product(*values.values())]
    unique = list({tuple(sorted(size.items())): size for size in sizes}.values())
    return sorted(unique, key=lambda size: (sum(size.values()), sorted(size.items())))
