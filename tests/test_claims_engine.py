"""The claim engine's verdict semantics: evidence decides, UNPROVEN and ERROR never pass."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import strategies as st
from sympy.matrices.expressions import MatrixSymbol

from icl_verify import Claim, Estimate, Explicit, Measured, Numeric, Verdict, check, compare_with_tolerance
from icl_verify.engine.strategies import dims, matrices

n = sp.Symbol("n", positive=True, integer=True)


def _transpose_cases():
    @st.composite
    def cases(draw):
        a, b, c = draw(dims()), draw(dims()), draw(dims())
        return {"a": a, "b": b, "c": c, "A": draw(matrices(a, b)), "B": draw(matrices(b, c))}

    return cases()


def _transpose_residual(a=n, b=n, c=n):
    A, B = MatrixSymbol("A", a, b), MatrixSymbol("B", b, c)
    return (A * B).T - B.T * A.T


TRANSPOSE = Claim(
    name="transpose-of-product",
    source="linear algebra",
    statement=r"(AB)^\top = B^\top A^\top",
    symbolic=_transpose_residual,
    numeric=Numeric(_transpose_cases(), lambda c: ((c["A"] @ c["B"]).T, c["B"].T @ c["A"].T)),
)


def test_true_identity_with_dimension_free_check_is_proved():
    result = check(TRANSPOSE)
    assert result.verdict is Verdict.PROVED
    assert result.as_expected
    assert [e.status for e in result.evidence] == ["proved", "verified"]


def test_numeric_only_true_claim_is_verified_not_proved():
    claim = Claim("t", "s", "st", numeric=TRANSPOSE.numeric)
    result = check(claim)
    assert result.verdict is Verdict.VERIFIED
    assert claim.expected is Verdict.VERIFIED


def test_false_claim_is_refuted_with_a_minimal_counterexample():
    # AB = BA is false; the smallest counterexample has 2×2 matrices (1×1 matrices commute).
    @st.composite
    def square_pairs(draw):
        k = draw(dims(1, 4))
        return {"k": k, "A": draw(matrices(k, k)), "B": draw(matrices(k, k))}

    claim = Claim(
        "commute",
        "s",
        "AB = BA",
        numeric=Numeric(square_pairs(), lambda c: (c["A"] @ c["B"], c["B"] @ c["A"])),
        holds=False,
    )
    result = check(claim, seed=3)
    assert result.verdict is Verdict.REFUTED and result.as_expected
    cex = result.counterexample
    assert cex["dims"] == {"k": 2}
    A, B = np.array(cex["case"]["A"]), np.array(cex["case"]["B"])
    assert np.max(np.abs(A @ B - B @ A)) == pytest.approx(cex["max_abs_residual"])
    assert cex["max_abs_residual"] > cex["tolerance"]
    assert result.summary == "refuted, as expected"


def test_undecided_symbolic_check_is_unproven_and_never_a_pass():
    # An unknown function: SymPy cannot decide f(x) - g(x) == 0.
    x = sp.Symbol("x")
    claim = Claim("opaque", "s", "f = g", symbolic=lambda: sp.Function("f")(x) - sp.Function("g")(x))
    result = check(claim)
    assert result.verdict is Verdict.UNPROVEN
    assert not result.as_expected
    # and a claim expected false is not "as expected" when unproven either
    assert not check(Claim("opaque2", "s", "f = g", symbolic=claim.symbolic, holds=False)).as_expected


def test_symbolic_undecided_but_numeric_pass_reports_verified_not_proved():
    x = sp.Symbol("x")
    claim = Claim(
        "weak-proof",
        "s",
        "st",
        symbolic=lambda: sp.Function("f")(x),
        numeric=TRANSPOSE.numeric,
    )
    result = check(claim)
    assert result.verdict is Verdict.VERIFIED
    assert not result.as_expected  # it declared a dimension-free proof and did not deliver one


def test_explicit_refutation_gives_exact_witness():
    def residual(k):
        A, B = sp.Matrix(MatrixSymbol("A", k, k)), sp.Matrix(MatrixSymbol("B", k, k))
        return A * B - B * A

    result = check(
        Claim("commute-exact", "s", "AB = BA", explicit=Explicit(residual, [{"k": 1}, {"k": 2}]), holds=False)
    )
    assert result.verdict is Verdict.REFUTED
    cex = result.counterexample
    assert cex["sizes"] == {"k": 2}
    values = {k: sp.Rational(v) for k, v in cex["values"].items()}
    A = sp.Matrix(2, 2, lambda i, j: values.get(f"A[{i}, {j}]", 0))
    B = sp.Matrix(2, 2, lambda i, j: values.get(f"B[{i}, {j}]", 0))
    assert sp.zeros(2, 2) != A * B - B * A


def test_crashing_check_is_error_not_pass():
    def boom(case):
        raise RuntimeError("broken compare")

    result = check(Claim("boom", "s", "st", numeric=Numeric(st.just({"k": 1}), boom)))
    assert result.verdict is Verdict.ERROR
    assert "broken compare" in result.evidence[0].detail


def test_refutation_outranks_a_symbolic_proof():
    # A wrong encoding: the symbolic side proves a tautology, the numeric side finds the truth.
    claim = Claim(
        "inconsistent",
        "s",
        "st",
        symbolic=lambda: sp.Integer(0),
        numeric=Numeric(st.just({"k": 1}), lambda c: (np.ones(1), np.zeros(1))),
    )
    assert check(claim).verdict is Verdict.REFUTED


def test_same_seed_same_result_and_seed_is_recorded():
    a, b = check(TRANSPOSE, seed=7), check(TRANSPOSE, seed=7)
    assert [e.detail for e in a.evidence] == [e.detail for e in b.evidence]
    assert a.seed == 7 and a.to_dict()["seed"] == 7


@pytest.mark.parametrize(
    "lhs, rhs, scale, ok",
    [
        (1e6 + 1e-4, 1e6, 0.0, True),  # relative error 1e-10 at scale 1e6
        (1.0 + 1e-4, 1.0, 0.0, False),
        (1e-4, 0.0, 1e6, True),  # cancellation of terms of size 1e6
        (np.nan, np.nan, 0.0, False),
        (np.inf, np.inf, 0.0, False),
    ],
)
def test_tolerance_is_scale_aware(lhs, rhs, scale, ok):
    assert compare_with_tolerance((lhs, rhs, scale), rtol=1e-9, atol=1e-12)[0] is ok


def test_shape_mismatch_is_an_error():
    with pytest.raises(ValueError, match="different shapes"):
        compare_with_tolerance((np.ones(2), np.ones(3)), rtol=1e-9, atol=0)


@pytest.mark.parametrize(
    "estimate, verdict",
    [
        (Estimate(0.71, 0.66, 0.76, predicted=0.7, tolerance=0.1), Verdict.VERIFIED),
        (Estimate(0.40, 0.35, 0.45, predicted=0.7, tolerance=0.1), Verdict.REFUTED),
        (Estimate(0.70, 0.20, 1.20, predicted=0.7, tolerance=0.1), Verdict.UNPROVEN),
    ],
)
def test_measured_verdicts(estimate, verdict):
    assert check(Claim("m", "s", "st", measured=Measured(lambda seed: estimate))).verdict is verdict


def test_measured_refutation_is_reported_in_table_and_json():
    from icl_verify.output.report import table

    result = check(Claim("m", "s", "st", measured=Measured(lambda seed: Estimate(0.4, 0.35, 0.45, 0.7, 0.1))))
    text = table([result])
    assert "counterexample (measured, seed 0): estimate 0.40 [0.35, 0.45]" in text  # half-width 0.05: 2 decimals
    assert result.to_dict()["counterexample"]["interval"] == [0.35, 0.45]


def test_measured_receives_the_seed():
    seen = []
    claim = Claim("m", "s", "st", measured=Measured(lambda seed: seen.append(seed) or Estimate(1, 1, 1, 1)))
    check(claim, seed=11)
    assert seen == [11]


@pytest.mark.parametrize(
    "kwargs, match",
    [({"name": ""}, "name"), ({"name": "x"}, "at least one")],
)
def test_claim_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Claim(source="s", statement="st", **kwargs)


@pytest.mark.parametrize("bad", [{"seed": -1}, {"seed": 1.5}, {"max_examples": 0}])
def test_check_rejects_bad_settings(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        check(TRANSPOSE, **bad)


def test_estimate_validation():
    with pytest.raises(ValueError, match="low <= value <= high"):
        Estimate(1.0, 2.0, 3.0, predicted=1.0)
    with pytest.raises(ValueError, match="value must be finite"):
        Estimate(float("nan"), 0.0, 1.0, predicted=1.0)


def test_report_renders_for_notebooks_and_as_text():
    from icl_verify import check_all

    report = check_all([TRANSPOSE], seed=1, max_examples=20)
    assert report.ok and report.to_json()["seed"] == 1
    assert "`transpose-of-product` | PROVED" in report._repr_markdown_()
    assert "all as expected" in str(report)
