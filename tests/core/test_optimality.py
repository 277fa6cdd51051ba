"""Optimality claims: argmin over a scalar, stationarity and the second-order condition both checked."""

from __future__ import annotations

import pytest
import sympy as sp

import icl_verify as iv

RIDGE = {"eta": iv.scalar(), "lam": iv.scalar(positive=True), "s": iv.scalar(positive=True)}
GAUSSIAN = {"x": iv.gaussian("d", cov="Lambda"), "Lambda": iv.matrix("d", "d"), "eta": iv.scalar()}
ONE_STEP_LOSS = iv.expect(lambda x, eta: (1 - eta * iv.trace(x.T @ x)) ** 2)


def _ridge_loss(eta, lam, s):
    return (1 - eta * lam) ** 2 + s * eta**2


def _best_step(Lambda):
    """E(1 − η xᵀx)² = 1 − 2η tr Λ + η²(2 tr Λ² + (tr Λ)²) (Isserlis 1918), minimised at tr Λ / (2 tr Λ² + (tr Λ)²)."""
    return iv.trace(Lambda) / (2 * iv.trace(Lambda @ Lambda) + iv.trace(Lambda) ** 2)


def test_a_true_argmin_is_proved_with_both_conditions():
    claim = iv.statement("ridge-step", "t", r"\eta^* = \lambda / (\lambda^2 + s)", symbols=RIDGE,
                         lhs=iv.argmin(_ridge_loss, over="eta"), rhs=lambda lam, s: lam / (lam**2 + s))  # fmt: skip
    result = iv.check(claim, max_examples=50)
    assert result.verdict is iv.Verdict.PROVED
    proof = result.evidence[0]
    assert "L′(eta*) = 0" in proof.detail and "L″(eta*) > 0" in proof.detail and "global minimum" in proof.detail
    assert [e.status for e in result.evidence[1:]] == ["verified", "verified"]


def test_a_wrong_minimiser_is_refuted_with_a_lower_loss():
    claim = iv.statement("ridge-step-unregularised", "t", r"\eta^* = 1/\lambda", symbols=RIDGE,
                         lhs=iv.argmin(_ridge_loss, over="eta"), rhs=lambda lam: 1 / lam,
                         holds=False, corrected=lambda lam, s: lam / (lam**2 + s))  # fmt: skip
    result = iv.check(claim, max_examples=50)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    cex = result.counterexample
    eta, lam, s = (cex["values"][k] for k in ("eta", "lam", "s"))
    assert cex["lhs_minus_rhs"] == pytest.approx(_ridge_loss(1 / lam, lam, s) - _ridge_loss(eta, lam, s))
    assert cex["lhs_minus_rhs"] > 0


def test_a_maximiser_is_not_a_minimum():
    """L(η) = −η² is stationary at 0, but L″ = −2 < 0."""
    claim = iv.statement("maximum", "t", "s", symbols={"eta": iv.scalar(), "a": iv.scalar()}, holds=False,
                         no_control="no minimum", lhs=iv.argmin(lambda eta, a: -(eta**2) + 0 * a, over="eta"), rhs=lambda a: 0 * a)  # fmt: skip
    proof = iv.check(claim, max_examples=20).evidence[0]
    assert proof.status == "refuted" and "not a minimum" in proof.detail


def test_an_expected_loss_is_minimised_for_symbolic_d():
    claim = iv.statement(
        "best-step", "t", "s", symbols=GAUSSIAN, lhs=iv.argmin(ONE_STEP_LOSS, over="eta"), rhs=_best_step
    )
    result = iv.check(claim, max_examples=10)
    assert result.verdict is iv.Verdict.PROVED and "global minimum" in result.evidence[0].detail


def test_a_wrong_expected_loss_minimiser_is_refuted_at_d_1():
    wrong = lambda Lambda: iv.trace(Lambda) / (iv.trace(Lambda @ Lambda) + iv.trace(Lambda) ** 2)  # noqa: E731
    claim = iv.statement("best-step-one-pairing", "t", "s", symbols=GAUSSIAN, lhs=iv.argmin(ONE_STEP_LOSS, over="eta"),
                         rhs=wrong, holds=False, corrected=_best_step)  # fmt: skip
    result = iv.check(claim, max_examples=10)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    cex = result.counterexample
    assert cex["sizes"] == {"d": 1}
    lam = sp.Rational(cex["values"]["Lambda[0, 0]"])
    eta = 1 / (2 * lam)  # the wrong minimiser λ/(λ² + λ²) at d = 1; L′(η) = −2λ + 2η · 3λ²
    assert sp.Rational(cex["exact_residual"]) == -2 * lam + 6 * eta * lam**2


def test_argmin_over_an_undeclared_or_matrix_symbol_is_refused():
    with pytest.raises(iv.InvalidArgument, match=r"must name a declared iv\.scalar"):
        iv.statement("bad", "t", "s", symbols=GAUSSIAN, lhs=iv.argmin(ONE_STEP_LOSS, over="Lambda"), rhs=_best_step)


# ---------------------------------------------------------------------------------------------
# The second-order condition (issue 39, reproduction 8): no sign assumed for a trace of three covariances

