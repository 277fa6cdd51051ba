"""Expectations as statements: proved by the moment algebra, refuted at the smallest size, checked by Monte Carlo."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import icl_verify as iv
from icl_verify.blocks.backend import eye
from icl_verify.core.expectation import MonteCarlo, sample

GAUSSIAN = {"x": iv.gaussian("d", cov="Lambda"), "Lambda": iv.matrix("d", "d")}
IID = {
    "x": iv.iid("d", variance="s2", kurtosis="kappa"),
    "s2": iv.scalar(positive=True),
    "kappa": iv.scalar(positive=True),
}

ISSERLIS = iv.statement(
    "gaussian-fourth-moment", "Isserlis 1918", r"E[(x^\top x)^2] = 2\operatorname{tr}\Lambda^2 + (\operatorname{tr}\Lambda)^2",
    symbols=GAUSSIAN, lhs=iv.expect(lambda x: x.T @ x @ x.T @ x),
    rhs=lambda Lambda: 2 * iv.trace(Lambda @ Lambda) + iv.trace(Lambda) ** 2,
)  # fmt: skip
ISSERLIS_ONE_PAIRING = iv.statement(
    "gaussian-fourth-moment-one-pairing", "a tempting variant", r"E[(x^\top x)^2] = \operatorname{tr}\Lambda^2 + (\operatorname{tr}\Lambda)^2",
    symbols=GAUSSIAN, lhs=iv.expect(lambda x: x.T @ x @ x.T @ x),
    rhs=lambda Lambda: iv.trace(Lambda @ Lambda) + iv.trace(Lambda) ** 2,
    holds=False, corrected=lambda Lambda: 2 * iv.trace(Lambda @ Lambda) + iv.trace(Lambda) ** 2,
)  # fmt: skip
IID_FOURTH = iv.statement(
    "iid-fourth-moment", "Σᵢ E xᵢ⁴ + Σᵢ≠ⱼ E xᵢ² E xⱼ²", r"E[(x^\top x)^2] = d\kappa s^4 + d(d-1)s^4",
    symbols=IID, lhs=iv.expect(lambda x: x.T @ x @ x.T @ x),
    rhs=lambda d, s2, kappa: d * kappa * s2**2 + d * (d - 1) * s2**2,
)  # fmt: skip
IID_AS_GAUSSIAN = iv.statement(
    "iid-fourth-moment-as-gaussian", "a tempting variant: κ = 3 assumed", r"E[(x^\top x)^2] = d(d+2)s^4",
    symbols=IID, lhs=iv.expect(lambda x: x.T @ x @ x.T @ x), rhs=lambda d, s2: d * (d + 2) * s2**2,
    holds=False, corrected=lambda d, s2, kappa: d * kappa * s2**2 + d * (d - 1) * s2**2,
)  # fmt: skip


def _squared_error(X, N, d):
    E = X.T @ X / N - eye(d, X)
    return iv.trace(E @ E)


def test_a_gaussian_moment_identity_is_proved_for_symbolic_d():
    result = iv.check(ISSERLIS, max_examples=10)
    assert result.verdict is iv.Verdict.PROVED
    assert [(e.kind, e.status) for e in result.evidence] == [
        ("symbolic", "proved"),
        ("explicit", "verified"),
        ("monte_carlo", "verified"),
    ]


def test_a_false_gaussian_moment_identity_is_refuted_at_d_1_with_its_witness():
    """The residual tr(Λ²) is no definite number, but at d = 1 it is Λ₁₁² ≠ 0."""
    result = iv.check(ISSERLIS_ONE_PAIRING, max_examples=10)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    cex = result.counterexample
    assert cex["kind"] == "explicit" and cex["sizes"] == {"d": 1}
    value = sp.Rational(cex["values"]["Lambda[0, 0]"])
    assert sp.Rational(cex["exact_residual"]) == value**2 != 0
    # (xᵀx)² is too skewed (sample skewness ≈ 9 at d = 1) for its 5-standard-error interval to refute
    measured = next(e for e in result.evidence if e.kind == "monte_carlo")
    assert measured.status == "undecided" and "heavy-tailed" in measured.detail
    assert all(e.status == "passed" for e in result.evidence if e.kind == "control")


def test_an_iid_non_gaussian_moment_identity_is_proved_and_its_gaussian_reading_refuted():
    assert iv.check(IID_FOURTH, max_examples=10).verdict is iv.Verdict.PROVED
    result = iv.check(IID_AS_GAUSSIAN, max_examples=10)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    cex = result.counterexample
    assert cex["sizes"] == {"d": 1}
    kappa, s2 = sp.Rational(cex["values"]["kappa"]), sp.Rational(cex["values"]["s2"])
    assert sp.Rational(cex["exact_residual"]) == kappa * s2**2 - 3 * s2**2 != 0  # d = 1: κs⁴ against 3s⁴


def test_a_dimension_free_residual_d_over_n_is_refuted_at_the_smallest_sizes():
    """E‖XᵀX/N − I‖²_F = d(d + 1)/N for Gaussian rows; d²/N leaves d/N, which is 1 at N = d = 1."""
    statement = dict(symbols={"X": iv.gaussian("N", "d")}, lhs=iv.expect(_squared_error))
    assert (
        iv.check(
            iv.statement("wishart", "t", "s", rhs=lambda N, d: d * (d + 1) / N, **statement), max_examples=5
        ).verdict
        is iv.Verdict.PROVED
    )
    false = iv.statement(
        "wishart-false",
        "t",
        "s",
        rhs=lambda N, d: d * d / N,
        holds=False,
        corrected=lambda N, d: d * (d + 1) / N,
        **statement,
    )
    result = iv.check(false, max_examples=5)
    assert result.verdict is iv.Verdict.REFUTED and result.counterexample["sizes"] == {"N": 1, "d": 1}
    assert result.counterexample["exact_residual"] == "1"


def test_the_three_point_law_has_the_declared_variance_and_kurtosis():
    """±s√κ with probability 1/(2κ) each: E r² = s², E r⁴ = κ s⁴."""
    spec = iv.iid("N", "d", variance=2.0, kurtosis=5.0)
    n, s2, kappa = 400_000, 2.0, 5.0
    r = np.asarray(sample(spec, {"N": 1, "d": 1}, n, np.random.default_rng(1))).ravel()
    # Standard errors of the two sample means from the law itself: Var r² = (κ − 1)s⁴, Var r⁴ = (κ³ − κ²)s⁸.
    se2, se4 = np.sqrt((kappa - 1) * s2**2 / n), np.sqrt((kappa**3 - kappa**2) * s2**4 / n)
    assert abs(np.mean(r**2) - s2) < 5 * se2 and abs(np.mean(r**4) - kappa * s2**2) < 5 * se4


def test_gaussian_rows_have_the_declared_covariance():
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    x = np.asarray(sample(iv.gaussian("d", cov="L"), {"d": 2, "L": cov}, 200_000, np.random.default_rng(2)))
    assert x.shape == (200_000, 2, 1)
    np.testing.assert_allclose(np.mean(x @ np.swapaxes(x, -1, -2), axis=0), cov, atol=0.03)


def test_the_monte_carlo_check_is_seeded():
    check = ISSERLIS.checks[-1]
    assert isinstance(check, MonteCarlo)
    assert check.run(3, 5).evidence.detail == check.run(3, 5).evidence.detail


@pytest.mark.parametrize(
    ("symbols", "lhs", "message"),
    [
        ({"x": iv.gaussian("d", cov="S")}, iv.expect(lambda x: x.T @ x), "cov='S' must name a declared matrix"),
        ({"x": iv.gaussian("d")}, lambda x: x.T @ x, r"wrap it in iv.expect"),
    ],
)
def test_bad_laws_are_refused(symbols, lhs, message):
    with pytest.raises(iv.InvalidArgument, match=message):
        iv.statement("bad", "t", "s", symbols=symbols, lhs=lhs, rhs=lambda d: d)


def test_a_kurtosis_below_one_is_refused():
    with pytest.raises(iv.InvalidArgument, match="kurtosis must be at least 1"):
        iv.iid("d", kurtosis=0.5)


def test_a_matrix_valued_identity_is_refuted_at_the_smallest_size_where_it_fails():
    """E[XᵀX] = NΛ (Gupta & Nagar 2000, Ch. 3); "= Λ" holds at N = 1, so it fails first at N = 2, d = 1."""
    symbols = {"X": iv.gaussian("N", "d", cov="Lambda"), "Lambda": iv.matrix("d", "d")}
    true = iv.statement(
        "wishart-mean", "t", "s", symbols=symbols, lhs=iv.expect(lambda X: X.T @ X), rhs=lambda Lambda, N: N * Lambda
    )
    assert iv.check(true, max_examples=5).verdict is iv.Verdict.PROVED
    false = iv.statement("wishart-mean-one-row", "t", "s", symbols=symbols, lhs=iv.expect(lambda X: X.T @ X),
                         rhs=lambda Lambda: Lambda, holds=False, corrected=lambda Lambda, N: N * Lambda)  # fmt: skip
    result = iv.check(false, max_examples=5)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    cex = result.counterexample
    assert cex["sizes"] == {"N": 2, "d": 1} and sp.Rational(cex["exact_residual"]) == sp.Rational(
        cex["values"]["Lambda[0, 0]"]
    )
