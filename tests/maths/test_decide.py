"""The decision procedure for scalar inequalities: proofs, exact counterexamples, and what it leaves open."""

from __future__ import annotations

import sys

import sympy as sp

from icl_verify.maths.decide import decide, violation

X, Y = sp.symbols("x y", real=True)
MOTZKIN = X**4 * Y**2 + X**2 * Y**4 - 3 * X**2 * Y**2 + 1
"""Motzkin 1967: non-negative on R² (AM-GM on x⁴y², x²y⁴, 1) yet not a sum of squares of polynomials."""


def test_a_tight_inequality_is_proved():
    """x² + y² ≥ 2xy with equality on the line x = y."""
    assert decide(X**2 + Y**2, 2 * X * Y, ">=", []).outcome == "proved"


def test_am_gm_with_a_square_root_under_positivity_assumptions():
    found = decide((X + Y) / 2, sp.sqrt(X * Y), ">=", [sp.Gt(X, 0, evaluate=False), sp.Gt(Y, 0, evaluate=False)])
    assert found.outcome == "proved"


def test_without_its_assumption_x_plus_one_over_x_is_refuted_exactly():
    """x + 1/x ≥ 2 holds for x > 0 only; the counterexample is exact and makes the violation positive."""
    assert decide(X + 1 / X, 2, ">=", [sp.Gt(X, 0, evaluate=False)]).outcome == "proved"
    found = decide(X + 1 / X, 2, ">=", [])
    assert found.outcome == "refuted"
    x = found.values["x"]
    assert x < 0 and found.violation == 2 - (x + 1 / x) and found.violation > 0


def test_a_strict_inequality_fails_at_its_point_of_equality():
    found = decide(X**2 + Y**2, 2 * X * Y, ">", [])
    assert found.outcome == "refuted" and found.values["x"] == found.values["y"] and found.violation == 0


def test_the_motzkin_polynomial_is_proved_non_negative():
    assert decide(MOTZKIN, 0, ">=", []).outcome == "proved"


def test_a_timeout_leaves_it_open():
    """The Motzkin proof takes z3 about 0.1 s; one millisecond is not enough."""
    found = decide(MOTZKIN, 0, ">=", [], timeout_ms=1)
    assert found.outcome == "open" and "timeout" in found.reason


def test_outside_the_decidable_fragment_is_open():
    found = decide(sp.exp(X), 1 + X, ">=", [])
    assert found.outcome == "open" and "exp" in found.reason


def test_without_z3_it_is_open_and_says_why(monkeypatch):
    monkeypatch.setitem(sys.modules, "z3", None)
    found = decide(X**2, 0, ">=", [])
    assert found.outcome == "open" and "z3-solver" in found.reason


def test_the_violation_is_signed():
    assert violation(sp.Integer(3), sp.Integer(1), "<=") == 2
    assert violation(sp.Integer(3), sp.Integer(1), ">=") == -2
