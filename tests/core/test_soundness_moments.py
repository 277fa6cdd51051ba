"""Issue 39, moments: covariances symmetric in every check, a random input under an inverse or root
outside the Wick fragment, moments an iid law does not fix never proved, pairings bounded.

Each reproduction of the issue is here with its honest verdict; each proving path has a false twin.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
import sympy as sp

import icl_verify as iv
from icl_verify.blocks.backend import eye, inverse

tr = iv.trace
COVARIANCE = {"x": iv.gaussian("d", cov="S"), "S": iv.matrix("d", "d", spd=True)}
# The Matrix Cookbook (Petersen & Pedersen 2012, §8.2) states its Gaussian moments for x ~ N(m, Σ):
# here x = z + m with z ~ N(0, S) and m a declared column.
SHIFTED = {
    "z": iv.gaussian("d", cov="S"),
    "S": iv.matrix("d", "d"),
    "m": iv.matrix("d", 1),
    "A": iv.matrix("d", "d"),
    "B": iv.matrix("d", "d"),
}


def _statuses(result: iv.Result) -> dict[str, str]:
    return {e.kind: e.status for e in result.evidence if e.kind != "control"}


def _quadratic(z, m, A):
    """xᵀAx for x = z + m, as a scalar."""
    return tr((z + m).T @ A @ (z + m))


def _mean(A, S, m):
    """E xᵀAx = tr(AS) + mᵀAm (Cookbook eq. 378)."""
    return tr(A @ S) + tr(m.T @ A @ m)


# ---------------------------------------------------------------------------------------------
# A covariance is symmetric in every check (issue 39, reproduction 6)


def test_the_second_moment_equals_the_transposed_covariance():
    """E[x xᵀ] = S = Sᵀ: the symbolic check once refuted it over GF(p), taking S for a general matrix."""
    claim = iv.statement("second-moment-transposed", "t", "s", symbols=COVARIANCE,
                         lhs=iv.expect(lambda x: x @ x.T), rhs=lambda S: S.T)  # fmt: skip
    result = iv.check(claim, max_examples=5)
    assert result.verdict is iv.Verdict.PROVED
    assert _statuses(result)["symbolic"] == "proved" and _statuses(result)["explicit"] == "verified"


def test_a_covariance_transposed_inside_a_trace_is_still_the_covariance():
    """E[xᵀAx] = tr(A Sᵀ) = tr(Aᵀ S) for symmetric S; the twin tr(A Sᵀ A) ≠ E[xᵀAᵀAx] = tr(A S Aᵀ) in general."""
    symbols = {**COVARIANCE, "A": iv.matrix("d", "d")}
    true = iv.statement("quadratic-form-transposed", "t", "s", symbols=symbols,
                        lhs=iv.expect(lambda x, A: x.T @ A @ x), rhs=lambda A, S: tr(A.T @ S))  # fmt: skip
    assert iv.check(true, max_examples=5).verdict is iv.Verdict.PROVED
    false = iv.statement("quadratic-form-wrong-order", "t", "s", symbols=symbols,
                         lhs=iv.expect(lambda x, A: x.T @ A.T @ A @ x), rhs=lambda A, S: tr(A @ S.T @ A),
                         holds=False, corrected=lambda A, S: tr(A @ S @ A.T))  # fmt: skip
    result = iv.check(false, max_examples=5)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    assert _statuses(result)["symbolic"] == "refuted"


def test_cookbook_379_the_variance_of_a_quadratic_form_is_proved_and_its_twin_refuted():
    """Var(xᵀAx) = tr[AS(A + Aᵀ)S] + mᵀ(A + Aᵀ)S(A + Aᵀ)m (Cookbook eq. 379), stated as E(xᵀAx)²."""
    lhs = iv.expect(lambda z, m, A: _quadratic(z, m, A) ** 2)

    def variance(A, S, m):
        return tr(A @ S @ (A + A.T) @ S) + tr(m.T @ (A + A.T) @ S @ (A + A.T) @ m) + _mean(A, S, m) ** 2

    def one_sided(A, S, m):  # mᵀ(A + Aᵀ)S A m: a factor A + Aᵀ lost
        return tr(A @ S @ (A + A.T) @ S) + tr(m.T @ (A + A.T) @ S @ A @ m) + _mean(A, S, m) ** 2

    true = iv.statement(
        "cookbook-379", "Petersen & Pedersen 2012, eq. 379", "s", symbols=SHIFTED, lhs=lhs, rhs=variance
    )
    assert iv.check(true, max_examples=5).verdict is iv.Verdict.PROVED
    false = iv.statement("cookbook-379-twin", "t", "s", symbols=SHIFTED, lhs=lhs, rhs=one_sided,
                         holds=False, corrected=variance)  # fmt: skip
    result = iv.check(false, max_examples=5)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    assert _statuses(result)["symbolic"] == "refuted" and _statuses(result)["explicit"] == "refuted"


def test_cookbook_386_and_387_quartic_forms_are_proved():
    """E[xᵀx xᵀx] = 2tr(S²) + 4mᵀSm + (tr S + mᵀm)² (eq. 386); E[xᵀAx xᵀBx] (eq. 387)."""
    c386 = iv.statement("cookbook-386", "Petersen & Pedersen 2012, eq. 386", "s", symbols=SHIFTED,
                        lhs=iv.expect(lambda z, m: tr((z + m).T @ (z + m)) ** 2),
                        rhs=lambda S, m: 2 * tr(S @ S) + 4 * tr(m.T @ S @ m) + (tr(S) + tr(m.T @ m)) ** 2)  # fmt: skip
    c387 = iv.statement("cookbook-387", "Petersen & Pedersen 2012, eq. 387", "s", symbols=SHIFTED,
                        lhs=iv.expect(lambda z, m, A, B: _quadratic(z, m, A) * _quadratic(z, m, B)),
                        rhs=lambda A, B, S, m: tr(A @ S @ (B + B.T) @ S) + tr(m.T @ (A + A.T) @ S @ (B + B.T) @ m)
                        + _mean(A, S, m) * _mean(B, S, m))  # fmt: skip
    for claim in (c386, c387):
        result = iv.check(claim, max_examples=5)
        assert result.verdict is iv.Verdict.PROVED, claim.name
        assert _statuses(result)["symbolic"] == "proved"


def test_cookbook_383_and_385_cubic_and_quartic_matrix_forms_are_proved():
    """E[x bᵀx xᵀ] = m bᵀ(S + mmᵀ) + (S + mmᵀ) b mᵀ + bᵀm (S − mmᵀ) (eq. 383, §8.2.3) and
    E[x xᵀA x xᵀ] = (S + mmᵀ)(A + Aᵀ)(S + mmᵀ) + mᵀAm (S − mmᵀ) + tr(AS)(S + mmᵀ) (eq. 385): the scalar
    bᵀx inside a matrix product is pulled out of it (a node of dimension 1) so both sides read alike."""
    symbols = {**SHIFTED, "b": iv.matrix("d", 1)}
    second = lambda S, m: S + m @ m.T  # noqa: E731
    c383 = iv.statement("cookbook-383", "Petersen & Pedersen 2012, eq. 383", "s", symbols=symbols,
                        lhs=iv.expect(lambda z, m, b: (z + m) @ b.T @ (z + m) @ (z + m).T),
                        rhs=lambda S, m, b: m @ b.T @ second(S, m) + second(S, m) @ b @ m.T
                        + tr(b.T @ m) * (S - m @ m.T))  # fmt: skip
    c385 = iv.statement("cookbook-385", "Petersen & Pedersen 2012, eq. 385", "s", symbols=symbols,
                        lhs=iv.expect(lambda z, m, A: (z + m) @ (z + m).T @ A @ (z + m) @ (z + m).T),
                        rhs=lambda A, S, m: second(S, m) @ (A + A.T) @ second(S, m) + tr(m.T @ A @ m) * (S - m @ m.T)
                        + tr(A @ S) * second(S, m))  # fmt: skip
    for claim in (c383, c385):
        result = iv.check(claim, max_examples=5)
        assert result.verdict is iv.Verdict.PROVED, claim.name
        assert _statuses(result)["symbolic"] == "proved"
    twin = iv.statement("cookbook-383-twin", "t", "s", symbols=symbols, holds=False, no_control="a twin",
                        lhs=iv.expect(lambda z, m, b: (z + m) @ b.T @ (z + m) @ (z + m).T),
                        rhs=lambda S, m, b: m @ b.T @ second(S, m) + second(S, m) @ b @ m.T
                        + tr(b.T @ m) * (S + m @ m.T))  # fmt: skip
    result = iv.check(twin, max_examples=5)
    assert result.verdict is iv.Verdict.REFUTED and _statuses(result)["explicit"] == "refuted"


def test_cookbook_387_with_b_for_its_transpose_once_is_refuted():
    """Twin of eq. 387: tr[AS(B + B)S] instead of tr[AS(B + Bᵀ)S]."""
    claim = iv.statement("cookbook-387-twin", "t", "s", symbols=SHIFTED, holds=False, no_control="a twin",
                         lhs=iv.expect(lambda z, m, A, B: _quadratic(z, m, A) * _quadratic(z, m, B)),
                         rhs=lambda A, B, S, m: tr(A @ S @ (2 * B) @ S) + tr(m.T @ (A + A.T) @ S @ (B + B.T) @ m)
                         + _mean(A, S, m) * _mean(B, S, m))  # fmt: skip
    result = iv.check(claim, max_examples=5)
    assert result.verdict is iv.Verdict.REFUTED and _statuses(result)["symbolic"] == "refuted"


# ---------------------------------------------------------------------------------------------
# A random input under an inverse: outside the Wick fragment, Monte Carlo only (reproduction 7)


def test_a_projection_onto_a_gaussian_direction_is_verified_by_monte_carlo_only():
    """E[x xᵀ / (xᵀx)] = I/d for x ~ N(0, I_d) (x/‖x‖ is uniform on the sphere): never refuted."""
    claim = iv.statement("projection", "t", "s", symbols={"x": iv.gaussian("d")},
                         lhs=iv.expect(lambda x: x @ inverse(x.T @ x) @ x.T), rhs=lambda d: eye(d, d) / d)  # fmt: skip
    result = iv.check(claim, max_examples=5)
    assert result.verdict is iv.Verdict.VERIFIED
    statuses = _statuses(result)
    assert statuses == {"symbolic": "undecided", "explicit": "undecided", "monte_carlo": "verified"}
    symbolic = next(e for e in result.evidence if e.kind == "symbolic")
    assert "outside the Wick fragment" in symbolic.detail and "Monte Carlo" in symbolic.detail


def test_a_false_projection_is_refuted_by_monte_carlo_not_by_the_moment_algebra():
    """E[x xᵀ / (xᵀx)] = I (a dropped 1/d) is refuted at d ≥ 2 by the measured check alone."""
    claim = iv.statement("projection-twin", "t", "s", symbols={"x": iv.gaussian("d")}, sizes={"d": (2, 4)},
                         lhs=iv.expect(lambda x: x @ inverse(x.T @ x) @ x.T), rhs=lambda d: eye(d, d),
                         holds=False, corrected=lambda d: eye(d, d) / d)  # fmt: skip
    result = iv.check(claim, max_examples=5)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    assert _statuses(result)["symbolic"] == "undecided" and _statuses(result)["monte_carlo"] == "refuted"


def test_a_root_of_a_random_input_is_outside_the_fragment():
    """E‖x‖ for x ~ N(0, 1) at d = 1 is √(2/π): the moment algebra must not treat the root as a constant."""
    claim = iv.statement("root", "t", "s", symbols={"x": iv.gaussian(1)},
                         lhs=iv.expect(_norm), rhs=lambda: sp.sqrt(2 / sp.pi))  # fmt: skip
    result = iv.check(claim, max_examples=3)
    assert _statuses(result)["symbolic"] == "undecided" and result.verdict is not iv.Verdict.REFUTED


def _norm(x):
    """‖x‖ on either side."""
    value = tr(x.T @ x)
    return sp.sqrt(value) if isinstance(value, sp.Basic) else np.sqrt(value)


# ---------------------------------------------------------------------------------------------
# iid(variance=, kurtosis=) fixes moments up to the fourth (reproduction 9)


def test_a_sixth_moment_of_an_iid_law_is_not_proved():
    """E‖x‖⁶ = d(d + 2)(d + 4) holds for Gaussian entries, not for every law of variance 1 and kurtosis 3:
    the three-point law ±√3 (probability 1/6 each) has E r⁶ = 9, not 15, so E‖x‖⁶ = 32460 at d = 30."""
    claim = iv.statement("iid-sixth-moment", "t", "s", symbols={"x": iv.iid("d", variance=1, kurtosis=3)},
                         lhs=iv.expect(lambda x: x.T @ x @ x.T @ x @ x.T @ x), rhs=lambda d: d * (d + 2) * (d + 4),
                         sizes={"d": 30})  # fmt: skip
    result = iv.check(claim, max_examples=3)
    assert result.verdict not in (iv.Verdict.PROVED, iv.Verdict.VERIFIED)
    statuses = _statuses(result)
    assert statuses["symbolic"] == "undecided" and statuses["explicit"] == "undecided"
    assert "above the fourth" in next(e for e in result.evidence if e.kind == "symbolic").detail


def test_the_same_sixth_moment_of_a_gaussian_vector_is_proved():
    claim = iv.statement("gaussian-sixth-moment", "t", "s", symbols={"x": iv.gaussian("d")},
                         lhs=iv.expect(lambda x: x.T @ x @ x.T @ x @ x.T @ x), rhs=lambda d: d * (d + 2) * (d + 4))  # fmt: skip
    assert iv.check(claim, max_examples=3).verdict is iv.Verdict.PROVED


# ---------------------------------------------------------------------------------------------
# Pairings bounded: a closed form for a scalar, undecided beyond MAX_PAIRINGS (reproduction 13)


def test_the_twentieth_moment_of_a_gaussian_scalar_is_proved_at_once():
    """E x²⁰ = 19!! σ²⁰ = 654729075 σ²⁰ (19!! pairings, once enumerated one by one)."""
    symbols = {"x": iv.gaussian(1, cov=2)}
    lhs = iv.expect(lambda x: tr(x.T @ x) ** 10)
    t0 = time.perf_counter()
    true = iv.statement("x20", "t", "s", symbols=symbols, lhs=lhs, rhs=lambda: 654729075 * 2**10)
    assert iv.check(true, max_examples=3).verdict is iv.Verdict.PROVED
    false = iv.statement("x20-twin", "t", "s", symbols=symbols, lhs=lhs, rhs=lambda: 654729075 * 2**9,
                         holds=False, corrected=lambda: 654729075 * 2**10)  # fmt: skip
    result = iv.check(false, max_examples=3)
    assert result.verdict is iv.Verdict.REFUTED and _statuses(result)["symbolic"] == "refuted"
    assert time.perf_counter() - t0 < 60


def test_a_vector_moment_beyond_the_pairing_bound_is_undecided_not_a_hang():
    """E‖x‖¹⁴ has 13!! = 135135 pairings for symbolic d: more than MAX_PAIRINGS, so undecided, quickly."""
    claim = iv.statement("x14", "t", "s", symbols={"x": iv.gaussian("d")}, explicit=False, sizes={"d": (2, 3)},
                         lhs=iv.expect(lambda x: tr(x.T @ x) ** 7),
                         rhs=lambda d: d * (d + 2) * (d + 4) * (d + 6) * (d + 8) * (d + 10) * (d + 12))  # fmt: skip
    t0 = time.perf_counter()
    result = iv.check(claim, max_examples=2)
    assert time.perf_counter() - t0 < 60
    symbolic = next(e for e in result.evidence if e.kind == "symbolic")
    assert symbolic.status == "undecided" and "pairings" in symbolic.detail


# ---------------------------------------------------------------------------------------------
# Monte Carlo: no zero-width interval, heavy tails cannot refute, the documented rate holds


def test_a_quadratic_form_with_tiny_entries_is_not_refuted_by_a_zero_width_interval():
    """E[xᵀAx] = tr(AS) (Cookbook eq. 378 with m = 0) at A with entries near 1e-230: reproduction 4."""
    symbols = {"x": iv.gaussian("d", cov="S"), "S": iv.matrix("d", "d"), "A": iv.matrix("d", "d")}
    claim = iv.statement("quadratic-form", "t", "s", symbols=symbols,
                         lhs=iv.expect(lambda x, A: x.T @ A @ x), rhs=lambda A, S: tr(A @ S))  # fmt: skip
    check = claim.checks[-1]
    rng_case = {"d": 2, "S": np.array([[2.0, 0.5], [0.5, 1.0]]), "A": np.array([[4.8e-230, -1e-231], [3e-230, 1e-229]])}
    found = check.interval(rng_case, 0)
    assert found.half > 0 and not found.excludes_zero
    huge = {"d": 2, "S": np.array([[1.0, 1 - 1e-9], [1 - 1e-9, 1.0]]), "A": np.array([[1e306, -3e305], [2e305, 1e300]])}
    for seed in range(5):  # an ill-conditioned covariance and entries near the overflow threshold
        assert not check.interval(huge, seed).refutes
    for seed in (0, 1, 2):
        assert iv.check(claim, seed=seed, max_examples=10).verdict is iv.Verdict.PROVED


def test_the_interval_of_a_deterministic_identity_covers_its_rounding():
    """lhs = (x + 1e8) − 1e8, rhs = x: equal in exact arithmetic; the float difference is rounding only."""
    from icl_verify.core.expectation import interval_of

    x = np.random.default_rng(3).standard_normal((20_000, 1))
    assert not interval_of((x + 1e8) - 1e8, x).excludes_zero


@pytest.mark.parametrize(("power", "moment"), [(12, 10395), (14, 135135)])
def test_a_heavy_tailed_gaussian_moment_is_never_refuted_by_monte_carlo(power, moment):
    """E x¹² = 11!!, E x¹⁴ = 13!!: the plain 5-standard-error interval missed the truth at 7 and 23 of
    these 300 seeds (reproduction 5); a case whose sample skewness is beyond the limit cannot refute."""
    from icl_verify.core.expectation import SAMPLES, interval_of

    refuted = 0
    for seed in range(300):
        x = np.random.default_rng(seed).standard_normal((SAMPLES, 1))
        refuted += interval_of(x**power, np.full_like(x, moment)).refutes
    assert refuted == 0


def test_the_twelfth_moment_at_seed_52_is_not_refuted():
    claim = iv.statement("x12", "t", "s", symbols={"x": iv.gaussian(1)},
                         lhs=iv.expect(lambda x: tr(x.T @ x) ** 6), rhs=lambda: 10395)  # fmt: skip
    result = iv.check(claim, seed=52, max_examples=5)
    assert result.verdict is iv.Verdict.PROVED and _statuses(result)["monte_carlo"] != "refuted"


def test_the_false_refutation_rate_is_calibrated_at_the_documented_level(monkeypatch):
    """At Z = 3 and 2000 draws (so that the rate is measurable) the documented level 2 · 2(1 − Φ(Z)) =
    0.0054 per case must hold for Gaussian powers x², x⁴, x⁶, x⁸ — light and heavy tails alike —
    over 2000 seeds each: at most 21 refutations (P(Bin(2000, 0.0054) > 21) < 0.002)."""
    from scipy.stats import norm

    from icl_verify.core import expectation

    monkeypatch.setattr(expectation, "Z", 3.0)
    level = 2 * 2 * norm.sf(3.0)
    assert level == pytest.approx(0.0054, abs=1e-4)
    for power, moment in ((2, 1), (4, 3), (6, 15), (8, 105)):
        refuted = 0
        for seed in range(2000):
            x = np.random.default_rng(seed).standard_normal((2000, 1))
            refuted += expectation.interval_of(x**power, np.full_like(x, moment)).refutes
        assert refuted <= 21, (power, refuted)


def test_monte_carlo_evidence_says_it_is_monte_carlo():
    claim = iv.statement("projection-twin", "t", "s", symbols={"x": iv.gaussian("d")}, sizes={"d": (2, 4)},
                         lhs=iv.expect(lambda x: x @ inverse(x.T @ x) @ x.T), rhs=lambda d: eye(d, d),
                         holds=False, corrected=lambda d: eye(d, d) / d)  # fmt: skip
    result = iv.check(claim, max_examples=5)
    evidence = next(e for e in result.evidence if e.kind == iv.Kind.MONTE_CARLO)
    assert evidence.status == "refuted" and "Monte Carlo" in evidence.detail
    cex = result.counterexample
    assert cex["kind"] == "monte_carlo" and cex["values"]["predicted"] == 0.0
    low, high = cex["values"]["interval"]
    assert low <= cex["values"]["estimate"] <= high and not low <= 0 <= high
    from icl_verify.output.report import table  # the text report once crashed on it: KeyError 'estimate'

    assert "counterexample (monte carlo, seed 0)" in table([result])


def test_a_case_undefined_at_every_draw_is_an_error_that_names_the_domain():
    """lhs divides by c − c = 0: every Monte Carlo case is undefined, so the check says how to declare a domain."""
    claim = iv.statement("undefined", "t", "s", symbols={"x": iv.gaussian("d"), "c": iv.scalar()}, symbolic=False,
                         explicit=False, lhs=iv.expect(lambda x, c: tr(x.T @ x) / (c - c)), rhs=lambda d: d)  # fmt: skip
    evidence = claim.checks[-1].run(0, 5).evidence
    assert evidence.status == "error" and "declare the inputs' domain" in evidence.detail


def test_a_numpy_identity_on_the_right_is_taken_exactly_at_concrete_sizes():
    """E[x xᵀ] = I for x ~ N(0, I_d), the rhs written eye(d, d): a NumPy array at concrete d (once an
    'ImmutableDenseNDimArray' crash of the explicit check)."""
    claim = iv.statement("identity-second-moment", "t", "s", symbols={"x": iv.gaussian("d")},
                         lhs=iv.expect(lambda x: x @ x.T), rhs=lambda d: eye(d, d))  # fmt: skip
    result = iv.check(claim, max_examples=3)
    assert result.verdict is iv.Verdict.PROVED and _statuses(result)["explicit"] == "verified"
