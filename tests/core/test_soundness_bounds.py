"""Bounds whose verdicts hold at the edges (issue 39): searches cover what they say, a z3 model at an
irrational point refutes exactly, declared ranges bound every check, and a floating-point violation
refutes only once it is confirmed exactly (or, sides not exact, by a wide margin)."""

from __future__ import annotations

import re

import numpy as np
import pytest
import sympy as sp
from hypothesis import strategies as st

import icl_verify as iv
from icl_verify.core.bounds import inequality_checks
from icl_verify.core.checks.bound import FLOAT_ONLY_RELATIVE, NumericBound
from icl_verify.maths.tolerance import ATOL, RTOL

K0 = {"K": iv.integer(low=0)}


def _covered(detail: str, name: str) -> tuple[int, int]:
    low, high = re.search(rf"{name}∈\[(\d+),(\d+)\]", detail).groups()
    return int(low), int(high)


def _claim(checks: list, name: str = "bound", **fields) -> iv.Claim:
    return iv.Claim(name=name, source="t", statement="s", checks=tuple(checks), **fields)


# --- an integer parameter is searched far, and the report says how far -----------------------------


def test_a_bound_false_from_k_11_is_refuted_at_k_11_exactly():
    """K² ≤ 10K + 1 holds for K ≤ 10 (100 ≤ 101) and fails from K = 11 (121 > 111): the search reaches past
    the first values and shrinks to the first failure, confirmed in exact integer arithmetic."""
    claim = iv.statement("k-squared", "t", "s", symbols=K0, relation="<=", lhs=lambda K: K**2, rhs=lambda K: 10 * K + 1,
                         holds=False, no_control="no corrected form")  # fmt: skip
    result = iv.check(claim)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    cex = result.counterexample
    assert cex["sizes"] == {"K": 11} and cex["exact_residual"] == "10"  # 121 − 111
    assert "confirmed exactly" in result.evidence[0].detail


def test_a_violation_the_search_stops_at_is_settled_at_the_first_failure_whatever_the_search_drew():
    """A search that can only draw K = 16 (as Hypothesis 6.90's shrinking stopped there) still reports K = 11, the
    first failure of K² ≤ 10K + 1 among the simple cases at smaller sizes; no simple case below the draw fails when the
    draw is the first failure itself."""
    sides = lambda case: (case["K"] ** 2, 10 * case["K"] + 1)  # noqa: E731
    exact = lambda case: [sp.Integer(case["K"]) ** 2 - 10 * case["K"] - 1]  # noqa: E731
    examples = tuple({"K": k} for k in range(16))
    for drawn, first in ((16, 11), (11, 11), (300, 11)):
        bound = NumericBound(st.just({"K": drawn}), sides, "<=", RTOL, ATOL, exact, examples=examples)
        assert bound.run(0, 20).evidence.counterexample["sizes"] == {"K": first}


def test_a_true_bound_over_k_is_verified_over_the_range_it_states():
    """(K − 1)² ≥ 0, i.e. K² ≥ 2K − 1 for every integer: the evidence states the range covered, beyond 10⁵."""
    claim = iv.statement(
        "k-squared-true", "t", "s", symbols=K0, relation=">=", lhs=lambda K: K**2, rhs=lambda K: 2 * K - 1
    )
    numeric = iv.check(claim).evidence[0]
    assert numeric.status == "verified"
    low, high = _covered(numeric.detail, "K")
    assert low == 0 and 10**5 < high <= 10**6


def test_a_range_given_in_sizes_is_searched_as_given():
    claim = iv.statement("k-given", "t", "s", symbols=K0, relation=">=", sizes={"K": (2, 9)},
                         lhs=lambda K: K**2, rhs=lambda K: 2 * K - 1)  # fmt: skip
    assert _covered(iv.check(claim).evidence[0].detail, "K") == (2, 9)


