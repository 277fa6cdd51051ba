"""The claim engine's verdict semantics: evidence decides, UNPROVEN and ERROR never pass."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import strategies as st
from sympy.matrices.expressions import MatrixSymbol

from icl_verify import (
    Claim,
    Corrected,
    Estimate,
    Explicit,
    Measured,
    NoControl,
    Numeric,
    Symbolic,
    Verdict,
    check,
    compare_with_tolerance,
)
from icl_verify.core.checks.numeric import NonFiniteComparison
from icl_verify.core.evidence import MAX_RESIDUAL_CHARS
from icl_verify.maths.strategies import dims, matrices
from icl_verify.output.report import table, to_json

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


TRANSPOSE_NUMERIC = Numeric(_transpose_cases(), lambda c: ((c["A"] @ c["B"]).T, c["B"].T @ c["A"].T))
TRANSPOSE = Claim(
    name="transpose-of-product",
    source="linear algebra",
    statement=r"(AB)^\top = B^\top A^\top",
    checks=(Symbolic(_transpose_residual), TRANSPOSE_NUMERIC),
)


def test_true_identity_with_dimension_free_check_is_proved():
    result = check(TRANSPOSE)
    assert result.verdict is Verdict.PROVED
    assert result.as_expected
    assert [e.status for e in result.evidence] == ["proved", "verified"]


def test_numeric_only_true_claim_is_verified_not_proved():
    claim = Claim("t", "s", "st", checks=(TRANSPOSE_NUMERIC,))
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
        checks=(Numeric(square_pairs(), lambda c: (c["A"] @ c["B"], c["B"] @ c["A"])),),
        holds=False,
        corrected=Corrected("commute-corrected"),  # names the corrected claim, gives the numeric check no form
    )
    result = check(claim, seed=3)
    assert result.verdict is Verdict.REFUTED and result.as_expected
    cex = result.counterexample
    assert cex["sizes"] == {"k": 2}
    assert set(cex) == {"kind", "sizes", "values", "residual", "tolerance", "seed", "confirmation"}
    assert cex["confirmation"] == "floating point only"  # a hand-written compare has no exact form
    A, B = np.array(cex["values"]["A"]), np.array(cex["values"]["B"])
    assert np.max(np.abs(A @ B - B @ A)) == pytest.approx(cex["residual"])
    assert cex["residual"] > cex["tolerance"] and cex["seed"] == 3
    assert result.summary == "refuted, as expected (no control)"
    assert [(e.kind, e.status) for e in result.evidence] == [("numeric", "refuted"), ("control", "missing")]


def test_undecided_symbolic_check_is_unproven_and_never_a_pass():
    # An unknown function: SymPy cannot decide f(x) - g(x) == 0.
    x = sp.Symbol("x")
    claim = Claim("opaque", "s", "f = g", checks=(Symbolic(lambda: sp.Function("f")(x) - sp.Function("g")(x)),))
    result = check(claim)
    assert result.verdict is Verdict.UNPROVEN
    assert not result.as_expected
    # and a claim expected false is not "as expected" when unproven either
    assert not check(
        Claim("opaque2", "s", "f = g", claim.checks, holds=False, corrected=NoControl("a test"))
    ).as_expected


def test_symbolic_undecided_but_numeric_pass_reports_verified_not_proved():
    x = sp.Symbol("x")
    claim = Claim(
        "weak-proof",
        "s",
        "st",
        checks=(Symbolic(lambda: sp.Function("f")(x)), TRANSPOSE_NUMERIC),
    )
    result = check(claim)
    assert result.verdict is Verdict.VERIFIED
    assert not result.as_expected  # it declared a dimension-free proof and did not deliver one


def test_explicit_refutation_gives_exact_witness():
    def residual(k):
        A, B = sp.Matrix(MatrixSymbol("A", k, k)), sp.Matrix(MatrixSymbol("B", k, k))
        return A * B - B * A

    result = check(
        Claim(
            "commute-exact",
            "s",
            "AB = BA",
            checks=(Explicit(residual, [{"k": 1}, {"k": 2}]),),
            holds=False,
            corrected=NoControl("a test"),
        )
    )
    assert result.verdict is Verdict.REFUTED
    cex = result.counterexample
    assert cex["sizes"] == {"k": 2} and cex["tolerance"] == 0 and cex["seed"] is None
    values = {k: sp.Rational(v) for k, v in cex["values"].items()}
    A = sp.Matrix(2, 2, lambda i, j: values.get(f"A[{i}, {j}]", 0))
    B = sp.Matrix(2, 2, lambda i, j: values.get(f"B[{i}, {j}]", 0))
    assert sp.zeros(2, 2) != A * B - B * A


def test_an_explicit_residual_undefined_at_a_whole_size_is_an_error_not_undecided():
    """1/det [[a, b], [k·a, k·b]] is 1/0 (SymPy's zoo) at k = 1 for every a, b: the sides are undefined at every
    point of that size, an error naming it, not a residual left undecided."""

    def residual(k):
        a, b = sp.symbols("a b")
        return sp.Integer(1) / sp.Matrix([[a, b], [k * a, k * b]]).det() - 1

    found = Explicit(residual, [{"k": 1}]).run(0, 10).evidence
    assert found.status == "error" and "undefined at every point of size {'k': 1}" in found.detail
    assert Explicit(lambda: sp.Symbol("x") / 0, [{}]).run(0, 10).evidence.status == "error"  # no sizes: no advice
    assert Explicit(lambda: sp.Symbol("x") - sp.Symbol("x"), [{}]).run(0, 10).evidence.status == "verified"


def test_crashing_check_is_error_not_pass():
    def boom(case):
        raise RuntimeError("broken compare")

    result = check(Claim("boom", "s", "st", checks=(Numeric(st.just({"k": 1}), boom),)))
    assert result.verdict is Verdict.ERROR
    assert "broken compare" in result.evidence[0].detail


def test_a_refutation_against_a_symbolic_proof_is_an_error_not_a_silent_verdict():
    # A wrong encoding: the symbolic side proves a tautology, the numeric side finds the truth; the
    # contradiction is reported (a consistency row), never resolved by ranking one check over the other.
    claim = Claim(
        "inconsistent",
        "s",
        "st",
        checks=(Symbolic(lambda: sp.Integer(0)), Numeric(st.just({"k": 1}), lambda c: (np.ones(1), np.zeros(1)))),
    )
    result = check(claim)
    assert result.verdict is Verdict.ERROR
    assert [e.kind for e in result.evidence] == ["symbolic", "numeric", "consistency"]


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
    ],
)
def test_tolerance_is_scale_aware(lhs, rhs, scale, ok):
    assert compare_with_tolerance((lhs, rhs, scale), rtol=1e-9, atol=1e-12)[0] is ok


@pytest.mark.parametrize(
    "result, part",
    [((np.nan, 1.0), "lhs"), ((1.0, np.inf), "rhs"), ((1.0, 1.0, np.nan), "scale"), ((np.inf, np.inf), "lhs")],
)
def test_non_finite_values_are_no_comparison(result, part):
    with pytest.raises(NonFiniteComparison, match=f"{part} is not finite"):
        compare_with_tolerance(result, rtol=1e-9, atol=1e-12)


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
    assert check(Claim("m", "s", "st", checks=(Measured(lambda seed: estimate),))).verdict is verdict


def test_measured_refutation_is_reported_in_table_and_json():
    result = check(Claim("m", "s", "st", checks=(Measured(lambda seed: Estimate(0.4, 0.35, 0.45, 0.7, 0.1)),)))
    text = table([result])
    assert "counterexample (measured, seed 0): estimate 0.40 [0.35, 0.45]" in text  # half-width 0.05: 2 decimals
    cex = result.to_dict()["counterexample"]
    assert cex["values"] == {"estimate": 0.4, "interval": [0.35, 0.45], "predicted": 0.7}
    assert cex["residual"] == pytest.approx(0.3) and cex["tolerance"] == 0.1 and cex["seed"] == 0


def test_measured_receives_the_seed():
    seen = []
    claim = Claim("m", "s", "st", checks=(Measured(lambda seed: seen.append(seed) or Estimate(1, 1, 1, 1)),))
    check(claim, seed=11)
    assert seen == [11]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"name": "", "checks": (TRANSPOSE_NUMERIC,)}, "name"),
        ({"name": "x", "checks": ()}, "checks must be a non-empty tuple of checks"),
        ({"name": "x", "checks": (lambda: 0,)}, "checks must be a non-empty tuple of checks"),
        ({"name": "x", "checks": (TRANSPOSE_NUMERIC,), "holds": False}, "holds=False needs corrected"),
        (
            {"name": "x", "checks": (TRANSPOSE_NUMERIC,), "corrected": NoControl("why")},
            "corrected is for claims expected to be false",
        ),
        (
            {"name": "x", "checks": (TRANSPOSE_NUMERIC,), "holds": False, "corrected": Corrected(explicit=lambda k: 0)},
            "corrected has a form for explicit, but its checks are numeric",
        ),
    ],
)
def test_claim_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Claim(source="s", statement="st", **kwargs)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: Corrected(), "needs a corrected counterpart"),
        (lambda: Corrected(numeric=None), "numeric must be the corrected counterpart"),
        (lambda: Corrected(3), "claim must be the name"),
        (lambda: NoControl(""), "why must say why"),
    ],
)
def test_corrected_form_validation(make, match):
    with pytest.raises(ValueError, match=match):
        make()


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


# ---------------------------------------------------------------------------------------------
# Verdicts that cannot be fooled

X = sp.Symbol("x")


def _square_pairs():
    @st.composite
    def cases(draw):
        k = draw(dims(1, 4))
        return {"k": k, "A": draw(matrices(k, k)), "B": draw(matrices(k, k))}

    return cases()


def _commutator(c):
    return c["A"] @ c["B"], c["B"] @ c["A"]


def _transpose_rule(c):
    return (c["A"] @ c["B"]).T, c["B"].T @ c["A"].T


def _nan_when_square(c):
    """A broken compare: NaN as soon as k ≥ 2 (e.g. a 0/0 in the user's code)."""
    lhs, rhs = _commutator(c)
    return (np.full_like(lhs, np.nan), rhs) if c["k"] >= 2 else (lhs, rhs)


@pytest.mark.parametrize("holds", [True, False])
def test_nan_at_every_draw_of_a_size_is_an_error_not_a_counterexample(holds):
    corrected = None if holds else NoControl("a test")
    result = check(
        Claim("nan", "s", "AB = BA", (Numeric(_square_pairs(), _nan_when_square),), holds=holds, corrected=corrected)
    )
    numeric = result.evidence[0]
    assert numeric.kind == "numeric" and numeric.status == "error" and numeric.counterexample is None
    assert "lhs is not finite" in numeric.detail and "(every draw at sizes {'k': " in numeric.detail
    assert result.verdict is Verdict.ERROR and not result.as_expected
    assert result.counterexample is None


def test_an_error_wins_over_a_refutation_and_every_row_is_reported():
    def boom(case):
        raise RuntimeError("broken compare")

    claim = Claim(
        "crash-and-refute",
        "s",
        "AB = BA",
        checks=(
            Explicit(lambda: [sp.Integer(1)], [{}]),  # refutes: residual 1
            Numeric(_square_pairs(), boom),
        ),
        holds=False,
        corrected=NoControl("a test of the error rule"),
    )
    result = check(claim)
    assert result.verdict is Verdict.ERROR and not result.as_expected
    assert result.summary == "error, expected refuted"
    rows = [(e.kind, e.status) for e in result.evidence]
    assert rows == [("explicit", "refuted"), ("numeric", "error"), ("control", "waived")]
    text = table([result])
    for kind, status in rows:
        assert f"    {kind:<9} {status:<10} " in text
    assert "1 NOT as expected" in text
    report = to_json([result], seed=0, max_examples=100)
    assert not report["ok"]
    assert [(e["kind"], e["status"]) for e in report["claims"][0]["evidence"]] == rows
    assert "broken compare" in report["claims"][0]["evidence"][1]["detail"]


def test_definite_non_zero_symbolic_residual_refutes_with_the_value_as_witness():
    # (x + 1)² = x² + 2x: lhs − rhs is 1 for every x — a false claim with only a symbolic check.
    claim = Claim(
        "square",
        "s",
        "(x+1)^2 = x^2 + 2x",
        checks=(Symbolic(lambda: (X + 1) ** 2 - X**2 - 2 * X),),
        holds=False,
        corrected=NoControl("a test"),
    )
    result = check(claim)
    assert result.verdict is Verdict.REFUTED
    cex = result.counterexample
    assert cex["kind"] == "symbolic" and cex["exact_residual"] == "1" and cex["residual"] == 1.0
    assert result.residual.text == "1" and result.residual.sizes is None


def test_symbolic_residual_with_free_symbols_stays_undecided():
    # 2x is not a definite value: it vanishes at x = 0. Only a dimension-free 0 proves, only a number refutes.
    result = check(Claim("sq", "s", "(x+1)^2 = x^2 + 1", checks=(Symbolic(lambda: (X + 1) ** 2 - X**2 - 1),)))
    assert result.evidence[0].status == "undecided" and result.verdict is Verdict.UNPROVEN


# ---------------------------------------------------------------------------------------------
# Controls: a refutation must discriminate


def test_numeric_control_passes_at_the_shrunk_counterexample():
    claim = Claim(
        "commute",
        "s",
        "AB = BA",
        checks=(Numeric(_square_pairs(), _commutator),),
        holds=False,
        corrected=Corrected(numeric=_transpose_rule),
    )
    result = check(claim, seed=3)
    assert [(e.kind, e.status) for e in result.evidence] == [("numeric", "refuted"), ("control", "passed")]
    assert result.as_expected and result.summary == "refuted, as expected"


def test_a_hollow_refutation_is_not_as_expected():
    # √x² = −x at x = 2, exactly (rtol = atol = 0): refuted — but the correct √x² = x fails the same
    # exact comparison too (√2² = 2 + 4.4e-16), so the refutation shows rounding, not the sign.
    def sign_flipped(c):
        return np.sqrt(c["x"]) ** 2, -c["x"]

    def corrected(c):
        return np.sqrt(c["x"]) ** 2, c["x"]

    claim = Claim(
        "root-squared",
        "s",
        r"\sqrt{x}^2 = -x",
        checks=(Numeric(st.just({"x": 2.0}), sign_flipped, rtol=0, atol=0),),
        holds=False,
        corrected=Corrected(numeric=corrected),
    )
    result = check(claim)
    assert result.verdict is Verdict.REFUTED and result.control_failed
    assert not result.as_expected and result.summary == "refuted, but the control failed"
    assert "failed" in [e.status for e in result.evidence if e.kind == "control"]
    assert "1 NOT as expected" in table([result])
    assert not to_json([result], seed=0, max_examples=100)["ok"]


def _commutator_residual(k):
    A, B = sp.Matrix(MatrixSymbol("A", k, k)), sp.Matrix(MatrixSymbol("B", k, k))
    return A * B - B * A


def _transpose_residual_explicit(k):
    A, B = sp.Matrix(MatrixSymbol("A", k, k)), sp.Matrix(MatrixSymbol("B", k, k))
    return (A * B).T - B.T * A.T


@pytest.mark.parametrize(
    "control, status", [(_transpose_residual_explicit, "passed"), (_commutator_residual, "failed")]
)
def test_explicit_control_must_expand_to_zero_at_the_refuting_size(control, status):
    sizes = [{"k": 1}, {"k": 2}]
    claim = Claim(
        "c",
        "s",
        "AB = BA",
        (Explicit(_commutator_residual, sizes),),
        holds=False,
        corrected=Corrected(explicit=control),
    )
    result = check(claim)
    control_row = result.evidence[-1]
    assert (control_row.kind, control_row.status) == ("control", status)
    assert "{'k': 2}" in control_row.detail  # run at the refuting size, not the first one
    assert result.as_expected is (status == "passed")


@pytest.mark.parametrize(
    "corrected, status",
    [(0.4, "passed"), (0.42, "passed"), (0.5, "undecided"), (0.3, "undecided"), (0.7, "failed"), (0.1, "failed")],
)
def test_measured_control_is_the_same_estimate_against_the_corrected_prediction(corrected, status):
    # interval [0.35, 0.45]; corrected ± 0.1 must contain it: 0.4 and 0.42 do; 0.5 and 0.3 straddle it (undecided);
    # 0.7 and 0.1 are disjoint from it (failed).
    estimate = Estimate(0.4, 0.35, 0.45, predicted=0.7, tolerance=0.1)
    measured = Measured(lambda seed: estimate)
    result = check(Claim("m", "s", "st", (measured,), holds=False, corrected=Corrected(measured=corrected)))
    assert [(e.kind, e.status) for e in result.evidence] == [("measured", "refuted"), ("control", status)]


def test_measured_control_may_depend_on_the_seed():
    # the corrected prediction 0.4 + seed/100 contains [0.35, 0.45] ± 0.1 at seed 0, not at seed 20
    measured = Measured(lambda seed: Estimate(0.4, 0.35, 0.45, predicted=0.7, tolerance=0.1))
    claim = Claim("m", "s", "st", (measured,), holds=False, corrected=Corrected(measured=lambda seed: 0.4 + seed / 100))
    assert check(claim, seed=0).evidence[-1].status == "passed"
    assert check(claim, seed=20).evidence[-1].status == "failed"


def test_symbolic_control_must_reduce_to_zero():
    residual = Symbolic(lambda: (X + 1) ** 2 - X**2 - 2 * X)
    corrected = Corrected(symbolic=lambda: (X + 1) ** 2 - X**2 - 2 * X - 1)
    ok = Claim("square", "s", "(x+1)^2 = x^2 + 2x", (residual,), holds=False, corrected=corrected)
    assert check(ok).evidence[-1].status == "passed" and check(ok).as_expected
    hollow = Claim(
        ok.name, ok.source, ok.statement, ok.checks, holds=False, corrected=Corrected(symbolic=residual.residuals)
    )
    assert check(hollow).evidence[-1].status == "failed" and not check(hollow).as_expected


def test_a_symbolic_control_runs_when_another_check_refutes():
    # The symbolic check refutes AB = BA by an exact evaluation (not at a counterexample it could
    # hand on); the numeric check refutes it; the dimension-free control (AB)ᵀ = BᵀAᵀ still runs,
    # after the control at the numeric counterexample.
    A, B = MatrixSymbol("A", n, n), MatrixSymbol("B", n, n)
    claim = Claim(
        "commute",
        "s",
        "AB = BA",
        (Symbolic(lambda: A * B - B * A), Numeric(_square_pairs(), _commutator)),
        holds=False,
        corrected=Corrected(symbolic=_transpose_residual, numeric=_transpose_rule),
    )
    rows = [(e.kind, e.status, e.detail.split(":")[0]) for e in check(claim).evidence]
    assert rows == [
        ("symbolic", "refuted", "lhs − rhs ≠ 0 exactly at a random point with n = 2 (over GF(2³¹−1))"),  # 1 × 1 commute
        ("numeric", "refuted", "shrunk counterexample at {'k'"),
        ("control", "passed", "numeric"),
        ("control", "passed", "symbolic"),
    ]


def test_a_crashing_control_is_an_error():
    def boom(case):
        raise RuntimeError("broken control")

    numeric = Numeric(_square_pairs(), _commutator)
    claim = Claim("c", "s", "AB = BA", (numeric,), holds=False, corrected=Corrected(numeric=boom))
    result = check(claim)
    assert (result.evidence[-1].kind, result.evidence[-1].status) == ("control", "error")
    assert result.verdict is Verdict.ERROR and not result.as_expected


def test_true_claims_get_no_control_rows():
    assert all(e.kind != "control" for e in check(TRANSPOSE).evidence)


# ---------------------------------------------------------------------------------------------
# Explaining a refutation


def test_refutation_shows_the_dimension_free_residual_when_sympy_cannot_reduce_it():
    A, B = MatrixSymbol("A", n, n), MatrixSymbol("B", n, n)
    claim = Claim(
        "commute",
        "s",
        "AB = BA",
        checks=(Symbolic(lambda: A * B - B * A), Numeric(_square_pairs(), _commutator)),
        holds=False,
        corrected=Corrected(numeric=_transpose_rule),
    )
    result = check(claim)
    assert result.verdict is Verdict.REFUTED
    assert result.residual.sizes is None and result.residual.latex == sp.latex(A * B - B * A)
    assert result.to_dict()["residual"]["latex"] == sp.latex(A * B - B * A)
    assert "lhs − rhs (dimension-free): " in table([result])


def test_refutation_shows_the_explicit_residual_at_the_refuting_size():
    result = check(
        Claim(
            "c",
            "s",
            "AB = BA",
            (Explicit(_commutator_residual, [{"k": 1}, {"k": 2}]),),
            holds=False,
            corrected=NoControl("a test"),
        )
    )
    assert result.residual.sizes == {"k": 2}
    A, B = sp.Matrix(MatrixSymbol("A", 2, 2)), sp.Matrix(MatrixSymbol("B", 2, 2))
    assert result.residual.text == str(sp.ImmutableMatrix(A * B - B * A))  # already in simplest form


def test_a_residual_names_the_entries_of_a_subscripted_matrix_readably():
    """``W_0``'s entry (0, 1) is ``(W_0)_{0,1}`` in the residual's LaTeX, not ``{W_{0}}_{0,1}``, which typesets as the
    double subscript W_{00,1} (issue 42); an unsubscripted matrix's entry keeps its plain subscript."""
    W0, X = sp.Matrix(MatrixSymbol("W_0", 1, 2)), sp.Matrix(MatrixSymbol("X", 1, 2))
    claim = Claim(
        "c", "s", "W0 = X", (Explicit(lambda k: [W0 - X], [{"k": 1}]),), holds=False, corrected=NoControl("t")
    )
    latex = check(claim).residual.latex
    assert r"{\left(W_{0}\right)}_{0,1}" in latex and "{X}_{0,1}" in latex
    assert "{W_{0}}_" not in latex


def test_long_residuals_are_truncated_with_a_note():
    big = sum(sp.Symbol(f"a_long_name_for_quantity_number_{i}") for i in range(20))  # ≈ 700 characters
    claim = Claim("long", "s", "st", (Symbolic(lambda: big), Numeric(st.just({}), lambda c: (1.0, 0.0))))
    result = check(claim)
    assert result.residual.truncated and len(result.residual.text) == MAX_RESIDUAL_CHARS
    assert result.residual.latex == ""
    assert f"(truncated to {MAX_RESIDUAL_CHARS} characters)" in table([result])


def test_no_residual_for_a_claim_that_is_not_refuted():
    assert check(TRANSPOSE).residual is None and check(TRANSPOSE).to_dict()["residual"] is None


def test_a_residual_that_cannot_be_simplified_does_not_break_the_check(monkeypatch):
    from icl_verify.core import evidence

    def unprintable(residual, sizes):
        raise TypeError("cannot simplify")

    monkeypatch.setattr(evidence.Residual, "of", unprintable)
    explicit = Explicit(_commutator_residual, [{"k": 2}])
    result = check(Claim("c", "s", "AB = BA", (explicit,), holds=False, corrected=NoControl("a test")))
    assert result.verdict is Verdict.REFUTED and result.residual is None
