"""The scaling experiments (icl_verify.experiments.scaling): presets, the K* prediction, the exponent fits
and the claims read from a report."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import pytest

from icl_verify import Verdict, check
from icl_verify.experiments import scaling as sweeps
from icl_verify.numerics.kinetics import ode as kinetics
from icl_verify.numerics.scaling.memorization import MemorizationSettings
from icl_verify.numerics.shared.stats import spending_levels

TINY = sweeps.Preset(
    "quick",
    MemorizationSettings(d=8, hidden=16, lr=0.5, batch=16, max_steps=20_000, min_log_gap=5),
    (16, 32, 64),
    runs_per_k=2,
    runs_per_job=1,
    n_boot=200,
    ns=(4, 8),
    threshold_span=(2.0, 16.0),
    threshold_points=5,
    threshold_time=3.0,
    threshold_boot=50,
)


def fake_runs(nu: float, nu_t: float | None = None, runs: int = 3, scatter: float = 0.0) -> list[dict]:
    """Run summaries with I_K(∞) = 3 K^ν (× e^{scatter·ε}) and t_IWL = 2 K^{ν_t}."""
    rng = np.random.default_rng(0)
    out = []
    for k in (128, 256, 512, 1024, 2048):
        for _ in range(runs):
            noise = np.exp(scatter * rng.standard_normal())
            t = 2 * k ** (nu if nu_t is None else nu_t) * noise
            out.append({"k": k, "i_inf": 3 * k**nu * noise, "t_iwl": t, "converged": True})
    return out


def test_preset_configs_record_distinct_seeds_largest_k_first():
    configs = sweeps.PRESETS["quick"].configs(seed=0)
    seeds = [s for c in configs for s in c["seeds"]]
    assert len(seeds) == len(set(seeds)) == 6 * 4
    assert [c["ks"][0] for c in configs] == sorted((c["ks"][0] for c in configs), reverse=True)
    assert all(len(c["seeds"]) == 2 and c["settings"]["hidden"] == 128 for c in configs)
    assert sweeps.PRESETS["quick"].configs(seed=1) != configs


def test_configs_of_fewer_runs_are_the_first_runs_of_the_whole_sweep():
    preset = sweeps.PRESETS["claim"]
    whole = preset.configs(seed=3)
    assert preset.configs(seed=3, runs=preset.runs_per_k) == whole
    first = [c for i, c in enumerate(whole) if i % preset.runs_per_k < 4]  # one run per job, 6 jobs per K
    assert preset.configs(seed=3, runs=4) == first
    for bad in (0, 7, 2.0):
        with pytest.raises(ValueError, match="runs must be"):
            preset.configs(seed=3, runs=bad)


def test_run_memorization_trains_only_the_missing_runs_and_reproduces_the_whole_sweep():
    """Trained one run per K, then two: the second call trains only the added runs (the first ones are
    reused from ``trained``) and the result is bit for bit the sweep of both runs trained at once."""
    trained: dict = {}
    with ThreadPoolExecutor(1) as pool:
        first = sweeps.run_memorization(TINY, seed=4, runs=1, trained=trained, executor=pool)
        reused = dict(trained)
        both = sweeps.run_memorization(TINY, seed=4, runs=2, trained=trained, executor=pool)
        at_once = sweeps.run_memorization(TINY, seed=4, executor=pool)
    assert len(first) == 3 and len(reused) == 3 and len(trained) == 6
    assert all(trained[h] is runs for h, runs in reused.items())  # not trained again
    assert both == at_once
    assert [r for r in both if r in first] == first


def _paired_intervals(seed: int, levels: list[float]) -> list[tuple[float, float]]:
    """ν(t) − ν(I) on one synthetic sweep with I = 3 K^0.7 e^{0.1 ε}, t = 2 K^0.75 e^{0.1 ε + 0.05 η} (true
    difference 0.05), 6 runs at each K of the claim preset; the paired interval of each look (first n runs per K)."""
    rng = np.random.default_rng(seed)
    k = np.array(sweeps.PRESETS["claim"].ks, float)[:, None]
    eps, eta = rng.standard_normal((2, k.size, 6))
    i_inf, t_iwl = 3 * k**0.7 * np.exp(0.1 * eps), 2 * k**0.75 * np.exp(0.1 * eps + 0.05 * eta)
    out = []
    for n, level in zip((4, 6), levels):
        kk = np.repeat(k[:, 0], n)
        d = sweeps.paired_difference(kk, i_inf[:, :n].ravel(), t_iwl[:, :n].ravel(), seed=seed, n_boot=500, level=level)
        out.append((d["low"], d["high"]))
    return out


@pytest.mark.slow  # a calibration simulation: hundreds of synthetic sweeps
def test_paired_difference_covers_at_the_spent_levels_of_both_looks():
    """memorization-time-definitions-agree's interval at the O'Brien–Fleming levels of its looks (4 and 6 runs
    per K): either look misses the true difference in at most α = 5 % of 300 synthetic sweeps (+ 3 binomial
    standard errors)."""
    levels = spending_levels((4, 6))
    reps = 300
    misses = sum(any(not lo <= 0.05 <= hi for lo, hi in _paired_intervals(s, levels)) for s in range(reps))
    assert misses / reps <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)


def test_paper_preset_has_the_authors_settings():
    p = sweeps.PRESETS["paper"]
    assert (p.settings.d, p.settings.hidden, p.settings.lr, p.settings.batch) == (63, 512, 0.01, 128)
    assert len(p.ks) == 10 and p.ks[0] == 498 and p.ks[-1] == 99_998
    assert all(k % 2 == 0 for k in p.ks)


def test_k_star_prediction_solves_i_k_equals_n_tau_star():
    runs = fake_runs(0.7)
    fit, _ = sweeps.fit_exponent(runs)
    pred = sweeps.predict_k_star(fit, runs, replace(TINY, beta0=1.0))
    tau = np.sqrt(np.pi / 2) * np.exp(-1.0)  # τ* at w₀ = 0 (Nguyen & Reddy 2025, §3.4)
    assert pred["tau_star"] == pytest.approx(tau)
    expected = (np.array(TINY.ns) * tau / 3.0) ** (1 / 0.7)
    np.testing.assert_allclose(pred["k_star"], expected, rtol=1e-9)
    assert pred["slope"] == pytest.approx(1 / 0.7)
    assert pred["slope_low"] <= 1 / 0.7 <= pred["slope_high"]
    assert kinetics.tau_star(0.0, 1.0)[0] == pytest.approx(tau)


def test_paired_difference_of_the_two_memorization_times():
    same = sweeps.paired_exponent_difference(fake_runs(0.7, scatter=0.1))
    assert same["difference"] == pytest.approx(0, abs=1e-12) and same["low"] == pytest.approx(0, abs=1e-12)
    shifted = sweeps.paired_exponent_difference(fake_runs(0.7, nu_t=0.9, scatter=0.1))
    assert shifted["difference"] == pytest.approx(0.2, abs=1e-12)


def test_unconverged_runs_are_left_out_and_counted():
    runs = fake_runs(0.7) + [{"k": 4096, "i_inf": 1.0, "t_iwl": None, "converged": False}]
    k, _, dropped = sweeps.usable(runs, "i_inf")
    assert dropped == 1 and 4096 not in k


def test_report_claims_give_verdicts_from_a_report():
    report = {
        "preset": "quick", "seed": 0, "unconverged": 0,
        "nu": {"exponent": 0.7, "low": 0.68, "high": 0.72},
        "k_star_measurement": {"slope": 1.9, "low": 1.8, "high": 2.0, "n": [16, 32], "k_star": [50, 140]},
        "k_star_slope_minus_inverse_nu": {"difference": 0.47, "low": 0.35, "high": 0.6},
    }  # fmt: skip
    nu_claim, slope_claim = sweeps.report_claims(report)
    assert check(nu_claim).verdict is Verdict.VERIFIED
    assert check(slope_claim).verdict is Verdict.REFUTED