def test_a_bound_over_a_recursion_is_searched_up_to_its_affordable_cap():
    """x_K = 2^K by x ← 2x: 2^K ≤ 1000 + K² fails first at K = 11 (2048 > 1121; 1024 ≤ 1100 at K = 10); the
    search of a recursion stops at K = 10³ (each draw costs K steps), and says so in what it covers."""
    doubling = iv.recursion(base=lambda: 1.0, step=lambda prev: 2 * prev, over="K")
    false = iv.statement("doubling", "t", "s", symbols=K0, relation="<=", lhs=doubling, rhs=lambda K: 1000 + K**2,
                         holds=False, no_control="no corrected form")  # fmt: skip
    assert iv.check(false).counterexample["sizes"] == {"K": 11}
    true = iv.statement("doubling-true", "t", "s", symbols=K0, relation=">=", lhs=doubling, rhs=lambda K: K + 1)
    numeric = iv.check(true).evidence[0]
    low, high = _covered(numeric.detail, "K")
    assert numeric.status == "verified" and low == 0 and 100 < high <= 1000


# --- z3's models at irrational points ---------------------------------------------------------------


def test_a_square_that_vanishes_at_root_two_is_refuted_there_exactly():
    """(x² − 2)² > 0 fails at x = ±√2 only: no drawn float finds it, z3's algebraic model does, exactly."""
    claim = iv.statement("square-positive", "t", "s", symbols={"x": iv.scalar()}, relation=">",
                         lhs=lambda x: (x**2 - 2) ** 2, rhs=lambda x: 0 * x, holds=False,
                         no_control="no corrected form")  # fmt: skip
    result = iv.check(claim)
    proof = result.evidence[0]
    assert result.verdict is iv.Verdict.REFUTED and proof.status == "refuted"
    assert sp.sympify(proof.counterexample["values"]["x"]) ** 2 == 2 and proof.counterexample["exact_residual"] == "0"


def test_the_twin_bounded_away_from_zero_is_proved():
    claim = iv.statement("square-plus", "t", "s", symbols={"x": iv.scalar()}, relation=">",
                         lhs=lambda x: (x**2 - 2) ** 2 + 1e-6, rhs=lambda x: 0 * x)  # fmt: skip
    assert iv.check(claim).verdict is iv.Verdict.PROVED


# --- declared ranges and exclusions bound z3 and the search (the assumptions of bounds.py) ------------

T = sp.Symbol("t", real=True)
WIDE_T = st.fixed_dictionaries({"t": st.floats(-8, 8)})


def _on(high: sp.Expr, lhs, rhs, proof_lhs, proof_rhs, relation: str = "<=") -> list:
    given = [sp.Ge(T, 0, evaluate=False), sp.Le(T, high, evaluate=False)]
    return inequality_checks(
        relation, proof_sides=lambda: (proof_lhs, proof_rhs, given), cases=WIDE_T,
        numeric_sides=lambda case: (lhs(case["t"]), rhs(case["t"])), exact_sides=lambda case: (lhs(case["t"]), rhs(case["t"])),
        rtol=RTOL, atol=ATOL, timeout=10.0, assumptions=given,
    )  # fmt: skip


def test_a_bound_on_a_declared_range_is_proved_and_searched_only_inside_it():
    """(1 − t)² ≤ 4 on t ∈ [0, 3] (equality at t = 3): PROVED; the search draws t in [−8, 8] and rejects
    what lies outside the range (false there: t = 4 gives 9 > 4), never refuting with it."""
    result = iv.check(_claim(_on(sp.Integer(3), lambda t: (1 - t) ** 2, lambda t: 4 + 0 * t, (1 - T) ** 2, 4)))
    proof, numeric = result.evidence
    assert result.verdict is iv.Verdict.PROVED and proof.status == "proved"
    assert numeric.status == "verified" and "draws outside the domain rejected" in numeric.detail


def test_the_same_bound_on_a_wider_range_is_refuted_inside_it_by_both_checks():
    result = iv.check(
        _claim(_on(sp.Rational(7, 2), lambda t: (1 - t) ** 2, lambda t: 4 + 0 * t, (1 - T) ** 2, 4), holds=False,
               corrected=iv.NoControl("no corrected form"))
    )  # fmt: skip
    proof, numeric = (e for e in result.evidence if e.kind != "control")
    assert proof.status == numeric.status == "refuted"
    assert 3 < sp.Rational(proof.counterexample["values"]["t"]) <= sp.Rational(7, 2)
    assert 3 < numeric.counterexample["values"]["t"] <= 3.5


