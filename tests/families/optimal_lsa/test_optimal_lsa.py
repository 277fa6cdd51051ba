"""Optimal-LSA closed forms: the moment calculus against brute force and textbook values; claim evidence."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from icl_verify.experiments import lsa
from icl_verify.families import optimal_lsa as o
from icl_verify.families.optimal_lsa import moments, monte_carlo
from icl_verify.numerics.lsa.alignment import gd_model

A_SYM = sp.Symbol("a", positive=True)


def test_density_moments_match_textbook_values():
    s = sp.Symbol("s", positive=True)
    assert sp.simplify(lsa.density_moment("uniform", 2, A_SYM) - A_SYM**2 / 3) == 0
    assert sp.simplify(lsa.density_moment("uniform", 4, A_SYM) - A_SYM**4 / 5) == 0
    assert sp.simplify(lsa.density_moment("gaussian", 4, s) - 3 * s**4) == 0
    assert lsa.density_moment("gaussian", 3, s) == 0
    assert lsa.kurtosis("uniform") == sp.Rational(9, 5) and lsa.kurtosis("gaussian") == 3
    with pytest.raises(ValueError, match="kind"):
        lsa.density_moment("laplace", 2, s)


def test_paper_setting_values_from_the_stated_formula():
    """d = N = 10: U(−½, ½) has s² = 1/12, κ = 9/5 ⇒ η* = 10/((1/12)(19.8)) = 200/33, ½MSE* = (5/12)(9.8/19.8)."""
    assert lsa.paper_values(sp.Rational(1, 2)) == (sp.Rational(200, 33), sp.Rational(245, 1188))
    # U(−1, 1): s² = 1/3 is four times larger: η* / 4 and 4 × the loss
    assert lsa.paper_values(sp.Integer(1)) == (sp.Rational(50, 33), sp.Rational(245, 297))


def test_preconditioner_in_one_dimension_by_hand():
    """d = 1: Γ = (1 + 1/N)λ + λ/N = λ(N + 2)/N, so A* = N / (λ (N + 2))."""
    lam = sp.Symbol("lambda_1", positive=True)
    assert sp.simplify(moments.preconditioner_optimum(1)[0, 0] - lsa.N / (lam * (lsa.N + 2))) == 0


def test_preconditioner_solved_at_d_2_is_gamma_inverse():
    """The gradient specialised to Λ = diag(λ₁, λ₂) and solved entrywise gives Γ⁻¹ with Γ_kk = (1 + 1/N)λ_k + (λ₁ + λ₂)/N."""
    lam = sp.symbols("lambda_1:3", positive=True)
    expected = sp.diag(*[1 / ((1 + 1 / lsa.N) * v + sum(lam) / lsa.N) for v in lam])
    assert (moments.preconditioner_optimum(2) - expected).applyfunc(sp.simplify) == sp.zeros(2, 2)


def test_gamma_inverse_numeric():
    g = monte_carlo.gamma_inverse([1.0, 2.0], 4)
    np.testing.assert_allclose(g, np.diag([1 / (1.25 * 1 + 0.75), 1 / (1.25 * 2 + 0.75)]))


def test_symmetric_moments_reject_higher_orders():
    with pytest.raises(ValueError, match="order 6"):
        lsa.symmetric_moments(sp.Integer(1), sp.Integer(3))(6)


@pytest.mark.slow  # measured claims of a simulation family (conftest's SIMULATION_FAMILIES)
def test_closed_form_claims_are_proved_symbolically(builtin_results):
    for claim in (o.ETA_STAR, o.LOSS_STAR, o.GAUSSIAN_RATE, o.MAHANKALI, o.GAMMA):
        statuses = {e.kind: e.status for e in builtin_results[claim.name].evidence}
        assert statuses == {"symbolic": "proved", "measured": "verified"}, claim.name


@pytest.mark.slow  # measured claims of a simulation family (conftest's SIMULATION_FAMILIES)
def test_traps_are_refuted_by_both_checks(builtin_results):
    for claim in (o.RATE_WITHOUT_1_OVER_N, o.GAMMA_AS_INVERSE_COVARIANCE):
        rows = [(e.kind, e.status) for e in builtin_results[claim.name].evidence]
        # each refutation discriminates: the corrected form passes the exact and the measured check
        assert rows == [("explicit", "refuted"), ("measured", "refuted"), ("control", "passed"), ("control", "passed")]
    assert builtin_results[o.X_RANGE_TEXT.name].counterexample["values"]["estimate"] == pytest.approx(
        245 / 297, rel=0.03
    )


@pytest.mark.slow  # measured claims of a simulation family (conftest's SIMULATION_FAMILIES)
def test_training_claims_measure_what_they_state(builtin_results):
    raw = builtin_results[o.TRAINED_RAW_RATE.name].counterexample
    assert raw["values"]["estimate"] == pytest.approx(float(sp.Rational(200, 33)) / 10, rel=0.05)  # η*/N
    for claim in (o.TRAINED_LOSS, o.TRAINED_MODEL_COS, o.TRAINED_GAMMA, o.TRAINED_NOISY_RATE):
        assert builtin_results[claim.name].verdict.value == "VERIFIED", claim.name


def test_paired_loss_is_exact_for_the_reference_itself():
    """The control-variate estimate returns the reference's known loss, with zero width, for the reference model."""
    tasks = monte_carlo.CODE.sample(np.random.default_rng(0), 200, n_queries=2)
    model = gd_model(1.5)
    assert lsa.paired_loss(model, model, tasks, 0.3) == (0.3, 0.3, 0.3)


def test_value_evaluates_closed_forms_at_settings():
    assert monte_carlo.value_at(moments.stated_eta(), monte_carlo.CODE) == pytest.approx(200 / 33)
    assert monte_carlo.value_at(moments.MAHANKALI_STATED, monte_carlo.NOISY) == pytest.approx(8 / (8 + 5 + 1 + 0.5625))


def test_one_step_derivation_is_proved_step_by_step():
    result = moments.ONE_STEP_DERIVATION.check()
    assert [m.status for m in result.marks] == ["proved", "proved"]


def test_the_median_looks_hold_at_once_by_the_union_bound():
    """MEDIAN_LOOKS (9, 18) at their spent levels take [x₍₁₎, x₍₉₎] and [x₍₅₎, x₍₁₄₎]; their misses
    2·2⁻⁹ and 2·4048/2¹⁸ (binomial sums by hand) add to 0.035 ≤ 0.05, so every look's interval holds at once with
    probability ≥ 96.5 % whatever the law of the runs."""
    from icl_verify.core.checks.measured import median_level, median_rank
    from icl_verify.families.optimal_lsa.training import MEDIAN_LOOKS
    from icl_verify.numerics.shared.stats import spending_levels

    ranks = [median_rank(n, level) for n, level in zip(MEDIAN_LOOKS, spending_levels(MEDIAN_LOOKS), strict=True)]
    assert ranks == [1, 5]
    misses = [1 - median_level(n, k) for n, k in zip(MEDIAN_LOOKS, ranks, strict=True)]
    assert misses == pytest.approx([2 / 2**9, 2 * 4048 / 2**18], abs=1e-15) and sum(misses) <= 0.05
