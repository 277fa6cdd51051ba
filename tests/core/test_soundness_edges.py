"""Verdicts at the edges: true statements are not refuted by rounding or undefined draws, false ones are not proved.

Every statement here is a textbook identity (The Matrix Cookbook, Petersen & Pedersen 2012, §1 and
§3.2; Cayley–Hamilton) or its perturbed twin; the expected verdicts come from that mathematics. The
extreme points are the ones a search met in the wild (an entry of 1e-164 beside 3; 27s and 28s in an
SPD matrix of condition number 82; a singular draw of a general matrix).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import strategies as st

import icl_verify as iv
from icl_verify.blocks import det, inverse, sherman_morrison, trace
from icl_verify.blocks.backend import eye
from icl_verify.core.checks.numeric import Confirmation, Numeric, Sides, confirm
from icl_verify.core.evidence import Kind, Status
from icl_verify.core.statements.equality import exact_residuals
from icl_verify.errors import InvalidArgument

SQUARE = {"A": iv.matrix("n", "n"), "B": iv.matrix("n", "n")}
INVERTIBLE = {"A": iv.matrix("n", "n", invertible=True), "B": iv.matrix("n", "n", invertible=True)}


def _verdict(claim: iv.Claim, seed: int = 0) -> tuple[iv.Verdict, dict[str, str]]:
    result = iv.check(claim, seed=seed)
    return result.verdict, {str(e.kind): str(e.status) for e in result.evidence}


DETERMINANTS = [
    ("det(AB) = det A det B", SQUARE, lambda A, B: det(A @ B), lambda A, B: det(A) * det(B)),
    ("det(Aᵀ) = det A", {"A": SQUARE["A"]}, lambda A: det(A.T), lambda A: det(A)),
]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize(("text", "symbols", "lhs", "rhs"), DETERMINANTS, ids=[d[0] for d in DETERMINANTS])
def test_determinant_identities_are_proved_not_refuted_by_rounding(text, symbols, lhs, rhs, seed) -> None:
    claim = iv.statement("det", "Cookbook §1.1", text, symbols=symbols, lhs=lhs, rhs=rhs)
    verdict, statuses = _verdict(claim, seed)
    assert verdict is iv.Verdict.PROVED, statuses
    assert statuses["numeric"] == "verified"


def test_a_float_failure_at_an_extreme_point_is_rounding_in_exact_arithmetic() -> None:
    # det(Aᵀ) − det(A) at A = [[4.8e-164, 4.8e-164], [3, 3]]: both are exactly 0 (equal rows' columns)
    A = np.array([[4.8e-164, 4.8e-164], [3.0, 3.0]])
    sides = Sides(
        lambda c: (det(c["A"].T), det(c["A"])), lambda c: exact_residuals(lambda A: det(A.T), lambda A: det(A), c)
    )
    assert confirm(sides, {"A": A}) == (Confirmation.ROUNDING, "")


def test_a_real_counterexample_is_confirmed_exactly_with_its_residual() -> None:
    A = np.array([[0.0, 1.0], [1.0, 1.0]])
    B = np.array([[1.0, 0.0], [1.0, 1.0]])
    exact = lambda c: exact_residuals(lambda A, B: A @ B, lambda A, B: B @ A, c)  # noqa: E731
    verdict, residual = confirm(Sides(lambda c: (c["A"] @ c["B"], c["B"] @ c["A"]), exact), {"A": A, "B": B})
    # AB − BA = [[1, 1], [2, 1]] − [[0, 1], [1, 2]] = [[1, 0], [1, −1]]
    assert verdict is Confirmation.CONFIRMED and residual == "[[1, 0], [1, -1]]"


@pytest.mark.parametrize("size", [2, 3])
def test_cayley_hamilton_trace_forms_are_proved_at_their_fixed_size(size: int) -> None:
    # 2×2: tr(A³) − (3/2) tr A tr A² + (1/2)(tr A)³ = 0;
    # 3×3: tr(A⁴) − tr A tr A³ + e₂ tr A² − e₃ tr A = 0 with e₂ = ((tr A)² − tr A²)/2, e₃ = det A
    def cayley_hamilton(A):
        t1, t2, t3 = trace(A), trace(A @ A), trace(A @ A @ A)
        if size == 2:
            return t3 - 1.5 * t1 * t2 + 0.5 * t1**3
        return trace(A @ A @ A @ A) - t1 * t3 + 0.5 * (t1**2 - t2) * t2 - det(A) * t1

    claim = iv.statement(
        "ch",
        "Cayley–Hamilton",
        "trace form",
        symbols={"A": iv.matrix(size, size)},
        lhs=cayley_hamilton,
        rhs=lambda A: 0 * trace(A),
    )
    assert _verdict(claim)[0] is iv.Verdict.PROVED
    twin = iv.statement(
        "ch-twin",
        "Cayley–Hamilton",
        "perturbed",
        symbols={"A": iv.matrix(size, size)},
        lhs=lambda A: cayley_hamilton(A) + trace(A @ A) / 64,
        rhs=lambda A: 0 * trace(A),
        holds=False,
        no_control="a perturbed twin",
    )
    assert _verdict(twin)[0] is iv.Verdict.REFUTED


@pytest.mark.parametrize("power", [3, 5])
def test_powers_of_a_well_conditioned_spd_inverse_are_proved(power: int) -> None:
    def pw(M):
        out = M
        for _ in range(power - 1):
            out = out @ M
        return out

    claim = iv.statement(
        "inv-pow",
        "Cookbook §3.2",
        f"(A^{power})⁻¹ = (A⁻¹)^{power}",
        symbols={"A": iv.matrix("n", "n", spd=True)},
        lhs=lambda A: inverse(pw(A)),
        rhs=lambda A: pw(inverse(A)),
    )
    assert _verdict(claim)[0] is iv.Verdict.PROVED


COOKBOOK_INVERSES = [
    (
        "(AB)⁻¹ = B⁻¹A⁻¹ (145)",
        lambda A, B: inverse(A @ B),
        lambda A, B: inverse(B) @ inverse(A),
        lambda A, B: inverse(A) @ inverse(B),
    ),
    ("(Aᵀ)⁻¹ = (A⁻¹)ᵀ (146)", lambda A, B: inverse(A.T), lambda A, B: inverse(A).T, lambda A, B: inverse(A)),
    (
        "A⁻¹ + B⁻¹ = A⁻¹(A + B)B⁻¹ (144)",
        lambda A, B: inverse(A) + inverse(B),
        lambda A, B: inverse(A) @ (A + B) @ inverse(B),
        lambda A, B: inverse(B) @ (A + B) @ inverse(B),
    ),
]


@pytest.mark.parametrize(("text", "lhs", "rhs", "wrong"), COOKBOOK_INVERSES, ids=[c[0] for c in COOKBOOK_INVERSES])
@pytest.mark.parametrize("declared", [False, True], ids=["general", "invertible"])
def test_general_inverses_are_proved_and_their_twins_refuted(text, lhs, rhs, wrong, declared) -> None:
    symbols = INVERTIBLE if declared else SQUARE
    claim = iv.statement("inv", "Cookbook §3.2", text, symbols=symbols, lhs=lhs, rhs=rhs)
    verdict, statuses = _verdict(claim)
    assert verdict is iv.Verdict.PROVED, statuses
    twin = iv.statement(
        "inv-twin", "Cookbook §3.2", "twin", symbols=symbols, lhs=lhs, rhs=wrong, holds=False, no_control="twin"
    )
    verdict, statuses = _verdict(twin)
    assert verdict is iv.Verdict.REFUTED and statuses["numeric"] == "refuted", statuses


def test_undefined_draws_are_rejected_and_counted_not_errors() -> None:
    claim = iv.statement(
        "inv",
        "Cookbook (145)",
        "(AB)⁻¹ = B⁻¹A⁻¹",
        symbols=SQUARE,
        lhs=COOKBOOK_INVERSES[0][1],
        rhs=COOKBOOK_INVERSES[0][2],
    )
    numeric = next(e for e in iv.check(claim).evidence if e.kind == Kind.NUMERIC)
    assert numeric.status == Status.VERIFIED and "outside the domain rejected (LinAlgError" in numeric.detail


def test_a_statement_undefined_almost_everywhere_is_an_error_saying_how_to_declare_the_domain() -> None:
    claim = iv.statement(
        "nowhere",
        "test",
        "(A − A)⁻¹ = (A − A)⁻¹",
        symbols={"A": iv.matrix("n", "n")},
        lhs=lambda A: inverse(A - A),
        rhs=lambda A: inverse(A - A),
    )
    numeric = next(e for e in iv.check(claim).evidence if e.kind == Kind.NUMERIC)
    assert numeric.status == Status.ERROR and "declare the domain" in numeric.detail


def test_invertible_matrices_are_drawn_general_and_invertible() -> None:
    from icl_verify.core.symbols import cases

    seen = []
    Numeric(cases(INVERTIBLE, {"n": (2, 4)}), lambda c: seen.append(c) or (0.0, 0.0)).run(0, 50)
    for case in seen:
        for A in (case["A"], case["B"]):
            off = np.sum(np.abs(A), axis=1) - np.abs(np.diag(A))
            assert np.all(np.abs(np.diag(A)) > off)  # strictly diagonally dominant ⇒ invertible
    assert any(not np.allclose(c["A"], c["A"].T) for c in seen)  # not only symmetric ones


def test_the_inverse_of_a_non_square_matrix_is_a_usage_error_at_definition() -> None:
    with pytest.raises(
        InvalidArgument, match=r"rhs is undefined for the declared shapes: inverse needs a square matrix"
    ):
        iv.statement(
            "ab",
            "Cookbook (145)",
            "(AB)⁻¹ = B⁻¹A⁻¹ with A n×k",
            symbols={"A": iv.matrix("n", "k"), "B": iv.matrix("k", "n")},
            lhs=lambda A, B: inverse(A @ B),
            rhs=lambda A, B: inverse(B) @ inverse(A),
        )
    with pytest.raises(InvalidArgument, match="inverse needs a square matrix"):
        iv.statement(
            "xinv",
            "test",
            "X⁻¹X = I with X n×d",
            symbols={"X": iv.matrix("n", "d")},
            lhs=lambda X: inverse(X) @ X,
            rhs=lambda X, d: eye(d, X),
        )


def test_element_wise_power_on_numpy_against_a_matrix_power_on_sympy_is_an_error_with_the_hint() -> None:
    claim = iv.statement(
        "pow", "test", "M² = M M", symbols={"M": iv.matrix("n", "n")}, lhs=lambda M: M**2, rhs=lambda M: M @ M
    )
    result = iv.check(claim)
    numeric = next(e for e in result.evidence if e.kind == Kind.NUMERIC)
    assert result.verdict is iv.Verdict.ERROR
    assert numeric.status == Status.ERROR and "iv.matpow" in numeric.detail


def test_checks_that_disagree_make_an_error_with_both_pieces_of_evidence() -> None:
    # a proof for every size beside a hand-written numeric check that refutes in floating point
    proof = iv.Symbolic(lambda: sp.Integer(0))
    numeric = Numeric(st.just({"x": 1.0}), lambda c: (c["x"], c["x"] + 1.0))
    result = iv.check(iv.Claim("c", "s", "x = x", checks=(proof, numeric)))
    assert result.verdict is iv.Verdict.ERROR
    row = next(e for e in result.evidence if e.kind == Kind.CONSISTENCY)
    assert "the checks disagree: symbolic proved" in row.detail and "numeric refuted" in row.detail


def test_sherman_morrison_with_an_spd_matrix_runs() -> None:
    claim = iv.statement(
        "sm",
        "Cookbook (160)",
        "Sherman–Morrison",
        symbols={"A": iv.matrix("n", "n", spd=True), "u": iv.matrix("n", 1), "v": iv.matrix("n", 1)},
        lhs=lambda A, u, v: sherman_morrison(inverse(A), u, v) @ (A + u @ v.T),
        rhs=lambda A, n: eye(n, A),
        symbolic=False,
    )
    verdict, statuses = _verdict(claim)
    assert verdict is iv.Verdict.VERIFIED and "error" not in statuses.values(), statuses


def test_a_tiny_positive_bound_draws_in_it() -> None:
    claim = iv.statement(
        "tiny",
        "test",
        "t / t = 1",
        symbols={"t": iv.scalar(positive=True, bound=1e-3)},
        lhs=lambda t: t / t,
        rhs=lambda t: 1 + 0 * t,
    )
    assert _verdict(claim)[0] is iv.Verdict.PROVED


def test_a_side_over_k_that_returns_a_number_is_refuted_at_k_0() -> None:
    claim = iv.statement(
        "off",
        "test",
        "K steps of +1 from 0 give K + 1",
        symbols={"K": iv.integer(low=0)},
        lhs=iv.recursion(base=lambda: 0, step=lambda prev: prev + 1, over="K"),
        rhs=lambda K: K + 1,
        holds=False,
        no_control="an off-by-one twin",
    )
    result = iv.check(claim)
    assert result.verdict is iv.Verdict.REFUTED and result.counterexample["sizes"] == {"K": 0}


def test_scalar_domains_are_drawn_and_refused_when_inconsistent() -> None:
    from icl_verify.core.symbols import draw_scalar

    spec = iv.scalar(low=0, high=3, exclude=(1,))
    seen = []
    Numeric(st.fixed_dictionaries({"t": draw_scalar(spec)}), lambda c: seen.append(c["t"]) or (0.0, 0.0)).run(0, 200)
    assert all(0 <= t <= 3 and t != 1 for t in seen) and max(seen) > 2
    with pytest.raises(InvalidArgument, match="low must be below high"):
        iv.scalar(low=3, high=0)
    with pytest.raises(InvalidArgument, match="exclude must be a list of numbers"):
        iv.scalar(exclude="1")


def test_an_spd_matrix_is_symmetric_in_the_proof_too() -> None:
    # tr(BᵀA) = tr((BᵀA)ᵀ) = tr(AᵀB) = tr(AB) = tr(BA) when Aᵀ = A; false for a general A (A = E₁₂, B = E₁₂)
    statement = dict(lhs=lambda A, B: trace(B.T @ A), rhs=lambda A, B: trace(B @ A))
    spd = {"A": iv.matrix("n", "n", spd=True), "B": iv.matrix("n", "n")}
    assert (
        _verdict(iv.statement("sym", "trace", "tr(BᵀA) = tr(BA), A SPD", symbols=spd, **statement))[0]
        is iv.Verdict.PROVED
    )
    twin = iv.statement(
        "gen", "trace", "the same, A general", symbols=SQUARE, holds=False, no_control="twin", **statement
    )
    assert _verdict(twin)[0] is iv.Verdict.REFUTED


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(32))
def test_the_rounding_reproductions_are_proved_at_every_seed_0_to_31(seed: int) -> None:
    square = {"A": iv.matrix("n", "n")}
    claims = [
        iv.statement("d1", "Cookbook (18)", "det(AB)", symbols=SQUARE, lhs=DETERMINANTS[0][2], rhs=DETERMINANTS[0][3]),
        iv.statement("d2", "Cookbook (19)", "det(Aᵀ)", symbols=square, lhs=DETERMINANTS[1][2], rhs=DETERMINANTS[1][3]),
        iv.statement(
            "ch",
            "Cayley–Hamilton",
            "2 × 2",
            symbols={"A": iv.matrix(2, 2)},
            lhs=lambda A: trace(A @ A @ A) - 1.5 * trace(A) * trace(A @ A) + 0.5 * trace(A) ** 3,
            rhs=lambda A: 0 * trace(A),
        ),
        iv.statement(
            "inv3",
            "Cookbook §3.2",
            "(A³)⁻¹ = (A⁻¹)³",
            symbols={"A": iv.matrix("n", "n", spd=True)},
            lhs=lambda A: inverse(A @ A @ A),
            rhs=lambda A: inverse(A) @ inverse(A) @ inverse(A),
        ),
        iv.statement(
            "inv", "Cookbook (145)", "(AB)⁻¹", symbols=SQUARE, lhs=COOKBOOK_INVERSES[0][1], rhs=COOKBOOK_INVERSES[0][2]
        ),
    ]
    assert [_verdict(c, seed)[0] for c in claims] == [iv.Verdict.PROVED] * len(claims)


def test_a_numeric_refutation_caused_by_binary_literals_says_so() -> None:
    # as binary rationals 0.1 = 3602879701896397/2⁵⁵, 0.2 = 3602879701896397/2⁵⁴, 0.3 = 5404319552844595/2⁵⁴,
    # so 0.1 + 0.2 − 0.3 = (10808639105689191 − 10808639105689190)/2⁵⁵ = 2⁻⁵⁵: at x = 2⁶⁰ the residual is 32
    sides = Sides(
        lambda c: (0.1 * c["x"] + 0.2 * c["x"], 0.3 * c["x"]),
        lambda c, decimal=False: exact_residuals(lambda x: 0.1 * x + 0.2 * x, lambda x: 0.3 * x, c, decimal),
    )
    verdict, residual = confirm(sides, {"x": 2.0**60})
    assert verdict is Confirmation.CONFIRMED
    assert residual.startswith("32 ") and "caused by binary floating-point literals" in residual


def test_empty_evidence_is_no_evidence() -> None:
    # an exact check at no size, a residual with no parts, a comparison of two empty arrays: UNPROVEN, never VERIFIED
    none = iv.Explicit(lambda **size: sp.Integer(0), [])
    no_parts = iv.Explicit(lambda **size: [], [{}])
    empty = Numeric(st.just({"k": 1}), lambda c: (np.zeros(0), np.zeros(0)))
    for check in (none, no_parts, empty):
        assert iv.check(iv.Claim("empty", "test", "x + 1 = x", checks=(check,))).verdict is iv.Verdict.UNPROVEN
    assert (
        iv.check(iv.Claim("empty", "test", "x + 1 = x", checks=(iv.Symbolic(lambda: []),))).verdict
        is iv.Verdict.UNPROVEN
    )