def test_an_exclusion_keeps_the_search_off_a_pole():
    """(t² − 1)/(t − 1) ≤ t + 1 is an equality off t = 1: with t ≠ 1 declared, proved; the search, shrinking
    toward 1.0, never divides by zero there."""
    given = [sp.Ne(T, 1, evaluate=False)]
    side = lambda t: (t**2 - 1) / (t - 1)  # noqa: E731
    checks = inequality_checks(
        "<=", proof_sides=lambda: (side(T), T + 1, given), cases=st.fixed_dictionaries({"t": st.sampled_from([1.0, 2.0, 3.0])}),
        numeric_sides=lambda case: (side(case["t"]), case["t"] + 1), exact_sides=lambda case: (side(case["t"]), case["t"] + 1),
        rtol=RTOL, atol=ATOL, timeout=10.0, assumptions=given,
    )  # fmt: skip
    result = iv.check(_claim(checks))
    assert result.verdict is iv.Verdict.PROVED and [e.status for e in result.evidence] == ["proved", "verified"]


def test_a_statement_undefined_at_every_draw_is_an_error_saying_how_to_declare_the_domain():
    checks = inequality_checks(
        "<=", proof_sides=None, cases=st.fixed_dictionaries({"t": st.floats(1, 2)}),
        numeric_sides=lambda case: (np.log(-case["t"]), 0.0), exact_sides=lambda case: (np.log(-case["t"]), 0.0),
        rtol=RTOL, atol=ATOL, timeout=10.0,
    )  # fmt: skip
    with np.errstate(invalid="ignore"):
        numeric = iv.check(_claim(checks)).evidence[0]
    assert numeric.status == "error" and "declare the domain" in numeric.detail


# --- a floating-point violation is a candidate until confirmed ---------------------------------------


def _search(cases, lhs, rhs, exact_lhs=None, exact_rhs=None, relation=">=", rtol=0.0, atol=0.0) -> iv.Claim:
    """A numeric search only, with the strictest filter (no tolerance): every rounding is a candidate."""
    exact_lhs, exact_rhs = exact_lhs or lhs, exact_rhs or rhs
    checks = inequality_checks(
        relation, proof_sides=None, cases=cases, numeric_sides=lambda c: (lhs(**c), rhs(**c)),
        exact_sides=lambda c: (exact_lhs(**c), exact_rhs(**c)), rtol=rtol, atol=atol, timeout=10.0,
    )  # fmt: skip
    return _claim(checks)


@pytest.mark.parametrize("magnitude", [(1e15, 1e300), (1e-300, 1e-15)])
def test_a_true_bound_is_not_refuted_by_rounding_at_huge_or_tiny_values(magnitude):
    """(x + 1) − x ≥ 1 is an equality; in floats (x + 1) − x is 0 from x ≈ 2⁵³ on, and 1 + x − x rounds
    at tiny x too. Every such candidate is rounding in exact arithmetic: VERIFIED, the candidates counted."""
    cases = st.fixed_dictionaries({"x": st.floats(*magnitude)})
    result = iv.check(_search(cases, lambda x: (x + 1) - x, lambda x: 1 + 0 * x))
    numeric = result.evidence[0]
    assert numeric.status == "verified", numeric.detail
    if magnitude[0] > 1:
        assert re.search(r"\d+ floating-point violations were rounding", numeric.detail)


def test_a_true_product_bound_is_not_refuted_at_extreme_values():
    """xy ≤ (x² + y²)/2 with x, y spanning 10⁻¹⁶⁰ to 10¹⁵⁰ (the squares under- and overflow there; an
    overflow is outside the float domain and rejected)."""
    span = st.one_of(st.floats(1e-160, 1e-150), st.floats(1e150, 1e160), st.floats(-1e160, -1e150))
    cases = st.fixed_dictionaries({"x": span, "y": span})
    with np.errstate(over="ignore"):
        result = iv.check(_search(cases, lambda x, y: x * y, lambda x, y: (x * x + y * y) / 2, relation="<="))
    assert result.evidence[0].status == "verified", result.evidence[0].detail


def test_a_false_bound_at_extreme_values_is_still_refuted_exactly():
    """The twin (x + 1) − x ≥ 2 is false everywhere: refuted, confirmed exactly (violation 1)."""
    cases = st.fixed_dictionaries({"x": st.floats(1e15, 1e300)})
    numeric = iv.check(_search(cases, lambda x: (x + 1) - x, lambda x: 2 + 0 * x)).evidence[0]
    assert numeric.status == "refuted" and numeric.counterexample["exact_residual"] == "1"


