"""Inequalities as statements: ``iv.statement(..., relation="<=")`` and its checks.

The single definition (two sides over declared symbols) feeds every check:

* a decision procedure (:class:`~icl_verify.core.checks.bound.ProofBound`) when every declared
  symbol is a scalar, so the sides are scalar expressions — PROVED, or an exact counterexample;
* the numeric search (:class:`~icl_verify.core.checks.bound.NumericBound`), steered toward a
  violation and shrunk to the smallest sizes; a violation refutes once its sign is decided at the
  drawn values as the exact rationals they are (:func:`exact_violation`: the scalar sides over
  symbols, or the sides on SymPy numbers), else only by a wide floating-point margin.

The declared scalar assumptions (signs, ranges, exclusions) bound both: z3 decides under them, the
search rejects the draws outside them (:func:`domain`). An integer parameter is searched far
(:meth:`~icl_verify.core.induction.IntegerSpec.strategy`, ``wide``) and the evidence states the
range covered. Matrix inequalities (norms, spectra) have no proof check: they are VERIFIED by search.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import sympy as sp

from icl_verify.core.checks.base import Check
from icl_verify.core.checks.bound import NumericBound, ProofBound
from icl_verify.errors import InvalidArgument
from icl_verify.maths.decide import RELATIONS, exact_literals, holds, violation
from icl_verify.maths.exact import entries, exact_case

DEFAULT_TIMEOUT = 10.0
"""Seconds the decision procedure may take before the proof check is left undecided."""


def check_relation(relation: Any, timeout: Any) -> None:
    """``relation`` is ``"="`` or one of :data:`RELATIONS`; ``timeout`` a positive number of seconds."""
    if relation != "=" and relation not in RELATIONS:
        raise InvalidArgument(f"relation must be one of '=', {', '.join(map(repr, RELATIONS))}, got {relation!r}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise InvalidArgument(f"timeout must be a positive number of seconds, got {timeout!r}")


def exact_violation(
    sides: Callable[[Mapping[str, Any]], tuple], relation: str, symbolic: Callable[[], tuple] | None = None
) -> Callable[[Mapping[str, Any]], list | None]:
    """The exact violations of ``lhs relation rhs`` at a case, one per entry, or ``None`` where there is none.

    ``symbolic`` (scalar statements: the proof's sides over SymPy symbols) is preferred: its float
    literals are the binary fractions they are (``0.5`` → 1/2), its powers ``** 0.5`` square roots,
    and the case's values are substituted exactly. Otherwise ``sides`` is called on the case's exact
    values (:func:`~icl_verify.maths.exact.exact_case`). ``None`` when a side is numeric only (a
    spectral norm) or leaves exact arithmetic (a float appears in the result).
    """
    over_symbols = _cached(symbolic)

    def at(case: Mapping[str, Any]) -> list | None:
        values = exact_case(case)
        try:
            if over_symbols is not None:
                lhs, rhs = over_symbols()
                named = {s: values[s.name] for s in (lhs.free_symbols | rhs.free_symbols) if s.name in values}
                lhs, rhs = lhs.xreplace(named), rhs.xreplace(named)
            else:
                lhs, rhs = sides(values)
            left, right = _entries(lhs), _entries(rhs)
            if any(e.has(sp.Float) for e in left + right):  # rounded by SymPy's floats: not exact
                return None
            gaps = [sp.sympify(violation(a, b, relation)) for a, b in zip(left, right, strict=True)]
        except Exception:  # a side written for NumPy only: no exact value, the float evidence is all there is
            return None
        return None if any(not isinstance(g, sp.Expr) or g.free_symbols for g in gaps) else gaps

    return at


def _entries(value: Any) -> list[Any]:
    """The scalar entries of an exact side; a NumPy array of SymPy numbers (NumPy code on exact values) too."""
    if isinstance(value, np.ndarray):
        return [sp.sympify(e) for e in value.ravel()]
    return entries(value)


def _cached(symbolic: Callable[[], tuple] | None) -> Callable[[], tuple] | None:
    """The symbolic sides computed once, floats made exact; ``None`` if there are none or they fail."""
    if symbolic is None:
        return None
    memo: list[tuple] = []

    def sides() -> tuple:
        if not memo:
            lhs, rhs, _ = symbolic()
            memo.append((exact_literals(lhs), exact_literals(rhs)))
        return memo[0]

    return sides


def domain(assumptions: Sequence[sp.Basic]) -> Callable[[Mapping[str, Any]], bool] | None:
    """Whether a case satisfies the declared assumptions (relations over scalar symbols named as the case's keys)."""
    if not assumptions:
        return None

    def admits(case: Mapping[str, Any]) -> bool:
        values = exact_case({k: v for k, v in case.items() if not isinstance(v, np.ndarray)})
        return all(holds(a, {s: values[s.name] for s in a.free_symbols if s.name in values}) for a in assumptions)

    return admits


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
    assumptions: Sequence[sp.Basic] = (),
    decimal_sides: Callable[[], tuple] | None = None,
    drawn: str = "",
    examples: tuple[Mapping[str, Any], ...] = (),
) -> list[Check]:
    """The proof (scalar sides only) and the steered numeric search of ``lhs relation rhs``.

        ``assumptions`` (SymPy relations over the scalar symbols: ranges, exclusions, signs) bound the
        proof and the search alike: the search rejects the draws outside them. ``decimal_sides`` are the
        proof's sides with every float literal read as the decimal it shows (0.1 → 1/10), for saying when
        a refutation is caused by binary floats. ``drawn`` says where the search drew the scalars from; ``examples``
    are simple cases tried when the search finds no violation.
    """
    checks: list[Check] = []
    if proof_sides is not None:
        checks.append(ProofBound(proof_sides, relation, int(timeout * 1000), decimal_sides))
    exact = exact_violation(exact_sides, relation, proof_sides)
    checks.append(NumericBound(cases, numeric_sides, relation, rtol, atol, exact, domain(assumptions), drawn, examples))
    return checks
