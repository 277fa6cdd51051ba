"""The scaling family's claims (icl_verify.families.scaling): the exponent claim's verdict follows its
interval at the look where it stops, a later look trains only the runs it adds (the cap is the fixed-size
sweep), the figure draws the runs the claim used, and K* from the ODE driven by measured constants."""

from __future__ import annotations

import re

import numpy as np
import pytest

from icl_verify import Verdict, check
from icl_verify.experiments import scaling as sweeps
from icl_verify.families.scaling import memorization, threshold
from icl_verify.numerics.kinetics import ode as kinetics
from tests.experiments.test_scaling import fake_runs


def _first(runs: list[dict], per_k: int) -> tuple[dict, ...]:
    """The first ``per_k`` runs at each K, in order (what ``claim_runs(seed, per_k)`` returns)."""
    seen: dict[int, int] = {}
    out = []
    for r in runs:
        seen[r["k"]] = seen.get(r["k"], 0) + 1
        if seen[r["k"]] <= per_k:
            out.append(r)
    return tuple(out)


def _fake_claim_runs(monkeypatch, module, runs: list[dict]) -> list[int]:
    """Replace ``module.claim_runs`` by the first runs per K of ``runs``; returns the run counts asked for."""
    asked: list[int] = []

    def fake(seed: int, per_k: int = memorization.PRESET.runs_per_k) -> tuple[dict, ...]:
        asked.append(per_k)
        return _first(runs, per_k)

    monkeypatch.setattr(module, "claim_runs", fake)
    return asked


@pytest.mark.parametrize("nu, verdict", [(0.7, Verdict.VERIFIED), (0.95, Verdict.REFUTED)])
def test_exponent_claim_decides_at_the_first_look_when_its_interval_does(monkeypatch, nu, verdict):
    asked = _fake_claim_runs(monkeypatch, memorization, fake_runs(nu, runs=6, scatter=0.02))
    result = check(memorization.MEMORIZATION_EXPONENT)
    assert result.verdict is verdict, [e.detail for e in result.evidence]
    assert set(asked) == {4}  # the runs of the cap were never asked for
    assert "4 of the preset's 6 runs/K" in result.evidence[0].detail
    assert "4 of at most 6 runs" in result.evidence[0].detail and "stopped at look 1" in result.evidence[0].detail


def test_exponent_claim_is_undecided_at_the_cap_when_the_interval_straddles_the_band(monkeypatch):
    asked = _fake_claim_runs(monkeypatch, memorization, fake_runs(0.8, runs=6, scatter=0.3))
    result = check(memorization.MEMORIZATION_EXPONENT)
    assert result.verdict is Verdict.UNPROVEN
    assert (
        asked[-1] == 6
        and "6 runs/K" in result.evidence[0].detail
        and "the cap was reached" in result.evidence[0].detail
    )


@pytest.mark.parametrize("nu, scatter, used", [(0.7, 0.02, 4), (0.8, 0.3, 6)])
def test_figure_draws_the_runs_the_claim_used(monkeypatch, nu, scatter, used):
    """The memorization figure shows the runs of the look at which memorization-exponent stopped, and that
    look's fit, and asks for no run the claim did not use."""
    asked = _fake_claim_runs(monkeypatch, memorization, fake_runs(nu, runs=6, scatter=scatter))
    data = memorization._memorization_data(0)
    assert data["K"].size == 5 * used and data["look"][0] == used and max(asked) == used
    est = memorization._measure_nu(0, runs=used, level=data["look"][1])
    assert (data["fit"][1:] == [est.value, est.low, est.high]).all()


def test_a_later_look_trains_only_the_runs_it_adds_and_the_cap_is_the_fixed_size_sweep(monkeypatch):
    """claim_runs(seed, 4) then claim_runs(seed, 6) run 20 then 10 jobs, and return exactly the runs — same
    run seeds, same order — of the whole preset's sweep run at once (what the claims used before looks)."""
    swept: list[list[dict]] = []

    def fake_sweep(fn, configs, results, **kwargs):
        swept.append(list(configs))
        return [
            {
                "hash": sweeps.sweep.config_hash(fn, c),
                "result": [{"k": k, "seed": s} for k, s in zip(c["ks"], c["seeds"])],
            }
            for c in configs
        ]

    monkeypatch.setattr(sweeps.sweep, "run_sweep", fake_sweep)
    memorization._trained.cache_clear()
    try:
        four, six = memorization.claim_runs(7, 4), memorization.claim_runs(7, 6)
    finally:
        memorization._trained.cache_clear()
    assert [len(c) for c in swept] == [20, 10]
    whole = sweeps.run_memorization(memorization.PRESET, seed=7)
    assert list(six) == whole and len(swept[-1]) == 30
    expected = [sweeps.run_seed(7, k, i) for k in (2048, 1024, 512, 256, 128) for i in range(6)]
    assert [r["seed"] for r in six] == expected
    assert list(four) == [r for r in whole if expected.index(r["seed"]) % 6 < 4]


@pytest.mark.slow
def test_builtin_scaling_claims_reach_a_verdict_backed_by_an_interval():
    for claim in (memorization.MEMORIZATION_EXPONENT, memorization.MEMORIZATION_TIME_DEFINITIONS):
        result = check(claim)
        assert result.as_expected, result.verdict  # the expected verdict: never UNPROVEN, never a failed control
        assert re.search(r"[\d.]+ % bootstrap over runs", result.evidence[0].detail)
        assert "sequential: " in result.evidence[0].detail


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
    monkeypatch.setattr(threshold, "claim_runs", lambda seed, per_k=6: tuple(runs))
    threshold._solved.cache_clear()
    try:
        return threshold._measure_slope_from_ode(0)
    finally:
        threshold._solved.cache_clear()


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