@pytest.mark.parametrize("magnitude", [(1e-150, 1e-140), (1e-3, 1e3), (1e60, 1e70)])
def test_sides_without_an_exact_form_refute_only_by_a_wide_margin_and_say_so(magnitude):
    """‖A‖₂ ≤ ‖A‖_F holds (an equality at rank 1); NumPy's norms have no exact form. A violation below the
    float-only margin leaves the search undecided, at any magnitude; the false twin ‖A‖_F ≤ ‖A‖₂ refutes in
    floating point only."""
    norm = np.linalg.norm
    rank_one = st.fixed_dictionaries({"u": st.floats(*magnitude), "v": st.floats(*magnitude)})
    spectral = lambda u, v: norm(np.outer([u, 1.0], [v, 1.0]), 2)  # noqa: E731
    frobenius = lambda u, v: norm(np.outer([u, 1.0], [v, 1.0]))  # noqa: E731
    numeric = iv.check(_search(rank_one, spectral, frobenius, relation="<=")).evidence[0]
    assert numeric.status in ("verified", "undecided")
    full = st.fixed_dictionaries({"A": st.sampled_from([np.array([[1.0, 0.0], [0.0, 1.0]])])})
    false = _search(full, lambda A: norm(A), lambda A: norm(A, 2), relation="<=", rtol=RTOL, atol=ATOL)
    refuted = iv.check(false).evidence[0]
    assert refuted.status == "refuted" and "floating point only" in refuted.detail
    assert refuted.counterexample["lhs_minus_rhs"] == pytest.approx(np.sqrt(2) - 1)
    assert np.sqrt(2) - 1 > FLOAT_ONLY_RELATIVE * np.sqrt(2)


def test_a_refutation_caused_by_binary_float_literals_says_so():
    """0.1x + 0.2x ≤ 0.3x for x > 0: as binary fractions 0.1 + 0.2 exceeds 0.3 (by 2⁻⁵⁴ at x = 1), so z3
    refutes it exactly — and the evidence says it is the literals, and how to write them exactly."""
    claim = iv.statement("decimals", "t", "s", symbols={"x": iv.scalar(positive=True)}, relation="<=",
                         lhs=lambda x: 0.1 * x + 0.2 * x, rhs=lambda x: 0.3 * x, holds=False,
                         no_control="no corrected form")  # fmt: skip
    proof = iv.check(claim).evidence[0]
    assert proof.status == "refuted" and "caused by binary floats" in proof.detail and "sp.Rational" in proof.detail
    exact = iv.statement("decimals-exact", "t", "s", symbols={"x": iv.scalar(positive=True)}, relation="<=",
                         lhs=lambda x: x / 10 + x / 5, rhs=lambda x: 3 * x / 10)  # fmt: skip
    assert iv.check(exact).verdict is iv.Verdict.PROVED


def test_a_refutation_not_caused_by_float_literals_has_no_such_note():
    claim = iv.statement("halves", "t", "s", symbols={"x": iv.scalar()}, relation="<=", lhs=lambda x: 0.5 * x**2,
                         rhs=lambda x: 0.25 + 0 * x, holds=False, no_control="no corrected form")  # fmt: skip
    proof = iv.check(claim).evidence[0]
    assert proof.status == "refuted" and "binary floats" not in proof.detail


def test_an_underflow_in_sides_without_an_exact_form_does_not_refute():
    """NumPy's Frobenius norm squares the entries: for A = diag(t, t), t ≤ 10⁻¹⁶³, it underflows to 0 while the
    spectral norm (an SVD) is t, so ‖A‖₂ ≤ ‖A‖_F, true, fails in floats by 100 %. No exact form exists; the
    numbers are far outside the moderate range: undecided, never refuted."""
    norm = np.linalg.norm
    tiny = st.fixed_dictionaries({"t": st.floats(1e-200, 1e-170)})
    diagonal = lambda t: np.diag([t, t])  # noqa: E731
    claim = _search(
        tiny, lambda t: norm(diagonal(t), 2), lambda t: norm(diagonal(t)), relation="<=", rtol=RTOL, atol=ATOL
    )
    numeric = iv.check(claim).evidence[0]
    assert numeric.status == "undecided" and "could not be confirmed exactly" in numeric.detail


