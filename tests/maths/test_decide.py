"""The decision procedure for scalar inequalities: proofs, exact counterexamples, and what it leaves open."""

from __future__ import annotations

import sys

import pytest
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
    """A sum of three squared quadratics in five variables: z3 4.12 needs about 15 s to prove it non-negative and
    4.15 more than 30 s, so a millisecond is four orders of magnitude short on any machine and release. (The
    Motzkin polynomial, used here before, is proved in a few milliseconds by z3 4.12: a loaded machine let it
    finish before the timer.)"""
    a, b, c, d, e = sp.symbols("a b c d e", real=True)
    squares = (
        (a * b - c * d + e**2 - 2 * a + 3 * c * e - 1) ** 2
        + (b * c + 2 * d * e - a**2 + b - 5 * a * e) ** 2
        + (a * e - b * d + c**2 + 7 * b * c - d) ** 2
    )
    found = decide(squares, 0, ">=", [], timeout_ms=1)
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


def test_a_model_at_an_irrational_point_is_an_exact_refutation():
    """(x² − 2)² > 0 fails exactly at x = ±√2: z3's model is algebraic, confirmed as SymPy's root, violation 0."""
    found = decide((X**2 - 2) ** 2, 0, ">", [])
    assert found.outcome == "refuted" and found.violation == 0
    assert found.values["x"] ** 2 == 2


def test_an_algebraic_model_of_degree_three_is_confirmed_with_its_isolating_interval():
    """x³ − x − 1 = 0 has one real root (the plastic number, ≈ 1.3247), no radical SymPy gives: a CRootOf."""
    found = decide((X**3 - X - 1) ** 2, 0, ">", [])
    assert found.outcome == "refuted" and found.violation == 0
    root = found.values["x"]
    assert isinstance(root, sp.CRootOf) and sp.minimal_polynomial(root, X) == X**3 - X - 1


def test_a_true_strict_inequality_with_an_irrational_boundary_is_proved_not_refuted():
    """The false twin's proving path: (x² − 2)² + 1/10⁶ > 0 holds everywhere."""
    assert decide((X**2 - 2) ** 2 + sp.Rational(1, 10**6), 0, ">", []).outcome == "proved"


def test_assumptions_bound_the_domain_a_range_proves_what_the_line_refutes():
    """(1 − t)² ≤ 4 on t ∈ [0, 3] (equality at t = 3): proved; on [0, 7/2] refuted inside the range; and
    everywhere refuted. Exclusions are assumptions too: x² ≠ 2 excluded at ±√2, the strict bound holds."""
    t = sp.Symbol("t", real=True)
    inside = [sp.Ge(t, 0, evaluate=False), sp.Le(t, 3, evaluate=False)]
    assert decide((1 - t) ** 2, 4, "<=", inside).outcome == "proved"
    wider = decide((1 - t) ** 2, 4, "<=", [sp.Ge(t, 0, evaluate=False), sp.Le(t, sp.Rational(7, 2), evaluate=False)])
    assert wider.outcome == "refuted" and 3 < wider.values["t"] <= sp.Rational(7, 2)
    assert wider.violation == (1 - wider.values["t"]) ** 2 - 4 > 0
    assert decide((1 - t) ** 2, 4, "<=", []).outcome == "refuted"
    roots = [sp.Ne(X, sp.sqrt(2), evaluate=False), sp.Ne(X, -sp.sqrt(2), evaluate=False)]
    assert decide((X**2 - 2) ** 2, 0, ">", roots).outcome == "proved"


def test_a_model_outside_an_irrational_exclusion_is_checked_against_it_exactly():
    """x ≠ √2 excludes one root only: the refutation is at the other, −√2, and satisfies the exclusion exactly."""
    found = decide((X**2 - 2) ** 2, 0, ">", [sp.Ne(X, sp.sqrt(2), evaluate=False)])
    assert found.outcome == "refuted" and found.values["x"] == -sp.sqrt(2)