THREE = {
    "x": iv.gaussian("d", cov="L1"),
    "y": iv.gaussian("d", cov="L2"),
    "w": iv.gaussian("d", cov="L3"),
    "L1": iv.matrix("d", "d"),
    "L2": iv.matrix("d", "d"),
    "L3": iv.matrix("d", "d"),
    "eta": iv.scalar(),
}


def test_a_trace_of_three_positive_definite_matrices_can_be_negative():
    """By hand: Λ₁Λ₂ = [[−4, −6], [12, 17]], so tr(Λ₁Λ₂Λ₃) = (−20 + 12) + (−24 + 17) = −15; each Λ has
    positive trace and determinant (1, 4, 1), so is positive definite."""
    from icl_verify.core.optimality import positive_trace

    l1, l2, l3 = sp.Matrix([[1, -2], [-2, 5]]), sp.Matrix([[4, 4], [4, 5]]), sp.Matrix([[5, -2], [-2, 1]])
    assert [m.det() for m in (l1, l2, l3)] == [1, 4, 1] and all(m.trace() > 0 for m in (l1, l2, l3))
    assert (l1 * l2 * l3).trace() == -15
    d = sp.Symbol("d", positive=True, integer=True)
    a, b, c = (sp.MatrixSymbol(n, d, d) for n in ("L1", "L2", "L3"))
    names = {"L1", "L2", "L3"}
    assert positive_trace(sp.Trace(a * a * b), names) and positive_trace(sp.Trace(a), names)
    assert not positive_trace(sp.Trace(a * b * c), names) and not positive_trace(sp.Trace(a * b * a * b), names)
    assert not positive_trace(sp.Trace(a * sp.MatrixSymbol("M", d, d)), names)


def test_a_false_argmin_with_a_trace_of_three_covariances_is_not_proved():
    """argmin_η E[η² xᵀyyᵀwwᵀx − 2η] = 1/tr(Λ₁Λ₂Λ₃) is stationary, but L″ = 2 tr(Λ₁Λ₂Λ₃) can be negative."""
    claim = iv.statement("three-covariances", "t", "s", symbols=THREE,
                         lhs=iv.argmin(iv.expect(lambda x, y, w, eta: eta**2 * iv.trace(x.T @ y @ y.T @ w @ w.T @ x)
                                                 - 2 * eta), over="eta"),
                         rhs=lambda L1, L2, L3: 1 / iv.trace(L1 @ L2 @ L3))  # fmt: skip
    result = iv.check(claim, max_examples=5)
    assert result.verdict is iv.Verdict.REFUTED
    proof, explicit = result.evidence[0], result.evidence[1]
    assert proof.status == "undecided" and explicit.status == "refuted"
    cex = result.counterexample
    assert cex["kind"] == "explicit" and cex["sizes"] == {"d": 2}
    value = sp.Rational(cex["exact_residual"])
    matrices = [sp.Matrix(2, 2, lambda i, j, k=k: sp.Rational(cex["values"][f"L{k}[{min(i, j)}, {max(i, j)}]"]))
                for k in (1, 2, 3)]  # fmt: skip
    assert all(m.is_positive_definite for m in matrices)
    assert value == 2 * (matrices[0] * matrices[1] * matrices[2]).trace() and value <= 0
    for seed in range(1, 4):  # never PROVED nor VERIFIED, whatever the seed of the draws
        assert iv.check(claim, seed=seed, max_examples=5).verdict is iv.Verdict.REFUTED


def test_the_same_argmin_with_two_covariances_is_proved_by_the_positivity_rule():
    """argmin_η E[η² xᵀyyᵀx − 2η] = 1/tr(Λ₁Λ₂): L″ = 2 tr(Λ₁Λ₂) > 0 (tr(AB) > 0 for A, B ≻ 0)."""
    claim = iv.statement("two-covariances", "t", "s", symbols=THREE,
                         lhs=iv.argmin(iv.expect(lambda x, y, eta: eta**2 * iv.trace(x.T @ y @ y.T @ x) - 2 * eta),
                                       over="eta"),
                         rhs=lambda L1, L2: 1 / iv.trace(L1 @ L2))  # fmt: skip
    result = iv.check(claim, max_examples=5)
    assert result.verdict is iv.Verdict.PROVED
    assert "tr(AB) > 0" in result.evidence[0].detail and result.evidence[1].status == "verified"


def test_the_curvature_draws_respect_the_declared_domain():
    """argmin_η E[η² t xᵀx − 2η] = 1/(t tr Λ) for t > 0: L″ = 2t tr Λ > 0 there, so the exact draws (t drawn
    positive, as declared; each draw also checked against the declared relations) never refute it."""
    symbols = {**GAUSSIAN, "t": iv.scalar(positive=True)}
    claim = iv.statement("scaled-step", "t", "s", symbols=symbols,
                         lhs=iv.argmin(iv.expect(lambda x, eta, t: eta**2 * t * iv.trace(x.T @ x) - 2 * eta),
                                       over="eta"),
                         rhs=lambda t, Lambda: 1 / (t * iv.trace(Lambda)))  # fmt: skip
    result = iv.check(claim, max_examples=5)
    assert result.verdict is iv.Verdict.PROVED
    assert result.evidence[1].status == "verified" and "exact draws" in result.evidence[1].detail