def test_a_transcendental_counterexample_is_confirmed_by_a_rigorous_enclosure():
    """eˣ ≥ 1 + x + x² is false at x = 1 (e < 3): z3 cannot decide eˣ, the search finds it, and the violation
    3 − e is confirmed positive by an interval enclosure; eˣ ≥ 1 + x (true) is not refuted."""
    from icl_verify.blocks.backend import exp

    false = iv.statement("exp-quadratic", "t", "s", symbols={"x": iv.scalar()}, relation=">=", lhs=lambda x: exp(x),
                         rhs=lambda x: 1 + x + x**2, holds=False, no_control="no corrected form")  # fmt: skip
    proof, numeric = iv.check(false).evidence[:2]
    assert proof.status == "undecided" and numeric.status == "refuted" and "interval enclosure" in numeric.detail
    x = sp.Rational(numeric.counterexample["values"]["x"])
    assert sp.sympify(numeric.counterexample["exact_residual"]) == 1 + x + x**2 - sp.exp(x)
    true = iv.statement("exp-linear", "t", "s", symbols={"x": iv.scalar()}, relation=">=", lhs=lambda x: exp(x),
                        rhs=lambda x: 1 + x)  # fmt: skip
    assert iv.check(true).verdict is iv.Verdict.VERIFIED


def test_numpy_only_scalar_sides_leave_the_proof_undecided_not_an_error():
    claim = iv.statement("exp-numpy", "t", "s", symbols={"x": iv.scalar()}, relation=">=", lhs=lambda x: np.exp(x),
                         rhs=lambda x: 1 + x)  # fmt: skip
    result = iv.check(claim)
    proof = result.evidence[0]
    assert proof.status == "undecided" and "icl_verify.blocks" in proof.detail
    assert result.verdict is iv.Verdict.VERIFIED


def test_numpy_code_on_exact_values_is_confirmed_exactly():
    """Sides written with np.asarray run on the case's exact rationals too (an array of SymPy numbers): the
    false 2A ≤ A at A = [[1, 2], [3, 4]] is confirmed exactly, its largest violation 4."""
    cases = st.fixed_dictionaries({"A": st.sampled_from([np.array([[1.0, 2.0], [3.0, 4.0]])])})
    sides = lambda c: (2 * np.asarray(c["A"]), np.asarray(c["A"]))  # noqa: E731
    checks = inequality_checks("<=", proof_sides=None, cases=cases, numeric_sides=sides, exact_sides=sides,
                               rtol=RTOL, atol=ATOL, timeout=10.0)  # fmt: skip
    numeric = iv.check(_claim(checks)).evidence[0]
    assert numeric.status == "refuted" and numeric.counterexample["exact_residual"] == "4"


def test_a_true_matrix_bound_is_not_refuted_at_ill_scaled_matrices():
    """‖AB‖²_F ≤ ‖A‖²_F ‖B‖²_F (Cauchy–Schwarz on each entry of AB), written with traces so that it also runs
    on the exact values, at 2×2 matrices whose entries span 10⁻⁷⁰ to 10⁷⁰, with no tolerance at all: every
    floating-point candidate is decided exactly, and none refutes. The false twin without ‖B‖²_F is refuted."""
    trace = lambda M: M[0, 0] + M[1, 1]  # noqa: E731
    square = lambda M: trace(M.T @ M)  # noqa: E731
    entry = st.one_of(st.floats(1e-70, 1e-60), st.floats(-1e70, 1e70), st.floats(0.5, 2.0))
    matrix = st.lists(entry, min_size=4, max_size=4).map(lambda v: np.array(v).reshape(2, 2))
    cases = st.fixed_dictionaries({"A": matrix, "B": matrix})
    true = _search(cases, lambda A, B: square(A @ B), lambda A, B: square(A) * square(B), relation="<=")
    assert iv.check(true).evidence[0].status == "verified"
    false = _search(cases, lambda A, B: square(A @ B), lambda A, B: square(A), relation="<=")
    numeric = iv.check(false).evidence[0]
    assert numeric.status == "refuted" and "confirmed exactly" in numeric.detail