def test_a_model_value_z3_cannot_give_exactly_is_left_open(monkeypatch):
    """A value neither rational nor algebraic (here forced) is no counterexample: open, never refuted."""
    z3 = pytest.importorskip("z3")
    monkeypatch.setattr(z3, "is_algebraic_value", lambda value: False)
    found = decide((X**2 - 2) ** 2, 0, ">", [])
    assert found.outcome == "open" and "neither rational nor algebraic" in found.reason


def test_float_literals_are_the_binary_fractions_they_are():
    """0.1x + 0.2x ≤ 0.3x for x > 0 is false in binary (0.1 + 0.2 exceeds 0.3 by 2⁻⁵⁴ as SymPy folds them)."""
    found = decide(0.1 * X + 0.2 * X, 0.3 * X, "<=", [sp.Gt(X, 0, evaluate=False)])
    assert found.outcome == "refuted"
    x = found.values["x"]
    assert found.violation == (sp.Rational(0.1 + 0.2) - sp.Rational(0.3)) * x > 0


def test_huge_and_tiny_coefficients_neither_hide_a_proof_nor_invent_a_counterexample():
    """c(x² + y²) ≥ 2c·xy at c = 10³⁰⁰ and 10⁻³⁰⁰ (2c is exactly twice c in binary): proved; the twin with
    3c·xy (3c the float nearest to it) is refuted exactly, its violation positive at the model."""
    for c in (1e300, 1e-300):
        assert decide(c * (X**2 + Y**2), 2 * c * X * Y, ">=", []).outcome == "proved"
        found = decide(c * (X**2 + Y**2), 3 * c * X * Y, ">=", [])
        x, y = found.values["x"], found.values["y"]
        gap = sp.Rational(3 * c) * x * y - sp.Rational(c) * (x**2 + y**2)
        assert found.outcome == "refuted" and found.violation == gap > 0


def test_an_algebraic_model_of_large_magnitude_is_confirmed():
    """The root of x³ − x − 10³⁰ is about 10¹⁰: z3's decimal approximation is checked relative to its size."""
    found = decide((X**3 - X - 10**30) ** 2, 0, ">", [])
    assert found.outcome == "refuted" and found.violation == 0
    assert sp.minimal_polynomial(found.values["x"], X) == X**3 - X - 10**30


def test_contradictory_assumptions_prove_nothing():
    """x > 1 and x < 0: every inequality would hold vacuously (even x < x); open, never proved. The same for a
    side defined nowhere (√(−1 − x²)) and for an assumption SymPy already settled to false."""
    contradictory = [sp.Gt(X, 1, evaluate=False), sp.Lt(X, 0, evaluate=False)]
    found = decide(X, X, "<", contradictory)
    assert found.outcome == "open" and "no real point" in found.reason
    assert decide(sp.sqrt(-1 - X**2), 0, "<", []).outcome == "open"
    assert decide(X, X, "<", [sp.false]).outcome == "open"


def test_an_assumption_settled_to_true_is_no_obstacle():
    positive = sp.Symbol("p", positive=True)
    assert decide(positive + 1 / positive, 2, ">=", [positive > 0, positive >= 0]).outcome == "proved"


def test_an_integer_symbol_is_decided_over_the_reals_and_refuted_only_at_an_integer():
    """Over the reals K² ≥ 2K − 1 holds ((K − 1)² ≥ 0), so for every integer; K² ≤ 10K + 1 fails over the
    reals from 5 + √26 ≈ 10.1: a model there is no integer counterexample (open), one at an integer is."""
    k = sp.Symbol("K", integer=True, nonnegative=True)
    assert decide(k**2, 2 * k - 1, ">=", []).outcome == "proved"
    found = decide(k**2, 10 * k + 1, "<=", [])
    assert found.outcome in ("open", "refuted")
    if found.outcome == "refuted":
        assert found.values["K"].is_integer and found.values["K"] >= 11
    else:
        assert "not an integer" in found.reason
