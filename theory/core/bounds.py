"""Inequalities as statements: ``iv.statement(..., relation="<=")`` and its checks.

The single definition (two sides over declared symbols) feeds every check:

* a decision procedure (:class:`~icl_verify.core.checks.bound.ProofBound`) when every declared
  symbol is a scalar, so the sides are scalar expressions — PROVED, or an exact counterexample;
* the numeric search (:class:`~icl_verify.core.checks.bound.NumericBound`), steered toward a
  violation and shrunk to the smallest sizes, with an exact rational violation at the shrunk case
  when the sides also evaluate on SymPy matrices (the drawn floats are exact binary rationals).

Matrix inequalities (norms, spectra) have no proof check: they are VERIFIED by search.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import sympy as sp

from icl_verify.core.checks.base import Check, parts
from icl_verify.core.checks.bound import NumericBound, ProofBound
from icl_verify.errors import InvalidArgument
from icl_verify.maths.decide import RELATIONS, violation

DEFAULT_TIMEOUT = 10.0
"""Seconds the decision procedure may take before the proof check is left undecided."""


def check_relation(relation: Any, timeout: Any) -> None:
    """``relation`` is ``"="`` or one of :data:`RELATIONS`; ``timeout`` a positive number of seconds."""
    if relation != "=" and relation not in RELATIONS:
        raise InvalidArgument(f"relation must be one of '=', {', '.join(map(repr, RELATIONS))}, got {relation!r}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise InvalidArgument(f"timeout must be a positive number of seconds, got {timeout!r}")


def _exact_value(value: Any) -> Any:
    """A drawn value in exact arithmetic: arrays as SymPy matrices of rationals, floats as rationals."""
    if isinstance(value, np.ndarray):
        return sp.Matrix(value.shape[0], value.shape[1], [sp.Rational(float(v)) for v in value.ravel()])
    if isinstance(value, (float, np.floating)):
        return sp.Rational(float(value))
    return value


def exact_violation(sides: Callable[[Mapping[str, Any]], tuple], relation: str) -> Callable[[Mapping[str, Any]], Any]:
    """The exact violation of ``sides`` at a case: a rational, or ``None`` where a side is numeric only
    (a spectral norm) or leaves the rationals (a square root gives a float, which is no exact value)."""

    def at(case: Mapping[str, Any]) -> Any:
        try:
            lhs, rhs = sides({k: _exact_value(v) for k, v in case.items()})
            gaps = [sp.sympify(violation(a, b, relation)) for a, b in zip(_entries(lhs), _entries(rhs), strict=True)]
        except Exception:  # a side written for NumPy only: no exact witness, the numeric one stands
            return None
        return max(gaps) if gaps and all(g.is_Rational for g in gaps) else None

    return at


def _entries(value: Any) -> list[Any]:
    return [e for p in parts(value) for e in (list(p) if isinstance(p, sp.MatrixBase) else [p])]


def inequality_checks(
    relation: str,
    *,
    proof_sides: Callable[[], tuple] | None,
    cases: Any,
    numeric_sides: Callable[[Mapping[str, Any]], tuple],
    exact_sides: Callable[[Mapping[str, Any]], tuple],
    rtol: float,
    atol: float,
    timeout: float,
) -> list[Check]:
    """The proof (scalar sides only) and the steered numeric search of ``lhs relation rhs``."""
    checks: list[Check] = []
    if proof_sides is not None:
        checks.append(ProofBound(proof_sides, relation, int(timeout * 1000)))
    checks.append(NumericBound(cases, numeric_sides, relation, rtol, atol, exact_violation(exact_sides, relation)))
    return checks
