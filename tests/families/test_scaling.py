"""The scaling family's claims (icl_verify.families.scaling): the exponent claim's verdict follows its
interval, and K* from the ODE driven by measured constants."""

from __future__ import annotations

import numpy as np
import pytest

from icl_verify import Verdict, check
from icl_verify.families.scaling import memorization, threshold
from icl_verify.numerics.kinetics import ode as kinetics
from tests.experiments.test_scaling import fake_runs


@pytest.mark.parametrize("nu, verdict", [(0.7, Verdict.VERIFIED), (0.95, Verdict.REFUTED)])
def test_exponent_claim_verdict_follows_the_interval(monkeypatch, nu, verdict):
    monkeypatch.setattr(memorization, "claim_runs", lambda seed: tuple(fake_runs(nu, scatter=0.02)))
    result = check(memorization.MEMORIZATION_EXPONENT)
    assert result.verdict is verdict, [e.detail for e in result.evidence]


def test_exponent_claim_is_undecided_when_the_interval_straddles_the_band(monkeypatch):
    monkeypatch.setattr(memorization, "claim_runs", lambda seed: tuple(fake_runs(0.8, runs=2, scatter=0.3)))
    assert check(memorization.MEMORIZATION_EXPONENT).verdict is Verdict.UNPROVEN


@pytest.mark.slow
def test_builtin_scaling_claims_reach_a_verdict_backed_by_an_interval():
    for claim in (memorization.MEMORIZATION_EXPONENT, memorization.MEMORIZATION_TIME_DEFINITIONS):
        result = check(claim)
        assert result.as_expected, result.verdict  # the expected verdict: never UNPROVEN, never a failed control
        assert "95 % bootstrap" in result.evidence[0].detail


# ---------------------------------------------------------------------------------------------
# K* from the ODE driven by measured constants (threshold.critical_context, k-star-slope-is-inverse-nu-claim)


def _memorising_run(k: int, scale: float, c2: float, seed: int = 0) -> dict:
    """A run whose c₁ decays as ½ e^{−t/scale} (c₂ constant), logged on 400 times up to 12 scale; I_K(∞) by trapezoid."""
    t = np.linspace(0.0, 12.0 * scale, 400)
    c1 = 0.5 * np.exp(-t / scale)
    i_inf = float(np.trapezoid(c1, t))
    return {
        "k": k,
        "seed": seed,
        "converged": True,
        "i_inf": i_inf,
        "curves": {"t": t, "c1": c1, "c2": np.full_like(t, c2)},
    }


def _blowup_clock(c2: float) -> float:
    """τ*(w₀ = β₀ = 0; c₂): the blow-up time of dw/dτ = e^β − c₂ w, dβ/dτ = w e^β (n = c₁ = 1 make t = τ)."""
    return float(kinetics.integrate(0.0, 0.0, n=1.0, c1=1.0, c2=c2, t_max=1e6).t_icl[0])


@pytest.mark.parametrize("c2", [0.0, 0.5])
def test_critical_context_is_the_integral_over_the_blowup_clock(c2):
    """With c₂ constant the clock τ = ∫c₁dt/N reduces the ODE to the autonomous one, so ICL iff
    I_K(∞)/N > τ*(c₂): N_c = I_K(∞)/τ*(c₂) (c₂ = 0: √(π/2), claim kinetics-icl-iff-integral-exceeds)."""
    run = _memorising_run(256, 40.0, c2)
    expected = run["i_inf"] / (np.sqrt(np.pi / 2) if c2 == 0 else _blowup_clock(c2))
    got = threshold.critical_context(run)
    assert abs(np.log(got / expected)) <= threshold.CRITICAL_RESOLUTION + 1e-3


def test_critical_context_outside_the_searched_span_is_an_error():
    run = _memorising_run(256, 40.0, 0.0)
    run["i_inf"] *= 10  # the span is then 2.5–12.5 × the true N_c: nothing blows up on it
    with pytest.raises(ValueError, match="no single blow-up threshold"):
        threshold.critical_context(run)


def _slope_estimate(monkeypatch, runs: list[dict]):
    monkeypatch.setattr(threshold, "claim_runs", lambda seed: tuple(runs))
    threshold._critical_contexts.cache_clear()
    try:
        return threshold._measure_slope_from_ode(0)
    finally:
        threshold._critical_contexts.cache_clear()


def test_k_star_slope_is_inverse_nu_when_c2_acts_alike_at_every_k(monkeypatch):
    """I_K(∞) ∝ K^0.7 with scatter, c₂ = ½ at every K: K* ∝ N^{1/ν}, the estimate's interval holds 0."""
    rng = np.random.default_rng(5)
    scales = {(k, i): 2.0 * k**0.7 * np.exp(0.05 * rng.standard_normal()) for k in (128, 512, 2048) for i in range(3)}
    runs = [_memorising_run(k, scale, 0.5, i) for (k, i), scale in scales.items()]
    est = _slope_estimate(monkeypatch, runs)
    assert est.low <= 0.0 <= est.high and est.high - est.low < 0.1


def test_k_star_slope_departs_from_inverse_nu_when_c2_grows_with_k(monkeypatch):
    """c₂ from 0 (K = 128) to 1 (K = 2048) delays the blow-up more at large K: N_c grows more slowly
    than I_K(∞), K*(N) more steeply than N^{1/ν}: the difference 1/ν_c − 1/ν is positive, its interval excludes 0."""
    ks, c2s = (128, 512, 2048), (0.0, 0.5, 1.0)
    runs = [_memorising_run(k, 2.0 * k**0.7, c2, i) for k, c2 in zip(ks, c2s) for i in range(2)]
    # N_c = I_K(∞)/τ*(c₂(K)), so ν_c = 0.7 − d ln τ*/d ln K (least squares over the three K)
    taus = [np.sqrt(np.pi / 2)] + [_blowup_clock(c2) for c2 in c2s[1:]]
    nu_c = 0.7 - np.polyfit(np.log(ks), np.log(taus), 1)[0]
    est = _slope_estimate(monkeypatch, runs)
    assert est.value == pytest.approx(1 / nu_c - 1 / 0.7, abs=0.01)
    assert est.low > 0.0
